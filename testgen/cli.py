"""``codetest testgen`` and ``codetest evaluate``, registered into the main CLI.

    codetest testgen PROBLEMS.jsonl -o SUITES.jsonl [--llm-url URL] [--workers N] [--cpp-dialect cpp20] ...
    codetest evaluate SUITES.jsonl [--solutions LABELLED.jsonl] [--sample K] [--json OUT] [--cpp-dialect cpp20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional

EXIT_OK, EXIT_NOT_OK, EXIT_USAGE = 0, 1, 2


def _usage(msg: str) -> int:
    print(f"codetest: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _add_runner_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", metavar="URL", help="use a running `codetest serve` instead of the in-process sandbox")
    p.add_argument("--api-key", default=os.environ.get("CODETEST_API_KEY"), help="key for --server")
    p.add_argument("--backend", choices=("native", "docker"), default=os.environ.get("CODETEST_BACKEND", "native"))
    p.add_argument("--allow-missing", metavar="LAYERS",
                   help="comma-separated isolation layers the operator accepts as missing (lowers the bar)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="spread the problems over a Ray cluster (ADDRESS, e.g. 10.0.0.5:6379 or 'auto'); without "
                        "ADDRESS a local cluster on 127.0.0.1. Needs codetest[ray]; see docs/scale.md")


def _add_problem_args(p: argparse.ArgumentParser) -> None:
    from . import CPP_DIALECTS

    p.add_argument("--cpp-dialect", choices=CPP_DIALECTS, default="cpp",
                   help="what the records' C++ programs (golds, held-out programs, validators, checkers) compile "
                        "as: cpp = g++ -std=gnu++17 (default, SandboxFusion's), cpp20 = g++ -std=gnu++20 "
                        "(DOMjudge's default at ICPC contests, what Kattis/DOMjudge packages were judged with)")


def make_runner(args: argparse.Namespace) -> Any:
    """The runner the flags ask for; raises SandboxUnavailable when isolation is below the bar."""
    from .runner import HttpRunner, LocalRunner

    if args.server:
        return HttpRunner(args.server, api_key=args.api_key, parallel=max(2, getattr(args, "workers", 2) * 2))
    from sandbox import Sandbox, SandboxConfig

    config = SandboxConfig(backend=args.backend)
    if args.allow_missing:
        config.allow_missing = tuple(x.strip() for x in args.allow_missing.split(",") if x.strip())
    sb = Sandbox(config)
    try:
        sb.check_isolation()
    except Exception:
        sb.close()
        raise
    return LocalRunner(sb)


def _check_readable(path: str) -> Optional[str]:
    if not os.path.exists(path):
        return f"{path}: no such file"
    if os.path.isdir(path):
        return f"{path}: is a directory"
    try:
        with open(path, encoding="utf-8") as f:
            f.read(1)
    except (OSError, UnicodeDecodeError) as e:
        return f"{path}: cannot read ({e})"
    return None


def _cmd_testgen(args: argparse.Namespace) -> int:
    from sandbox.errors import SandboxUnavailable

    from .batch import run_batch
    from .generators import Budget
    from .pipeline import Settings

    err = _check_readable(args.problems)
    if err:
        return _usage(err)
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        return _usage(f"{args.output}: folder {out_dir} does not exist")
    if args.max_tests < 1 or args.min_tests < 0 or args.workers < 1 or args.mutants < 0:
        return _usage("--max-tests and --workers must be >= 1, --min-tests and --mutants >= 0")
    llm = None
    if args.llm_url:
        from .llm import LLMConfig

        if not args.llm_url.startswith(("http://", "https://")):
            return _usage(f"--llm-url must be an http(s) URL, not {args.llm_url!r}")
        llm = LLMConfig(url=args.llm_url, model=args.llm_model, api_key=args.llm_key, rounds=args.llm_rounds,
                        timeout_s=args.llm_timeout)
    families = None
    if args.families:
        from .candidates import FAMILIES

        families = [f.strip() for f in args.families.split(",") if f.strip()]
        unknown = [f for f in families if f not in FAMILIES]
        if unknown:
            return _usage(f"unknown generator families: {', '.join(unknown)}")
    settings = Settings(seed=args.seed, max_tests=args.max_tests, min_tests=args.min_tests, mutants=args.mutants,
                        multiplicity=args.multiplicity, fill=not args.no_fill, slack=args.slack,
                        stdio_slack=args.stdio_slack,
                        budget=Budget().scaled(args.budget_scale), families=families, llm=llm,
                        cpp_dialect=args.cpp_dialect)
    if args.ray is not None:
        from .distributed import RayUnavailable, connect, run_batch_ray, runner_spec

        try:
            ray = connect(args.ray)
        except RayUnavailable as e:
            return _usage(str(e))
        try:
            summary = run_batch_ray(ray, args.problems, args.output, runner_spec(args), settings, limit=args.limit,
                                    only=set(args.only) if args.only else None, progress=not args.quiet)
        except RayUnavailable as e:
            print(f"codetest: {e}", file=sys.stderr)
            return EXIT_NOT_OK
        finally:
            ray.shutdown()
    else:
        try:
            runner = make_runner(args)
        except SandboxUnavailable as e:
            return _usage(str(e))
        try:
            summary = run_batch(args.problems, args.output, runner, settings, workers=args.workers,
                                limit=args.limit, only=set(args.only) if args.only else None,
                                progress=not args.quiet)
        finally:
            runner.close()
    for line in summary["bad_lines"]:
        print(f"codetest: skipped {line}", file=sys.stderr)
    if "per_node" in summary:
        counts = sorted(summary["per_node"].values(), reverse=True)
        print(f"ray: {sum(counts)} problems on {len(counts)} nodes {counts}, {summary['nodes_lost']} nodes lost, "
              f"{summary['actors_replaced']} actors replaced")
    st = summary["status"]
    print(f"testgen: {summary['todo']} problems processed ({summary['skipped_done']} already done), "
          f"status {json.dumps(st, sort_keys=True)}, {summary['tests']} tests written to {args.output}")
    for p in summary["problems"]:
        if p["status"] != "ok":
            print(f"  {p['id']}: {p['status']}: {p['reason']}")
    if summary["aborted"]:
        print(f"codetest: {summary['aborted']}; rerun the same command to resume", file=sys.stderr)
    bad = sum(v for k, v in st.items() if k != "ok") + len(summary["bad_lines"])
    return EXIT_OK if bad == 0 else EXIT_NOT_OK


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from sandbox.errors import SandboxUnavailable

    from .evaluate import count_jobs, evaluate, format_report, load_solutions
    from .problem import iter_records

    err = _check_readable(args.suites)
    if err:
        return _usage(err)
    solutions = None
    if args.solutions:
        err = _check_readable(args.solutions)
        if err:
            return _usage(err)
        try:
            solutions = load_solutions(args.solutions, args.cpp_dialect)
        except ValueError as e:
            return _usage(str(e))
    records = []
    for no, rec, e in iter_records(args.suites):
        if e is not None or rec is None:
            return _usage(f"{args.suites}: {e}")
        records.append(rec)
        if args.limit is not None and len(records) >= args.limit:
            break
    if args.sample is not None and args.sample < 0:
        return _usage("--sample must be >= 0")
    if args.ray is not None:
        return _evaluate_on_ray(args, records, solutions)
    try:
        runner = make_runner(args)
    except SandboxUnavailable as e:
        return _usage(str(e))
    total = count_jobs(records, args.sample) if solutions is None else None
    bar = None
    if not args.quiet and total:
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task("evaluate", total=total)
        bar.start()
    try:
        rep = evaluate(records, runner, tests_field=args.tests_field, solutions=solutions, per_label=args.sample,
                       mode=args.mode, cpp_dialect=args.cpp_dialect,
                       progress=(lambda n: bar.update(task, advance=n)) if bar else None)
    finally:
        if bar:
            bar.stop()
        runner.close()
    print(format_report(rep, per_problem=not args.pooled_only))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rep.to_json(), f, indent=1)
    return EXIT_OK


def _evaluate_on_ray(args: argparse.Namespace, records: list, solutions: Any) -> int:
    from .distributed import RayUnavailable, connect, evaluate_ray, runner_spec
    from .evaluate import format_report

    try:
        ray = connect(args.ray)
    except RayUnavailable as e:
        return _usage(str(e))
    bar = None
    if not args.quiet:
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task("evaluate (problems)", total=len(records))
        bar.start()
    options = {"tests_field": args.tests_field, "per_label": args.sample, "mode": args.mode,
               "cpp_dialect": args.cpp_dialect}
    try:
        rep = evaluate_ray(ray, records, runner_spec(args), options, solutions=solutions,
                           checkpoint=(args.json + ".partial.jsonl") if args.json else None,
                           progress=(lambda n: bar.update(task, advance=n)) if bar else None)
    except RayUnavailable as e:
        print(f"codetest: {e}", file=sys.stderr)
        return EXIT_NOT_OK
    finally:
        if bar:
            bar.stop()
        ray.shutdown()
    print(format_report(rep, per_problem=not args.pooled_only))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rep.to_json(), f, indent=1)
        if os.path.exists(args.json + ".partial.jsonl"):
            os.unlink(args.json + ".partial.jsonl")
    return EXIT_OK


def register(subparsers: "argparse._SubParsersAction") -> None:
    t = subparsers.add_parser("testgen", help="synthesize test suites for problems (generator-validator pipeline)")
    t.add_argument("problems", help="problems JSONL (one problem a line)")
    t.add_argument("-o", "--output", required=True, help="suites JSONL; appended to, finished problems are skipped")
    t.add_argument("--workers", type=int, default=2, help="problems in parallel (default 2)")
    t.add_argument("--max-tests", type=int, default=50, help="most tests per problem (default 50)")
    t.add_argument("--min-tests", type=int, default=5, help="fewer surviving tests: the problem is reported")
    t.add_argument("--mutants", type=int, default=40, help="gold-solution mutants used for selection (default 40)")
    t.add_argument("--multiplicity", type=int, default=2, help="times each mutant must be exposed (default 2)")
    t.add_argument("--no-fill", action="store_true", help="stop at the mutant cover; do not fill up to --max-tests")
    t.add_argument("--slack", type=float, default=10.0,
                   help="function problems: drop inputs on which a gold needs more than 1/SLACK of the time limit")
    t.add_argument("--stdio-slack", type=float, default=2.0,
                   help="stdin problems: the same, for the problem's (jury's) time limit (default 2)")
    t.add_argument("--budget-scale", type=float, default=1.0,
                   help="scale the candidates each family proposes (a corner grid is never scaled)")
    t.add_argument("--families", help="comma-separated generator families (default: all but the opt-in `widen`): "
                                      "regular,boundary,special,stress,mutation,relations,"
                                      "structured,grammar,corner,widen")
    t.add_argument("--seed", type=int, default=0, help="random seed (same seed, same suites)")
    t.add_argument("--limit", type=int, help="only the first N problems of the file")
    t.add_argument("--only", action="append", metavar="ID", help="only this problem id (repeatable)")
    t.add_argument("--llm-url", help="OpenAI-compatible endpoint (…/v1) for LLM-written generators")
    t.add_argument("--llm-model", default=os.environ.get("CODETEST_LLM_MODEL", "gpt-4o-mini"))
    t.add_argument("--llm-key", default=os.environ.get("CODETEST_LLM_KEY"))
    t.add_argument("--llm-rounds", type=int, default=2, help="repair rounds per LLM-written program (default 2)")
    t.add_argument("--llm-timeout", type=float, default=120.0, help="seconds per LLM request")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_problem_args(t)
    _add_runner_args(t)
    t.set_defaults(func=_cmd_testgen)

    e = subparsers.add_parser("evaluate", help="TPR / TNR of test suites on labelled solutions")
    e.add_argument("suites", help="suites JSONL (output of `codetest testgen`, or any problems file)")
    e.add_argument("--solutions", help="labelled solutions JSONL (default: heldout_correct / heldout_incorrect "
                                       "in the suites file)")
    e.add_argument("--tests-field", default="tests", help="which field holds the suite (default tests)")
    e.add_argument("--sample", type=int, help="at most K programs per label per problem (deterministic)")
    e.add_argument("--limit", type=int, help="only the first N problems")
    e.add_argument("--mode", choices=("engine", "batched"), default="batched",
                   help="batched (default): a Python function-call program's tests in one jail; "
                        "engine: one jail per test, exactly as /v1/run")
    e.add_argument("--json", metavar="OUT", help="write the full report as JSON")
    e.add_argument("--pooled-only", action="store_true", help="print only the pooled line")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_problem_args(e)
    _add_runner_args(e)
    e.set_defaults(func=_cmd_evaluate)
