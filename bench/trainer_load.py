"""Trainer load: the trainers' own reward clients against one ``codetest`` service, at their concurrency.

    python bench/trainer_load.py                       # verl at 64 and 256, OpenRLHF at 256
    python bench/trainer_load.py --limit 32 --runs verl64

W1 (the shared workload's 256 Python programs x 10 tests: correct, wrong answer, runtime error)
becomes completions (fenced, ``<|im_end|>`` after the fence, as a model emits them), plus 25 %
completions that never finish (``--loop-share`` of them burn CPU, the rest sleep). Each run
sends them through a client's own code:

- ``verl64`` / ``verl256``: verl's ``sandbox_fusion.compute_score`` (one ``/run_code`` request per
  test, its ``max_concurrent`` semaphore at 64 or 256, its HTTP timeout compile + run + 10 s);
- ``openrlhf256``: OpenRLHF's ``SingleTurnAgentExecutor`` HTTP reward request (one
  ``/get_reward`` per sample, 256 samples in flight, 5 tries 1 s apart, 180 s total).

Every score is checked against what SandboxFusion semantics give (passed / total, the workload's
expected verdicts; 0 for a completion that never finishes): the ``wrong`` column must be 0.
Also: executions per second, request latency p50/p99, and CPU per execution over the service's
whole process tree. The service is ``python -m api`` with its default slots (64 per core, at most 256).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))
    __package__ = "bench"

from bench import cpu  # noqa: E402
from bench.clients import load_verl_sandbox_fusion  # noqa: E402
from bench.server import Server, discard_scratch  # noqa: E402
from bench.workloads import DEFAULT_SHARED, Submission, generate, load  # noqa: E402

RUNS = ("verl64", "verl256", "openrlhf256")
LOOP = "import sys\nsys.stdin.read()\nwhile True:\n    pass\n"
SLEEP = "import time\ntime.sleep(60)\n"


@dataclass
class Case:
    id: str
    code: str
    inputs: list[str]
    outputs: list[str]
    expected_score: float
    time_limit_s: float
    memory_mb: int

    @property
    def completion(self) -> str:
        return f"Here is the program.\n```python\n{self.code.rstrip()}\n```<|im_end|>"


def cases(subs: list[Submission], timing_out: float, loop_share: float) -> list[Case]:
    out = [Case(s.id, s.code, [t.stdin for t in s.tests], [t.expected_stdout for t in s.tests],
                sum(t.expected_verdict == "AC" for t in s.tests) / len(s.tests), s.time_limit_s, s.memory_limit_mb)
           for s in subs]
    n_slow = round(len(out) * timing_out / (1 - timing_out))
    n_loop = round(n_slow * loop_share)
    for i in range(n_slow):
        s = subs[i % len(subs)]
        code = f"{LOOP if i < n_loop else SLEEP}# completion {i}\n"  # distinct: identical requests share a run
        out.append(Case(f"slow-{i}", code, [t.stdin for t in s.tests],
                        [t.expected_stdout for t in s.tests], 0.0, s.time_limit_s, s.memory_limit_mb))
    # spread the slow ones through the run
    step = 7
    while math.gcd(step, len(out)) != 1:
        step += 2
    return [out[(i * step) % len(out)] for i in range(len(out))]


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class Timed:
    """Wraps ``requests`` inside verl's module to time each HTTP call (verl's code is unchanged)."""

    def __init__(self, real: Any):
        self._real = real
        self.latencies: list[float] = []
        self.statuses: dict[int, int] = {}
        self.refusals: list[str] = []  # the first few answers other than 200, as sent
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def post(self, *a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        r = self._real.post(*a, **kw)
        with self._lock:
            self.latencies.append(time.perf_counter() - t0)
            self.statuses[r.status_code] = self.statuses.get(r.status_code, 0) + 1
            if r.status_code != 200 and len(self.refusals) < 3:
                self.refusals.append(r.text[:400])
        return r


def run_verl(url: str, items: list[Case], concurrency: int) -> dict[str, Any]:
    sf = load_verl_sandbox_fusion()
    utils = sys.modules[sf.__name__ + ".utils"]
    for name in (sf.__name__, utils.__name__):  # verl logs every failed case with its code; we count them
        logging.getLogger(name).setLevel(logging.CRITICAL)
    timed = Timed(utils.requests)
    utils.requests = timed
    semaphore = threading.Semaphore(concurrency)
    wrong: list[str] = []
    api_errors = 0

    def one(c: Case) -> None:
        nonlocal api_errors
        score, meta = sf.compute_score(url + "/run_code", semaphore, c.memory_mb, c.completion,
                                       {"inputs": c.inputs, "outputs": c.outputs}, False, int(c.time_limit_s))
        errs = sum(1 for m in meta if m.get("status") in ("api_error", "sandbox_error", "unknown"))
        api_errors += errs
        if abs(score - c.expected_score) > 1e-9:
            first = next((m.get("api_request_error") or m.get("status") for m in meta
                          if m.get("status") not in ("success", "wrong_answer")), "")
            wrong.append(f"{c.id}: {score} != {c.expected_score} ({first})")

    try:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            list(pool.map(one, items))
    finally:
        utils.requests = timed._real
    return {"requests": len(timed.latencies), "latencies": timed.latencies, "wrong": wrong, "api_errors": api_errors,
            "http_status": timed.statuses, "refusals": timed.refusals}


def run_openrlhf(url: str, items: list[Case], concurrency: int) -> dict[str, Any]:
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(url + "/get_reward")
    prompt = "Solve the problem.\n"
    latencies: list[float] = []
    wrong: list[str] = []
    failed = 0

    async def main() -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(c: Case) -> None:
            nonlocal failed
            label = json.dumps({"tests": [{"stdin": i, "expected_stdout": o} for i, o in zip(c.inputs, c.outputs)],
                                "language": "python", "limits": {"time_s": c.time_limit_s, "memory_mb": c.memory_mb}})
            async with gate:
                t0 = time.perf_counter()
                try:
                    ans = await executor._fetch_rewards_via_http([prompt + c.completion], [prompt], [label])
                except Exception as e:  # noqa: BLE001 - OpenRLHF gives up: no reward for this sample
                    failed += 1
                    wrong.append(f"{c.id}: no reward ({e})")
                    return
                finally:
                    latencies.append(time.perf_counter() - t0)
            info = ans[0]
            if info["extra_logs"]["sandbox_error"][0]:
                failed += 1
            if abs(info["rewards"][0] - c.expected_score) > 1e-9:
                wrong.append(f"{c.id}: {info['rewards'][0]} != {c.expected_score} ({info.get('errors')})")

        await asyncio.gather(*[one(c) for c in items])

    asyncio.run(main())
    return {"requests": len(latencies), "latencies": latencies, "wrong": wrong, "api_errors": failed, "http_status": {}}


def refusals(url: str) -> dict[str, float]:
    """The service's counts of answers that ran nothing to the end for their request: refusals by
    reason (``codetest_rejections``), 504s whose run went on, and requests that joined a run."""
    import re

    text = __import__("httpx").get(url + "/metrics", timeout=30).text
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(r'codetest_rejections_total\{reason="([^"]+)"\} (\S+)', line)
        if m:
            out[m.group(1)] = float(m.group(2))
        for name in ("still_running", "rejoined"):
            if line.startswith(f"codetest_run_code_{name}_total "):
                out[name] = float(line.split()[-1])
    return out


def measure(name: str, server: Server, items: list[Case]) -> dict[str, Any]:
    counted = refusals(server.url)
    before = cpu.snapshot(server.pid)
    t0 = time.perf_counter()
    if name.startswith("verl"):
        res = run_verl(server.url, items, int(name[4:]))
        executions = sum(len(c.inputs) for c in items)
    else:
        res = run_openrlhf(server.url, items, int(name[8:]))
        executions = sum(len(c.inputs) for c in items)
    wall = time.perf_counter() - t0
    used = cpu.delta(before, cpu.snapshot(server.pid))
    service_cpu = used.get("service", 0.0) + used.get("jail", 0.0) + used.get("other", 0.0)
    lat = res["latencies"]
    after = refusals(server.url)
    refused = {k: int(v - counted.get(k, 0.0)) for k, v in sorted(after.items()) if v - counted.get(k, 0.0) > 0}
    return {
        "run": name, "completions": len(items), "executions": executions, "requests": res["requests"],
        "wrong": len(res["wrong"]), "wrong_examples": res["wrong"][:5], "api_errors": res["api_errors"],
        "http_status": res["http_status"], "wall_s": round(wall, 2), "exec_per_s": round(executions / wall, 1),
        "p50_s": round(pct(lat, 0.5), 3), "p99_s": round(pct(lat, 0.99), 3), "max_s": round(max(lat), 3) if lat else None,
        "service_cpu_ms_per_exec": round(1000 * service_cpu / max(1, executions), 2),
        "refused": refused, "refusal_examples": res.get("refusals", []),
    }


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/trainer_load.py", description=__doc__.split("\n")[0])
    p.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated subset of {','.join(RUNS)}")
    p.add_argument("--limit", type=int, default=64, help="W1 submissions (spread over the 256; default 64)")
    p.add_argument("--timing-out", type=float, default=0.25, help="share of completions that never finish")
    p.add_argument("--loop-share", type=float, default=0.2, help="share of those that burn CPU (the rest sleep)")
    p.add_argument("--shared", default=DEFAULT_SHARED, help="folder of the shared workload.py")
    p.add_argument("--out", default=None, help="write the results as JSON here")
    args = p.parse_args(argv)
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    if not runs or any(r not in RUNS for r in runs) or args.limit < 1 or not 0 <= args.timing_out < 1:
        p.error("bad --runs, --limit or --timing-out")
    scratch = tempfile.mkdtemp(prefix="codetest-trainer-load-")
    subs = load(generate(os.path.join(scratch, "w"), args.shared)["W1"], "W1")
    stride = max(1, len(subs) // args.limit)
    items = cases(subs[::stride][: args.limit], args.timing_out, args.loop_share)
    uid_base = int(os.environ.get("CODETEST_UID_BASE", "64000")) + 900
    server = Server(os.path.join(scratch, "state"), uid_base, os.path.join(scratch, "server.log"))
    results = []
    try:
        server.start(timeout_s=300)  # many slots start slowly on a loaded machine
        health = __import__("httpx").get(server.url + "/healthz", timeout=10).json()
        print(f"service: {health.get('slots')} slots on {os.cpu_count()} cores; {len(items)} completions "
              f"({sum(c.id.startswith('slow') for c in items)} never finish), "
              f"{sum(len(c.inputs) for c in items)} executions per run")
        for name in runs:
            r = measure(name, server, items)
            results.append(r)
            print(f"{r['run']:<12} wrong {r['wrong']:>3}  api errors {r['api_errors']:>3}  "
                  f"{r['exec_per_s']:>7} exec/s  p50 {r['p50_s']:.3f}s  p99 {r['p99_s']:.3f}s  "
                  f"max {r['max_s']}s  wall {r['wall_s']}s  service CPU {r['service_cpu_ms_per_exec']} ms/exec  "
                  f"HTTP {r['http_status']}  service: {r['refused'] or 'nothing refused'}")
            for w in r["wrong_examples"]:
                print("   ", w)
            if r["wrong"] or r["api_errors"]:
                for w in r["refusal_examples"]:
                    print("    answered:", w)
    finally:
        server.stop()
        failed = len(results) < len(runs) or any(r["wrong"] or r["api_errors"] for r in results)
        discard_scratch(scratch, keep=failed)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"results": results, "args": vars(args)}, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
