"""CPU burst: more CPU-bound correct programs at once than the cores finish in verl's time.

    python bench/cpu_burst.py                     # 64 programs of 1.4 s of CPU, gate on and off
    python bench/cpu_burst.py --programs 32 --cpu-s 0.8 --gates 2

Each program is correct (it prints 42 for 21) after burning ``--cpu-s`` seconds of its own CPU
time, far below verl's 10 s limit. They go through verl's own ``compute_score`` (one
``/run_code`` request each, its semaphore at ``--programs``, its HTTP timeout compile + run +
10 s, its retries of a 504) to a ``python -m api`` service with its default slots, once per
``CODETEST_RUNNABLE_PER_CORE`` in ``--gates`` (2: the CPU gate as shipped; 0: off, every
program starts at once). Every score must be 1: ``wrong`` counts those that are not.
Reported beside it: the HTTP statuses verl saw (504s it retried), wall time, and CPU per
program over the service's whole process tree.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))
    __package__ = "bench"

from bench import cpu  # noqa: E402
from bench.clients import load_verl_sandbox_fusion  # noqa: E402
from bench.server import Server  # noqa: E402
from bench.trainer_load import Timed  # noqa: E402

VERL_TIMEOUT_S = 10  # verl's default `timeout` (compile and run)


def program(cpu_s: float) -> str:
    return ("import sys, time\nwhile time.process_time() < %r:\n    pass\nprint(int(sys.stdin.read()) * 2)\n"
            % cpu_s)


def run(url: str, n: int, cpu_s: float) -> dict[str, Any]:
    sf = load_verl_sandbox_fusion()
    utils = sys.modules[sf.__name__ + ".utils"]
    for name in (sf.__name__, utils.__name__):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    timed = Timed(utils.requests)
    utils.requests = timed
    semaphore = threading.Semaphore(n)
    scores: list[float] = []

    def one(i: int) -> None:  # n programs, not one n times (identical requests share a run: api/rejoin.py)
        completion = f"```python\n{program(cpu_s)}# program {i}\n```<|im_end|>"
        score, _meta = sf.compute_score(url + "/run_code", semaphore, 1024, completion,
                                        {"inputs": ["21\n"], "outputs": ["42\n"]}, False, VERL_TIMEOUT_S)
        scores.append(score)

    try:
        with ThreadPoolExecutor(max_workers=n) as pool:
            list(pool.map(one, range(n)))
    finally:
        utils.requests = timed._real
    return {"scores": scores, "http_status": timed.statuses}


def measure(gate: str, n: int, cpu_s: float, state: str, uid_base: int) -> dict[str, Any]:
    saved = os.environ.get("CODETEST_RUNNABLE_PER_CORE")
    os.environ["CODETEST_RUNNABLE_PER_CORE"] = gate
    server = Server(os.path.join(state, f"gate-{gate}"), uid_base, os.path.join(state, f"server-{gate}.log"))
    try:
        server.start(timeout_s=240)
    finally:
        if saved is None:
            os.environ.pop("CODETEST_RUNNABLE_PER_CORE", None)
        else:
            os.environ["CODETEST_RUNNABLE_PER_CORE"] = saved
    try:
        before = cpu.snapshot(server.pid)
        t0 = time.perf_counter()
        res = run(server.url, n, cpu_s)
        wall = time.perf_counter() - t0
        used = cpu.delta(before, cpu.snapshot(server.pid))
    finally:
        server.stop()
    service_cpu = used.get("service", 0.0) + used.get("jail", 0.0) + used.get("other", 0.0)
    scores = res["scores"]
    return {"runnable_per_core": gate, "programs": n, "cpu_s_each": cpu_s,
            "scored_1": sum(1 for s in scores if s == 1.0), "wrong": sum(1 for s in scores if s != 1.0),
            "http_status": res["http_status"], "wall_s": round(wall, 1),
            "cpu_s_per_program": round(service_cpu / max(1, n), 2)}


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/cpu_burst.py", description=__doc__.split("\n")[0])
    p.add_argument("--programs", type=int, default=64, help="programs sent at once (verl's default concurrency: 64)")
    p.add_argument("--cpu-s", type=float, default=1.4, help="CPU seconds each program burns before answering")
    p.add_argument("--gates", default="2,0", help="CODETEST_RUNNABLE_PER_CORE values to compare (0: gate off)")
    p.add_argument("--out", default=None, help="write the results as JSON here")
    args = p.parse_args(argv)
    if args.programs < 1 or not 0 < args.cpu_s < VERL_TIMEOUT_S:
        p.error(f"--programs must be at least 1 and --cpu-s between 0 and {VERL_TIMEOUT_S}")
    uid_base = int(os.environ.get("CODETEST_UID_BASE", "63000"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="codetest-burst-") as state:
        print(f"{'gate':>5} {'programs':>8} {'cpu s':>6} {'scored 1':>8} {'wrong':>5} {'wall s':>7} "
              f"{'cpu s/prog':>10}  http statuses verl saw")
        for gate in args.gates.split(","):
            row = measure(gate.strip(), args.programs, args.cpu_s, state, uid_base)
            rows.append(row)
            print(f"{row['runnable_per_core']:>5} {row['programs']:>8} {row['cpu_s_each']:>6} {row['scored_1']:>8} "
                  f"{row['wrong']:>5} {row['wall_s']:>7} {row['cpu_s_per_program']:>10}  {row['http_status']}",
                  flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["wrong"] == 0 for r in rows if r["runnable_per_core"] != "0") else 1


if __name__ == "__main__":
    sys.exit(main())
