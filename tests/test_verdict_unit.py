"""The one verdict function (sandbox.verdict), the function-call result reader, the output
budget and the configuration casts, on their own (no jail): each rule a user relies on."""

from __future__ import annotations

import signal

import pytest

from sandbox import SandboxConfig, Verdict
from sandbox.errors import ConfigError
from sandbox.function_call import MAX_DEPTH, Unreadable, parse_result
from sandbox.jail.protocol import Facts
from sandbox.output_budget import GLOBAL, JOB, OutputBudget, json_cost
from sandbox.verdict import Outcome, decide, decide_compile

MB = 1 << 20


def v(facts: Facts, outcome=None, **kw) -> Verdict:
    return decide(facts, 1.0, 256 * MB, outcome, **kw).verdict


def test_se_only_when_the_sandbox_failed():
    assert v(Facts(error="slot broke")) == Verdict.SE
    # Nothing a program can make of its facts is SE.
    for f in (Facts(exit_code=0), Facts(exit_code=1), Facts(signal=signal.SIGSEGV), Facts(killed_by="output"),
              Facts(killed_by="memory"), Facts(killed_by="wall"), Facts(exit_code=0, cpu_s=99.0)):
        for outcome in (None, Outcome.ACCEPTED, Outcome.REJECTED):
            assert v(f, outcome) != Verdict.SE, (f, outcome)


def test_limits_in_order_ole_mle_tle_re():
    assert v(Facts(killed_by="output", signal=9)) == Verdict.OLE
    assert v(Facts(killed_by="memory", signal=9)) == Verdict.MLE
    assert v(Facts(oom_kill=True, signal=9)) == Verdict.MLE
    assert v(Facts(exit_code=1, stderr=b"Traceback...\nMemoryError\n")) == Verdict.MLE
    assert v(Facts(signal=signal.SIGKILL, memory_bytes=255 * MB)) == Verdict.MLE
    assert v(Facts(killed_by="cpu", signal=9, memory_bytes=300 * MB)) == Verdict.MLE  # peak over the limit
    assert v(Facts(exit_code=0, memory_bytes=300 * MB)) == Verdict.AC  # a clean exit is judged by its output
    assert v(Facts(killed_by="wall", signal=9)) == Verdict.TLE
    assert v(Facts(killed_by="cpu", signal=9)) == Verdict.TLE
    assert v(Facts(exit_code=0, cpu_s=1.5)) == Verdict.TLE
    assert v(Facts(exit_code=3)) == Verdict.RE
    assert v(Facts(signal=signal.SIGSEGV)) == Verdict.RE


def test_comparison_decides_only_a_clean_run():
    assert v(Facts(exit_code=0), Outcome.ACCEPTED) == Verdict.AC
    assert v(Facts(exit_code=0), None) == Verdict.AC
    assert v(Facts(exit_code=0), Outcome.REJECTED) == Verdict.WA
    assert v(Facts(exit_code=0), Outcome.CHECKER_FAILED) == Verdict.SE
    assert v(Facts(exit_code=1), Outcome.ACCEPTED) == Verdict.RE


def test_output_budgets():
    assert v(Facts(exit_code=0), Outcome.ACCEPTED, over_job_output_budget=True) == Verdict.OLE
    assert v(Facts(exit_code=0), Outcome.ACCEPTED, over_server_output_budget=True) == Verdict.SE
    b = OutputBudget(total_bytes=100, job_bytes=60)
    j1, j2 = b.job(), b.job()
    assert j1.keep(50) is None and j1.keep(20) == JOB
    assert j2.keep(51) == GLOBAL and j2.refused == GLOBAL
    j1.release()
    j1.release()  # once
    assert b.used == 0 and j2.keep(51) is None


def test_json_cost_is_an_upper_bound_of_the_encoded_size():
    import json

    for data in (b"abc", b"\x01" * 100, b'"\\', b"\xff\xfe", "\u00e9\u4e2d".encode(), bytes(range(256))):
        text = data.decode("utf-8", "replace")
        assert json_cost(data) >= len(json.dumps(text, ensure_ascii=False).encode()) - 2


def test_compile_outcomes_that_may_be_cached():
    ok = decide_compile(Facts(exit_code=0), 0.1)
    assert ok.result.ok and ok.cacheable
    rejected = decide_compile(Facts(exit_code=1, stderr=b"error: x"), 0.1)
    assert not rejected.result.ok and rejected.cacheable
    for f in (Facts(killed_by="wall", signal=9), Facts(killed_by="cpu", signal=9), Facts(killed_by="memory"),
              Facts(signal=signal.SIGKILL), Facts(killed_by="output")):
        d = decide_compile(f, 0.1)
        assert not d.result.ok and not d.cacheable and not d.sandbox_failed, f
    starved = decide_compile(Facts(exit_code=1, stderr=b"cc1plus: out of memory allocating 65536 bytes"), 0.1)
    assert not starved.result.ok and not starved.cacheable
    slow = decide_compile(Facts(exit_code=0, cpu_s=2.0), 2.5, cpu_limit_s=1.0)
    assert not slow.result.ok and not slow.cacheable and "timed out" in slow.result.stderr
    se = decide_compile(Facts(error="broken"), 0.1)
    assert se.sandbox_failed and not se.cacheable


def test_function_results_are_read_with_bounded_size_and_depth():
    assert parse_result(b"[1, 2.5, \"x\", null]") == [1, 2.5, "x", None]
    from decimal import Decimal

    assert parse_result(("1" * 5000).encode()) == int(Decimal("1" * 5000))  # past the 4300-digit str limit
    nan = parse_result(b"NaN")
    assert nan != nan
    for bad in (b"[" * 200000, b"{\"a\":" * 200000, b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
                b"not json", b"", b"[1,", b"1" * 100):
        with pytest.raises(Unreadable):
            parse_result(bad, max_bytes=64 if bad == b"1" * 100 else 1 << 20)
    assert parse_result(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    assert parse_result(b'"[[[[' + b"[" * 1000 + b'"') == "[[[[" + "[" * 1000  # brackets in strings are text


def test_configuration_casts_loudly(monkeypatch):
    monkeypatch.setenv("CODETEST_SLOTS", "two")
    with pytest.raises(ConfigError, match="CODETEST_SLOTS"):
        SandboxConfig()
    monkeypatch.setenv("CODETEST_SLOTS", "3")
    monkeypatch.setenv("CODETEST_COMPILE_WALL_MAX_S", "-1")
    with pytest.raises(ConfigError, match="CODETEST_COMPILE_WALL_MAX_S"):
        SandboxConfig()
    monkeypatch.setenv("CODETEST_COMPILE_WALL_MAX_S", "20")
    monkeypatch.setenv("CODETEST_UID_BASE", "400000")
    cfg = SandboxConfig()
    assert cfg.slots == 3 and cfg.compile_wall_max_s == 20.0
    from sandbox.config import DockerSettings

    monkeypatch.setenv("CODETEST_DOCKER_PIDS", "lots")
    with pytest.raises(ConfigError, match="CODETEST_DOCKER_PIDS"):
        DockerSettings.from_config(cfg)
    monkeypatch.delenv("CODETEST_DOCKER_PIDS")
    assert DockerSettings.from_config(cfg).uid_base == 401000  # one uid base for both backends


def test_one_alias_table():
    from sandbox.languages import canonical_name

    assert [canonical_name(n) for n in ("c++17", "Python3", "nodejs", "golang", "rs", "kotlin")] == \
        ["cpp", "python", "javascript", "go", "rust", "kotlin"]
