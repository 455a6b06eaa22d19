"""One problem through the pipeline: model -> generate -> dedupe -> validate -> mutants -> grow -> select.

``synthesize`` never raises for a problem's fault: whatever goes wrong ends up in the
output record's ``testgen.status`` / ``testgen.reason``.
"""

from __future__ import annotations

import copy
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from .candidates import dedupe
from .inputs import FunctionModel
from .generators import Budget, generate, grammar_family
from .growth import grow
from .problem import ProblemError, load_problem
from .runner import Runner
from .selection import greedy_cover, kill_matrix, suite_kills
from .smodel import StdioModel
from .validate import SandboxFailure, Validated, confirm_function_suite, validate_function, validate_stdio


@dataclass
class Settings:
    seed: int = 0
    max_tests: int = 50
    min_tests: int = 5
    mutants: int = 40
    multiplicity: int = 2
    fill: bool = True
    slack: float = 10.0  # function problems: every gold within 1/slack of the time limit
    # stdin problems: the stated limit is the jury's (a few times their slowest solution), so an
    # input every gold runs within half of it is fair; stress inputs need that room to exist at all
    stdio_slack: float = 2.0
    budget: Budget = field(default_factory=Budget)
    families: Optional[list[str]] = None
    llm: Any = None  # testgen.llm.LLMConfig, when an endpoint is configured
    # what the records' C++ programs compile as (testgen.problem.CPP_DIALECTS; --cpp-dialect)
    cpp_dialect: str = "cpp"

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "max_tests": self.max_tests, "min_tests": self.min_tests, "mutants": self.mutants,
                "multiplicity": self.multiplicity, "fill": self.fill, "slack": self.slack,
                "stdio_slack": self.stdio_slack, "cpp_dialect": self.cpp_dialect,
                "llm": bool(self.llm)}


def _describe_model(model: Any) -> str:
    if isinstance(model, FunctionModel):
        return "function(" + ", ".join(type(s).__name__.replace("Spec", "").lower() for s in model.specs) + ")"
    if isinstance(model, StdioModel):
        if model.sections is not None:  # lines (L), lists (V) and blocks of rows (R), in order
            return f"stdio:sections({model.sections.signature()})"
        return f"stdio:{model.shape}"
    return "none"


# A family whose inputs make two golds disagree this often is generating outside the problem's
# domain (or where the answer is not unique); what survived of it got lucky, and other correct
# programs need not agree as the golds did. Its inputs are left out: when unsure, narrow.
# An input an input validator rejects is dropped as ``validator_rejects`` whatever the golds did
# (testgen/validate.py), so only disagreement on inputs inside the validated domain counts here:
# a validator vouches for the domain, not for the answers (several right answers, a float printed
# to other digits, a gold wrong on part of the domain all show as disagreement on valid inputs).
QUARANTINE_SHARE = 0.3
QUARANTINE_MIN = 5
OUT_OF_DOMAIN = ("gold_disagree", "referee_disagree")


def quarantine(cands: list[Any], kept: list[Any], n_gold: int) -> tuple[list[Any], dict[str, str]]:
    """Kept candidates without the families that look out of domain, and why each was left out."""
    if n_gold < 2:
        return kept, {}
    tried: Counter = Counter()
    bad: Counter = Counter()
    for c in cands:
        reason = c.meta.get("drop")
        if c.family == "seed" or reason == "validator_rejects":
            continue
        tried[c.family] += 1
        if reason in OUT_OF_DOMAIN:
            bad[c.family] += 1
    out: dict[str, str] = {}
    for fam, n in tried.items():
        if n >= QUARANTINE_MIN and bad[fam] / n > QUARANTINE_SHARE:
            out[fam] = (f"{bad[fam]} of {n} inputs made the golds disagree: out of the problem's domain "
                        f"or several right answers; its other inputs are not used")
    judged = [f for f, n in tried.items() if n >= QUARANTINE_MIN]
    if judged and len(out) * 2 > len(judged):
        # most families are out of the domain: the input model itself is off, and what the rest
        # generate is no safer. Keep the samples only: never worse than them.
        out["*"] = (f"{len(out)} of {len(judged)} families out of the domain: the input model is unsure, "
                    f"the suite keeps the samples only")
        return [c for c in kept if c.family == "seed"], out
    return [c for c in kept if c.family not in out], out


def synthesize(rec: dict[str, Any], runner: Runner, settings: Settings) -> dict[str, Any]:
    """The record with ``tests`` and ``testgen`` added (``tests`` it had before moves to ``source_tests``).

    ``testgen.status``: ok, too_few_tests, failed (the problem's fault, with the reason),
    unsupported, or sandbox_error (infrastructure; a resumed batch tries it again)."""
    t0 = time.monotonic()
    out = copy.copy(rec)
    stats: dict[str, Any] = {"status": "ok", "reason": None, "settings": settings.to_json()}
    tests: list[dict[str, Any]] = []
    extra: dict[str, Any] = {}
    try:
        tests = _run(rec, runner, settings, stats, extra)
    except ProblemError as e:
        stats["status"], stats["reason"] = "failed", str(e)
    except SandboxFailure as e:  # not the problem's fault: a resumed batch redoes it
        stats["status"], stats["reason"] = "sandbox_error", f"the sandbox failed: {e}"
    except Exception as e:  # one problem's failure is recorded, never fatal
        stats["status"], stats["reason"] = "failed", f"internal error: {type(e).__name__}: {e}"
        stats["traceback"] = traceback.format_exc(limit=6)[-2000:]
    if "tests" in rec:
        out["source_tests"] = rec["tests"]
    out["tests"] = tests
    out.update(extra)
    stats["elapsed_s"] = round(time.monotonic() - t0, 2)
    out["testgen"] = stats
    return out


def _run(rec: dict[str, Any], runner: Runner, st: Settings, stats: dict[str, Any], extra: dict[str, Any]
         ) -> list[dict[str, Any]]:
    problem = load_problem(rec, st.cpp_dialect)
    loaded_compare = rec.get("compare")
    stats["io"] = problem.io
    if problem.unsupported:
        stats["status"], stats["reason"] = "unsupported", problem.unsupported
        return []
    model: Any = None
    model_error: Optional[str] = None
    try:
        if problem.is_function:
            model = FunctionModel.infer([s["args"] for s in problem.seeds], problem.statement,
                                        problem.entry_point or "", problem.gold[0].code if problem.gold else "")
        else:
            model = StdioModel.infer([s["stdin"] for s in problem.seeds], problem.statement)
    except ValueError as e:
        model_error = str(e)
    stats["model"] = _describe_model(model)
    if isinstance(model, FunctionModel) and model.seeded:
        problem.notes.append(f"the statement promises a valid input of a form not read: argument(s) "
                             f"{sorted(model.seeded)} keep the samples' values")
    cands = generate(problem.io, model, problem.seeds, st.seed, problem.id, st.budget, st.families)
    if problem.grammars and (st.families is None or {"grammar", "corner"} & set(st.families)):
        drawn, why = grammar_family(problem.grammars, problem.seeds_text, st.seed, problem.id, st.budget.grammar)
        cands += [c for c in drawn if st.families is None or c.family in st.families or c.family == "stress"]
        problem.notes.extend(why)
    llm_stats: dict[str, Any] = {}
    if st.llm is not None:
        from .llm import llm_candidates

        had_checker = problem.has_checker
        more, llm_stats, validator = llm_candidates(problem, runner, st.llm, st.seed)
        cands += more
        if validator is not None:
            problem.validators.append(validator)
            extra["validators"] = list(rec.get("validators") or []) + [
                {"language": validator.language, "code": validator.code, "accept_exit": validator.accept_exit,
                 "name": validator.name}]
        if problem.has_checker and not had_checker:
            # the suite needs the LLM's checker to be judged: write it where judges look for one
            ch = problem.compare.checker  # type: ignore[union-attr]
            extra["checker"] = {"language": ch.language, "code": ch.code, "protocol": ch.protocol}
        stats["llm"] = llm_stats
    if problem.unjudgeable:
        # several right answers and no checker (none given, none from the LLM): skipped, never
        # judged by one gold's choice
        stats["status"], stats["reason"] = "unsupported", problem.unjudgeable
        return []
    if not cands:
        raise ProblemError(model_error or "no candidate inputs could be generated")
    stats["generated"] = dict(Counter(c.family for c in cands))
    stats["generated_total"] = len(cands)
    cands, dup = dedupe(cands)
    dropped: Counter = Counter()
    if dup:
        dropped["duplicate"] = dup
    if isinstance(model, StdioModel):  # the statement's stated ranges bind every family, not only the model's
        inside = [c for c in cands if c.family == "seed" or model.admits(c.stdin or "")]
        if len(inside) < len(cands):
            dropped["outside_statement"] = len(cands) - len(inside)
            cands = inside
    policy = problem.time_policy
    slack = st.slack if problem.is_function else st.stdio_slack
    if not problem.is_function and policy.derived:
        # no stated limit: the golds run under the cap, and an input stays only when every gold
        # finishes it well within the cap (testgen/timelimit.py)
        problem.limits = problem.limits.model_copy(update={"time_s": policy.validation_limit_s,
                                                           "wall_time_s": None})
        slack = max(slack, policy.factor)
    val: Validated = (validate_function if problem.is_function else validate_stdio)(problem, cands, runner, slack)
    dropped.update(val.dropped)
    stats["gold"] = [vars(g) for g in val.gold]
    if val.notes or problem.notes:
        stats["notes"] = problem.notes + val.notes
    if val.validators_used:
        stats["validators"] = val.validators_used
    if val.error:
        stats["dropped"] = dict(dropped)
        raise ProblemError(val.error)
    if problem.compare == "unordered":
        stats["answers"] = "any order"
    if isinstance(problem.compare, str) and problem.compare != (loaded_compare or "whitespace"):
        # validation learnt how answers compare (any order; numbers printed to other digits):
        # judges must compare the same way, so the suite record says so (engine compare modes)
        extra["compare"] = problem.compare
        extra["float_tol"] = problem.float_tol
    if not problem.case_sensitive:  # judges of the suite compare letters regardless of case too
        extra["case_sensitive"] = False
    kept, narrowed = quarantine(cands, val.kept, len(val.usable_gold) + len(problem.referees))
    if narrowed:
        stats["narrowed"] = narrowed
        dropped["quarantined"] += len(val.kept) - len(kept)
    stats["kept"] = len(kept)
    if not problem.is_function and policy.derived:
        # the limit the kept inputs allow (the suite's own, chosen below, is at most this)
        problem.limits = problem.limits.model_copy(update={"time_s": policy.derive(c.gold_time_s for c in kept)})
    km = kill_matrix(problem, val.usable_gold, kept, runner, st.mutants, st.seed)
    if not problem.is_function and not policy.derived and "stress" not in narrowed and "*" not in narrowed \
            and (st.families is None or "stress" in st.families):
        # stress inputs past the caps where the golds left room (testgen/growth.py); after the
        # mutants, whose time limit follows the slowest gold time of the inputs they run on
        grown, growth = grow(problem, model, kept, runner, st.seed, st.budget, slack)
        stats["growth"] = growth.to_json()
        kept += grown
        km.kills += [set() for _ in grown]
    chosen = greedy_cover(kept, km.kills, st.max_tests, st.multiplicity, st.fill)
    suite = [kept[i] for i in chosen]
    if problem.is_function:
        suite, bad = confirm_function_suite(problem, val.usable_gold, suite, runner)
        if bad:
            dropped["confirm_failed"] += bad
    stats["dropped"] = dict(dropped)
    kept_idx = {id(c): i for i, c in enumerate(kept)}
    final_idx = [kept_idx[id(c)] for c in suite]
    stats["mutants"] = {"total": len(km.mutants), "killable": len(km.killable),
                        "killed_by_suite": len(suite_kills(final_idx, km.kills))}
    stats["selected"] = len(suite)
    if not problem.is_function:
        times = [c.gold_time_s for c in suite]
        limit_s = policy.derive(times)
        stats["time_limit"] = policy.record(limit_s, times)
        if policy.derived:
            # judges read the suite's limit where they read a stated one
            extra["limits"] = dict(rec.get("limits") if isinstance(rec.get("limits"), dict) else {},
                                   time_s=limit_s, wall_time_s=policy.wall_s(limit_s),
                                   time_source=policy.source_note(limit_s, times))
    stats["families"] = [c.family for c in suite]
    possible = 1 if (isinstance(model, StdioModel) and model.shape == "empty") else st.min_tests
    if len(suite) < min(st.min_tests, possible):
        stats["status"] = "too_few_tests"
        stats["reason"] = f"only {len(suite)} tests survived validation (minimum {min(st.min_tests, possible)})"
    return [c.as_test() for c in suite]
