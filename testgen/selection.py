"""Selection: a compact suite that keeps its power to reject wrong programs.

Mutants of the gold solutions stand in for wrong programs. ``kill_matrix`` runs each
mutant on every surviving input (in the sandbox) and records which inputs expose it.
``greedy_cover`` then picks tests the way set cover does: the test that exposes the most
not-yet-exposed mutants first, until every exposable mutant is exposed ``multiplicity``
times or the size cap is reached; leftover room goes to the problem's own examples and
then to the families in turn, so the suite also covers what the mutants did not model; in
each family's turn an input with an answer the suite does not have yet goes first.
The order of the result is the order of choice: strongest tests first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from sandbox.models import Verdict

from .candidates import Candidate, canonical_key
from .execute import FnProgram, StdioProgram, call_function, run_stdio
from .mutants import Mutant, mutants
from .problem import Problem, Program
from .runner import Runner

# Ties go to the families least likely to stray outside the input contract.
FAMILY_RANK = {"seed": 0, "mutation": 1, "llm-regular": 2, "relations": 3, "structured": 3, "boundary": 3, "grammar": 3, "corner": 3,
               "regular": 4, "special": 5, "llm-corner": 6, "stress": 7, "widen": 8}


@dataclass
class KillMatrix:
    mutants: list[Mutant] = field(default_factory=list)
    kills: list[set[int]] = field(default_factory=list)  # per candidate: indices of mutants it kills

    @property
    def killable(self) -> set[int]:
        out: set[int] = set()
        for k in self.kills:
            out |= k
        return out


def make_mutants(golds: list[Program], total: int, seed: int) -> list[Mutant]:
    """Mutants of every Python gold, the budget split evenly between them."""
    py = [g for g in golds if g.language == "python"]
    if not py or total <= 0:
        return []
    out: list[Mutant] = []
    seen: set[str] = set()
    per = max(1, total // len(py))
    for k, g in enumerate(py):
        for m in mutants(g.code, per if k < len(py) - 1 else total - len(out), seed=seed + k):
            if m.code not in seen:
                seen.add(m.code)
                out.append(m)
    return out[:total]


def kill_matrix(problem: Problem, golds: list[Program], cands: list[Candidate], runner: Runner,
                n_mutants: int, seed: int) -> KillMatrix:
    ms = make_mutants(golds, n_mutants, seed)
    km = KillMatrix(mutants=ms, kills=[set() for _ in cands])
    if not ms or not cands:
        return km
    if problem.is_function:
        assert problem.entry_point
        # A mutant gets a tight per-call limit (it is a stand-in, not a submission) and gives up a
        # chunk after a few timeouts: mutants that loop forever would otherwise cost minutes.
        slowest = max((c.gold_time_s for c in cands), default=0.0)
        tight = min(problem.limits.time_s, max(0.2, 4 * slowest + 0.05))
        res = call_function(runner, [FnProgram(*problem.runnable(m.code)) for m in ms],
                            [c.args for c in cands], problem.limits, chunk=100, call_time_s=tight,
                            max_timeouts=2)  # type: ignore[misc]
        for mi, row in enumerate(res):
            for ci, r in enumerate(row):
                if r.status in ("SE", "SKIP", "LOST"):
                    continue  # no evidence either way
                if not r.ok or (not problem.has_checker and not problem.values_equal(r.value, cands[ci].expected)):
                    km.kills[ci].add(mi)  # (with a checker another value may be another right answer)
    else:
        _stdio_kills(problem, ms, cands, runner, km)
    return km


def _stdio_kills(problem: Problem, ms: list[Mutant], cands: list[Candidate], runner: Runner, km: KillMatrix,
                 probe: int = 8) -> None:
    """Mutants as stdin/stdout programs, with a tight time limit. Every mutant first runs on a few
    probe inputs; one that times out there already (it loops) is not run on the rest."""
    slowest = max((c.gold_time_s for c in cands), default=0.0)
    t = min(problem.limits.time_s, max(0.5, 4 * slowest + 0.1))
    lim = problem.limits.model_copy(update={"time_s": t, "wall_time_s": 2 * t + 0.2})
    inputs = [c.stdin or "" for c in cands]
    expected = [c.expected_stdout for c in cands]

    def run(idx: list[int], mut: list[int]) -> list:
        return run_stdio(runner, [StdioProgram("python", ms[m].code) for m in mut], [inputs[i] for i in idx], lim,
                         expected=[expected[i] for i in idx], compare=problem.compare, float_tol=problem.float_tol,
                         case_sensitive=problem.case_sensitive)

    first = list(range(min(probe, len(cands))))
    rest = list(range(len(first), len(cands)))
    loopers: set[int] = set()
    for mi, res in zip(range(len(ms)), run(first, list(range(len(ms))))):
        _record(km, mi, res, first)
        if sum(1 for x in res.tests if x.verdict == Verdict.TLE) >= 2:
            loopers.add(mi)
    live = [m for m in range(len(ms)) if m not in loopers]
    if rest and live:
        for mi, res in zip(live, run(rest, live)):
            _record(km, mi, res, rest)


def _record(km: KillMatrix, mi: int, res: object, idx: list[int]) -> None:
    if getattr(res, "verdict", None) == Verdict.CE:
        return  # a mutant that does not compile tells nothing about the tests
    for k, t in enumerate(getattr(res, "tests", [])[: len(idx)]):
        if t.verdict not in (Verdict.AC, Verdict.SE, Verdict.SKIPPED):
            km.kills[idx[k]].add(mi)


def _tiebreak(c: Candidate) -> tuple[int, int]:
    return (FAMILY_RANK.get(c.family, 9), c.size())


STRESS_KEEP = 2
CORNER_KEEP = 64  # corner inputs kept whole (past max_tests); the rest compete as any family's


def greedy_cover(cands: list[Candidate], kills: list[set[int]], max_tests: int, multiplicity: int = 2,
                 fill: bool = True) -> list[int]:
    """Indices of the chosen candidates, in order of choice."""
    n = len(cands)
    if n == 0 or max_tests <= 0:
        return []
    need: dict[int, int] = {}
    for k in kills:
        for m in k:
            need[m] = multiplicity
    chosen: list[int] = []
    taken = [False] * n
    order = sorted(range(n), key=lambda i: _tiebreak(cands[i]))
    while len(chosen) < max_tests and any(v > 0 for v in need.values()):
        best, best_gain = -1, 0
        for i in order:
            if taken[i]:
                continue
            # first cover (need == multiplicity) counts more than later re-covers
            gain = sum((2 if need.get(m, 0) == multiplicity else 1) for m in kills[i] if need.get(m, 0) > 0)
            if gain > best_gain:
                best, best_gain = i, gain
        if best < 0:
            break
        taken[best] = True
        chosen.append(best)
        for m in kills[best]:
            if need.get(m, 0) > 0:
                need[m] -= 1
    # the problem's own examples, always (never worse than the samples), even past max_tests; and
    # the corner grid of a problem whose whole input is a few integers (the input model's,
    # ``testgen/corners.py``, then the checktestdata script's, ``Grammar.corner_plans``), in the
    # order drawn, up to CORNER_KEEP tiny inputs, as a setter writes those corner cases by hand
    for i in order:
        if not taken[i] and cands[i].family == "seed":
            taken[i] = True
            chosen.append(i)
    for i in [i for i in range(n) if not taken[i] and cands[i].family == "corner"][:CORNER_KEEP]:
        taken[i] = True
        chosen.append(i)
    if not fill:
        return chosen
    # the largest stress inputs next: their purpose is to make a slow solution time out
    largest = sorted((i for i in range(n) if not taken[i]), key=lambda i: -cands[i].size())
    keep = [i for i in largest if cands[i].family == "stress"][:STRESS_KEEP]
    # and the largest input of every shape (a stress input's: sorted, all equal, ...,
    # ``shapes.STRESS_PLAN``; points on lines, ``lines.LINE_PLAN``; a seed with one sequence
    # argument emptied, ``generators._emptied``): a slow solution's worst case is a shape, not
    # only a size, and a wrong one's is a shape that random values never take
    shapes: set[str] = set()
    for i in largest:
        note = cands[i].note
        if note.startswith("shape:") and note not in shapes:
            shapes.add(note)
            if i not in keep:
                keep.append(i)
    for i in keep:
        if len(chosen) >= max_tests:
            break
        taken[i] = True
        chosen.append(i)
    by_family: dict[str, list[int]] = {}
    for i in order:
        if not taken[i]:
            by_family.setdefault(cands[i].family, []).append(i)
    # within a family, prefer tests that killed something, then small ones
    for fam in by_family:
        by_family[fam].sort(key=lambda i: (-len(kills[i]), cands[i].size()))
    fams = sorted(by_family, key=lambda f: FAMILY_RANK.get(f, 9))
    key = [answer_key(c) for c in cands]  # once each: a stress input's answer can be megabytes
    answers = {key[i] for i in chosen}
    while len(chosen) < max_tests and any(by_family.values()):
        for f in fams:
            if by_family[f] and len(chosen) < max_tests:
                i = _take_novel(by_family[f], key, answers)
                answers.add(key[i])
                chosen.append(i)
    return chosen


def answer_key(c: Candidate) -> str:
    """What the golds answered on an input, for telling answers apart (trailing blanks aside)."""
    if c.args is not None:
        return canonical_key(c.expected)
    return "\n".join(line.rstrip() for line in (c.expected_stdout or "").rstrip().split("\n"))


def _take_novel(queue: list[int], key: list[str], answers: set[str]) -> int:
    """The first input of ``queue`` whose answer the suite does not have yet, else the first: inputs
    that all get one answer (every large n converging to one value, every random wall
    "impossible") test one behaviour, so a new answer is a new behaviour exercised."""
    for k, i in enumerate(queue):
        if key[i] not in answers:
            return queue.pop(k)
    return queue.pop(0)


def suite_kills(chosen: list[int], kills: list[set[int]]) -> set[int]:
    out: set[int] = set()
    for i in chosen:
        out |= kills[i]
    return out

