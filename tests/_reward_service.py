"""Shared by the rewards and trainer tests: the real service, and services that misbehave.

``real_service()`` is codetest's own app (native sandbox) on 127.0.0.1. The stubs are
real uvicorn servers too, standing in for a service that hangs or fails, which the
real one does not do on demand.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import contextmanager
from typing import Iterator

from fastapi import FastAPI
from fastapi.responses import JSONResponse

GOOD = "Here you go:\n```python\nn = int(input())\nprint(n * 2)\n```\n"
BAD = "```python\nn = int(input())\nprint(n * n)\n```"  # right for n=2, wrong for n=5
SLOW = "```python\nwhile True:\n    pass\n```"
NO_CODE = "I do not know."
DOUBLE_TESTS = [{"stdin": "2\n", "expected_stdout": "4\n"}, {"stdin": "5\n", "expected_stdout": "10\n"}]
FAST_LIMITS = {"time_s": 0.5, "wall_time_s": 1.5}


@contextmanager
def real_service() -> Iterator[str]:
    from api import create_app
    from api.testing import serve_in_thread

    # a few slots: these tests check scoring, not load (the default, 64 per core, takes long to start)
    with serve_in_thread(create_app(slots=4)) as url:
        yield url


@contextmanager
def hanging_service() -> Iterator[str]:
    """Accepts /v1/reward and never answers (until the test ends)."""
    from api.testing import serve_in_thread

    release = threading.Event()
    app = FastAPI()

    @app.post("/v1/reward")
    async def reward() -> dict:
        for _ in range(600):  # bounded: at most 30 s even if nobody releases us
            if release.is_set():
                break
            await asyncio.sleep(0.05)
        return {"results": []}

    with serve_in_thread(app, timeout_graceful_shutdown=1) as url:
        try:
            yield url
        finally:
            release.set()


@contextmanager
def failing_service(status: int = 500) -> Iterator[str]:
    """Answers every /v1/reward with ``status``."""
    from api.testing import serve_in_thread

    app = FastAPI()

    @app.post("/v1/reward")
    async def reward() -> JSONResponse:
        return JSONResponse({"error": "boom", "message": "internal failure"}, status_code=status)

    with serve_in_thread(app) as url:
        yield url


def closed_port_url() -> str:
    """A loopback URL where nothing listens."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"
