"""The trainers' own reward clients against a real ``codetest`` service, at their default concurrency.

Not an imitation: verl's ``sandbox_fusion`` module (``pip install verl --no-deps``), the
``sandbox-fusion`` SDK from PyPI, and OpenRLHF's ``SingleTurnAgentExecutor`` (its HTTP reward
request and its reward-function-file path, ``pip install openrlhf --no-deps``), each sending a
mix of correct, partly right, wrong, crashing, CPU-looping and sleeping completions (a quarter
of them never finish) to a service started as a deployment runs it (``python -m api``, its
default slots). Every score must be the one SandboxFusion semantics give: 0 wrong, no API
errors, no 429/503, no read time-out.

Cost: about a minute on 2 cores (the looping completions burn their CPU limit).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest

from _real_clients import MIX, PROMPT, load_verl_sandbox_fusion, mix, openrlhf_label, cases_json, verl_mismatch

pytestmark = [pytest.mark.timeout(400), pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
# 32 slots under this base: apart from the other suites' uids.
UID_BASE = int(os.environ.get("CODETEST_UID_BASE", "64000")) + 700
TIME_S = 1  # verl's `timeout` (compile and run), and OpenRLHF's label limit


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Iterator[str]:
    from bench.server import Server

    tmp = tmp_path_factory.mktemp("clients")
    server = Server(str(tmp / "state"), UID_BASE, str(tmp / "server.log"))
    # 32 slots start in seconds; the default (64 per core) in tens of seconds on a loaded
    # machine. bench/trainer_load.py measures the default, at 64 and 256 in flight.
    saved = os.environ.get("CODETEST_SLOTS")
    os.environ["CODETEST_SLOTS"] = "32"
    try:
        url = server.start(timeout_s=240)
    finally:
        if saved is None:
            os.environ.pop("CODETEST_SLOTS", None)
        else:
            os.environ["CODETEST_SLOTS"] = saved
    try:
        yield url
    finally:
        server.stop()
        log = server.log_tail()
        assert "Traceback" not in log, log


def verl_run(sf, url: str, completions, concurrency: int = 64, workers: int = 64) -> list[tuple]:
    """verl's reward loop: compute_score per completion from a pool, one semaphore of
    ``sandbox_fusion.max_concurrent`` (default 64) around every /run_code call."""
    semaphore = threading.Semaphore(concurrency)

    def one(c):
        score, meta = sf.compute_score(url + "/run_code", semaphore, 1024, c.text, cases_json(), False, TIME_S)
        return c, score, meta

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, completions))


def test_verl_sandbox_fusion_at_its_default_concurrency(service: str) -> None:
    sf = load_verl_sandbox_fusion()
    completions = mix(48)
    t0 = time.monotonic()
    results = verl_run(sf, service, completions)
    elapsed = time.monotonic() - t0
    wrong = [m for m in (verl_mismatch(c, s, meta) for c, s, meta in results) if m]
    assert not wrong, f"{len(wrong)} of {len(results)} wrong: {wrong[:5]}"
    print(f"verl: {len(results)} completions x 4 tests in {elapsed:.1f}s, 0 wrong")


def test_sandbox_fusion_sdk_at_its_default_concurrency(service: str) -> None:
    import sandbox_fusion as sdk

    completions = [c for c in mix(40)]
    requests_ = [sdk.RunCodeRequest(code=c.text.split("```python\n")[1].split("```")[0], language="python",
                                    stdin="7\n", run_timeout=TIME_S, compile_timeout=TIME_S) for c in completions]
    results = sdk.run_concurrent(sdk.run_code, kwargs=[{"request": r, "endpoint": service} for r in requests_])
    stdout_for_7 = {"correct": "14\n", "half": "49\n", "wrong": "7\n"}
    for c, res in zip(completions, results):
        if c.kind in ("loop", "sleep"):
            assert res.status == "Failed" and res.run_result.status == "TimeLimitExceeded", (c.kind, res)
        elif c.kind in ("crash", "crash_one"):  # crash_one crashes on 7
            assert res.status == "Failed" and res.run_result.return_code not in (0, None), (c.kind, res)
        else:
            assert res.status == "Success" and res.run_result.stdout == stdout_for_7[c.kind], (c.kind, res)


def _openrlhf_executor(url_or_file: str):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    return SingleTurnAgentExecutor(url_or_file)


def test_openrlhf_remote_reward_at_256_in_flight(service: str) -> None:
    """OpenRLHF's own request code (one query per request, 5 tries 1 s apart, Retry-After
    ignored, 180 s total) for 256 samples at once: every sample gets its reward."""
    executor = _openrlhf_executor(service + "/get_reward")
    completions = mix(256, loops_share=0.1)

    async def all_samples():
        return await asyncio.gather(*[
            executor._fetch_rewards_via_http([PROMPT + c.text], [PROMPT], [openrlhf_label(TIME_S)])
            for c in completions])

    t0 = time.monotonic()
    answers = asyncio.run(all_samples())
    elapsed = time.monotonic() - t0
    wrong = []
    for c, ans in zip(completions, answers):
        info = ans[0]
        if info["rewards"] != [c.score] or info["extra_logs"]["sandbox_error"] != [0.0]:
            wrong.append((c.kind, info["rewards"], info.get("errors")))
    assert not wrong, f"{len(wrong)} of {len(answers)} wrong: {wrong[:5]}"
    print(f"openrlhf http: 256 samples in {elapsed:.1f}s, 0 wrong")


def test_openrlhf_reward_function_file(service: str, monkeypatch) -> None:
    """``--remote_rm_url path/to/client/rewards/openrlhf.py``: OpenRLHF loads our file by path
    and calls its reward_func from its own thread pool."""
    import client.rewards.openrlhf as ours

    monkeypatch.setenv("CODETEST_URL", service)
    executor = _openrlhf_executor(ours.__file__)
    completions = [MIX[k] for k in ("correct", "half", "crash_one", "wrong", "crash", "sleep", "loop")] * 2
    label = {"inputs": ["2", "5", "7", "10"], "outputs": ["4", "10", "14", "20"], "limits": {"time_s": TIME_S}}

    async def all_samples():
        import json

        return await asyncio.gather(*[
            executor._fetch_rewards_via_func([PROMPT + c.text], [PROMPT], [json.dumps(label)]) for c in completions])

    answers = asyncio.run(all_samples())
    for c, ans in zip(completions, answers):
        info = ans[0]
        assert float(info["rewards"][0]) == c.score, (c.kind, info)
        assert float(info["extra_logs"]["codetest_failed"][0]) == 0.0, (c.kind, info)
