"""One real uvicorn for SandboxFusion's vendored runner tests, on the backend under test.

``CODETEST_SF_BACKEND`` picks it (``native`` by default; ``docker`` runs them against the Docker
backend with CODETEST_DOCKER_IMAGE / CODETEST_DOCKER_RUNTIME as usual). Markers the upstream
files use (minor, verilog) are registered here so they select as upstream.
"""

from __future__ import annotations

import os

import pytest

from api import create_app
from api.testing import serve_in_thread
from sandbox import Sandbox, SandboxConfig

from .compat import client


def pytest_configure(config):
    for mark in ("minor", "verilog", "lean", "datalake"):
        config.addinivalue_line("markers", f"{mark}: SandboxFusion's own marker")


@pytest.fixture(scope="session", autouse=True)
def sandbox_fusion_service():
    backend = os.environ.get("CODETEST_SF_BACKEND", "native")
    sb = Sandbox(SandboxConfig(backend=backend, slots=int(os.environ.get("CODETEST_SF_SLOTS", "2"))))
    try:
        with serve_in_thread(create_app(sb)) as url:
            client.base_url = url
            yield url
            client.close()
    finally:
        sb.close()


# Upstream cases this service cannot pass here, each for a stated reason (see README.md beside
# this file). They run and report XFAIL (XPASS once the reason is gone); the files stay unchanged.
KNOWN_UNSUPPORTED = {
    "test_csharp.py::test_csharp_assertion_error":
        "Mono's Debug.Assert prints and carries on (unlike .NET); no .NET SDK is reachable here",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        key = f"{os.path.basename(str(item.fspath))}::{item.name}"
        if key in KNOWN_UNSUPPORTED:
            item.add_marker(pytest.mark.xfail(reason=KNOWN_UNSUPPORTED[key], strict=False))
