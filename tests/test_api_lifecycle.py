"""A replica's life as a load balancer and Kubernetes see it: probes, drain on SIGTERM, the
queue-depth metric. A real `codetest serve` process on 127.0.0.1, signalled like kubelet does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.timeout(120)
REPO = Path(__file__).resolve().parents[1]
SLOW = "import time\ntime.sleep(3)\nprint('done')\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp_path, *args: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO), CODETEST_STATE_DIR=str(tmp_path / "state"),
               CODETEST_UID_BASE=str(63400 + (os.getpid() % 50) * 4))
    env.pop("CODETEST_API_KEYS", None)
    p = subprocess.Popen([sys.executable, "-m", "codetest", "serve", "--port", str(port), "--slots", "1", *args],
                         cwd=str(REPO), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                return p, url
        except httpx.HTTPError:
            pass
        if p.poll() is not None:
            raise AssertionError(p.communicate()[1])
        if time.monotonic() > end:
            os.killpg(p.pid, signal.SIGKILL)
            raise AssertionError("codetest serve did not become ready")
        time.sleep(0.1)


def metric(url: str, name: str, key: str = "") -> float:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    for line in httpx.get(url + "/metrics", timeout=5, headers=headers).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not exported")


def stop(p: subprocess.Popen) -> str:
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
    _, err = p.communicate(timeout=30)
    return err


def test_probes_and_queue_metrics_answer(tmp_path):
    p, url = start(tmp_path, "--api-key", "k1")
    try:
        # probes answer without a key (a kubelet has none); work needs one
        assert httpx.get(url + "/livez").json() == {"live": True}
        r = httpx.get(url + "/readyz").json()
        assert r["ready"] is True and r["queue_depth"] == 0 and r["queue_capacity"] >= 1
        assert httpx.get(url + "/healthz").status_code == 200
        assert httpx.post(url + "/v1/run", json={"language": "python", "code": "print(1)"}).status_code == 401
        assert metric(url, "codetest_queue_depth", "k1") == 0
        assert metric(url, "codetest_queue_utilization", "k1") == 0
        assert metric(url, "codetest_draining", "k1") == 0
    finally:
        err = stop(p)
    assert "Traceback" not in err


def test_sigterm_drains_admitted_work_and_refuses_new_work(tmp_path):
    p, url = start(tmp_path, "--drain-grace", "1", "--drain-timeout", "30")
    slow: dict = {}

    def run_slow() -> None:
        slow["resp"] = httpx.post(url + "/v1/run", timeout=60, json={
            "language": "python", "code": SLOW, "limits": {"time_s": 10, "wall_time_s": 10}})

    t = threading.Thread(target=run_slow)
    try:
        t.start()
        end = time.monotonic() + 20
        while metric(url, "codetest_queue_depth") < 1:  # admitted and running
            assert time.monotonic() < end, "the slow run was never admitted"
            time.sleep(0.05)
        assert metric(url, "codetest_queue_utilization") > 0
        os.killpg(p.pid, signal.SIGTERM)
        end = time.monotonic() + 5
        while httpx.get(url + "/readyz").status_code == 200:
            assert time.monotonic() < end, "/readyz still 200 after SIGTERM"
            time.sleep(0.05)
        ready = httpx.get(url + "/readyz")
        assert ready.status_code == 503 and "draining" in ready.json()["reasons"]
        assert httpx.get(url + "/livez").status_code == 200  # draining is not dead: do not restart it
        new = httpx.post(url + "/v1/run", json={"language": "python", "code": "print(1)"})
        assert new.status_code == 503 and new.json()["error"] == "draining"
        assert int(new.headers["retry-after"]) >= 1
        assert metric(url, "codetest_draining") == 1
        assert p.poll() is None  # still finishing the admitted run
        t.join(timeout=30)
        resp = slow["resp"]
        assert resp.status_code == 200 and resp.json()["verdict"] == "AC", resp.text
        assert p.wait(timeout=30) == 0  # exits by itself once drained
    finally:
        t.join(timeout=30)
        err = stop(p)
    assert "Traceback" not in err


def test_sigterm_when_idle_exits_promptly(tmp_path):
    p, url = start(tmp_path)
    try:
        t0 = time.monotonic()
        os.killpg(p.pid, signal.SIGTERM)
        assert p.wait(timeout=30) == 0
        assert time.monotonic() - t0 < 15
    finally:
        err = stop(p)
    assert "Traceback" not in err
