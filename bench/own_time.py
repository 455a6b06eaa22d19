"""Own time under load: what a busy machine adds to the elapsed time a program is judged on.

    python bench/own_time.py                          # 400 one-line programs among 48 CPU-bound ones
    python bench/own_time.py --programs 100 --busy 16

``/run_code`` judges ``run_timeout`` on a program's own elapsed time: its wall time less the
time it waited for a CPU (``docs/jail.md``, "The program's clock"). Whatever else a busy
machine adds to it (the jail's set-up, the reporting of the end, the kernel's work in the
program's exit) brings a correct program nearer to a wrong ``TimeLimitExceeded``.

``--programs`` one-line correct programs (3 ms of CPU each) go to ``/v1/run`` of a ``python -m
api`` service, ``--concurrency`` at a time, while ``--busy`` clients keep CPU-bound programs
(``--busy-cpu-s`` of CPU each, then TLE) running beside them. Reported for the one-line programs:
own time (wall less run delay), wall time and run delay, p50 / p90 / p99 / max, and how many were
judged anything but AC (must be 0).
"""

from __future__ import annotations

import argparse
import json
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

import httpx  # noqa: E402

from bench.server import Server, discard_scratch  # noqa: E402
from bench.trainer_load import pct  # noqa: E402

ONE_LINE = "print(input())\n# program {i}\n"  # distinct programs: identical requests may share work
BUSY = "while True:\n    pass\n# busy {i}\n"
RUN_S = 240.0  # the busy clients stop by then, whatever happens


def measure(url: str, programs: int, concurrency: int, busy: int, busy_cpu_s: float) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    stop = time.monotonic() + RUN_S
    done = threading.Event()

    def keep_busy(i: int) -> None:
        with httpx.Client(timeout=120) as client:
            while not done.is_set() and time.monotonic() < stop:
                try:
                    client.post(url + "/v1/run", json={"language": "python", "code": BUSY.format(i=i),
                                                       "tests": [{"stdin": ""}], "limits": {"time_s": busy_cpu_s}})
                except httpx.HTTPError:
                    if done.is_set():  # the service stopped under a busy request after the measure
                        return
                    raise

    def one(i: int) -> None:
        r = httpx.post(url + "/v1/run", timeout=120, json={
            "language": "python", "code": ONE_LINE.format(i=i), "limits": {"time_s": 1},
            "tests": [{"stdin": f"{i}\n", "expected_stdout": f"{i}\n"}]}).json()
        t = r["tests"][0]
        rows.append({"verdict": r["verdict"], "wall": t["wall_time_s"], "delay": t["run_delay_s"],
                     "own": t["wall_time_s"] - t["run_delay_s"]})

    workers = [threading.Thread(target=keep_busy, args=(i,), daemon=True) for i in range(busy)]
    for w in workers:
        w.start()
    time.sleep(min(5.0, 0.1 * busy))  # the busy programs are running before the first one-liner
    load = os.getloadavg()[0]
    try:
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(one, range(programs)))
    finally:
        done.set()
        load = max(load, os.getloadavg()[0])
        for w in workers:
            w.join(timeout=busy_cpu_s * 3 + 30)
    out: dict[str, Any] = {"programs": len(rows), "busy": busy, "load_average": round(load, 1),
                           "not_ac": sum(1 for r in rows if r["verdict"] != "AC")}
    for key in ("own", "wall", "delay"):
        xs = [r[key] for r in rows]
        out[key] = {"p50": round(pct(xs, 0.5), 3), "p90": round(pct(xs, 0.9), 3), "p99": round(pct(xs, 0.99), 3),
                    "max": round(max(xs), 3)}
    return out


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python bench/own_time.py", description=__doc__.split("\n")[0])
    p.add_argument("--programs", type=int, default=400, help="one-line programs sent (default 400)")
    p.add_argument("--concurrency", type=int, default=96, help="of them in flight at once (default 96)")
    p.add_argument("--busy", type=int, default=48, help="CPU-bound programs kept running beside them (default 48)")
    p.add_argument("--busy-cpu-s", type=float, default=3.0, help="CPU seconds each busy program gets (default 3)")
    p.add_argument("--out", default=None, help="write the result as JSON here")
    args = p.parse_args(argv)
    if args.programs < 1 or args.concurrency < 1 or args.busy < 0 or not 0 < args.busy_cpu_s <= 60:
        p.error("--programs and --concurrency must be at least 1, --busy at least 0, --busy-cpu-s in (0, 60]")
    uid_base = int(os.environ.get("CODETEST_UID_BASE", "63000"))
    state = tempfile.mkdtemp(prefix="codetest-own-time-")
    server = Server(os.path.join(state, "state"), uid_base, os.path.join(state, "server.log"))
    ok = False
    try:
        server.start(timeout_s=240)
        res = measure(server.url, args.programs, args.concurrency, args.busy, args.busy_cpu_s)
        ok = res["not_ac"] == 0
    finally:
        server.stop()
        discard_scratch(state, keep=not ok)
    print(f"{res['programs']} one-line programs beside {res['busy']} busy ones (load average {res['load_average']}): "
          + "  ".join(f"{k} p50 {res[k]['p50']:.3f} p90 {res[k]['p90']:.3f} p99 {res[k]['p99']:.3f} "
                      f"max {res[k]['max']:.3f} s"
                      for k in ("own", "wall", "delay"))
          + f"  not AC {res['not_ac']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
