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
