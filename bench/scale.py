"""Scale-out costs, measured side by side in one run on this machine:

1. Ray's overhead per problem: the same testgen batch (same seed, same settings) run by
   ``testgen.batch.run_batch`` in-process and by ``testgen.distributed.run_batch_ray`` on a
   local one-node Ray cluster with the same number of sandbox slots; the cluster's start is
   reported apart. The suites must be identical.
2. Trainer-side fan-out: the same reward items scored through ``client.fanout.ReplicaSet``
   over 1, 2 and 3 real ``codetest serve`` replicas (one slot each) on 127.0.0.1, and through
   ``client.ray_pool.RewardPool`` (Ray actors) over the 3 replicas.

On one 2-core machine the replicas share the same two cores, so more replicas cannot be
faster: the figure that matters here is the overhead (what the fan-out and Ray cost per item
or per problem), not a speed-up. On N machines each replica brings its own cores.

    python bench/scale.py [--problems 12] [--items 96] [--out bench/out/scale.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("CODETEST_DATA", ROOT.parent / "shared" / "data")) / "humaneval" / "problems.jsonl"
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # the local cluster stays on 127.0.0.1


def ray_overhead(n: int, slots: int, state: str) -> dict:
    from sandbox import Sandbox, SandboxConfig
    from testgen.batch import run_batch
    from testgen.distributed import connect, run_batch_ray
    from testgen.generators import Budget
    from testgen.pipeline import Settings
    from testgen.runner import LocalRunner

    probs = Path(state) / "problems.jsonl"
    with open(DATA, encoding="utf-8") as f, open(probs, "w", encoding="utf-8") as out:
        for _, line in zip(range(n), f):
            out.write(line)
    settings = Settings(seed=3, mutants=10, max_tests=10, min_tests=1, budget=Budget().scaled(0.3))
    local_out, ray_out = Path(state) / "local.jsonl", Path(state) / "ray.jsonl"

    t0 = time.perf_counter()
    sb = Sandbox(SandboxConfig(slots=slots))
    runner = LocalRunner(sb)
    t_sb = time.perf_counter() - t0
    # an untimed pass first, so neither timed run pays for cold caches
    run_batch(str(probs), str(Path(state) / "warm.jsonl"), runner, settings, workers=slots, progress=False)
    t0 = time.perf_counter()
    run_batch(str(probs), str(local_out), runner, settings, workers=slots, progress=False)
    t_local = time.perf_counter() - t0
    runner.close()
    sb.close()

    t0 = time.perf_counter()
    ray = connect(None, num_cpus=slots)
    t_start = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        summary = run_batch_ray(ray, str(probs), str(ray_out), {"backend": "native"}, settings, progress=False)
        t_ray = time.perf_counter() - t0
    finally:
        ray.shutdown()

    def suites(p: Path) -> dict:
        return {json.loads(x)["id"]: json.loads(x)["tests"] for x in p.read_text().splitlines()}

    same = suites(local_out) == suites(ray_out)
    return {"problems": n, "slots": slots, "local_s": round(t_local, 3), "local_sandbox_start_s": round(t_sb, 3),
            "ray_cluster_start_s": round(t_start, 3), "ray_s": round(t_ray, 3),
            "ray_overhead_per_problem_s": round((t_ray - t_local) / n, 3),
            "ray_over_local": round(t_ray / t_local, 3), "same_suites": same, "ray_status": summary["status"]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_replicas(k: int, state: str) -> list[tuple[subprocess.Popen, str]]:
    import httpx

    out = []
    for i in range(k):
        port = free_port()
        env = dict(os.environ, PYTHONPATH=str(ROOT), CODETEST_STATE_DIR=os.path.join(state, f"r{i}"),
                   CODETEST_UID_BASE=str(int(os.environ.get("CODETEST_UID_BASE", "61000")) + 64 * (i + 1)))
        p = subprocess.Popen([sys.executable, "-m", "codetest", "serve", "--port", str(port), "--slots", "1",
                              "--log-level", "warning"], cwd=str(ROOT), env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append((p, f"http://127.0.0.1:{port}"))
    for p, url in out:
        end = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > end or p.poll() is not None:
                raise RuntimeError(f"replica {url} did not start")
            time.sleep(0.1)
    return out


def reward_items(n: int) -> list[dict]:
    good = "```python\nn = int(input())\nprint(n * 2)\n```"
    bad = "```python\nn = int(input())\nprint(n * n)\n```"
    tests = [{"stdin": "2\n", "expected_stdout": "4\n"}, {"stdin": "5\n", "expected_stdout": "10\n"}]
    return [{"id": f"i{k}", "completion": good if k % 2 else bad, "language": "python", "tests": tests}
            for k in range(n)]


def fanout(n_items: int, state: str, chunk: int) -> list[dict]:
    from client.fanout import ReplicaSet

    items = reward_items(n_items)
    want = [1.0 if k % 2 else 0.5 for k in range(n_items)]
    replicas = start_replicas(3, state)
    rows = []
    try:
        urls = [u for _, u in replicas]
        with ReplicaSet(urls[:1], chunk_size=chunk) as rs:  # warm each replica's compile cache
            rs.reward(items[:4])
        for u in urls[1:]:
            with ReplicaSet([u], chunk_size=chunk) as rs:
                rs.reward(items[:4])
        from client import Client

        with Client(urls[0]) as c:  # the baseline: one plain client call per chunk, one replica
            t0 = time.perf_counter()
            out = [r for k in range(0, n_items, chunk) for r in c.reward(items[k:k + chunk])]
            dt = time.perf_counter() - t0
        assert [r["reward"] for r in out] == want, "wrong rewards"
        rows.append({"client": "Client, sequential chunks", "replicas": 1, "items": n_items, "wall_s": round(dt, 3),
                     "items_per_s": round(n_items / dt, 1), "ms_per_item": round(1000 * dt / n_items, 2)})
        for k in (1, 2, 3):
            with ReplicaSet(urls[:k], chunk_size=chunk, policy="least_loaded") as rs:
                t0 = time.perf_counter()
                out = rs.reward(items)
                dt = time.perf_counter() - t0
            assert [r["reward"] for r in out] == want, "wrong rewards"
            rows.append({"client": "ReplicaSet", "replicas": k, "items": n_items, "wall_s": round(dt, 3),
                         "items_per_s": round(n_items / dt, 1), "ms_per_item": round(1000 * dt / n_items, 2)})
        try:
            import ray

            from client.ray_pool import RewardPool
        except ImportError:
            return rows
        ray.init(num_cpus=2, _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
        try:
            pool = RewardPool(urls, num_actors=2, chunk_size=chunk)
            pool.reward(items[:4])  # actors up
            t0 = time.perf_counter()
            out = pool.reward(items)
            dt = time.perf_counter() - t0
            pool.close()
        finally:
            ray.shutdown()
        assert [r["reward"] for r in out] == want, "wrong rewards"
        rows.append({"client": "RewardPool (Ray, 2 actors)", "replicas": 3, "items": n_items, "wall_s": round(dt, 3),
                     "items_per_s": round(n_items / dt, 1), "ms_per_item": round(1000 * dt / n_items, 2)})
    finally:
        for p, _ in replicas:
            os.killpg(p.pid, signal.SIGTERM)
        for p, _ in replicas:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=int, default=12)
    ap.add_argument("--slots", type=int, default=2)
    ap.add_argument("--items", type=int, default=96)
    ap.add_argument("--chunk", type=int, default=8)
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "scale.json"))
    args = ap.parse_args()
    state = tempfile.mkdtemp(prefix="codetest-bench-scale-")
    os.chmod(state, 0o755)
    os.environ.setdefault("CODETEST_STATE_DIR", os.path.join(state, "sb"))
    try:
        ray_row = ray_overhead(args.problems, args.slots, state)
        fan = fanout(args.items, state, args.chunk)
    finally:
        shutil.rmtree(state, ignore_errors=True)
    print(f"cores: {os.cpu_count()}, load average at the end: {os.getloadavg()[0]:.1f}")
    r = ray_row
    print(f"\ntestgen, {r['problems']} HumanEval problems, {r['slots']} slots, same seed:")
    print(f"  one machine (run_batch)        {r['local_s']:8.2f} s")
    print(f"  Ray, local 1-node cluster      {r['ray_s']:8.2f} s   (cluster start {r['ray_cluster_start_s']:.1f} s apart)")
    print(f"  Ray overhead per problem       {r['ray_overhead_per_problem_s']:8.3f} s   "
          f"({r['ray_over_local']:.2f}x), identical suites: {r['same_suites']}")
    print(f"\nreward fan-out, {args.items} items x 2 tests, chunks of {args.chunk}, replicas of 1 slot each "
          f"on the same {os.cpu_count()} cores:")
    print(f"  {'client':<28} {'replicas':>8} {'wall s':>8} {'items/s':>8} {'ms/item':>8}")
    for row in fan:
        print(f"  {row['client']:<28} {row['replicas']:>8} {row['wall_s']:>8.2f} {row['items_per_s']:>8.1f} "
              f"{row['ms_per_item']:>8.2f}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"ray_overhead": ray_row, "fanout": fan, "cores": os.cpu_count()}, f, indent=1)
    return 0 if ray_row["same_suites"] else 1


if __name__ == "__main__":
    sys.exit(main())
