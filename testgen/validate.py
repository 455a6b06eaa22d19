"""Validation: an input survives only if every gold solution finishes cleanly and they agree.

Rules, the same for both kinds of problem:
* every (non-broken) gold solution runs on every candidate input, within the problem's
  limits; one crash, timeout or memory overrun drops the input;
* a gold solution that needs more than ``1/slack`` of the time limit drops the input too
  (a correct but slower submission must not time out on our tests);
* the outputs must agree: function values by the judge's value comparison (float
  tolerance) or the problem's checker, stdin/stdout outputs by the problem's comparison or
  its checker;
* input validators, when the problem has any, must accept the input.
The expected answer is the first gold solution's output.

A gold solution that fails the problem's own seed examples is *broken*: it is reported
and left out (or, when none is left, the problem fails with that reason).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from sandbox.compare import compare_output, values_equal, values_equal_unordered
from sandbox.models import CheckerCompare, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict

from .candidates import Candidate, canonical_key
from .execute import FnProgram, StdioProgram, call_function, run_stdio
from .harness import CallResult
from .problem import Problem, Program
from .runner import Runner, failed_result


class SandboxFailure(RuntimeError):
    """The sandbox, not a program, failed (every run came back SE): the problem must be redone."""


def _all_se_fn(rows: list[list[CallResult]]) -> Optional[str]:
    flat = [r for row in rows for r in row]
    if flat and all(r.status == "SE" for r in flat):
        return flat[0].error or "sandbox error"
    return None


@dataclass
class GoldReport:
    name: str
    language: str
    status: str = "ok"  # ok | broken
    reason: str = ""


@dataclass
class Validated:
    kept: list[Candidate]
    dropped: Counter = field(default_factory=Counter)
    gold: list[GoldReport] = field(default_factory=list)
    usable_gold: list[Program] = field(default_factory=list)
    error: Optional[str] = None
    notes: list[str] = field(default_factory=list)
    # the input validators that judged the inputs (compiled, ran, accepted every seed example)
    validators_used: list[str] = field(default_factory=list)


def _finite(v: Any) -> bool:
    if isinstance(v, float):
        return not (math.isnan(v) or math.isinf(v))
    if isinstance(v, list):
        return all(_finite(x) for x in v)
    if isinstance(v, dict):
        return all(_finite(x) for x in v.values())
    return True


# ---------------------------------------------------------------- function-call problems


def _gold_fn_programs(problem: Problem) -> tuple[list[Program], list[GoldReport]]:
    progs, reports = [], []
    for g in problem.gold:
        rep = GoldReport(name=g.name, language=g.language)
        if g.language != "python":
            rep.status, rep.reason = "broken", f"function-call problems need python gold, not {g.language}"
        else:
            progs.append(g)
        reports.append(rep)
    return progs, reports


def checker_verdicts(problem: Problem, gold: Program, args: list[list[Any]], expected: list[Any],
                     runner: Runner, compare: Optional[CheckerCompare] = None) -> list[Optional[str]]:
    """Per call, what the problem's checker (or ``compare``'s) makes of ``gold``'s returned value
    against ``expected``, judged by the engine as a suite's judge would: None accepted, else a drop
    reason (``gold_disagree`` when the checker rejects, ``checker_error`` when it fails, ``gold_error``)."""
    if not args:
        return []
    code, entry = problem.runnable(gold.code)
    req = RunRequest(language="python", code=code, entry_point=entry, limits=problem.limits,
                     compare=compare or problem.compare,
                     tests=[TestCase(args=a, expected=e) for a, e in zip(args, expected)])
    o = runner.run_many([req])[0]
    res = o if isinstance(o, RunResult) else failed_result(o, len(args))
    if res.verdict == Verdict.SE and not res.tests:
        raise SandboxFailure(res.message or "sandbox error")
    verdicts = [t.verdict for t in res.tests[:len(args)]]
    return [checker_drop_reason(v) for v in verdicts] + ["gold_error"] * (len(args) - len(verdicts))


def checker_drop_reason(verdict: Verdict) -> Optional[str]:
    """What a gold's verdict under the problem's checker says of an input: None (accepted),
    ``gold_disagree`` (the checker rejects), ``checker_error`` (the checker failed), ``gold_error``."""
    return {Verdict.AC: None, Verdict.WA: "gold_disagree", Verdict.SE: "checker_error"}.get(verdict, "gold_error")


def validate_function(problem: Problem, cands: list[Candidate], runner: Runner, slack: float = 10.0) -> Validated:
    assert problem.entry_point
    golds, reports = _gold_fn_programs(problem)
    out = Validated(kept=[], gold=reports)
    if not golds:
        out.error = "no python gold solution for a function-call problem"
        return out
    inputs = [c.args for c in cands]  # type: ignore[misc]
    seed_expected = {canonical_key(s["args"]): s["expected"] for s in problem.seeds if "expected" in s}
    seeds_with_expected = [(i, c) for i, c in enumerate(cands) if c.family == "seed"]
    expected_of_seed = {i: seed_expected[c.key] for i, c in seeds_with_expected if c.key in seed_expected}
    # One gold: it runs twice (its second run is a referee), so a gold whose answer changes from
    # run to run (set order under hash randomization, time, randomness) cannot set the expected value.
    rerun = len(golds) == 1
    runs = golds + ([golds[0]] if rerun else [])
    res = call_function(runner, [FnProgram(*problem.runnable(g.code)) for g in runs], inputs, problem.limits)
    se = _all_se_fn(res)
    if se:
        raise SandboxFailure(se)
    # broken gold: fails to load, or disagrees with a seed's expected value
    usable: list[int] = []
    order_seed: list[int] = []  # golds that differ from a seed's expected value in order only
    rep_by_gold = [r for r in reports if r.status == "ok"]
    for p, g in enumerate(golds):  # the second run of a single gold is judged with it, below
        row = res[p]
        load = next((r for r in row if r.status == "LOAD"), None)
        # the statement's own examples are valid inputs: a gold must run cleanly on all of them,
        # and return the expected value where the example gives one
        bad_seed = next((i for i, _ in seeds_with_expected if not row[i].ok), None)
        if bad_seed is not None and row[bad_seed].status == "SE":  # the sandbox's failure, not the gold's
            raise SandboxFailure(row[bad_seed].error or "sandbox error on a seed example")
        if bad_seed is None and problem.has_checker and load is None:
            # several right answers: the checker says whether the gold's answer to an example is one
            judged = checker_verdicts(problem, g, [inputs[i] for i in expected_of_seed],
                                      list(expected_of_seed.values()), runner)
            bad_seed = next((i for i, why in zip(expected_of_seed, judged) if why), None)
        elif bad_seed is None:
            bad_seed = next((i for i, exp in expected_of_seed.items()
                             if not problem.values_equal(row[i].value, exp)), None)
            if bad_seed is not None and load is None and _order_only(row[bad_seed].value, expected_of_seed[bad_seed],
                                                                      problem.float_tol) and all(
                    values_equal_unordered(row[i].value, exp, problem.float_tol) for i, exp in expected_of_seed.items()):
                order_seed.append(p)  # right up to order: usable if the answer's order turns out free
                usable.append(p)
                continue
        if load is not None:
            rep_by_gold[p].status, rep_by_gold[p].reason = "broken", f"does not load: {load.error}"
        elif bad_seed is not None:
            r = row[bad_seed]
            got = json.dumps(r.value)[:80] if r.ok else f"{r.status} {r.error}".strip()[:200]
            rep_by_gold[p].status = "broken"
            rep_by_gold[p].reason = f"fails seed test {bad_seed}: got {got}"
        else:
            usable.append(p)
    if not usable:
        out.error = "no gold solution passes the seed tests: " + "; ".join(f"{r.name}: {r.reason}" for r in reports)
        return out
    if rerun and 0 in usable:
        usable.append(1)  # the second run: agreement and order evidence, never a gold of its own
    _detect_order(problem, res, usable, order_seed, len(cands), out)
    for p in order_seed:
        if problem.compare != "unordered":
            usable.remove(p)
            rep_by_gold[p].status, rep_by_gold[p].reason = "broken", "fails a seed test (its answer's order differs)"
    if rerun and 0 not in usable and 1 in usable:
        usable.remove(1)
    if not usable:
        out.error = "no gold solution passes the seed tests: " + "; ".join(f"{r.name}: {r.reason}" for r in reports)
        return out
    out.usable_gold = [golds[p] for p in usable if p < len(golds)]
    limit = problem.limits.time_s
    valid, notes, out.validators_used = _validator_verdicts(problem, [json.dumps(a) for a in inputs], runner)
    out.notes += notes
    refereed = [] if problem.has_checker else _referee_function(problem, inputs, runner)
    judged = _judged_by_checker(problem, runs, usable, res, inputs, runner) if problem.has_checker else None
    for i, c in enumerate(cands):
        rows = [res[p][i] for p in usable]
        # outside the validated domain first: what the golds did there says nothing (pipeline.quarantine)
        reason = "validator_rejects" if not valid[i] else _fn_drop_reason(rows, limit / slack, problem,
                                                                          judged[i] if judged else None)
        if reason == "gold_disagree" and rerun:
            reason = "gold_unstable"  # one gold, two runs, two answers
        if not reason and any(r[i] is not None and r[i].ok and not problem.values_equal(r[i].value, rows[0].value)
                              for r in refereed):
            reason = "referee_disagree"
        if reason:
            out.dropped[reason] += 1
            c.meta["drop"] = reason
            continue
        c.expected = rows[0].value
        c.gold_time_s = max(r.time_s for r in rows)
        out.kept.append(c)
    return out


def _order_only(a: Any, b: Any, tol: float) -> bool:
    """Two lists that differ, but only in order."""
    return (isinstance(a, list) and isinstance(b, list) and not values_equal(a, b, tol)
            and values_equal_unordered(a, b, tol))


# Gold disagreement that is only order, on at least this many inputs and on more inputs than
# any other disagreement, makes the answer an unordered collection.
ORDER_EVIDENCE_MIN = 2


def _detect_order(problem: Problem, res: list[list[CallResult]], usable: list[int], order_seed: list[int],
                  n: int, out: Validated) -> None:
    """Judge ``unordered`` when the golds show it: their answers differ only in order."""
    if problem.compare == "unordered" or problem.has_checker or len(usable) < 2 and not order_seed:
        return
    order_only = other = 0
    for i in range(n):
        rows = [res[p][i] for p in usable]
        if not all(r.ok for r in rows):
            continue
        ref = rows[0].value
        if all(values_equal(r.value, ref, problem.float_tol) for r in rows[1:]):
            continue
        if all(values_equal_unordered(r.value, ref, problem.float_tol) for r in rows[1:]):
            order_only += 1
        else:
            other += 1
    if (order_only >= ORDER_EVIDENCE_MIN and order_only > other) or (order_seed and order_only >= other):
        problem.compare = "unordered"
        out.notes.append(f"the golds' answers differ only in order on {order_only} inputs"
                         + (f" (and {len(order_seed)} gold(s) on a seed example)" if order_seed else "")
                         + ": answers are compared in any order")


# A referee (a brute force that cross-checks a single gold) runs on the smallest inputs only,
# with a short per-input limit; where it does not finish it says nothing.
REFEREE_INPUTS = 60
REFEREE_TIME_S = 1.0


def _smallest(texts: list[str], k: int) -> list[int]:
    return sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))[:k]


def _referee_function(problem: Problem, inputs: list[Any], runner: Runner) -> list[list[Optional[CallResult]]]:
    """Per referee, its result on each input (None where it did not run: not among the smallest)."""
    out: list[list[Optional[CallResult]]] = []
    if not problem.referees or not inputs:
        return out
    idx = _smallest([json.dumps(a) for a in inputs], REFEREE_INPUTS)
    res = call_function(runner, [FnProgram(*problem.runnable(r.code)) for r in problem.referees],
                        [inputs[i] for i in idx], problem.limits, call_time_s=min(REFEREE_TIME_S, problem.limits.time_s),
                        max_timeouts=3)
    for row in res:
        full: list[Optional[CallResult]] = [None] * len(inputs)
        for k, i in enumerate(idx):
            full[i] = row[k]
        out.append(full)
    return out


def _referee_stdio(problem: Problem, inputs: list[str], runner: Runner) -> list[tuple[int, TestResult]]:
    """(input index, the referee's clean run) on the smallest inputs, for every referee."""
    idx = _smallest(inputs, REFEREE_INPUTS // 2)
    lim = problem.limits.model_copy(update={"time_s": min(REFEREE_TIME_S * 2, problem.limits.time_s)})
    res = run_stdio(runner, [StdioProgram(r.language, r.code) for r in problem.referees], [inputs[i] for i in idx],
                    lim)
    return [(idx[k], t) for r in res for k, t in enumerate(r.tests[:len(idx)]) if t.verdict == Verdict.AC]


def _judged_by_checker(problem: Problem, runs: list[Program], usable: list[int], res: list[list[CallResult]],
                       inputs: list[list[Any]], runner: Runner) -> list[Optional[str]]:
    """Per input, the first checker complaint about any usable run's answer against the reference
    run's (the first usable one), the reference's own included: the stdin round 2 for function values."""
    ref = usable[0]
    todo = [i for i in range(len(inputs)) if all(res[p][i].ok for p in usable)]
    out: list[Optional[str]] = [None] * len(inputs)
    for p in usable:
        for i, why in zip(todo, checker_verdicts(problem, runs[p], [inputs[i] for i in todo],
                                                 [res[ref][i].value for i in todo], runner)):
            out[i] = out[i] or why
    return out


def _fn_drop_reason(rows: list[CallResult], slow_s: float, problem: Problem,
                    checker_says: Optional[str] = None) -> Optional[str]:
    """Why an input is dropped, or None; ``checker_says``: the checker's complaint, for a problem
    with one (then the golds' answers may differ)."""
    for r in rows:
        if r.status == "TLE":
            return "gold_timeout"
        if r.status in ("MLE",):
            return "gold_memory"
        if r.status == "BADVALUE":
            return "unserializable_output"
        if r.status != "OK":
            return "gold_error"
    if any(r.time_s > slow_s for r in rows):
        return "gold_slow"
    ref = rows[0].value
    if not _finite(ref):
        return "nonfinite_output"
    if problem.has_checker:
        return checker_says
    for r in rows[1:]:
        if not problem.values_equal(r.value, ref):
            return "gold_disagree"
    return None


def confirm_function_suite(problem: Problem, golds: list[Program], tests: list[Candidate], runner: Runner
                           ) -> tuple[list[Candidate], int]:
    """Run the chosen tests through the engine's real function-call mode on every gold; keep what passes."""
    if not tests:
        return tests, 0
    reqs = [RunRequest(language="python", code=problem.runnable(g.code)[0], entry_point=problem.runnable(g.code)[1],
                       tests=[TestCase(args=c.args, expected=c.expected) for c in tests], limits=problem.limits,
                       compare=problem.compare, float_tol=problem.float_tol) for g in golds]
    outs = runner.run_many(reqs)
    ok = [True] * len(tests)
    for o in outs:
        res = o if isinstance(o, RunResult) else failed_result(o, len(tests))
        if res.verdict == Verdict.SE or any(t.verdict == Verdict.SE for t in res.tests):
            # the sandbox failed, not the test: dropping it would shrink the suite for nothing
            raise SandboxFailure(res.message or next((t.message for t in res.tests if t.message), "sandbox error"))
        for i, t in enumerate(res.tests[: len(tests)]):
            if t.verdict != Verdict.AC:
                ok[i] = False
        if len(res.tests) < len(tests):
            ok = [False] * len(tests)
    kept = [c for c, k in zip(tests, ok) if k]
    return kept, len(tests) - len(kept)


# ---------------------------------------------------------------- stdin/stdout problems


def _validator_verdicts(problem: Problem, inputs: list[str], runner: Runner
                        ) -> tuple[list[bool], list[str], list[str]]:
    """Whether every usable input validator accepts each input (function-call inputs are given to
    validators as the JSON array of arguments), the notes, and the names of the validators used.
    Validators that reject the seed examples are ignored (they usually need flags we do not
    have) and noted; so are those that do not compile or run. Only the ones used vouch for the
    inputs' domain (``pipeline.quarantine``)."""
    accept = [True] * len(inputs)
    notes: list[str] = []
    used: list[str] = []
    if not problem.validators or not inputs:
        return accept, notes, used
    seeds = [json.dumps(t["args"]) if problem.is_function else t["stdin"] for t in problem.seeds]
    lim = Limits(time_s=10, memory_mb=1024)
    reqs = [RunRequest(language=v.language, code=v.code, limits=lim,
                       tests=[TestCase(stdin=s) for s in seeds + inputs]) for v in problem.validators]
    outs = runner.run_many(reqs)
    for v, o in zip(problem.validators, outs):
        if not isinstance(o, RunResult) or o.verdict in (Verdict.CE, Verdict.SE):
            why = o.verdict.value if isinstance(o, RunResult) else type(o).__name__
            notes.append(f"input validator {v.name or v.language} not used ({why})")
            continue
        codes = [t.exit_code for t in o.tests]
        if any(c != v.accept_exit for c in codes[: len(seeds)]):
            notes.append(f"input validator {v.name or v.language} rejects a seed example; not used")
            continue
        if len(codes) < len(seeds) + len(inputs):
            notes.append(f"input validator {v.name or v.language} did not judge every input; not used")
            continue
        used.append(v.name or v.language)
        for i, c in enumerate(codes[len(seeds):]):
            if c != v.accept_exit:
                accept[i] = False
    return accept, notes, used


def _stdio_golds(problem: Problem, runner: Runner) -> tuple[list[Program], list[GoldReport]]:
    langs = runner.languages()
    progs, reports = [], []
    for g in problem.gold:
        rep = GoldReport(name=g.name, language=g.language)
        if langs and g.language not in langs:
            rep.status, rep.reason = "broken", f"language {g.language} is not installed"
        else:
            progs.append(g)
        reports.append(rep)
    return progs, reports


INFERRED_TOLERANCE = 1e-6


def _same_numbers(out: str, exp: str) -> bool:
    """Outputs that differ as text but hold the same numbers (within 1e-6), some with decimals."""
    return bool(re.search(r"\d\.\d", exp + out)) and compare_output("float", out, exp, INFERRED_TOLERANCE)


def validate_stdio(problem: Problem, cands: list[Candidate], runner: Runner, slack: float = 10.0) -> Validated:
    golds, reports = _stdio_golds(problem, runner)
    out = Validated(kept=[], gold=reports)
    if not golds:
        out.error = "no runnable gold solution"
        return out
    inputs = [c.stdin or "" for c in cands]
    by_stdin = {s["stdin"]: s for s in problem.seeds}
    seed_idx = {i: by_stdin[c.stdin or ""] for i, c in enumerate(cands)
                if c.family == "seed" and (c.stdin or "") in by_stdin}
    limits = problem.limits
    # Round 1: every gold on every input, unjudged; outputs collected.
    # One gold runs twice (as for function problems): an answer that changes between runs is no answer.
    rerun = len(golds) == 1
    runs = golds + ([golds[0]] if rerun else [])
    r1 = run_stdio(runner, [StdioProgram(g.language, g.code) for g in runs], inputs, limits)
    if r1 and all(r.verdict == Verdict.SE and all(t.verdict == Verdict.SE for t in r.tests) for r in r1):
        raise SandboxFailure(r1[0].message or (r1[0].tests[0].message if r1[0].tests else "") or "sandbox error")
    # Round 2 (checker problems): every gold judged by the checker against the first usable gold's output.
    rep_ok = [r for r in reports if r.status == "ok"]
    usable: list[int] = []
    for p, res in enumerate(r1[:len(golds)]):
        if res.verdict == Verdict.CE:
            rep_ok[p].status, rep_ok[p].reason = "broken", "compile error: " + (res.compile.stderr[-300:]
                                                                                  if res.compile else "")
            continue
        if res.verdict == Verdict.SE and not res.tests:
            rep_ok[p].status, rep_ok[p].reason = "broken", f"sandbox: {res.message}"
            continue
        bad = None
        for i, seed in seed_idx.items():
            t = res.tests[i]
            exp = seed.get("expected_stdout")
            if t.verdict != Verdict.AC:
                bad = f"{t.verdict.value} on seed {i}"
            elif exp is not None and not problem.has_checker and not problem.outputs_agree(t.stdout, exp):
                if problem.compare == "whitespace" and _same_numbers(t.stdout, exp):
                    # the example and the gold print the same numbers to different digits: the
                    # judge must compare them as numbers (the statement's tolerance, or 1e-6)
                    problem.compare, problem.float_tol = "float", INFERRED_TOLERANCE
                    out.notes.append(f"seed {i}: the gold prints the example's numbers with other digits: "
                                     f"outputs are compared as floats within {INFERRED_TOLERANCE:g}")
                else:
                    bad = f"wrong answer on seed {i}"
            if bad:
                break
        if bad:
            rep_ok[p].status, rep_ok[p].reason = "broken", bad
            continue
        usable.append(p)
    if not usable:
        out.error = "no gold solution passes the seed tests: " + "; ".join(f"{r.name}: {r.reason}" for r in reports)
        return out
    if rerun and 0 in usable and len(r1) > 1 and r1[1].tests:
        usable.append(1)  # the second run: agreement only, never a gold of its own
    out.usable_gold = [golds[p] for p in usable if p < len(golds)]
    ref = r1[usable[0]]
    reasons: list[Optional[str]] = [None] * len(inputs)
    slow = limits.time_s / slack
    for p in usable:
        for i, t in enumerate(r1[p].tests):
            if reasons[i]:
                continue
            if t.verdict == Verdict.TLE:
                reasons[i] = "gold_timeout"
            elif t.verdict in (Verdict.MLE, Verdict.OLE):
                reasons[i] = "gold_memory" if t.verdict == Verdict.MLE else "gold_output_limit"
            elif t.verdict != Verdict.AC:
                reasons[i] = "gold_error"
            elif t.time_s > slow or t.wall_time_s > limits.wall_s / slack:
                reasons[i] = "gold_slow"
    expected = [t.stdout for t in ref.tests]
    if problem.has_checker:
        r2 = run_stdio(runner, [StdioProgram(runs[p].language, runs[p].code) for p in usable], inputs, limits,
                       expected=list(expected), compare=problem.compare, float_tol=problem.float_tol)
        for res in r2:
            for i, t in enumerate(res.tests):
                if not reasons[i]:
                    reasons[i] = checker_drop_reason(t.verdict)
    else:
        for p in usable[1:]:
            for i, t in enumerate(r1[p].tests):
                if not reasons[i] and not problem.outputs_agree(t.stdout, expected[i]):
                    reasons[i] = "gold_disagree"
    valid, notes, out.validators_used = _validator_verdicts(problem, inputs, runner)
    out.notes += notes
    if problem.referees and not problem.has_checker:
        for i, t in _referee_stdio(problem, inputs, runner):
            if not reasons[i] and not problem.outputs_agree(t.stdout, expected[i]):
                reasons[i] = "referee_disagree"
    for i, c in enumerate(cands):
        if not valid[i]:
            # outside the validated domain first: what the golds did there says nothing (pipeline.quarantine)
            reasons[i] = "validator_rejects"
        if reasons[i] == "gold_disagree" and rerun:
            reasons[i] = "gold_unstable"  # one gold, two runs, two answers
        if reasons[i]:
            out.dropped[reasons[i]] += 1
            c.meta["drop"] = reasons[i]
            continue
        c.expected_stdout = expected[i]
        c.gold_time_s = max(r1[p].tests[i].time_s for p in usable)
        out.kept.append(c)
    return out
