"""The service's guards over real HTTP: 503 with Retry-After, 413, 401, and batch deadlines."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from api import create_app
from api.testing import serve_in_thread
from sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.timeout(120)

SLEEP = "import time\ntime.sleep({s})\nprint('done')"
KEY = "k-7f3a9c-secret-value"


@pytest.fixture(scope="module")
def sandbox():
    sb = Sandbox(SandboxConfig(slots=2))
    yield sb
    sb.close()


def wait_idle(http: httpx.Client, timeout_s: float = 10.0) -> dict:
    end = time.monotonic() + timeout_s
    while True:
        h = http.get("/healthz").json()
        if h["queue_depth"] == 0 and h["executions_in_flight"] == 0:
            return h
        assert time.monotonic() < end, f"queue did not drain: {h['queue_depth']}"
        time.sleep(0.05)


def test_burst_over_the_hard_cap_gets_503_with_retry_after(sandbox):
    app = create_app(sandbox, queue_size=3)
    with serve_in_thread(app) as url:
        body = {"language": "python", "code": SLEEP.format(s=0.8), "limits": {"wall_time_s": 5}}

        async def burst() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=url, timeout=30,
                                         limits=httpx.Limits(max_connections=40)) as c:
                return await asyncio.gather(*[c.post("/v1/run", json=body) for _ in range(24)])

        responses = asyncio.run(burst())
        codes = [r.status_code for r in responses]
        assert set(codes) <= {200, 503}, codes
        assert 1 <= codes.count(200) <= 12 and codes.count(503) >= 12
        for r in responses:
            if r.status_code == 503:
                assert int(r.headers["retry-after"]) >= 1
                assert r.json()["error"] == "overloaded" and r.json()["detail"]["reason"] == "capacity"
            else:
                assert r.json()["verdict"] == "AC"
        with httpx.Client(base_url=url, timeout=30) as http:
            wait_idle(http)
            # Once drained, work is admitted again; refusals were counted.
            assert http.post("/v1/run", json={"language": "python", "code": "print(1)"}).status_code == 200
            assert 'codetest_rejections_total{reason="overloaded"}' in http.get("/metrics").text


def test_admission_is_by_the_clients_deadline_not_by_count(sandbox):
    """With both slots held by sleepers, a request whose client gives it 3 s is refused (it could
    not start in time), while 40 requests whose clients wait 60 s are all taken and all AC."""
    app = create_app(sandbox)
    with serve_in_thread(app) as url:
        sleeper = {"language": "python", "code": SLEEP.format(s=1.5), "limits": {"wall_time_s": 10}}
        quick = {"language": "python", "code": "print(int(input()) + 1)",
                 "tests": [{"stdin": "1\n", "expected_stdout": "2\n"}]}

        async def go() -> tuple[list[httpx.Response], httpx.Response, list[httpx.Response]]:
            async with httpx.AsyncClient(base_url=url, timeout=60, limits=httpx.Limits(max_connections=80)) as c:
                # teach the estimate that an execution holds a slot for about 1.5 s
                await asyncio.gather(c.post("/v1/run", json=sleeper), c.post("/v1/run", json=sleeper))
                sleepers = [asyncio.ensure_future(c.post("/v1/run", json=sleeper)) for _ in range(6)]
                await asyncio.sleep(0.3)
                hurried = await c.post("/v1/run", json=quick, headers={"X-Codetest-Deadline": "3"})
                patient = await asyncio.gather(*[c.post("/v1/run", json=quick, headers={"X-Codetest-Deadline": "60"})
                                                 for _ in range(40)])
                return list(await asyncio.gather(*sleepers)), hurried, list(patient)

        sleepers, hurried, patient = asyncio.run(go())
        assert all(r.status_code == 200 and r.json()["verdict"] == "AC" for r in sleepers)
        assert hurried.status_code == 503, hurried.text
        assert hurried.json()["detail"]["reason"] == "deadline" and int(hurried.headers["retry-after"]) >= 1
        assert [r.status_code for r in patient] == [200] * 40
        assert all(r.json()["verdict"] == "AC" for r in patient)


def test_a_job_is_never_refused_for_taking_longer_than_its_own_limits_allow():
    """The estimate of a job's own run is the recent average slot time of other programs. After
    sleepers it is their wall limit, longer than a quick job's client allows: verl at 256 in flight,
    right after a round with never-finishing completions, had every request refused this way
    (depth 1, wait 0 s, "could not finish within its 14s deadline") and scored correct programs 0.
    No estimate may exceed what the job's own limits let it take."""
    from api.admission import Admission, Overloaded

    adm = Admission(capacity=100, slots=4)
    for _ in range(20):
        adm.observe(12.5)  # the sleepers of the last round, each at its wall limit
    held = adm.lease(1)
    with pytest.raises(Overloaded):
        adm.lease(1, deadline_s=14.0)  # the estimate alone: 12.5 s of own run against 12 s left
    adm.lease(1, deadline_s=14.0, own_max_s=5.0).close()  # its wall limit is 5 s: it can finish
    with pytest.raises(Overloaded):
        adm.lease(1, deadline_s=6.0, own_max_s=5.0)  # one whose limits do not fit is still refused
    held.close()


def test_after_sleepers_a_quick_request_with_room_for_its_limits_is_taken():
    sb = Sandbox(SandboxConfig(slots=2))
    try:
        with serve_in_thread(create_app(sb)) as url:
            sleeper = {"language": "python", "code": SLEEP.format(s=2.5), "limits": {"wall_time_s": 10}}

            async def go() -> httpx.Response:
                async with httpx.AsyncClient(base_url=url, timeout=60) as c:
                    for _ in range(3):  # teach the estimate that an execution holds its slot 2.5 s
                        pair = await asyncio.gather(c.post("/v1/run", json=sleeper), c.post("/v1/run", json=sleeper))
                        assert [r.status_code for r in pair] == [200, 200]
                    assert (await c.get("/healthz")).json()["admission"]["avg_execution_s"] > 1.5
                    busy = asyncio.ensure_future(c.post("/v1/run", json=sleeper))  # one slot taken, one free
                    await asyncio.sleep(0.5)
                    quick = {"language": "python", "code": "print(int(input()) + 1)", "limits": {"time_s": 0.25,
                             "wall_time_s": 0.5}, "tests": [{"stdin": "1\n", "expected_stdout": "2\n"}]}
                    r = await c.post("/v1/run", json=quick, headers={"X-Codetest-Deadline": "3"})
                    assert (await busy).status_code == 200
                    return r

            r = asyncio.run(go())
            assert r.status_code == 200 and r.json()["verdict"] == "AC", r.text
    finally:
        sb.close()


def test_oversized_bodies_get_413(sandbox):
    app = create_app(sandbox, max_body_bytes=20_000)
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        big = {"language": "python", "code": "print(1)  # " + "x" * 30_000}
        r = http.post("/v1/run", json=big)
        assert r.status_code == 413 and r.json()["error"] == "payload_too_large"

        def chunks():  # no Content-Length: the cap is enforced on the bytes that arrive
            yield b'{"language": "python", "code": "print(1)  # '
            for _ in range(40):
                yield b"y" * 1000
            yield b'"}'

        r = http.post("/v1/run", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413

        def small():
            yield b'{"language": "python", '
            yield b'"code": "print(2)"}'

        r = http.post("/v1/run", content=small(), headers={"content-type": "application/json"})
        assert r.status_code == 200 and r.json()["tests"][0]["stdout"] == "2\n"
        r = http.post("/v1/run", json={"language": "python", "code": "print(3)"})
        assert r.status_code == 200


def test_api_keys(sandbox):
    app = create_app(sandbox, api_keys=[KEY, "second-key"])
    body = {"language": "python", "code": "print(1)"}
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/v1/run", json=body)
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        wrong = "k-7f3a9c-secret-valuX"
        r = http.post("/v1/run", json=body, headers={"Authorization": f"Bearer {wrong}"})
        assert r.status_code == 401
        assert wrong not in r.text and KEY not in r.text
        assert http.post("/v1/run", json=body, headers={"X-API-Key": "nope"}).status_code == 401
        assert http.post("/v1/run", json=body, headers={"Authorization": f"Basic {KEY}"}).status_code == 401
        assert http.post("/v1/run", json=body, headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
        assert http.post("/v1/run", json=body, headers={"X-API-Key": "second-key"}).status_code == 200
        for path in ("/v1/reward", "/run_code", "/get_reward", "/metrics"):
            assert http.request("POST" if path != "/metrics" else "GET", path, json={}).status_code == 401
        # Probes and the API description stay reachable; none of them carries a key.
        for path in ("/healthz", "/openapi.json"):
            r = http.get(path)
            assert r.status_code == 200 and KEY not in r.text and "second-key" not in r.text
        metrics = http.get("/metrics", headers={"X-API-Key": KEY}).text
        assert KEY not in metrics and 'codetest_rejections_total{reason="unauthorized"}' in metrics


def test_serve_refuses_a_public_address_without_a_key(monkeypatch):
    from api.server import ConfigError, check_exposure

    monkeypatch.delenv("CODETEST_API_KEYS", raising=False)
    with pytest.raises(ConfigError):
        check_exposure("0.0.0.0", [])
    with pytest.raises(ConfigError):
        check_exposure("example.org", [])
    check_exposure("0.0.0.0", ["k"])
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        check_exposure(host, [])


def test_deadline_mid_batch_returns_partial_results(sandbox):
    app = create_app(sandbox, reward_window=2)
    items = [{"id": i, "code": SLEEP.format(s=0.7), "language": "python", "limits": {"wall_time_s": 5},
              "tests": [{"stdin": "", "expected_stdout": "done\n"}]} for i in range(8)]
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        t0 = time.monotonic()
        r = http.post("/v1/reward", json={"items": items, "deadline_s": 1.2})
        elapsed = time.monotonic() - t0
        assert r.status_code == 200, r.text
        out = r.json()
        assert elapsed < 4.0, elapsed
        results = out["results"]
        assert [x["id"] for x in results] == list(range(8))
        done = [x for x in results if x["reward"] is not None]
        late = [x for x in results if x["reward"] is None]
        assert done and late, results
        assert all(x["reward"] == 1.0 and x["verdict"] == "AC" for x in done)
        assert all("deadline" in x["error"] and x["verdict"] is None for x in late)
        assert out["stats"]["deadline_hit"] is True and out["stats"]["null"] == len(late)
        # Nothing hangs: the executions already running finish, and the queue drains.
        wait_idle(http)
        again = http.post("/v1/reward", json={"items": items[:2], "deadline_s": 30}).json()["results"]
        assert [x["reward"] for x in again] == [1.0, 1.0]


def test_sandbox_below_minimum_isolation_answers_503():
    # An operator requiring gVisor on the native backend: the sandbox must refuse to run code.
    sb = Sandbox(SandboxConfig(slots=1, required_layers=("namespaces", "seccomp", "gvisor")))
    try:
        with serve_in_thread(create_app(sb)) as url, httpx.Client(base_url=url, timeout=30) as http:
            h = http.get("/healthz")
            assert h.status_code == 503 and h.json()["ok"] is False
            assert any("gvisor" in p for p in h.json()["problems"])
            r = http.post("/v1/run", json={"language": "python", "code": "print(1)"})
            assert r.status_code == 503 and r.json()["error"] == "sandbox_unavailable"
            assert int(r.headers["retry-after"]) > 0
            assert http.post("/run_code", json={"language": "python", "code": "print(1)"}).status_code == 503
            res = http.post("/v1/reward", json={"items": [{"code": "print(1)", "language": "python"}]}).json()
            assert res["results"][0]["reward"] is None and "unavailable" in res["results"][0]["error"]
    finally:
        sb.close()


def test_output_budget_is_enforced(sandbox):
    app = create_app(sandbox)
    many = [{"stdin": "", "expected_stdout": ""}] * 9000
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/v1/run", json={"language": "python", "code": "pass", "tests": many,
                                       "limits": {"output_kb": 1024}})
        assert r.status_code == 422 and "output_kb" in r.json()["message"]
        item = {"code": "pass", "language": "python", "tests": many, "limits": {"output_kb": 1024}}
        res = http.post("/v1/reward", json={"items": [item]}).json()["results"][0]
        assert res["reward"] is None and "output" in res["error"]


def test_a_program_that_cannot_start_in_its_clients_time_is_refused_not_judged(sandbox):
    """Its turn comes with less time left than its CPU limit: 503 (504 on /run_code, the status
    verl retries) with Retry-After, and nothing is judged."""
    job = {"language": "python", "code": "print(1)", "limits": {"time_s": 2},
           "tests": [{"stdin": "", "expected_stdout": "1\n"}]}
    with serve_in_thread(create_app(sandbox)) as url, httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/v1/run", json=job, headers={"X-Codetest-Deadline": "3"})  # 1 s after the margin
        assert r.status_code == 503 and r.headers["retry-after"] == "1", r.text
        assert r.json()["error"] == "overloaded" and "not started" in r.json()["message"]
        r = http.post("/run_code", json={"code": "print(1)", "language": "python", "run_timeout": 2},
                      headers={"X-Codetest-Deadline": "3"})
        assert r.status_code == 504 and r.headers["retry-after"] == "1", r.text
        assert "not started" in r.json()["message"]
        assert http.post("/v1/run", json=job).json()["verdict"] == "AC"  # with its time: judged


def test_the_clock_allowance_fits_the_time_left_and_never_cuts_the_wall_limit():
    from sandbox.jail.protocol import Limits

    lim = Limits(cpu_s=2, wall_s=5, memory_bytes=1 << 28, output_bytes=1 << 20, processes=8,
                 file_size_bytes=1 << 20, wait_allowance=4)
    assert lim.within(100) is lim and lim.clock_budget_s() == 25
    assert lim.within(12).clock_budget_s() == pytest.approx(12)
    assert lim.within(3).clock_budget_s() == 5 and lim.within(-1).wall_s == 5  # the program's own limit stays


def test_a_program_starts_only_while_it_can_use_its_whole_limit_sharing_a_core():
    """The latest start leaves twice the CPU limit (2 programs share a core under the CPU gate);
    a client whose whole time is shorter than that: half of it, never less than the limit."""
    from api.runner import MARGIN_S, whole_answer_due

    def needs(seconds: float, cpu_s: float) -> float:
        d = whole_answer_due(seconds, cpu_s)
        return d.reply_by - d.start_by

    assert needs(12, 1) == pytest.approx(2)  # verl, timeout=1: HTTP 12 s
    assert needs(21, 10) == pytest.approx(10)  # verl, run 10 s, compile 1 s: 19 s to answer in
    assert needs(30, 10) == pytest.approx((30 - MARGIN_S) / 2)
