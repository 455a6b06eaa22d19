"""The service's output budgets (issue 11, finding 4), through a real uvicorn on 127.0.0.1.

A job keeps at most CODETEST_JOB_OUTPUT_MB of output in its result (past it: OLE, said so);
all jobs in flight at most CODETEST_OUTPUT_BUDGET_MB together (past it: 429 with a message
and Retry-After; on /v1/reward a null reward with the reason). The full 16 x 16 MiB flood
against a memory-capped service process is tests/test_attacks_output.py.
"""

from __future__ import annotations

import httpx
import pytest

from api.app import create_app
from api.testing import serve_in_thread
from sandbox import RunRequest, Sandbox, SandboxConfig, TestCase, Verdict

KIB = 1024
PRINT_400K = "import sys\nsys.stdout.write('a' * (400 * 1024))\n"
PRINT_CONTROL = "import sys\nsys.stdout.buffer.write(b'\\x01' * (200 * 1024))\n"


@pytest.fixture(scope="module")
def small_budget_sandbox(tmp_path_factory):
    sb = Sandbox(SandboxConfig(slots=2, job_output_mb=1, total_output_mb=2,
                               state_dir=str(tmp_path_factory.mktemp("budget-state"))))
    yield sb
    sb.close()


def _job(code: str, n: int) -> RunRequest:
    return RunRequest(language="python", code=code, tests=[TestCase(stdin="")] * n)


def test_a_job_keeps_at_most_its_output_budget_and_says_so(small_budget_sandbox):
    res = small_budget_sandbox.run(_job(PRINT_400K, 4))
    verdicts = sorted(t.verdict.value for t in res.tests)
    assert verdicts == ["AC", "AC", "OLE", "OLE"], verdicts  # 2 x 400 KiB fit in 1 MiB, a third does not
    for t in res.tests:
        if t.verdict == Verdict.AC:
            assert len(t.stdout) == 400 * KIB  # what is returned is whole
        else:
            assert t.stdout == "" and "per-job output budget" in (t.message or "")
    assert small_budget_sandbox.output_budget.used == 0  # released with the result


def test_control_bytes_are_charged_at_their_json_cost(small_budget_sandbox):
    # 200 KiB of \x01 is 1.2 MiB of JSON: over the 1 MiB job budget on its own.
    res = small_budget_sandbox.run(_job(PRINT_CONTROL, 1))
    assert res.tests[0].verdict == Verdict.OLE and res.tests[0].stdout == ""


def test_past_the_server_budget_a_request_gets_429_then_serves_again(small_budget_sandbox):
    sb = small_budget_sandbox
    with serve_in_thread(create_app(sb)) as url:
        held = [sb.run(_job(PRINT_400K, 2), hold_output=True) for _ in range(2)]  # 1.6 MiB of 2 held
        assert all(r.verdict == Verdict.AC for r in held)
        body = {"language": "python", "code": PRINT_400K, "tests": [{"stdin": ""}, {"stdin": ""}]}
        r = httpx.post(url + "/v1/run", json=body, timeout=120)
        assert r.status_code == 429, r.text[:500]
        assert r.headers.get("retry-after") and "output" in r.json()["message"]
        rw = httpx.post(url + "/v1/reward", json={"items": [{"code": PRINT_400K, "language": "python",
                                                            "tests": [{"stdin": ""}, {"stdin": ""}]}]}, timeout=120)
        assert rw.status_code == 200 and rw.json()["results"][0]["reward"] is None
        assert "saturated" in rw.json()["results"][0]["error"]
        for h in held:
            h.release_output()
        assert sb.output_budget.used == 0
        ok = httpx.post(url + "/v1/run", json=body, timeout=120)
        assert ok.status_code == 200 and ok.json()["verdict"] == "AC"
        assert [len(t["stdout"]) for t in ok.json()["tests"]] == [400 * KIB, 400 * KIB]
        assert sb.output_budget.used == 0  # the service released it once the answer was encoded


def test_a_large_answer_streams_as_valid_json_with_every_byte(sandbox):
    # 4 x 512 KiB of control bytes: 12 MiB of JSON, sent test by test.
    code = "import sys\nsys.stdout.buffer.write(bytes([1, 34, 92, 10]) * (128 * 1024) + b'\\xff')\n"
    with serve_in_thread(create_app(sandbox)) as url:
        r = httpx.post(url + "/v1/run", json={"language": "python", "code": code, "stop_on_first_failure": True,
                                              "tests": [{"stdin": ""}] * 4}, timeout=120)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    res = r.json()
    assert res["verdict"] == "AC" and res["passed"] == 4 and res["compile"]["ok"]
    assert [t["stdout"] for t in res["tests"]] == ["\x01\"\\\n" * (128 * 1024) + "\ufffd"] * 4
    assert sandbox.output_budget.used == 0
