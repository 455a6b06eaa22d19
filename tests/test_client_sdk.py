"""The SDK against real servers on 127.0.0.1: the real service, and a scripted one for failures.

The scripted server is a tiny ASGI app on a real uvicorn that answers with the statuses a
test asks for (429 with Retry-After, 5xx, 4xx, slow answers) and records how many
requests were in flight at once, so retries, deadlines and the concurrency cap are
observed on the wire, not assumed.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from api import create_app
from api.testing import serve_in_thread
from client import APIError, AsyncClient, Client, ConnectionFailed, DeadlineExceeded
from sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.timeout(120)
KEY = "sdk-test-key-31337"


@pytest.fixture(scope="module")
def service_url():
    sb = Sandbox(SandboxConfig(slots=2))
    with serve_in_thread(create_app(sb, api_keys=[KEY])) as url:
        yield url
    sb.close()


# ------------------------------------------------------------------ against the real service

def test_sync_client_endpoints(service_url):
    with Client(service_url, api_key=KEY) as c:
        res = c.run("python", "print(input()[::-1])", [{"stdin": "abc\n", "expected_stdout": "cba\n"}])
        assert res["verdict"] == "AC" and res["passed"] == 1
        assert c.run("python", "import sys; sys.exit(2)")["verdict"] == "RE"
        items = [{"id": "a", "completion": "```python\nprint(1)\n```", "tests": [{"expected_stdout": "1\n"}]},
                 {"id": "b", "code": "print(2)", "language": "python", "tests": [{"expected_stdout": "1\n"}]}]
        assert [(r["id"], r["reward"]) for r in c.reward(items)] == [("a", 1.0), ("b", 0.0)]
        fused = c.run_code("print(input())", "python", "hi")
        assert fused["status"] == "Success" and fused["run_result"]["stdout"] == "hi\n"
        health = c.health()
        assert health["ok"] and "python" in health["languages"]
        assert "codetest_executions_total" in c.metrics()


def test_async_client_endpoints(service_url):
    async def go():
        async with AsyncClient(service_url, api_key=KEY, max_concurrency=4) as c:
            runs = await asyncio.gather(*[
                c.run("python", "print(int(input()) ** 2)", [{"stdin": f"{i}\n", "expected_stdout": f"{i * i}\n"}])
                for i in range(12)])
            assert all(r["verdict"] == "AC" for r in runs)
            rewards = await c.reward([{"completion": "```py\nprint(3)\n```", "tests": [{"expected_stdout": "3\n"}]}],
                                     scoring="all_or_nothing")
            assert rewards[0]["reward"] == 1.0
            assert (await c.run_code("int main(){return 3;}", "cpp"))["status"] == "Failed"
            assert (await c.health())["ok"]

    asyncio.run(go())


def test_client_reward_deadline_gives_partial_results(service_url):
    items = [{"id": i, "code": "import time\ntime.sleep(0.6)\nprint(1)", "language": "python",
              "tests": [{"expected_stdout": "1\n"}]} for i in range(10)]
    with Client(service_url, api_key=KEY) as c:
        t0 = time.monotonic()
        res = c.reward(items, deadline=2.0)  # the server's batch deadline is set inside ours
        assert time.monotonic() - t0 < 2.5
        assert len(res) == 10 and any(r["reward"] is None for r in res) and any(r["reward"] == 1.0 for r in res)


def test_wrong_or_missing_key_is_not_retried(service_url):
    with Client(service_url, api_key="wrong", backoff_s=1.0) as c:
        t0 = time.monotonic()
        with pytest.raises(APIError) as err:
            c.run("python", "print(1)")
        assert err.value.status_code == 401 and time.monotonic() - t0 < 1.0
        assert "wrong" not in repr(c.settings) and "wrong" not in str(err.value)


def test_bad_request_raises_with_the_service_message(service_url):
    with Client(service_url, api_key=KEY) as c:
        with pytest.raises(APIError) as err:
            c.run("no-such-language", "x")
        assert err.value.status_code == 400 and "unknown language" in err.value.message


def test_client_imports_neither_sandbox_nor_api():
    code = ("import sys, client, client.sync, client.aio, client.errors, client.types\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('sandbox', 'api')]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(Path(__file__).resolve().parents[1]),
                   env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])))


# ------------------------------------------------------------------ against a scripted server

class Script:
    """A real HTTP server whose answers a test scripts: a queue of (status, headers, delay)."""

    def __init__(self) -> None:
        self.plan: list[tuple[int, dict, float]] = []
        self.default = (200, {}, 0.0)
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                await send({"type": msg["type"] + ".complete"})
                if msg["type"] == "lifespan.shutdown":
                    return
        while (await receive()).get("more_body"):
            pass
        with self.lock:
            self.calls += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            status, headers, delay = self.plan.pop(0) if self.plan else self.default
        try:
            await asyncio.sleep(delay)
            body = json.dumps({"verdict": "AC", "results": [], "ok": True} if status == 200 else
                              {"error": "scripted", "message": f"scripted {status}"}).encode()
            hdrs = [(b"content-type", b"application/json")] + [(k.encode(), v.encode()) for k, v in headers.items()]
            await send({"type": "http.response.start", "status": status, "headers": hdrs})
            await send({"type": "http.response.body", "body": body})
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.fixture
def scripted():
    app = Script()
    with serve_in_thread(app) as url:
        yield app, url


def test_retries_429_honouring_retry_after(scripted):
    app, url = scripted
    app.plan = [(429, {"Retry-After": "1"}, 0.0), (429, {"Retry-After": "0"}, 0.0)]
    with Client(url, backoff_s=0.01) as c:
        t0 = time.monotonic()
        assert c.run("python", "print(1)")["verdict"] == "AC"
        assert app.calls == 3 and 1.0 <= time.monotonic() - t0 < 3.0


def test_retries_5xx_with_backoff_then_gives_up(scripted):
    app, url = scripted
    app.plan = [(503, {}, 0.0), (502, {}, 0.0)]
    with Client(url, backoff_s=0.02, backoff_max_s=0.1) as c:
        assert c.run("python", "print(1)")["verdict"] == "AC" and app.calls == 3
        app.calls, app.default = 0, (500, {}, 0.0)
        with pytest.raises(APIError) as err:
            c.run("python", "print(1)")
        assert err.value.status_code == 500 and app.calls == 1 + c.settings.max_retries


def test_4xx_is_not_retried(scripted):
    app, url = scripted
    app.default = (422, {}, 0.0)
    with Client(url, backoff_s=0.02) as c:
        with pytest.raises(APIError) as err:
            c.run("python", "print(1)")
        assert err.value.status_code == 422 and err.value.message == "scripted 422" and app.calls == 1


def test_deadline_bounds_a_slow_call_and_is_not_retried(scripted):
    app, url = scripted
    app.default = (200, {}, 1.5)
    with Client(url) as c:
        t0 = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            c.run("python", "print(1)", deadline=0.4)
        assert time.monotonic() - t0 < 1.2 and app.calls == 1


def test_deadline_bounds_retries(scripted):
    app, url = scripted
    app.default = (503, {"Retry-After": "30"}, 0.0)
    with Client(url, max_retries=100) as c:
        t0 = time.monotonic()
        with pytest.raises((APIError, DeadlineExceeded)):
            c.run("python", "print(1)", deadline=1.0)
        assert time.monotonic() - t0 < 2.0


def test_connection_refused_is_retried_then_reported():
    import socket

    with socket.socket() as s:  # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with Client(f"http://127.0.0.1:{port}", max_retries=3, backoff_s=0.05, backoff_max_s=0.1) as c:
        t0 = time.monotonic()
        with pytest.raises(ConnectionFailed):
            c.health()
        assert time.monotonic() - t0 < 3.0

    async def go():
        async with AsyncClient(f"http://127.0.0.1:{port}", max_retries=2, backoff_s=0.05) as c:
            with pytest.raises(ConnectionFailed):
                await c.health()

    asyncio.run(go())


def test_concurrency_cap_sync(scripted):
    app, url = scripted
    app.default = (200, {}, 0.15)
    with Client(url, max_concurrency=3) as c:
        threads = [threading.Thread(target=c.run, args=("python", "print(1)")) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    assert app.calls == 12 and app.max_in_flight == 3


def test_concurrency_cap_async_and_async_retries(scripted):
    app, url = scripted
    app.default = (200, {}, 0.15)

    async def go():
        async with AsyncClient(url, max_concurrency=4, backoff_s=0.02) as c:
            await asyncio.gather(*[c.run("python", "print(1)") for _ in range(16)])
            assert app.max_in_flight == 4
            app.plan = [(429, {"Retry-After": "0"}, 0.0), (500, {}, 0.0)]
            app.calls = 0
            assert (await c.run("python", "print(1)"))["verdict"] == "AC" and app.calls == 3

    asyncio.run(go())


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv("CODETEST_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("CODETEST_API_KEY", "env-key")
    with Client() as c:
        assert c.settings.base_url == "http://127.0.0.1:9"
        assert c.settings.headers["Authorization"] == "Bearer env-key"
        assert "env-key" not in repr(c) and "env-key" not in repr(c.settings)
    with pytest.raises(ValueError):
        Client(max_concurrency=0)
