"""codetest benchmark: the shared workloads W1-W3 through every way in, as a ratio to the bare floor.

    python bench/run.py                          # everything, in well under 10 minutes on 2 cores
    python bench/run.py --workloads W1 --modes floor,http-run --limit 16

Prints one table (executions per second, latency, verdict agreement, each against the floor
measured in the same run) and the issue's targets, and writes the whole thing as JSON.
See docs/bench.md for what each column means.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))
    __package__ = "bench"

from bench import cpu, report  # noqa: E402
from bench.floor import Floor  # noqa: E402
from bench.measure import Measurement  # noqa: E402
from bench.modes import DEFAULT_MODES, MODES, Context, Mode, ModeUnavailable, make_mode  # noqa: E402
from bench.workloads import DEFAULT_SHARED, REPO_ROOT, Submission, WorkloadError, generate, load  # noqa: E402

WORKLOADS = ("W1", "W2", "W3")
# Submissions per workload for the slow ways in, so a full run stays well under 10 minutes;
# --full lifts these, --limit caps every mode further.
# The service (/v1/run) runs everything: its W3 is the verdict target, its W1-after-W3 the slowdown one.
DEFAULT_SLICES: dict[str, dict[str, int]] = {
    "library": {"W2": 32, "W3": 16},
    "http-run-code": {"W2": 16, "W3": 16},
    "docker": {"W1": 32, "W2": 8, "W3": 8},
    "cli": {"W1": 16, "W2": 8, "W3": 8},
}
AFTER_MODES = ("library", "http-run")  # modes that measure W1 again right after W3


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python bench/run.py", description=__doc__.split("\n")[0])
    p.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated subset of W1,W2,W3")
    p.add_argument("--modes", default=",".join(DEFAULT_MODES), help=f"comma-separated subset of {','.join(MODES)}")
    p.add_argument("--limit", type=int, default=None, help="at most N submissions of each workload in every mode")
    p.add_argument("--full", action="store_true", help="no per-mode slices: every mode runs every submission")
    p.add_argument("--out", default=os.path.join(REPO_ROOT, "bench", "out", "results.json"), help="JSON output")
    p.add_argument("--shared", default=DEFAULT_SHARED, help="folder of the shared workload.py (../shared/bench)")
    p.add_argument("--budget-s", type=float, default=120.0,
                   help="per measurement: no new work is started after this many seconds (default 120)")
    p.add_argument("--total-budget-s", type=float, default=480.0,
                   help="whole run: measurements that would start after this many seconds are skipped (default 480)")
    p.add_argument("--run-concurrency", type=int, default=4,
                   help="library and /v1/run requests in flight at once (default 4: two per slot)")
    p.add_argument("--run-code-concurrency", type=int, default=32, help="/run_code requests in flight (default 32)")
    p.add_argument("--no-after", action="store_true", help="skip measuring W1 again after W3")
    p.add_argument("--profile", metavar="DIR", help="record a py-spy profile of each measurement into DIR")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder (workloads, logs, state)")
    args = p.parse_args(argv)
    args.workload_list = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    args.mode_list = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [w for w in args.workload_list if w not in WORKLOADS] + [m for m in args.mode_list if m not in MODES]
    if bad or not args.workload_list or not args.mode_list:
        p.error(f"unknown or empty workloads/modes: {', '.join(bad) or '(none given)'}")
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    return args


def slice_for(mode: str, wl: str, subs: list[Submission], args: argparse.Namespace) -> list[Submission]:
    n = len(subs)
    if not args.full:
        n = min(n, DEFAULT_SLICES.get(mode, {}).get(wl, n))
    if args.limit is not None:
        n = min(n, args.limit)
    return subs[:n]


class Profiler:
    """py-spy record on a pid for the length of one measurement (optional; needs py-spy and ptrace)."""

    def __init__(self, out_dir: Optional[str]):
        self.out_dir = out_dir
        self.exe = shutil.which("py-spy") or (os.path.join(os.path.dirname(sys.executable), "py-spy"))
        self.proc: Optional[subprocess.Popen[bytes]] = None
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)

    def start(self, pid: Optional[int], name: str) -> None:
        if not self.out_dir or pid is None or not os.path.exists(self.exe):
            return
        out = os.path.join(self.out_dir, f"{name}.speedscope.json")
        self.proc = subprocess.Popen([self.exe, "record", "--pid", str(pid), "--rate", "100", "--subprocesses",
                                      "--format", "speedscope", "--output", out, "--nonblocking"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # let it attach

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is None:
            return
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


def progress(m: Measurement) -> None:
    m.extra["load1"] = round(os.getloadavg()[0], 2)  # this machine is shared: say how busy it was
    cpu_ms = report.cpu_ms_per_exec(m)
    print(f"  {m.mode:<13} {m.workload:<11} {m.executions:>5} execs in {m.wall_s:7.2f} s = {m.exec_per_s:7.1f}/s"
          f"  cpu {cpu_ms or 0:5.1f} ms/exec  wrong {m.disagreements}  SE {m.se}  err {m.errors}"
          f"{'  (budget hit)' if m.partial else ''}", file=sys.stderr, flush=True)


class Clock:
    """The whole run's time budget: each measurement gets what is left of it, at most --budget-s."""

    def __init__(self, total_s: float, per_s: float):
        self.end = time.perf_counter() + total_s
        self.per_s = per_s

    def budget(self) -> float:
        return max(0.0, min(self.per_s, self.end - time.perf_counter()))


def run_mode(mode: Mode, wls: dict[str, list[Submission]], args: argparse.Namespace, prof: Profiler,
             clock: Clock, skipped: dict[str, str]) -> list[Measurement]:
    order = [w for w in WORKLOADS if w in wls]
    if (not args.no_after and mode.name in AFTER_MODES and "W1" in wls and "W3" in wls):
        order.append(report.AFTER)
    rows = []
    for wl in order:
        if clock.budget() <= 0:
            skipped[f"{mode.name} {wl}"] = "the run's --total-budget-s was spent"
            continue
        subs = slice_for(mode.name, report.base_workload(wl), wls[report.base_workload(wl)], args)
        prof.start(mode.profile_pid(), f"{mode.name}-{wl}")
        before = cpu.snapshot()
        try:
            m = mode.measure(wl, subs, clock.budget())
        finally:
            prof.stop()
        m.extra["cpu_s"] = cpu.delta(before, cpu.snapshot())
        if m.errors:
            m.extra["diagnostics"] = mode.diagnostics()
        if mode.name == "docker":
            m.extra["cpu_note"] = "host side only: CPU inside the containers is not counted"
        progress(m)
        rows.append(m)
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    scratch = tempfile.mkdtemp(prefix="codetest-bench-")
    os.chmod(scratch, 0o755)
    info = report.machine()
    try:
        try:
            paths = generate(os.path.join(scratch, "workloads"), args.shared)
        except WorkloadError as e:
            print(f"bench: {e}", file=sys.stderr)
            return 2
        wls = {w: load(paths[w], w) for w in args.workload_list}
        full = {w: len(s) for w, s in wls.items()}
        print(f"bench: {', '.join(f'{w} {len(s)} submissions' for w, s in wls.items())}; "
              f"modes {','.join(args.mode_list)}; scratch {scratch}", file=sys.stderr, flush=True)
        ctx = Context(scratch)
        prof = Profiler(args.profile)
        rows: list[Measurement] = []
        skipped: dict[str, str] = {}
        clock = Clock(args.total_budget_s, args.budget_s)
        order = (["floor"] if "floor" in args.mode_list else []) + [m for m in args.mode_list if m != "floor"]
        for name in order:
            if name == "floor":
                fl = Floor(scratch)
                try:
                    for w in WORKLOADS:
                        if w in wls:
                            before = cpu.snapshot()
                            m = fl.measure(w, slice_for("floor", w, wls[w], args), clock.budget())
                            m.extra["cpu_s"] = cpu.delta(before, cpu.snapshot())
                            progress(m)
                            rows.append(m)
                finally:
                    fl.close()
                continue
            if clock.budget() <= 0:
                skipped[name] = "the run's --total-budget-s was spent"
                continue
            mode = make_mode(name, ctx, args.run_concurrency, args.run_code_concurrency)
            try:
                mode.open()
            except ModeUnavailable as e:
                skipped[name] = str(e)
                print(f"  {name}: skipped ({e})", file=sys.stderr, flush=True)
                continue
            try:
                rows.extend(run_mode(mode, wls, args, prof, clock, skipped))
            finally:
                mode.close()
        info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        info["bench_wall_s"] = round(time.perf_counter() - started, 1)
        text = report.table(rows, skipped, full)
        ts = report.targets(rows)
        dis = report.disagreement_lines(rows)
        header = (f"codetest bench  {info['date']}  {info['cpus']} x {info['cpu']}  kernel {info['kernel']}  "
                  f"load {info['loadavg_start'][0]:.2f}->{info['loadavg_end'][0]:.2f}  ({info['bench_wall_s']} s)")
        print(header)
        print(text)
        print("targets:")
        print(report.targets_text(ts))
        if dis:
            print("disagreements and errors (first few per row):")
            print(dis)
        floors = {m.workload: m for m in rows if m.mode == "floor"}
        doc: dict[str, Any] = {
            "machine": info,
            "args": {k: v for k, v in vars(args).items() if k not in ("workload_list", "mode_list")},
            "slices": {} if args.full else DEFAULT_SLICES,
            "skipped": skipped,
            "results": [dict(m.to_json(), **report.row_ratios(m, floors.get(report.base_workload(m.workload))))
                        for m in rows],
            "targets": ts,
            "table": header + "\n" + text,
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=2, default=str)
        print(f"wrote {args.out}", file=sys.stderr)
        return 0
    finally:
        if args.keep:
            print(f"bench: scratch kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
