"""A real ``codetest`` HTTP service for the bench: ``python -m api`` on 127.0.0.1, a free port, its own state.

A separate process, as a deployment runs it, so the service pays for its own event loop and
JSON work and the bench's client threads do not share its GIL.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from typing import Optional

import httpx

from .workloads import REPO_ROOT


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def discard_scratch(folder: str, keep: bool) -> None:
    """A bench's scratch folder (the service's state and log): removed after a clean run, kept,
    and named on stderr, after one that went wrong, so its log can be read."""
    if keep:
        print(f"kept {folder} (the service's log is there)", file=sys.stderr)
    else:
        shutil.rmtree(folder, ignore_errors=True)


class ServerError(Exception):
    """The service did not come up; the message says why (its log tail)."""


class Server:
    def __init__(self, state_dir: str, uid_base: int, log_path: str, backend: str = "native"):
        self.state_dir, self.uid_base, self.log_path, self.backend = state_dir, uid_base, log_path, backend
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.url = ""

    def start(self, timeout_s: float = 90.0) -> str:
        env = dict(os.environ, CODETEST_STATE_DIR=self.state_dir, CODETEST_UID_BASE=str(self.uid_base),
                   PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        for attempt in range(3):  # the port is free when chosen; another process may take it first
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "api", "--host", "127.0.0.1", "--port", str(port),
                     "--backend", self.backend, "--log-level", "warning"],
                    cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                )
            try:
                healthy = self._wait_healthy(timeout_s)
            except ServerError:
                self.stop()
                raise
            if healthy:
                return self.url
            self.stop()
        raise ServerError(f"the service did not become healthy; log tail: {self.log_tail(1500)}")

    def _wait_healthy(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                return False
            try:
                r = httpx.get(self.url + "/healthz", timeout=5.0)
                if r.status_code == 200:
                    return True
                if r.status_code == 503:
                    raise ServerError(f"the service refuses to run code: {r.text[:500]}")
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        return False

    def log_tail(self, n: int = 4000) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return "(no log)"

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc else None

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down gracefully, the sandbox closes its slots), SIGKILL after 30 s."""
        p, self.proc = self.proc, None
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)
