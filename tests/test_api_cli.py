"""`codetest serve` as a user starts it: refusals are exit 2 with a message, and it comes up."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.timeout(90)
REPO = Path(__file__).resolve().parents[1]


def serve(*args: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("CODETEST_API_KEYS", None)
    env.update(kw.pop("env", {}))
    return subprocess.Popen([sys.executable, "-m", "codetest", "serve", *args], cwd=str(REPO), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_public_address_without_key_is_refused():
    p = serve("--host", "0.0.0.0", "--port", "0")
    out, err = p.communicate(timeout=60)
    assert p.returncode == 2
    assert "API key" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["--slots", "0"], ["--queue-size", "-1"], ["--backend", "vm"]])
def test_bad_flags_exit_2(args):
    p = serve(*args)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and err.strip() and "Traceback" not in err


def test_serve_comes_up_on_native_and_keys_are_not_echoed(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    secret = "cli-secret-5150"
    p = serve("--port", str(port), "--slots", "1", "--api-key", secret, "--log-level", "info",
              env={"CODETEST_STATE_DIR": str(tmp_path / "state"), "CODETEST_UID_BASE": "63200"})
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 60
        while True:
            try:
                h = httpx.get(url + "/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert p.poll() is None, p.communicate()[1]
                assert time.monotonic() < end, "codetest serve did not come up"
                time.sleep(0.1)
        assert h.status_code == 200 and h.json()["backend"] == "native"
        assert httpx.post(url + "/v1/run", json={"language": "python", "code": "print(1)"}).status_code == 401
        r = httpx.post(url + "/v1/run", json={"language": "python", "code": "print(1)"},
                       headers={"Authorization": f"Bearer {secret}"}, timeout=30)
        assert r.status_code == 200 and r.json()["verdict"] == "AC"
    finally:
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=30)
    assert secret not in out + err
    assert "Traceback" not in err
