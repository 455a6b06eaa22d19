"""Side by side: the problems' own tests vs. our synthesized suites, judged on labelled programs.

    .venv/bin/python bench/testgen_report.py                       # all four dev sets, full
    .venv/bin/python bench/testgen_report.py --limit 40 --sample 20  # a quick look
    .venv/bin/python bench/testgen_report.py --datasets stdio-toy
    .venv/bin/python bench/testgen_report.py --datasets stdio-contest --problems gcpc2021/killjoys,gcpc2023/balloondarts
    .venv/bin/python bench/testgen_report.py --datasets stdio-contest --cpp-dialect cpp20  # C++ as DOMjudge judged it

For each dataset: synthesize suites (``codetest testgen``, resumable: reruns reuse
``--out-dir``), then judge the held-out labelled programs with (a) the problems' own base
tests / samples, (b) our suites and, where the data has it, (c) the full labelling suite.
Prints TPR, TNR, the share of problems whose suite rejects every incorrect program, and
tests per problem. HumanEval's labels come from the HumanEval+ tests, so on that data the
full labelling suite is 100% / 100% by construction (its tests are not in the data).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from testgen import CPP_DIALECTS  # noqa: E402 (the package alone: nothing of the sandbox yet)

DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
# dataset -> (the problems' own tests, the full labelling suite once moved aside by testgen)
COLUMNS = {"humaneval": ("base_tests", None), "stdio-toy": ("seed_tests", "source_tests"),
           "stdio-bapc": ("sample_tests", "source_tests"), "stdio-contest": ("sample_tests", "source_tests")}
TRIVIAL = ("compile_error", "load_error")  # rejected by any non-empty suite


def _trivial_names(rec: dict[str, Any]) -> set[str]:
    """Held-out incorrect programs that fail before any test (syntax or load errors)."""
    out = set()
    for i, p in enumerate(rec.get("heldout_incorrect") or []):
        if isinstance(p.get("failure"), dict) and p["failure"].get("kind") in TRIVIAL:
            out.add(str(p.get("path") or p.get("source_path") or p.get("name") or f"#{i}"))
    return out


def _behavioural(rep: Any, records: list[dict[str, Any]], per_label: Optional[int], cpp_dialect: str = "cpp"
                 ) -> Optional[float]:
    """TNR on behavioural bugs only: programs that do not even load are left out."""
    from testgen.evaluate import sample
    from testgen.problem import ProblemError, load_problem

    rej = inc = 0
    by_id = {str(r.get("id")): r for r in records}
    for p in rep.problems:
        rec = by_id.get(p.id)
        if rec is None or not p.incorrect:
            continue
        try:
            prob = load_problem(rec, cpp_dialect)
        except ProblemError:
            continue
        picked = {q.name for q in sample(prob.heldout_incorrect, per_label, f"{p.id}:incorrect")}
        trivial = len(picked & _trivial_names(rec)) if p.tests else 0
        rej += p.rejected - trivial
        inc += p.incorrect - trivial
    return rej / inc if inc else None


def _pick(src: str, k: int, seed: int) -> set[str]:
    """K problem ids of a problems file, drawn by ``random.Random(seed)`` (the same on every run)."""
    import random

    from testgen.problem import iter_records

    ids = [str(r.get("id") if r.get("id") is not None else r.get("task_id"))
           for _, r, _ in iter_records(src) if r is not None]
    return set(random.Random(seed).sample(ids, min(k, len(ids))))


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default="humaneval,stdio-bapc,stdio-toy,stdio-contest")
    ap.add_argument("--data-dir", default=DATA)
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "out", "testgen"))
    ap.add_argument("--limit", type=int, help="first N problems of each dataset")
    ap.add_argument("--pick", type=int, help="a random sample of K problems of each dataset (see --pick-seed)")
    ap.add_argument("--pick-seed", type=int, default=0, help="the seed of --pick's sample (it is printed)")
    ap.add_argument("--problems", help="only these problem ids, comma-separated (with --pick: both)")
    ap.add_argument("--sample", type=int, help="at most K held-out programs per label per problem")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-tests", type=int, default=50)
    ap.add_argument("--mutants", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("batched", "engine"), default="batched")
    ap.add_argument("--families", help="generator families, comma-separated (default: all but the opt-in widen)")
    ap.add_argument("--json", help="write every number as JSON here")
    ap.add_argument("--budget-scale", type=float, default=1.0, help="scale every family's candidate budget")
    ap.add_argument("--no-official", action="store_true",
                    help="skip judging with the data's own full test suites (slow on stdio-contest)")
    ap.add_argument("--cpp-dialect", choices=CPP_DIALECTS, default="cpp",
                    help="what the records' C++ programs compile as: cpp = gnu++17 (default), cpp20 = gnu++20 "
                         "(DOMjudge's default, what the contest data was judged with); its own suites file")
    args = ap.parse_args(argv)

    # A private sandbox state folder under --out-dir: other processes on a shared machine clean up
    # their own state folders and scratch space, and must not take ours with them.
    os.makedirs(args.out_dir, exist_ok=True)
    own_state = "CODETEST_STATE_DIR" not in os.environ
    if own_state:
        d = tempfile.mkdtemp(prefix="sandbox-state-", dir=args.out_dir)
        os.chmod(d, 0o755)
        os.environ["CODETEST_STATE_DIR"] = d

    from testgen.batch import read_suites, run_batch
    from testgen.generators import Budget
    from testgen.evaluate import evaluate
    from testgen.pipeline import Settings
    from testgen.problem import iter_records
    from testgen.runner import LocalRunner

    os.makedirs(args.out_dir, exist_ok=True)
    runner = LocalRunner()
    results: dict[str, Any] = {}
    rows: list[tuple[str, str, dict[str, Any], Optional[float], float]] = []
    try:
        for ds in [d.strip() for d in args.datasets.split(",") if d.strip()]:
            src = os.path.join(args.data_dir, ds, "problems.jsonl")
            if not os.path.exists(src):
                print(f"{ds}: {src} not found, skipped", file=sys.stderr)
                continue
            fams = [f.strip() for f in args.families.split(",")] if args.families else None
            tag = "" if fams is None else "." + "-".join(fams)
            if args.budget_scale != 1.0 or args.mutants != 40:
                tag += f".b{args.budget_scale:g}.m{args.mutants}"
            if args.cpp_dialect != "cpp":  # golds that compile only in one dialect give other suites
                tag += f".{args.cpp_dialect}"
            suites = os.path.join(args.out_dir, f"{ds}.seed{args.seed}.max{args.max_tests}{tag}.jsonl")
            t0 = time.monotonic()
            settings = Settings(seed=args.seed, max_tests=args.max_tests, mutants=args.mutants, families=fams,
                                budget=Budget().scaled(args.budget_scale), cpp_dialect=args.cpp_dialect)
            only = _pick(src, args.pick, args.pick_seed) if args.pick else None
            if args.problems:
                named = {p.strip() for p in args.problems.split(",") if p.strip()}
                only = named if only is None else only & named
            if only is not None:
                how = f"--pick {args.pick} --pick-seed {args.pick_seed}" if args.pick else "--problems"
                print(f"[{ds}] {how}: {', '.join(sorted(only))}", file=sys.stderr)
            summary = run_batch(src, suites, runner, settings, workers=args.workers, limit=args.limit,
                                only=only, progress=sys.stderr.isatty())
            gen_s = time.monotonic() - t0
            if summary["aborted"]:
                print(f"[{ds}] testgen {summary['aborted']}; rerun to resume", file=sys.stderr)
            records = read_suites(suites)
            order = {str(r.get("id")): i for i, (_, r, _) in enumerate(iter_records(src)) if r is not None}
            records.sort(key=lambda r: order.get(str(r.get("id")), 1 << 30))
            if args.limit is not None:
                records = records[: args.limit]
            if only is not None:
                records = [r for r in records if str(r.get("id") or r.get("task_id")) in only]
            statuses: dict[str, int] = {}
            for r in records:
                s = r.get("testgen", {}).get("status", "?")
                statuses[s] = statuses.get(s, 0) + 1
            results[ds] = {"testgen_seconds": round(gen_s, 1), "testgen_status": statuses,
                           "newly_processed": summary["todo"], "suites_file": suites, "cpp_dialect": args.cpp_dialect}
            base_field, full_field = COLUMNS.get(ds, ("seed_tests", None))
            columns = [("own base tests", base_field), ("synthesized", "tests")]
            if full_field and not args.no_official and any(r.get(full_field) for r in records):
                columns.append(("full labelling suite", full_field))
            for name, fld in columns:
                t1 = time.monotonic()
                rep = evaluate(records, runner, tests_field=fld, per_label=args.sample, mode=args.mode,
                               cpp_dialect=args.cpp_dialect)
                secs = time.monotonic() - t1
                pool = rep.pooled()
                beh = _behavioural(rep, records, args.sample, args.cpp_dialect)
                results[ds][name] = dict(pool, tnr_behavioural=beh, seconds=round(secs, 1),
                                         per_problem=rep.to_json()["problems"])
                rows.append((ds, name, pool, beh, secs))
                print(f"[{ds}] {name}: done in {secs:.0f}s", file=sys.stderr)
    finally:
        runner.close()
        if own_state:
            shutil.rmtree(os.environ["CODETEST_STATE_DIR"], ignore_errors=True)

    pct = lambda v: "   -   " if v is None else f"{100 * v:6.2f}%"  # noqa: E731
    print()
    print(f"{'dataset':<13} {'suite':<21} {'problems':>8} {'no-suite':>8} {'tests/pb':>8} {'max':>4} {'TPR':>8} "
          f"{'TNR':>8} {'TNR-beh':>8} {'rej-all':>8} {'TLE-rej':>9} {'correct':>8} {'incorrect':>9}")
    for ds, name, pool, beh, _ in rows:
        slow = f"{pool['slow_rejected']}/{pool['slow']}" if pool["slow"] else "-"
        print(f"{ds:<13} {name:<21} {pool['problems']:>8} {pool['unjudged_problems']:>8} "
              f"{pool['tests_per_problem']:>8.1f} {pool['max_tests']:>4} "
              f"{pct(pool['tpr']):>8} {pct(pool['tnr']):>8} {pct(beh):>8} {pct(pool['rejects_all_share']):>8} "
              f"{slow:>9} {pool['correct']:>8} {pool['incorrect']:>9}")
        if name == "synthesized" and pool["unjudged"]:
            for pid, note in sorted(pool["unjudged"].items())[:10]:
                print(f"{'':<13} {'':<21} no suite: {pid}: {(note or '')[:110]}")
        if name == "synthesized":
            st = results[ds]["testgen_status"]
            print(f"{'':<13} {'':<21} testgen status {json.dumps(st, sort_keys=True)}, "
                  f"{results[ds]['testgen_seconds']:.0f}s for {results[ds]['newly_processed']} new problems")
    if "humaneval" in results:
        print("humaneval  full labelling suite: HumanEval+ base+plus tests define the labels: TPR 100%, TNR 100% "
              "(not in the data; its TNR is the target)")
    print("TNR-beh: TNR without programs that fail to compile or load. rej-all: share of problems whose suite "
          "rejects every incorrect program. no-suite: problems without a suite (empty or failed; their programs "
          "are in no rate). TLE-rej: programs labelled too slow that the suite rejects.")
    if args.sample is not None or args.limit is not None or args.pick is not None or args.problems:
        print(f"(sampled: --limit {args.limit}, --pick {args.pick} problems with --pick-seed {args.pick_seed}, "
              f"--problems {args.problems}, --sample {args.sample} programs per label per problem)")
    if args.cpp_dialect != "cpp":
        print(f"(C++ programs compiled as {args.cpp_dialect}: --cpp-dialect {args.cpp_dialect})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
