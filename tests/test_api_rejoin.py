"""`/run_code`: a run still going when its request's time is nearly up goes on, its request gets
504, and the same request again joins it (api/rejoin.py). Through a real service on 127.0.0.1.

The request's time is set with ``X-Codetest-Deadline: 4`` (the service answers 2 s before it, so
after 2 s; a run must start within it, with its CPU limit, ``run_timeout`` 1 s, still left). The
program prints a fresh uuid, then sleeps 2.3 s: past the request's time, within its 3 s wall
limit, so the run ends by itself, judged TimeLimitExceeded (it slept past ``run_timeout``, as
SandboxFusion judges elapsed time), and its uuid says which run an answer came from."""

from __future__ import annotations

import httpx

from api.app import create_app
from api.testing import serve_in_thread
from conftest import counter_total

SLOW = "import time, uuid\nprint(uuid.uuid4().hex, flush=True)\ntime.sleep(2.3)\n"
BODY = {"code": SLOW, "language": "python", "run_timeout": 1}
SHORT = {"X-Codetest-Deadline": "4"}


def _counter(http: httpx.Client, name: str) -> float:
    return counter_total(http.get("/metrics").text, name)


def _judged(http: httpx.Client) -> float:
    """Programs run (the executions counter also counts work refused before it started, as "error")."""
    return counter_total(http.get("/metrics").text, "codetest_executions_total", unless='verdict="error"')


def test_the_retry_of_a_504_joins_the_run_its_first_request_left(sandbox):
    with serve_in_thread(create_app(sandbox)) as url, httpx.Client(base_url=url, timeout=30) as http:
        first = http.post("/run_code", json=BODY, headers=SHORT)
        assert first.status_code == 504 and first.headers["retry-after"] == "1", first.text
        assert first.json()["error"] == "still_running", first.text
        # The same body joins the run (its own time may differ: the key is the body and the API key).
        retry = http.post("/run_code", json=BODY, headers={"X-Codetest-Deadline": "10"})
        assert retry.status_code == 200, retry.text
        out = retry.json()
        assert out["run_result"]["status"] == "TimeLimitExceeded", out  # the run's own answer, not a cut
        assert out["run_result"]["execution_time"] > 2.3 and len(out["run_result"]["stdout"].strip()) == 32, out
        assert _judged(http) == 1  # one run for both requests
        assert _counter(http, "codetest_run_code_still_running_total") == 1
        assert _counter(http, "codetest_run_code_rejoined_total") == 1
        # Delivered, the run is forgotten: the same request now is a new run with its own answer.
        again = http.post("/run_code", json=BODY, headers={"X-Codetest-Deadline": "10"})
        assert again.status_code == 200 and again.json()["run_result"]["stdout"] != out["run_result"]["stdout"]
        assert _judged(http) == 2


def test_a_run_is_joined_only_by_the_same_request_from_the_same_key(sandbox):
    keys = ["key-one", "key-two"]
    with serve_in_thread(create_app(sandbox, api_keys=keys)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": keys[0]}) as http:
        r = http.post("/run_code", json=BODY, headers=SHORT)
        assert r.status_code == 504, r.text
        other_key = http.post("/run_code", json=BODY, headers={"X-API-Key": keys[1], "X-Codetest-Deadline": "10"})
        other_body = http.post("/run_code", json={**BODY, "stdin": "x"}, headers={"X-Codetest-Deadline": "10"})
        for resp in (other_key, other_body):
            assert resp.status_code == 200 and len(resp.json()["run_result"]["stdout"].strip()) == 32, resp.text
        assert _counter(http, "codetest_run_code_rejoined_total") == 0
        assert _judged(http) == 3


def test_a_run_that_was_never_judged_is_not_joined(sandbox):
    # Not started within its request's time (its 10 s CPU limit cannot fit in 4 s less the
    # margin): 504 "not started", and the same request again is a new attempt, not a join.
    body = {"code": "print(1)", "language": "python", "run_timeout": 10}
    with serve_in_thread(create_app(sandbox)) as url, httpx.Client(base_url=url, timeout=30) as http:
        for _ in range(2):
            r = http.post("/run_code", json=body, headers=SHORT)
            assert r.status_code == 504 and "not started" in r.json()["message"], r.text
        assert _counter(http, "codetest_run_code_rejoined_total") == 0
        assert _judged(http) == 0
        assert http.post("/run_code", json=body).json()["run_result"]["stdout"] == "1\n"
