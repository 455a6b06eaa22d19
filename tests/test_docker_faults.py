"""Faults of the docker backend: every request gets a verdict or SE, none hangs, the pool
heals, and no container, volume or temp dir is left behind.

  - a pool container killed in the middle of a test: the test is retried on a fresh one;
  - killed again during the retry: SE (after ``JAIL_ATTEMPTS``), and the next request runs normally;
  - the pool full for longer than the acquire timeout: SE after that timeout, not a hang;
  - dockerd restarted under load (only where scripts/docker-host.sh started it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase, Verdict
from sandbox.backends.base import JAIL_ATTEMPTS, ExecLimits, ExecSpec

from conftest import make_docker_backend, pool_container_ids

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HOST_SCRIPT = os.path.join(ROOT, "scripts", "docker-host.sh")
PIDFILE = os.environ.get("CODETEST_DOCKERD_PIDFILE", "/var/run/codetest-dockerd.pid")
LIM = ExecLimits(cpu_s=5, wall_s=10, memory_bytes=256 << 20, output_bytes=1 << 16, processes=32,
                 file_size_bytes=1 << 20)


def volumes(docker_client) -> set[str]:
    return {v["Name"] for v in (docker_client.api.volumes().get("Volumes") or [])}


def sleeper(seconds: float) -> ExecSpec:
    return ExecSpec(argv=["/usr/bin/python3", "-c", f"import time; time.sleep({seconds}); print('done')"], limits=LIM)


def kill_busy_container(docker_client, b, times: int, timeout: float = 20.0) -> list[str]:
    """Kill the container serving a request as soon as one is busy, ``times`` times."""
    killed: list[str] = []
    deadline = time.monotonic() + timeout
    while len(killed) < times and time.monotonic() < deadline:
        with b.pool._cond:
            busy = [c for c in b.pool._busy if c.id not in killed]
        if busy:
            time.sleep(0.3)  # let the program start
            docker_client.api.kill(busy[0].id)
            killed.append(busy[0].id)
        time.sleep(0.05)
    return killed


def test_container_killed_mid_test_is_retried_on_a_fresh_one(docker_client):
    vols = volumes(docker_client)
    b = make_docker_backend()
    try:
        out = {}
        t = threading.Thread(target=lambda: out.setdefault("r", b.execute(sleeper(1.5))))
        t.start()
        killed = kill_busy_container(docker_client, b, 1)
        t.join(60)
        assert not t.is_alive(), "request hung after its container was killed"
        assert len(killed) == 1
        r = out["r"]
        assert r.error is None and r.stdout == b"done\n", r
        assert b.pool.stats["discarded"] >= 1
        # The pool heals: back to full size, and the dead container is gone.
        assert b.pool.wait_ready(2, 60) == 2
        deadline = time.monotonic() + 20
        while killed[0] in pool_container_ids(docker_client, b) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert killed[0] not in pool_container_ids(docker_client, b)
    finally:
        b.close()
    assert pool_container_ids(docker_client, b) == [] and volumes(docker_client) == vols


def test_container_killed_twice_gives_se_then_recovers(docker_client):
    b = make_docker_backend()
    try:
        out = {}
        t = threading.Thread(target=lambda: out.setdefault("r", b.execute(sleeper(2))))
        t.start()
        killed = kill_busy_container(docker_client, b, 2)
        t.join(60)
        assert not t.is_alive() and len(killed) == 2
        r = out["r"]
        assert r.error and f"failed {JAIL_ATTEMPTS} times" in r.error, r
        ok = b.execute(ExecSpec(argv=["/bin/echo", "fine"], limits=LIM))
        assert ok.error is None and ok.stdout == b"fine\n"
    finally:
        b.close()
    assert pool_container_ids(docker_client, b) == []


def test_full_pool_queues_then_answers_everyone(docker_client):
    b = make_docker_backend(acquire_timeout_s=60)
    try:
        results: list = [None] * 8
        threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, b.execute(sleeper(0.3))))
                   for i in range(len(results))]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert all(not t.is_alive() for t in threads)
        assert all(r is not None and r.error is None and r.stdout == b"done\n" for r in results), results
        assert time.monotonic() - t0 >= 4 * 0.3  # two containers: four rounds at least
    finally:
        b.close()


def test_pool_busy_past_acquire_timeout_is_se_not_a_hang(docker_client):
    b = make_docker_backend(acquire_timeout_s=1.5)
    try:
        hogs = [threading.Thread(target=b.execute, args=(sleeper(4),)) for _ in range(2)]
        for t in hogs:
            t.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        r = b.execute(sleeper(0.1))
        assert r.error and "no sandbox container available" in r.error
        assert time.monotonic() - t0 < 5
        for t in hogs:
            t.join(30)
    finally:
        b.close()
    assert pool_container_ids(docker_client, b) == []


def _dockerd_is_ours() -> bool:
    return os.path.exists(PIDFILE) and os.access(HOST_SCRIPT, os.X_OK) and os.geteuid() == 0


@pytest.mark.skipif(not _dockerd_is_ours(), reason="dockerd was not started by scripts/docker-host.sh "
                                                      "(restarting someone else's engine is not a test's business)")
def test_dockerd_restart_under_load(docker_client):
    vols = volumes(docker_client)
    state = tempfile.mkdtemp(prefix="codetest-dkr-")
    cfg = SandboxConfig(backend="docker", slots=2, docker_runtime="runc", state_dir=state)
    sb = Sandbox(cfg)
    pool_id = sb.backend.pool_id
    req = RunRequest(language="python", code="import time\ntime.sleep(0.3)\nprint(int(input()) + 1)\n",
                     tests=[TestCase(stdin=f"{i}\n", expected_stdout=f"{i + 1}\n") for i in range(3)],
                     limits=Limits(time_s=2, wall_time_s=5))
    verdicts: list = []
    stop = threading.Event()

    def load() -> None:
        while not stop.is_set():
            try:
                res = sb.run(req)
            except Exception as e:  # a refusal is not an answer: the test must see it
                verdicts.append(f"{type(e).__name__}: {e}")
                continue
            verdicts.extend(t.verdict for t in res.tests)

    workers = [threading.Thread(target=load, daemon=True) for _ in range(3)]
    try:
        for w in workers:
            w.start()
        time.sleep(2)
        before = len(verdicts)
        r = subprocess.run([HOST_SCRIPT, "restart"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        # The pool heals by itself once the engine answers again.
        assert sb.backend.pool.wait_ready(1, 90) >= 1, sb.backend.health()
        time.sleep(2)
        stop.set()
        for w in workers:
            w.join(120)
        assert all(not w.is_alive() for w in workers), "a request hung across the engine restart"
        assert before > 0 and len(verdicts) > before
        assert set(verdicts) <= {Verdict.AC, Verdict.SE}, verdicts
        assert verdicts[-1] == Verdict.AC
        after = sb.run(RunRequest(language="python", code="print('back')",
                                  tests=[TestCase(expected_stdout="back\n")]))
        assert after.verdict == Verdict.AC
    finally:
        stop.set()
        sb.close()
    import docker

    c2 = docker.from_env(timeout=10)
    assert c2.api.containers(all=True, filters={"label": f"codetest.pool={pool_id}"}) == []
    assert volumes(c2) == vols
    # The instance's scratch is gone; the shared scratch root stays, empty.
    assert not os.path.exists(sb.scratch)
    assert os.listdir(os.path.join(state, "scratch")) == []
    import shutil

    shutil.rmtree(state, ignore_errors=True)


# An instance of the docker backend in a PID namespace of its own (as a replica in a container
# is): it prints its pool id once its containers are up, and closes when its stdin closes.
OTHER_INSTANCE = """
import sys
from conftest import make_docker_backend
b = make_docker_backend("runc", owners_dir=sys.argv[1], uid_base=int(sys.argv[2]))
print(b.pool_id, flush=True)
sys.stdin.read()
b.close()
"""


def _other_instance(owners: str, uid_base: int) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "tests"), ROOT]))
    p = subprocess.Popen(["unshare", "--pid", "--fork", sys.executable, "-c", OTHER_INSTANCE, owners, str(uid_base)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT, start_new_session=True)
    line = p.stdout.readline().decode().strip()
    assert line, f"the other instance did not start (exit {p.poll()})"
    return p, line


def _containers_of(docker_client, pool_id: str) -> list[str]:
    return [c["Id"] for c in docker_client.api.containers(all=True, filters={"label": f"codetest.pool={pool_id}"})]


def test_a_starting_backend_removes_a_killed_instances_containers_never_a_live_ones(docker_client, tmp_path):
    """A SIGKILLed instance in another PID namespace (no PID of it means anything here) leaves its
    containers; the next backend to start with the same owners folder removes them, because the
    dead pool's lock is free, and leaves those of the live instance beside it alone. A container
    of the dead pool that appears after that start-up sweep is removed by a later sweep."""
    from conftest import UID_BASE

    owners = str(tmp_path / "owners")
    dead, dead_pool = _other_instance(owners, UID_BASE + 600)
    live, live_pool = _other_instance(owners, UID_BASE + 700)
    try:
        assert len(_containers_of(docker_client, dead_pool)) == 2 and len(_containers_of(docker_client, live_pool)) == 2
        os.killpg(dead.pid, signal.SIGKILL)
        dead.wait(30)
        assert len(_containers_of(docker_client, dead_pool)) == 2  # nobody removed them
        b = make_docker_backend("runc", owners_dir=owners, stale_sweep_s=1)
        try:
            assert _containers_of(docker_client, dead_pool) == []
            assert len(_containers_of(docker_client, live_pool)) == 2
            # The dead pool's folder stays a while (DEAD_POOL_GRACE_S), so later sweeps look again:
            # the engine may still finish creating a container its owner asked for as it died.
            late = docker_client.api.create_container(
                "codetest-runtime:latest", command=["true"], network_disabled=True,
                labels={"codetest.backend": "docker", "codetest.pool": dead_pool})["Id"]
            deadline = time.monotonic() + 30
            while late in _containers_of(docker_client, dead_pool) and time.monotonic() < deadline:
                time.sleep(0.5)
            assert _containers_of(docker_client, dead_pool) == [], "a late container of the dead pool was kept"
            assert len(_containers_of(docker_client, live_pool)) == 2
            assert set(os.listdir(owners)) - {f"pool-{dead_pool}"} == {f"pool-{live_pool}", f"pool-{b.pool_id}"}
        finally:
            b.close()
        assert not os.path.exists(os.path.join(owners, f"pool-{b.pool_id}"))  # a clean close gives it up
    finally:
        live.stdin.close()
        live.wait(120)
        for cid in _containers_of(docker_client, dead_pool) + _containers_of(docker_client, live_pool):
            docker_client.api.remove_container(cid, force=True, v=True)  # only when an assertion failed
    assert live.returncode == 0
