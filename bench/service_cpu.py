"""The HTTP service's own cost: CPU per ``/run_code`` request, the jails not counted.

    python bench/service_cpu.py [N] [--concurrency C]

A real service (``python -m api`` on 127.0.0.1, its own state) takes N requests of a small
Python program, C in flight (verl's default request shape, 32 at once), after a warm-up of
N/10. Each request's program is a distinct one (a comment apart): identical ``/run_code``
requests in flight share one run (``api/rejoin.py``), which would measure no execution at all;
the requests that joined a run anyway (``codetest_run_code_rejoined_total``) are printed and
must be 0. Prints the service process's CPU milliseconds per request (all its threads: HTTP,
validation, admission, the scheduler, talking to the slots), the jail slots' CPU beside it and
this client's, and the whole machine's busy CPU per request (kernel threads, anything else
running). Run it in two checkouts one after the other to compare service changes on the
same machine: CPU per request barely moves with the machine's load, requests per second do.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

import httpx  # noqa: E402

from bench import cpu  # noqa: E402
from bench.server import Server, discard_scratch  # noqa: E402

PROGRAM = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"
BODY = {"code": PROGRAM, "language": "python", "stdin": "1 2 3\n", "run_timeout": 5, "compile_timeout": 10,
        "memory_limit_MB": 256}


def drive(url: str, n: int, concurrency: int, first: int = 0) -> tuple[float, int]:
    """n requests, ``concurrency`` in flight, programs numbered from ``first``: (seconds, wrong answers)."""
    left, wrong = [n], [0]
    lock = threading.Lock()
    with httpx.Client(base_url=url, timeout=120, limits=httpx.Limits(max_connections=concurrency)) as http:
        def worker() -> None:
            while True:
                with lock:
                    if left[0] <= 0:
                        return
                    left[0] -= 1
                    number = first + left[0]
                r = http.post("/run_code", json=dict(BODY, code=f"{PROGRAM}# request {number}\n"))
                ok = r.status_code == 200 and r.json().get("run_result", {}).get("stdout") == "6\n"
                if not ok:
                    with lock:
                        wrong[0] += 1

        t0 = time.monotonic()
        threads = [threading.Thread(target=worker) for _ in range(concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.monotonic() - t0, wrong[0]


def rejoined(url: str) -> float:
    """The service's count of /run_code requests that joined a run already there."""
    text = httpx.get(url + "/metrics", timeout=30).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("codetest_run_code_rejoined_total"))


def machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy (every core, kernel threads included)."""
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # all but idle, iowait; guest is in user


def by_category(before: dict, after: dict) -> dict[str, float]:
    out: dict[str, float] = {}
    for pid, (cat, own, reaped) in after.items():
        b = before.get(pid)
        out[cat] = out.get(cat, 0.0) + (own - (b[1] if b else 0.0)) + (reaped - (b[2] if b else 0.0))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("n", nargs="?", type=int, default=2000, help="requests measured (default 2000)")
    p.add_argument("--concurrency", type=int, default=32, help="requests in flight (default 32)")
    args = p.parse_args()
    if args.n < 1 or args.concurrency < 1:
        p.error("N and --concurrency must be at least 1")
    state = tempfile.mkdtemp(prefix="codetest-service-cpu-")
    uid_base = int(os.environ.get("CODETEST_UID_BASE", "62800"))
    server = Server(state, uid_base, os.path.join(state, "server.log"))
    wrong = joined = -1  # the run did not get as far as counting
    try:
        url = server.start()
        warm = max(1, args.n // 10)
        drive(url, warm, args.concurrency)  # warm: slots started, the interpreter's pages touched
        joined_before = rejoined(url)
        before, machine_before = cpu.snapshot(), machine_busy_s()
        secs, wrong = drive(url, args.n, args.concurrency, first=warm)
        spent, machine = by_category(before, cpu.snapshot()), machine_busy_s() - machine_before
        joined = int(rejoined(url) - joined_before)
    finally:
        server.stop()
        discard_scratch(state, keep=wrong != 0 or joined != 0)
    per = {k: 1000 * v / args.n for k, v in spent.items()}
    print(f"service {per.get('service', 0):5.2f} ms/request  jails {per.get('slots', 0):5.2f}  "
          f"client {per.get('bench', 0):5.2f}  machine {1000 * machine / args.n:5.2f}  ({args.n} requests, {args.concurrency} in flight, "
          f"{args.n / secs:.0f}/s, {wrong} wrong, {joined} joined, load {os.getloadavg()[0]:.1f})")
    return 1 if wrong or joined else 0


if __name__ == "__main__":
    sys.exit(main())
