"""A real uvicorn server on 127.0.0.1 in a background thread, for tests and notebooks.

    with serve_in_thread(create_app(sandbox)) as url:
        httpx.get(url + "/healthz")

The socket is bound before the thread starts, so the port is known and nothing races.
"""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator


@contextmanager
def serve_in_thread(app: Any, host: str = "127.0.0.1", startup_timeout_s: float = 120.0,
                    **uvicorn_options: Any) -> Iterator[str]:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    options = {"log_level": "warning", "timeout_graceful_shutdown": 5, "server_header": False}
    options.update(uvicorn_options)
    server = uvicorn.Server(uvicorn.Config(app, **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout_s
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn exited during startup")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise TimeoutError("uvicorn did not start in time")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
