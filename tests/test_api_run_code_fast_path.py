"""POST /run_code answered before FastAPI's routing (api/run_code.py) gives what the route gives.

Two real uvicorn servers on 127.0.0.1 share one sandbox: one app with the fast path, one
without (``create_app(..., run_code_fast_path=False)``). Each request below goes to both as the
same bytes with the same headers; status, body (timings aside) and the headers a client reads
must be equal. The route's function is counted, so a fast path that silently handed every
request on to FastAPI would fail too.
"""

from __future__ import annotations

import base64
import json

import httpx
import pytest

import api.routes
from api import create_app
from api.testing import serve_in_thread
from sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.timeout(180)

DOUBLE_PY = "print(int(input()) * 2)"


def body(**fields) -> bytes:
    base = {"code": DOUBLE_PY, "language": "python", "stdin": "21\n", "run_timeout": 5, "compile_timeout": 10,
            "memory_limit_MB": 256, "files": {}, "fetch_files": []}
    base.update(fields)
    return json.dumps(base).encode()


JSON = {"Content-Type": "application/json"}

# (name, raw body, headers, whether the fast path answers it itself)
CASES = [
    ("accepted", body(), JSON, True),
    ("wrong exit", body(code="import sys\nsys.exit(3)"), JSON, True),
    ("runtime error", body(code="print(1/0)"), JSON, True),
    ("compile error", body(code="int main( {", language="cpp"), JSON, True),
    ("unknown language", body(language="cobol"), JSON, True),
    ("bad file name", body(files={"../up": base64.b64encode(b"x").decode()}), JSON, True),
    ("files in, fetch back", body(code="print(open('in.txt').read())", files={"in.txt": base64.b64encode(b"hi").decode()},
                                  fetch_files=["in.txt"]), JSON, True),
    ("charset parameter", body(), {"Content-Type": "application/json; charset=utf-8"}, True),
    ("no content type", body(), {}, False),  # FastAPI's strict_content_type: not read as JSON
    ("unknown fields ignored", body(executor="x", extra={"a": 1}), JSON, True),
    ("schema: no code", json.dumps({"language": "python"}).encode(), JSON, False),
    ("schema: wrong type", body(run_timeout="soon"), JSON, False),
    ("not JSON", b"{\"code\": ", JSON, False),
    ("JSON that is not an object", b"[1, 2]", JSON, False),
    ("empty body", b"", JSON, False),
    ("text/plain body", body(), {"Content-Type": "text/plain"}, False),
]

TIMINGS = ("execution_time",)


def comparable(r: httpx.Response) -> tuple:
    try:
        data = r.json()
    except ValueError:
        data = r.text

    def scrub(v):
        if isinstance(v, dict):
            return {k: (None if k in TIMINGS else scrub(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [scrub(x) for x in v]
        return v

    heads = {k: r.headers.get(k) for k in ("content-type", "x-codetest-verdict", "retry-after")}
    return r.status_code, scrub(data), heads


@pytest.fixture(scope="module")
def pair():
    sb = Sandbox(SandboxConfig(slots=2))
    fast, plain = create_app(sb), create_app(sb, run_code_fast_path=False)
    with serve_in_thread(fast) as fast_url, serve_in_thread(plain) as plain_url:
        yield fast_url, plain_url, (fast, plain)
    sb.close()


@pytest.fixture
def route_calls(monkeypatch):
    calls = []
    real = api.routes.run_code_answer

    async def counted(*a, **kw):
        calls.append(1)
        return await real(*a, **kw)

    monkeypatch.setattr(api.routes, "run_code_answer", counted)
    return calls


@pytest.mark.parametrize("name,raw,headers,fast", CASES, ids=[c[0] for c in CASES])
def test_the_fast_path_answers_as_the_route_does(pair, route_calls, name, raw, headers, fast):
    fast_url, plain_url, _ = pair
    with httpx.Client(timeout=60) as http:
        a = http.post(fast_url + "/run_code", content=raw, headers=headers)
        calls_by_fast = len(route_calls)
        b = http.post(plain_url + "/run_code", content=raw, headers=headers)
        calls_by_plain = len(route_calls) - calls_by_fast
    assert comparable(a) == comparable(b), name
    # The route's function runs for a body FastAPI accepts: on the plain app always, on the fast
    # app never (the fast path answered it, or handed on what FastAPI then refused itself).
    assert (calls_by_fast, calls_by_plain) == (0, 1 if fast else 0)
    if fast:
        assert a.status_code == 200
    else:
        assert a.status_code == 422 and a.json()["error"] == "invalid_request"


def test_the_fast_path_keeps_the_answers_meaning(pair):
    fast_url = pair[0]
    ok = httpx.post(fast_url + "/run_code", content=body(), headers=JSON, timeout=60).json()
    assert ok["status"] == "Success" and ok["run_result"]["stdout"] == "42\n" and ok["compile_result"] is None
    fetched = httpx.post(fast_url + "/run_code", headers=JSON, timeout=60, content=body(
        code="open('out.txt', 'w').write('made')", fetch_files=["out.txt"])).json()
    assert base64.b64decode(fetched["files"]["out.txt"]) == b"made"


def test_fast_path_requests_are_counted_under_their_route(pair):
    fast_url = pair[0]
    before = _count(httpx.get(fast_url + "/metrics").text)
    for _ in range(3):
        assert httpx.post(fast_url + "/run_code", content=body(), headers=JSON, timeout=60).status_code == 200
    assert _count(httpx.get(fast_url + "/metrics").text) == before + 3


def _count(metrics: str) -> float:
    return sum(float(line.split()[-1]) for line in metrics.splitlines()
               if line.startswith("codetest_http_requests_total{") and 'route="/run_code"' in line
               and 'status="200"' in line)


def test_an_exception_is_rendered_by_the_apps_own_handlers(pair):
    """A service that lost its sandbox: both paths answer the handlers' 503, not a 500 or a dropped socket."""
    fast_url, plain_url, apps = pair
    services = [app.state.service for app in apps]
    runners = [s.runner for s in services]
    try:
        for s in services:
            s.runner = None
        a = httpx.post(fast_url + "/run_code", content=body(code="print(7)"), headers=JSON, timeout=60)
        b = httpx.post(plain_url + "/run_code", content=body(code="print(7)"), headers=JSON, timeout=60)
    finally:
        for s, r in zip(services, runners):
            s.runner = r
    assert comparable(a) == comparable(b)
    assert a.status_code == 503 and a.json()["error"] == "sandbox_unavailable" and a.headers["retry-after"] == "30"


def test_a_request_refused_before_routing_is_counted_under_the_route_it_asked_for():
    """A 401 never reaches a route; its count still names /run_code (FastAPI's included routers
    carry no path of their own, so the known paths are read from the router's routes)."""
    sb = Sandbox(SandboxConfig(slots=1))
    try:
        with serve_in_thread(create_app(sb, api_keys=["k"])) as url:
            assert httpx.post(url + "/run_code", content=body(), headers=JSON, timeout=60).status_code == 401
            text = httpx.get(url + "/metrics", headers={"X-API-Key": "k"}).text
    finally:
        sb.close()
    assert 'codetest_http_requests_total{method="POST",route="/run_code",status="401"} 1.0' in text
