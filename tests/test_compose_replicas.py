"""docker/compose.yaml, profile "replicas": three API replicas (docker backend) behind HAProxy,
all on 127.0.0.1, under a bounded load of reward batches while one replica is killed (SIGKILL)
and another restarted (SIGTERM: it drains, then comes back). Every batch gets an answer, every
item exactly one result with the right reward, and nothing is left running afterwards.

The images are built from this checkout (conftest's api_image, and docker/build-images.sh
--lb-only, tags of the tests' own), so the replicas run the code under test."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest

from _reward_service import BAD, DOUBLE_TESTS, GOOD

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[1]
LB_IMAGE = "codetest-lb:scale-test"
BATCHES, PER_BATCH, THREADS = 36, 6, 4


def free_ports(n: int) -> list[int]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def compose_cmd() -> list[str]:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=20).returncode == 0:
        return ["docker", "compose"]
    pytest.fail("no compose implementation: scripts/setup.sh --docker installs Debian's docker-compose")


@pytest.fixture(scope="module")
def images(docker_client, api_image):
    """The API image (conftest's, built from this checkout) and the load balancer's."""
    env = dict(os.environ, CODETEST_LB_IMAGE=LB_IMAGE)
    r = subprocess.run([str(ROOT / "docker" / "build-images.sh"), "--lb-only"], cwd=str(ROOT),
                       env=env, capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, r.stdout + r.stderr
    return api_image


def pid_namespace(client, container_id: str) -> int:
    pid = client.api.inspect_container(container_id)["State"]["Pid"]
    return os.stat(f"/proc/{pid}/ns/pid").st_ino


def wait_ready(url: str, timeout_s: float = 120) -> None:
    end = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(url + "/readyz", timeout=3).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < end, f"{url} never became ready"
        time.sleep(0.25)


def batch(k: int) -> list[dict]:
    return [{"id": f"b{k}-{i}", "completion": GOOD if (k + i) % 3 else BAD, "language": "python",
             "tests": DOUBLE_TESTS, "limits": {"time_s": 2}} for i in range(PER_BATCH)]


def expected_reward(item_id: str) -> float:
    k, i = (int(x) for x in item_id[1:].split("-"))
    return 1.0 if (k + i) % 3 else 0.5


def test_replicas_behind_the_load_balancer_survive_a_kill_and_a_restart(docker_client, images):
    from client import Client
    from client.fanout import ReplicaSet

    compose = compose_cmd()
    lb_port, *replica_ports = free_ports(4)
    project = f"codetest-scale-{os.getpid()}"
    env = dict(os.environ, CODETEST_API_IMAGE=images, CODETEST_LB_IMAGE=LB_IMAGE, CODETEST_SLOTS="1",
               CODETEST_DOCKER_RUNTIME="runc", CODETEST_LB_PORT=str(lb_port),
               CODETEST_DOCKER_STALE_SWEEP_S="5",
               **{f"CODETEST_REPLICA{i + 1}_PORT": str(p) for i, p in enumerate(replica_ports)})
    base = [*compose, "-f", str(ROOT / "docker" / "compose.yaml"), "-p", project, "--profile", "replicas"]
    services = ["lb", "api-1", "api-2", "api-3"]
    lb = f"http://127.0.0.1:{lb_port}"
    replicas = [f"http://127.0.0.1:{p}" for p in replica_ports]

    def containers(all_: bool = False) -> dict[str, str]:
        out = {}
        for c in docker_client.api.containers(all=all_, filters={"label": f"com.docker.compose.project={project}"}):
            out[c["Labels"]["com.docker.compose.service"]] = c["Id"]
        return out

    killed_ns = None
    namespaces: set[int] = set()  # PID namespaces of our replicas: the owners of their sandbox containers
    results: dict[str, dict] = {}
    failures: list[str] = []
    lock = threading.Lock()
    try:
        up = subprocess.run([*base, "up", "-d", "--no-build", *services], env=env, capture_output=True, text=True,
                            timeout=300)
        assert up.returncode == 0, up.stdout + up.stderr
        for url in replicas:
            wait_ready(url)
        wait_ready(lb, 30)  # HAProxy sees them through /readyz
        running = containers()
        for s in ("api-1", "api-2", "api-3"):
            namespaces.add(pid_namespace(docker_client, running[s]))
        killed_ns = pid_namespace(docker_client, running["api-2"])
        for s, cid in running.items():  # loopback only: no container has a network of its own
            assert docker_client.api.inspect_container(cid)["HostConfig"]["NetworkMode"] == "host", s

        todo = list(range(BATCHES))
        done_count = [0]

        def worker(n: int) -> None:
            # three threads through the load balancer (the client retries; HAProxy resends to
            # another replica), one straight to the replicas with the client's own failover
            direct = n == 0
            cl = ReplicaSet(replicas, chunk_size=PER_BATCH, cooldown_s=3) if direct else \
                Client(lb, max_retries=6, backoff_s=0.3, timeout_s=60)
            try:
                while True:
                    with lock:
                        if not todo:
                            return
                        k = todo.pop(0)
                    items = batch(k)
                    try:
                        out = cl.reward(items) if direct else cl.reward(items, deadline=120)
                    except Exception as e:  # noqa: BLE001 - recorded, asserted below
                        with lock:
                            failures.append(f"batch {k}: {type(e).__name__}: {e}")
                        continue
                    with lock:
                        if [r["id"] for r in out] != [i["id"] for i in items]:
                            failures.append(f"batch {k}: ids {[r['id'] for r in out]}")
                        for r in out:
                            if r["id"] in results:
                                failures.append(f"{r['id']} answered twice")
                            results[r["id"]] = r
                        done_count[0] += 1
            finally:
                cl.close()

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
        for t in threads:
            t.start()
        end = time.monotonic() + 300
        while done_count[0] < BATCHES // 4 and time.monotonic() < end:
            time.sleep(0.05)
        # The killed replica's pool, named while it lives: its PID namespace's number is reused by
        # the next namespace made after it dies (the restarted api-3's, as often as not).
        killed_pools = {c["Labels"]["codetest.pool"] for c in docker_client.api.containers(
            all=True, filters={"label": "codetest.backend=docker"}) if _owner_ns(c) == killed_ns}
        assert killed_pools, "the replica about to be killed has no sandbox container"
        kill = subprocess.run([*base, "kill", "-s", "SIGKILL", "api-2"], env=env, capture_output=True, text=True,
                              timeout=60)
        assert kill.returncode == 0, kill.stderr
        while done_count[0] < BATCHES // 2 and time.monotonic() < end:
            time.sleep(0.05)
        restart = subprocess.run([*base, "restart", "-t", "25", "api-3"], env=env, capture_output=True, text=True,
                                 timeout=120)
        assert restart.returncode == 0, restart.stderr
        namespaces.add(pid_namespace(docker_client, containers()["api-3"]))
        for t in threads:
            t.join(timeout=max(1.0, end - time.monotonic()))
        assert not any(t.is_alive() for t in threads), "the load did not finish in time"
        assert done_count[0] < BATCHES or results, "no work was done"

        assert failures == [], failures[:5]
        want = {i["id"] for k in range(BATCHES) for i in batch(k)}
        assert set(results) == want  # nothing lost, nothing extra
        wrong = {i: r for i, r in results.items() if r["reward"] != expected_reward(i) or r["error"] is not None}
        assert wrong == {}, list(wrong.items())[:3]
        # the restarted replica is back in the pool; the killed one is out of it
        wait_ready(replicas[2])
        with pytest.raises(httpx.HTTPError):
            httpx.get(replicas[1] + "/livez", timeout=3)
        # The restarted replica removed the killed one's sandbox containers on its way up (the
        # killed replica's lock in the shared owners folder is free); the live ones kept theirs.
        # A container the killed replica was creating as it died can appear after that start-up
        # sweep; the live replicas sweep again every CODETEST_DOCKER_STALE_SWEEP_S (5 s here).
        deadline = time.monotonic() + 60
        while True:
            left_by_killed = [c["Id"] for c in docker_client.api.containers(
                all=True, filters={"label": "codetest.backend=docker"})
                if (c.get("Labels") or {}).get("codetest.pool") in killed_pools]
            if not left_by_killed or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert left_by_killed == [], "the killed replica's sandbox containers were not removed: " + json.dumps(
            _why_left(docker_client, base, env, project, left_by_killed), indent=1, default=str)
        live = {_owner_ns(c) for c in docker_client.api.containers(filters={"label": "codetest.backend=docker"})}
        assert pid_namespace(docker_client, containers()["api-1"]) in live
        # One compile cache for all: what replica 1 compiled, replica 3 runs without compiling.
        prog = {"language": "cpp", "code": "#include <cstdio>\nint main(){puts(\"%s\");}" % project,
                "tests": [{"stdin": "", "expected_stdout": project + "\n"}]}
        first = httpx.post(replicas[0] + "/v1/run", json=prog, timeout=120).json()
        again = httpx.post(replicas[2] + "/v1/run", json=prog, timeout=120).json()
        assert first["verdict"] == again["verdict"] == "AC", (first, again)
        assert first["compile"]["cached"] is False and again["compile"]["cached"] is True, (first, again)
    finally:
        down = subprocess.run([*base, "down", "-v", "-t", "30"], env=env, capture_output=True, text=True,
                              timeout=300)
        # Nothing may be left; should an assertion above have failed, remove what is (by label).
        orphan_info = [c for c in docker_client.api.containers(all=True, filters={"label": "codetest.backend=docker"})
                       if _owner_ns(c) in namespaces]
        orphans = [c["Id"] for c in orphan_info]
        for cid in orphans:
            docker_client.api.remove_container(cid, force=True, v=True)
    assert down.returncode == 0, down.stderr
    # the replicas that were stopped (restart, down) removed their own sandbox containers, and
    # the killed one's were removed by the replica that started after it
    assert orphan_info == []
    assert containers(all_=True) == {}
    left = [c for c in docker_client.api.containers(all=True, filters={"label": "codetest.backend=docker"})
            if _owner_ns(c) in namespaces]
    assert left == []


def _why_left(client, base: list[str], env: dict, project: str, left: list[str]) -> dict:
    """What a failure report needs: each container's state and pool, the owners folder as the
    shared volume holds it, and what the replicas logged about their pools and sweeping (a
    string message: pytest cuts the repr of any other object short)."""
    report: dict = {}
    for cid in left:
        info = client.api.inspect_container(cid)
        report[cid[:12]] = {"state": info["State"], "created": info["Created"], "labels": info["Config"]["Labels"]}
    try:
        mount = client.api.inspect_volume(f"{project}_codetest-shared")["Mountpoint"]
        owners = os.path.join(mount, "docker-pools")
        report["owners"] = {name: _lock_state(os.path.join(owners, name)) for name in sorted(os.listdir(owners))}
    except Exception as e:  # noqa: BLE001 - a report, not a check
        report["owners"] = repr(e)
    for service in ("api-1", "api-2", "api-3"):
        logs = subprocess.run([*base, "logs", "--no-color", service], env=env, capture_output=True, text=True,
                              timeout=60)
        report[service] = [line for line in (logs.stdout + logs.stderr).splitlines()
                           if any(w in line for w in ("pool", "stale", "remov", "sweep", "lock", "Error", "error", "Traceback"))][-40:]
    return report


def _lock_state(folder: str) -> str:
    """'held' (an instance lives and owns it) or 'free' (its owner is gone), as a sweep sees it."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return "free"
    except BlockingIOError:
        return "held"
    finally:
        os.close(fd)


def _owner_ns(container: dict) -> int:
    owner = (container.get("Labels") or {}).get("codetest.owner", "")
    parts = owner.split(":")
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else -1
