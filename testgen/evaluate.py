"""How good is a suite? Judge labelled programs with it: TPR, TNR, all-wrong-rejected.

* TPR: share of known-correct programs the suite accepts (a suite must not fail good code);
* TNR: share of known-incorrect programs it rejects;
* rejects-all: share of problems (with at least one incorrect program) whose suite rejects
  every incorrect program.
Reported per problem and pooled over all programs. Programs in languages the sandbox does
not have are skipped and counted; a sandbox error (SE) is neither accept nor reject. A
problem without a suite (empty, or synthesis failed) judges nothing: it is reported apart
(``unjudged``) and its programs count neither as accepted nor as rejected.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Optional

from sandbox.models import Limits, RunRequest, RunResult, TestCase, Verdict

from .harness import driver_source, job_stdin, parse_stream
from .problem import Problem, ProblemError, Program, load_problem
from .runner import Runner

BATCH = 48


@dataclass
class ProblemScore:
    id: str
    tests: int
    correct: int = 0
    accepted: int = 0
    incorrect: int = 0
    rejected: int = 0
    skipped: int = 0
    errors: int = 0
    false_rejects: list[str] = field(default_factory=list)  # names of correct programs the suite failed
    missed: list[str] = field(default_factory=list)  # names of incorrect programs it accepted
    note: Optional[str] = None
    slow: int = 0  # incorrect programs labelled TLE (too slow), judged
    slow_rejected: int = 0
    judged: bool = True  # False: no suite (empty or failed); its programs are in no rate
    unjudged_programs: int = 0

    @property
    def tpr(self) -> Optional[float]:
        return self.accepted / self.correct if self.correct else None

    @property
    def tnr(self) -> Optional[float]:
        return self.rejected / self.incorrect if self.incorrect else None

    @property
    def rejects_all(self) -> Optional[bool]:
        return self.rejected == self.incorrect if self.incorrect else None


@dataclass
class Report:
    problems: list[ProblemScore]

    def pooled(self) -> dict[str, Any]:
        c = sum(p.correct for p in self.problems)
        a = sum(p.accepted for p in self.problems)
        i = sum(p.incorrect for p in self.problems)
        r = sum(p.rejected for p in self.problems)
        with_inc = [p for p in self.problems if p.incorrect]
        tests = [p.tests for p in self.problems if p.judged]
        unjudged = [p for p in self.problems if not p.judged]
        return {
            "problems": len(self.problems), "correct": c, "accepted": a, "incorrect": i, "rejected": r,
            "tpr": a / c if c else None, "tnr": r / i if i else None,
            "rejects_all_share": (sum(1 for p in with_inc if p.rejects_all) / len(with_inc)) if with_inc else None,
            "problems_with_incorrect": len(with_inc),
            "tests_per_problem": (sum(tests) / len(tests)) if tests else 0.0, "max_tests": max(tests, default=0),
            "slow": sum(p.slow for p in self.problems), "slow_rejected": sum(p.slow_rejected for p in self.problems),
            "skipped": sum(p.skipped for p in self.problems), "errors": sum(p.errors for p in self.problems),
            "unjudged_problems": len(unjudged), "unjudged_programs": sum(p.unjudged_programs for p in unjudged),
            "unjudged": {p.id: p.note for p in unjudged},
        }

    def to_json(self) -> dict[str, Any]:
        return {"pooled": self.pooled(),
                "problems": [dict(asdict(p), tpr=p.tpr, tnr=p.tnr, rejects_all=p.rejects_all) for p in self.problems]}


def suite_tests(rec: dict[str, Any], field_name: str = "tests") -> list[TestCase]:
    raw = rec.get(field_name) or []
    out = []
    for t in raw:
        if not isinstance(t, dict):
            continue
        if isinstance(t.get("args"), list):
            out.append(TestCase(args=t["args"], expected=t.get("expected")))
        elif isinstance(t.get("stdin"), str):
            out.append(TestCase(stdin=t["stdin"], expected_stdout=t.get("expected_stdout")))
    return out


def judge_request(problem: Problem, prog: Program, tests: list[TestCase]) -> RunRequest:
    """The request that judges ``prog`` on ``tests`` the way the problem's judge would."""
    fn = bool(tests) and tests[0].is_function
    code, entry = problem.runnable(prog.code) if fn else (prog.code, None)
    return RunRequest(language=prog.language, code=code, tests=tests, limits=problem.limits,
                      compare=problem.compare, float_tol=problem.float_tol, case_sensitive=problem.case_sensitive,
                      entry_point=entry, stop_on_first_failure=True)


def batched_request(problem: Problem, prog: Program, tests: list[TestCase]) -> RunRequest:
    """All function calls of one program in one jail (the harness driver), stopping at the first
    crash or timeout. Much cheaper than one jail per call; ``batched_verdict`` judges the stream."""
    lim = problem.limits
    n = len(tests)
    cpu = min(60.0, max(10.0, lim.time_s * n / 2))
    return RunRequest(language="python", code=driver_source(*problem.runnable(prog.code)),
                      tests=[TestCase(stdin=job_stdin([t.args or [] for t in tests], lim.time_s, stop_on_error=True))],
                      limits=Limits(time_s=cpu, wall_time_s=min(120.0, cpu * 2 + 5), memory_mb=lim.memory_mb,
                                    output_kb=32768, processes=lim.processes))


def batched_verdict(res: RunResult, tests: list[TestCase], problem: Problem) -> Optional[bool]:
    """True: every call returned the expected value; False: some call failed or differed;
    None: the run was cut short for reasons the engine's per-call mode would judge differently."""
    if res.verdict == Verdict.SE or not res.tests:
        return None
    got, load_error = parse_stream(res.tests[0].stdout, len(tests))
    if load_error is not None:
        return False
    for r, t in zip(got, tests):
        if r is None:
            return None  # killed mid-way (memory, a C-level loop): let the engine judge it
        if not r.ok or not problem.values_equal(r.value, t.expected):
            return False
    return True


def is_slow(prog: Program) -> bool:
    """A program labelled too slow (Kattis/BAPC ``time_limit_exceeded``, HumanEval+ ``timeout``)."""
    return str(prog.label or "").upper() in ("TLE", "TIMEOUT", "TIME_LIMIT_EXCEEDED")


def sample(progs: list[Program], k: Optional[int], key: str) -> list[Program]:
    if k is None or len(progs) <= k:
        return progs
    rng = random.Random(key)
    idx = sorted(rng.sample(range(len(progs)), k))
    return [progs[i] for i in idx]


def evaluate(records: Iterable[dict[str, Any]], runner: Runner, *, tests_field: str = "tests",
             solutions: Optional[dict[str, dict[str, list[Program]]]] = None, per_label: Optional[int] = None,
             progress: Optional[Callable[[int], None]] = None, mode: str = "engine", cpp_dialect: str = "cpp"
             ) -> Report:
    """Judge every labelled program of every problem with the problem's suite.

    ``mode="engine"`` judges each test in its own jail, exactly as ``/v1/run`` would.
    ``mode="batched"`` runs a Python function-call program's tests in one jail through the
    harness (same value comparison, same per-call time limit); a run cut short falls back
    to the engine. Stdin/stdout problems always use the engine. ``cpp_dialect``: what the
    records' C++ programs compile as (``testgen.problem.CPP_DIALECTS``)."""
    langs = runner.languages()
    scores: list[ProblemScore] = []
    jobs: list[tuple[ProblemScore, str, Program, RunRequest, Problem, list[TestCase]]] = []
    for rec in records:
        pid = str(rec.get("id") or rec.get("task_id"))
        tests = suite_tests(rec, tests_field)
        score = ProblemScore(id=pid, tests=len(tests))
        scores.append(score)
        try:
            problem = load_problem(rec, cpp_dialect)
        except ProblemError as e:
            score.note, score.judged = f"problem not usable: {e}", False
            continue
        if problem.unsupported or problem.unjudgeable:
            score.note, score.judged = problem.unsupported or problem.unjudgeable, False
            continue
        if not tests:
            status = (rec.get("testgen") or {}).get("status") if tests_field == "tests" else None
            reason = (rec.get("testgen") or {}).get("reason") if status not in (None, "ok") else None
            score.judged = False
            score.note = f"no suite (testgen {status}: {reason})" if reason else "empty suite: not judged"
        labelled = (solutions or {}).get(pid) or {"correct": problem.heldout_correct,
                                                   "incorrect": problem.heldout_incorrect}
        for label in ("correct", "incorrect"):
            for prog in sample(labelled.get(label, []), per_label, f"{pid}:{label}"):
                if langs and prog.language not in langs:
                    score.skipped += 1
                    continue
                if not tests:  # an empty suite accepts nothing and rejects nothing: not a rate
                    score.unjudged_programs += 1
                    continue
                try:
                    if (mode == "batched" and problem.is_function and prog.language == "python" and tests[0].is_function
                            and not problem.has_checker):  # the harness compares values; a checker needs the engine
                        req = batched_request(problem, prog, tests)
                    else:
                        req = judge_request(problem, prog, tests)
                except Exception as e:  # pydantic: e.g. an empty program
                    if label == "correct":
                        score.correct += 1
                        score.false_rejects.append(f"{prog.name} (bad request: {str(e)[:80]})")
                    else:
                        score.incorrect += 1
                        score.rejected += 1
                    continue
                jobs.append((score, label, prog, req, problem, tests))
    done = 0
    for s in range(0, len(jobs), BATCH):
        chunk = jobs[s:s + BATCH]
        outs = runner.run_many([j[3] for j in chunk])
        decided: list[Optional[bool]] = []
        retry: list[int] = []
        for k, ((score, label, prog, req, problem, tests), out) in enumerate(zip(chunk, outs)):
            if not isinstance(out, RunResult):
                decided.append(None)
                continue
            if req.entry_point is None and problem.is_function:  # batched through the harness
                v = batched_verdict(out, tests, problem)
                if v is None:
                    retry.append(k)
                decided.append(v)
            else:
                decided.append(None if out.verdict == Verdict.SE else out.verdict == Verdict.AC)
        if retry:
            again = runner.run_many([judge_request(chunk[k][4], chunk[k][2], chunk[k][5])
                                     for k in retry])
            for k, out in zip(retry, again):
                decided[k] = None if not isinstance(out, RunResult) or out.verdict == Verdict.SE else \
                    out.verdict == Verdict.AC
        for (score, label, prog, _, _, _), accepted in zip(chunk, decided):
            if accepted is None:
                score.errors += 1
                continue
            if label == "correct":
                score.correct += 1
                score.accepted += accepted
                if not accepted:
                    score.false_rejects.append(prog.name)
            else:
                score.incorrect += 1
                score.rejected += not accepted
                if is_slow(prog):
                    score.slow += 1
                    score.slow_rejected += not accepted
                if accepted:
                    score.missed.append(prog.name)
        done += len(chunk)
        if progress:
            progress(len(chunk))
    return Report(problems=scores)


def count_jobs(records: list[dict[str, Any]], per_label: Optional[int]) -> int:
    n = 0
    for rec in records:
        for label in ("heldout_correct", "heldout_incorrect"):
            k = len(rec.get(label) or [])
            n += min(k, per_label) if per_label is not None else k
    return n


def load_solutions(path: str, cpp_dialect: str = "cpp") -> dict[str, dict[str, list[Program]]]:
    """Labelled programs, from problem-shaped records (heldout_correct / heldout_incorrect) or
    from one-program-a-line records {problem_id, language, code, label: correct|incorrect};
    C++ ones compile as ``cpp_dialect``, as a problem file's do."""
    from .problem import _programs, iter_records, with_cpp_dialect  # the same parsing as problem files

    def programs(entries: Any) -> list[Program]:
        return with_cpp_dialect(_programs(entries), cpp_dialect)

    out: dict[str, dict[str, list[Program]]] = {}
    for no, rec, error in iter_records(path):
        if rec is None:
            raise ValueError(f"{path}: {error}")
        if "heldout_correct" in rec or "heldout_incorrect" in rec:
            pid = str(rec.get("id") or rec.get("task_id"))
            d = out.setdefault(pid, {"correct": [], "incorrect": []})
            d["correct"] += programs(rec.get("heldout_correct"))
            d["incorrect"] += programs(rec.get("heldout_incorrect"))
            continue
        pid = rec.get("problem_id") or rec.get("id") or rec.get("task_id")
        label = rec.get("label")
        if isinstance(rec.get("correct"), bool):
            label = "correct" if rec["correct"] else "incorrect"
        if pid is None or label not in ("correct", "incorrect"):
            raise ValueError(f"{path}:{no}: needs problem_id and label correct|incorrect")
        progs = programs([rec])
        if not progs:
            raise ValueError(f"{path}:{no}: no code")
        out.setdefault(str(pid), {"correct": [], "incorrect": []})[label] += progs
    return out


def format_report(rep: Report, title: str = "", per_problem: bool = True) -> str:
    lines = []
    if title:
        lines.append(title)
    if per_problem:
        lines.append(f"{'problem':<28} {'tests':>5} {'TPR':>12} {'TNR':>12} {'all-rej':>7}  note")
        for p in rep.problems:
            tpr = f"{p.accepted}/{p.correct}" if p.correct else "-"
            tnr = f"{p.rejected}/{p.incorrect}" if p.incorrect else "-"
            ra = "-" if p.rejects_all is None else ("yes" if p.rejects_all else "no")
            lines.append(f"{p.id[:28]:<28} {p.tests:>5} {tpr:>12} {tnr:>12} {ra:>7}  {p.note or ''}")
    pool = rep.pooled()
    fmt = lambda v: "-" if v is None else f"{100 * v:.2f}%"  # noqa: E731
    lines.append(f"pooled: problems {pool['problems']}, TPR {fmt(pool['tpr'])} ({pool['accepted']}/{pool['correct']}),"
                 f" TNR {fmt(pool['tnr'])} ({pool['rejected']}/{pool['incorrect']}),"
                 f" rejects-all {fmt(pool['rejects_all_share'])} of {pool['problems_with_incorrect']},"
                 f" tests/problem {pool['tests_per_problem']:.1f} (max {pool['max_tests']}),"
                 f" skipped {pool['skipped']}, sandbox errors {pool['errors']}")
    if pool["unjudged_problems"]:
        lines.append(f"not judged (no suite): {pool['unjudged_problems']} problems, {pool['unjudged_programs']} programs: "
                     + ", ".join(sorted(pool["unjudged"])))
    return "\n".join(lines)


