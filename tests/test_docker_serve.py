"""`codetest serve --backend docker` and docker/compose.yaml, for real: uvicorn on 127.0.0.1,
/healthz naming the runtime, a run, and nothing left once the service stops."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
RUN = {"language": "python", "code": "print(sum(map(int, input().split())))",
       "tests": [{"stdin": "1 2\n", "expected_stdout": "3\n"}, {"stdin": "2 2\n", "expected_stdout": "5\n"}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 10) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def post(url: str, body: dict, timeout: float = 120) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def wait_healthy(url: str, proc=None, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"service exited with {proc.returncode}")
        try:
            return get(url + "/healthz")
        except Exception as e:  # not up yet
            last = e
            time.sleep(0.5)
    raise AssertionError(f"service not healthy in {timeout}s: {last}")


def test_codetest_serve_backend_docker(docker_client):
    exe = os.path.join(os.path.dirname(sys.executable), "codetest")
    if not os.path.exists(exe):
        pytest.skip("codetest console script not installed in this environment")
    port = free_port()
    state = tempfile.mkdtemp(prefix="codetest-serve-dk-")
    env = {**os.environ, "CODETEST_SLOTS": "1", "CODETEST_STATE_DIR": state}
    env.pop("CODETEST_DOCKER_RUNTIME", None)  # the default: runsc when registered
    proc = subprocess.Popen([exe, "serve", "--backend", "docker", "--host", "127.0.0.1", "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        h = wait_healthy(url, proc)
        want = "runsc" if "runsc" in (docker_client.info().get("Runtimes") or {}) else "runc"
        assert h["ok"] and h["backend"] == "docker", h
        assert h["docker"]["runtime"] == want and h["layers"]["gvisor"]["active"] == (want == "runsc")
        res = post(url + "/v1/run", RUN)
        assert res["verdict"] == "WA" and [t["verdict"] for t in res["tests"]] == ["AC", "WA"], res
        # verl's request shape, answered by the /run_code fast path on this backend too
        fusion = post(url + "/run_code", {"code": "print(int(input()) * 2)", "language": "python", "stdin": "21\n",
                                          "run_timeout": 10, "compile_timeout": 10, "files": {}, "fetch_files": []})
        assert fusion["status"] == "Success" and fusion["run_result"]["stdout"] == "42\n", fusion
        failed = post(url + "/run_code", {"code": "raise SystemExit(3)", "language": "python"})
        assert failed["status"] == "Failed" and failed["run_result"]["return_code"] == 3, failed
        owner_pid = proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(state, ignore_errors=True)
    left = [c for c in docker_client.api.containers(all=True, filters={"label": "codetest.backend=docker"})
            if c["Labels"].get("codetest.owner", "").endswith(f":{owner_pid}")]
    assert left == [], "the service left sandbox containers behind"


def _compose() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    try:
        subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=20, check=True)
        return ["docker", "compose"]
    except (OSError, subprocess.SubprocessError):
        return None


def test_compose_api_service(docker_client, api_image):
    compose = _compose()
    if compose is None:  # scripts/setup.sh --docker installs Debian's docker-compose
        pytest.fail("neither docker-compose nor the compose plugin is installed")
    port = free_port()
    project = f"codetest-test-{os.getpid()}"
    env = {**os.environ, "CODETEST_PORT": str(port), "CODETEST_SLOTS": "1", "CODETEST_API_IMAGE": api_image}
    base = [*compose, "-f", os.path.join(ROOT, "docker", "compose.yaml"), "-p", project]
    up = subprocess.run([*base, "up", "-d", "--no-build", "api"], env=env, capture_output=True, text=True,
                        timeout=180)
    assert up.returncode == 0, up.stderr
    try:
        h = wait_healthy(f"http://127.0.0.1:{port}")
        assert h["ok"] and h["backend"] == "docker", h
        res = post(f"http://127.0.0.1:{port}/v1/run", RUN)
        assert [t["verdict"] for t in res["tests"]] == ["AC", "WA"], res
        api = docker_client.api.containers(filters={"label": f"com.docker.compose.project={project}"})
        assert api and api[0]["HostConfig"]["NetworkMode"] == "host"
    finally:
        down = subprocess.run([*base, "down", "-v", "-t", "30"], env=env, capture_output=True, text=True, timeout=180)
    assert down.returncode == 0, down.stderr
    assert docker_client.api.containers(all=True, filters={"label": f"com.docker.compose.project={project}"}) == []
    # The API removed its sandbox containers on the way down (they are the ones whose owner
    # lives in another PID namespace than this test's).
    from sandbox.backends.docker.container import owner_label

    here = owner_label().split(":")[1]
    foreign = [c for c in docker_client.api.containers(all=True, filters={"label": "codetest.backend=docker"})
               if c["Labels"].get("codetest.owner", "::").split(":")[1] != here]
    assert foreign == [], "the API left sandbox containers behind"
    assert not [v for v in (docker_client.api.volumes().get("Volumes") or []) if v["Name"].startswith(project)]
