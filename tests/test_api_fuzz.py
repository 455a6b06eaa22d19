"""Fuzz the HTTP surface from its own OpenAPI schema: no input may produce a 5xx.

schemathesis generates valid and invalid bodies for every operation; each goes to a
real uvicorn on 127.0.0.1 with the real sandbox behind it. Bounded by example count
per operation and by pytest's timeout.
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402

from api import create_app  # noqa: E402
from api.testing import serve_in_thread  # noqa: E402
from sandbox import Sandbox, SandboxConfig  # noqa: E402

pytestmark = pytest.mark.timeout(240)

# The schema the app publishes (the same document /openapi.json serves), read once.
SCHEMA = schemathesis.openapi.from_dict(create_app(None).openapi())
OPERATIONS = {op.ok().label: op.ok() for op in SCHEMA.get_all_operations()}
MODES = list(schemathesis.GenerationMode)


@pytest.fixture(scope="module")
def live_url():
    sb = Sandbox(SandboxConfig(slots=2))
    # A small body cap and queue so the guards themselves are part of what is fuzzed.
    app = create_app(sb, max_body_bytes=256 << 10, queue_size=64, reward_deadline_s=20)
    with serve_in_thread(app) as url:
        yield url
    sb.close()


def test_schema_covers_the_surface():
    assert {"POST /v1/run", "POST /v1/reward", "POST /run_code", "POST /get_reward", "GET /healthz",
            "GET /metrics"} <= set(OPERATIONS)


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_no_server_errors(label, mode, live_url):
    operation = OPERATIONS[label]

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data):
        case = data.draw(operation.as_strategy(generation_mode=mode))
        response = case.call(base_url=live_url, timeout=60)
        assert response.status_code < 500, (
            f"{case.method} {case.path} -> {response.status_code}: {response.text[:500]}"
        )
        if response.status_code >= 400:
            body = response.json()
            assert isinstance(body, dict) and body.get("message"), body

    try:
        check()
    except Unsatisfiable:
        pytest.skip(f"{label} takes no input that could be invalid")
