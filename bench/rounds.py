"""The bench several times over, one checkout after another: ratios per round and their median.

    python bench/rounds.py --rounds 3 -- --workloads W1 --modes floor,http-run-code --no-after
    python bench/rounds.py --rounds 3 --trees /tmp/before,. -- --workloads W1 --modes floor,http-run-code --no-after

On this kind of machine one run's ratio to the floor moves by a tenth from run to run (the floor
itself ran 153-190 executions/s within one hour), so a claim rests on several rounds, and a
change on rounds that alternate the tree before and the tree after. Each round runs every
checkout's own ``bench/run.py`` (its driver, its service) with the arguments after ``--``, in the
order given; the table is every round's ``x floor`` and ``cpu x fl`` per checkout, mode and
workload, then the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    bench_args: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, bench_args = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(prog="python bench/rounds.py", description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="times each checkout is measured (default 3)")
    p.add_argument("--trees", default=HERE, help="comma-separated checkouts, measured in this order each round "
                                                 "(default: this one)")
    p.add_argument("--json", help="write every round's rows here")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    args.tree_list = [os.path.abspath(t) for t in args.trees.split(",") if t.strip()]
    missing = [t for t in args.tree_list if not os.path.isfile(os.path.join(t, "bench", "run.py"))]
    if missing or not args.tree_list:
        p.error(f"not a checkout with bench/run.py: {', '.join(missing) or '(none given)'}")
    if "--out" in bench_args:
        p.error("--out is this script's to set (use --json for the rounds)")
    return args, bench_args


class RunFailed(Exception):
    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def one_run(tree: str, bench_args: list[str]) -> list[dict[str, Any]]:
    """The result rows of one ``bench/run.py`` in ``tree`` (its own interpreter path: this one)."""
    with tempfile.TemporaryDirectory(prefix="codetest-rounds-") as scratch:
        out = os.path.join(scratch, "results.json")
        p = subprocess.run([sys.executable, os.path.join(tree, "bench", "run.py"), *bench_args, "--out", out],
                           cwd=tree, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.isfile(out):
            raise RunFailed(f"bench/run.py in {tree} exited {p.returncode}: {p.stderr[-1500:]}", p.returncode or 1)
        with open(out) as f:
            return json.load(f)["results"]


def main(argv: list[str]) -> int:
    args, bench_args = parse_args(argv)
    rows: list[dict[str, Any]] = []
    for r in range(1, args.rounds + 1):
        for tree in args.tree_list:
            try:
                results = one_run(tree, bench_args)
            except RunFailed as e:  # its own message; a bad argument stays exit 2
                print(f"rounds: {e}", file=sys.stderr)
                return e.code
            for res in results:
                row = {"round": r, "tree": tree, "mode": res["mode"], "workload": res["workload"],
                       "exec_per_s": res["exec_per_s"], "x_floor": res.get("exec_per_s_x_floor"),
                       "cpu_x_floor": res.get("cpu_x_floor"), "wrong": res.get("disagreements"),
                       "errors": res.get("errors")}
                rows.append(row)
                if res["mode"] != "floor":
                    print(f"round {r}  {os.path.basename(tree) or tree:<16} {res['mode']:<14} {res['workload']:<4} "
                          f"{res['exec_per_s']:7.1f}/s  x floor {_f(row['x_floor'])}  cpu x fl {_f(row['cpu_x_floor'])}"
                          f"  wrong {row['wrong']}  err {row['errors']}", file=sys.stderr, flush=True)
    print("median over rounds:")
    keys = sorted({(r["tree"], r["mode"], r["workload"]) for r in rows if r["mode"] != "floor"},
                  key=lambda k: (args.tree_list.index(k[0]), k[1], k[2]))
    for tree, mode, wl in keys:
        mine = [r for r in rows if (r["tree"], r["mode"], r["workload"]) == (tree, mode, wl)]
        xs = [r["x_floor"] for r in mine if r["x_floor"] is not None]
        cs = [r["cpu_x_floor"] for r in mine if r["cpu_x_floor"] is not None]
        print(f"  {tree}  {mode}  {wl}: x floor {_f(_median(xs))} (rounds {' '.join(_f(x) for x in xs)}), "
              f"cpu x fl {_f(_median(cs))}, wrong {sum(r['wrong'] or 0 for r in mine)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bench_args": bench_args, "trees": args.tree_list, "rows": rows}, f, indent=2)
    return 0


def _median(values: list[float]):
    return statistics.median(values) if values else None


def _f(v) -> str:
    return "-" if v is None else f"{v:.2f}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
