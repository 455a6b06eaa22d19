"""`codetest testgen --ray` / `codetest evaluate --ray` on a real multi-node Ray cluster on
loopback (ray.cluster_utils.Cluster: a head and worker nodes, each its own raylet, one CPU each):
the same suites as a one-machine run, spread over the nodes, and a worker node killed in the
middle of a batch still ends with every problem written exactly once."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

# A cluster on 127.0.0.1 must be reached at 127.0.0.1 (Ray would otherwise swap in the outward IP).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]
REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("CODETEST_DATA", REPO.parent / "shared" / "data")) / "humaneval" / "problems.jsonl"
# Small settings: the point is where problems run, not how good the suites are.
FAST = ["--mutants", "8", "--max-tests", "8", "--min-tests", "1", "--budget-scale", "0.25", "--seed", "7"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def state_dir():
    d = tempfile.mkdtemp(prefix="codetest-ray-")
    os.chmod(d, 0o755)  # the jail users traverse it
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def env(state_dir):
    e = dict(os.environ, PYTHONPATH=str(REPO), CODETEST_STATE_DIR=state_dir, RAY_DEDUP_LOGS="0")
    e.setdefault("CODETEST_UID_BASE", str(400000 + (os.getpid() % 50) * 8192))
    return e


@pytest.fixture(scope="module")
def cluster(env):
    """A head and one worker node on 127.0.0.1; the sandbox settings reach the raylets' workers
    through the environment, as they would on a real node."""
    if not DATA.exists():
        pytest.skip(f"no data at {DATA}")
    saved = dict(os.environ)
    os.environ.update({k: env[k] for k in ("CODETEST_STATE_DIR", "CODETEST_UID_BASE", "PYTHONPATH")})
    c = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "node_ip_address": "127.0.0.1", "gcs_server_port": free_port(), "include_dashboard": False})
    try:
        c.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        c.wait_for_nodes(timeout=180)
        yield c
    finally:
        c.shutdown()
        os.environ.clear()
        os.environ.update(saved)


def problems(tmp_path: Path, n: int) -> Path:
    p = tmp_path / "problems.jsonl"
    with open(DATA, encoding="utf-8") as f, open(p, "w", encoding="utf-8") as out:
        for _, line in zip(range(n), f):
            out.write(line)
    return p


def run_testgen(env, *args: str, timeout: float = 400) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codetest", "testgen", *args, *FAST, "--quiet"], cwd=str(REPO),
                          env=env, capture_output=True, text=True, timeout=timeout)


def suites(path: Path) -> dict[str, list]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    ids = [rec["id"] for rec in lines]
    assert len(ids) == len(set(ids)), f"a problem was written twice: {ids}"
    return {rec["id"]: rec["tests"] for rec in lines}


def test_ray_batch_gives_the_same_suites_as_one_machine(cluster, env, tmp_path):
    probs = problems(tmp_path, 6)
    local, distributed = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    r = run_testgen(env, str(probs), "-o", str(local))
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_testgen(env, str(probs), "-o", str(distributed), "--ray", cluster.address)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ray: 6 problems on 2 nodes" in r.stdout, r.stdout  # both nodes did some
    a, b = suites(local), suites(distributed)
    assert len(a) == 6 and a == b


def test_killing_a_worker_node_mid_batch_loses_nothing_and_repeats_nothing(cluster, env, tmp_path):
    doomed = cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
    cluster.wait_for_nodes(timeout=180)
    probs = problems(tmp_path, 10)
    out = tmp_path / "ray.jsonl"
    cmd = [sys.executable, "-m", "codetest", "testgen", str(probs), "-o", str(out), *FAST, "--quiet",
           "--ray", cluster.address]
    proc = subprocess.Popen(cmd, cwd=str(REPO), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 240
        while not out.exists() or len(out.read_text().splitlines()) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < end, "the batch never got going"
            time.sleep(0.1)
        written_before = len(out.read_text().splitlines())
        cluster.remove_node(doomed, allow_graceful=False)  # its raylet and workers die at once
        stdout, stderr = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert written_before < 10, "the kill should land mid-batch"
    assert proc.returncode == 0, stdout + stderr
    assert "1 nodes lost, 0 actors replaced" in stdout, stdout
    got = suites(out)  # asserts every id once
    assert sorted(got) == sorted(json.loads(line)["id"] for line in probs.read_text().splitlines())


def _raylet_pid(node) -> int:
    from ray._private import ray_constants

    return node.all_processes[ray_constants.PROCESS_TYPE_RAYLET][0].process.pid


def _ray_processes() -> dict[int, dict]:
    """Every process whose title is a Ray worker's (``ray::...``): its parent, title, and the
    raylet it says it belongs to (RAY_RAYLET_PID; None where its environment cannot be read)."""
    found: dict[int, dict] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            title = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")[0]
            if not title.startswith(b"ray::"):
                continue
            ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        try:
            env = Path(f"/proc/{d}/environ").read_bytes().split(b"\0")
            raylet = next((int(e.split(b"=", 1)[1]) for e in env if e.startswith(b"RAY_RAYLET_PID=")), None)
        except (OSError, ValueError):
            raylet = None
        found[int(d)] = {"ppid": ppid, "title": title.decode(errors="replace"), "raylet": raylet}
    return found


def _actor_to_kill(raylets: list[int], procs: dict[int, dict]) -> int | None:
    """The pid of one NodeWorker actor, the first raylet's if it has one: a Ray worker carries its
    raylet's pid in its environment (RAY_RAYLET_PID), and is its raylet's child where the
    environment cannot be read; the sandbox processes an actor forks carry its title too, so only
    the topmost is the actor. Where none is placed under these raylets, any topmost actor."""
    actors = {pid for pid, p in procs.items() if p["title"].startswith("ray::NodeWorker")}
    actors = {pid for pid in actors if procs[pid]["ppid"] not in actors}
    for raylet in raylets:
        mine = [pid for pid in sorted(actors) if procs[pid]["raylet"] == raylet
                or (procs[pid]["raylet"] is None and procs[pid]["ppid"] == raylet)]
        if mine:
            return mine[0]
    return min(actors, default=None)


def test_killing_a_worker_process_mid_batch_loses_nothing_and_repeats_nothing(cluster, env, tmp_path):
    raylets = [_raylet_pid(next(iter(cluster.worker_nodes))), _raylet_pid(cluster.head_node)]
    n = 24  # long enough that the kill lands mid-batch on a loaded machine too (12 once finished first)
    probs = problems(tmp_path, n)
    out = tmp_path / "ray.jsonl"
    cmd = [sys.executable, "-m", "codetest", "testgen", str(probs), "-o", str(out), *FAST, "--quiet",
           "--ray", cluster.address]
    proc = subprocess.Popen(cmd, cwd=str(REPO), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        t0, first = time.monotonic(), {}  # when the first problem was written, when the node's actor was seen
        while True:  # the first problem written, with the node's actor alive: most of the batch is still to do
            written_before = len(out.read_text().splitlines()) if out.exists() else 0
            seen = _ray_processes()
            actor = _actor_to_kill(raylets, seen)
            now = round(time.monotonic() - t0, 2)
            if written_before:
                first.setdefault("written", now)
            if actor:
                first.setdefault("actor", now)
            if written_before >= 1 and actor:
                break
            if proc.poll() is not None:
                stdout, stderr = proc.communicate()
                pytest.fail(f"the batch ended before the kill (first seen, s: {first}; {written_before} written; "
                            f"raylets {raylets}; Ray processes then: {seen})\n{stdout}\n{stderr[-3000:]}")
            assert now < 240, ("the batch never got going", first, seen)
            time.sleep(0.05)
        os.kill(actor, 9)  # the actor's worker process dies; its node lives on
        stdout, stderr = proc.communicate(timeout=400)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert written_before < n, "the kill should land mid-batch"
    assert proc.returncode == 0, stdout + stderr
    assert "0 nodes lost, 1 actors replaced" in stdout and "on 2 nodes" in stdout, stdout  # a new actor on its node
    got = suites(out)
    assert sorted(got) == sorted(json.loads(line)["id"] for line in probs.read_text().splitlines())


def test_rerun_after_the_driver_dies_finishes_the_rest(cluster, env, tmp_path):
    probs = problems(tmp_path, 4)
    out = tmp_path / "ray.jsonl"
    # the first two problems were done by a driver that then died, and its last line was cut short
    r = run_testgen(env, str(probs), "-o", str(out), "--limit", "2")
    assert r.returncode == 0, r.stderr
    first = out.read_text()
    with open(out, "a") as f:
        f.write('{"id": "HumanEval/2", "tests": [')
    r = run_testgen(env, str(probs), "-o", str(out), "--ray", cluster.address)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 problems processed (2 already done)" in r.stdout
    assert out.read_text().startswith(first)
    assert len(suites(out)) == 4


def test_evaluate_on_ray_matches_one_machine(cluster, env, tmp_path):
    probs = problems(tmp_path, 2)
    suite = tmp_path / "suites.jsonl"
    r = run_testgen(env, str(probs), "-o", str(suite))
    assert r.returncode == 0, r.stderr
    base = [sys.executable, "-m", "codetest", "evaluate", str(suite), "--sample", "2", "--quiet", "--pooled-only"]
    one = subprocess.run([*base, "--json", str(tmp_path / "one.json")], cwd=str(REPO), env=env,
                         capture_output=True, text=True, timeout=300)
    many = subprocess.run([*base, "--json", str(tmp_path / "ray.json"), "--ray", cluster.address], cwd=str(REPO),
                          env=env, capture_output=True, text=True, timeout=300)
    assert one.returncode == 0 and many.returncode == 0, one.stderr + many.stderr
    a = json.loads((tmp_path / "one.json").read_text())
    b = json.loads((tmp_path / "ray.json").read_text())
    assert a["pooled"]["correct"] > 0 and a["problems"] == b["problems"]
    assert not (tmp_path / "ray.json.partial.jsonl").exists()


def test_without_ray_flag_ray_is_not_imported():
    code = ("import sys; from testgen import cli, batch, pipeline; import codetest.cli; "
            "sys.exit(1 if 'ray' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=str(REPO), timeout=60).returncode == 0


def test_unreachable_cluster_is_exit_2(env, tmp_path):
    probs = tmp_path / "p.jsonl"
    probs.write_text('{"id": "x", "io": "function", "entry_point": "f", "gold_solutions": []}\n')
    r = subprocess.run([sys.executable, "-m", "codetest", "testgen", str(probs), "-o", str(tmp_path / "o.jsonl"),
                        "--ray", f"127.0.0.1:{free_port()}", "--quiet"], cwd=str(REPO), env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cannot join the Ray cluster" in r.stderr and "Traceback" not in r.stderr
