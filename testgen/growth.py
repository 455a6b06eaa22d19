"""The growth round: stress inputs drawn again, larger, where the golds left room.

Stress inputs stop at the input caps (``input_caps.py``), below many stated maxima, and a program
that is too slow only past them passes. Raising the caps for every problem was tried and made
things worse: golds timed out or printed past the output limit on the larger inputs, which were
then dropped (docs/testgen-measured.md, 2026-11-29, late evening). So the caps grow per problem,
by what its golds showed on the inputs the caps stopped:

1. ``capped``: the kept stress inputs that used at least ``REACHED`` of a cap;
2. ``growth_factor``: the room the slowest gold left on them, in CPU time against its allowance
   (the time limit over the validation slack) and in output against the output limit, each
   with a margin, at most ``GROWTH_MAX``; below ``GROWTH_MIN`` there is no round;
3. ``grow``: the stress family (the input model's and the checktestdata scripts') drawn again
   under the grown caps; only inputs larger than the first round's largest are kept, each
   validated as every input is (a gold too slow, an answer too long, a validator's refusal or
   the golds' disagreement drops it).

Only stdin problems with a stated time limit grow: a derived limit rests on the kept inputs'
gold times, and growing them would grow the limit with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from .candidates import Candidate, dedupe
from .generators import Budget, generate, grammar_family
from .input_caps import DEFAULT_CAPS, caps_scaled
from .problem import Problem
from .runner import Runner
from .smodel import StdioModel
from .validate import validate_stdio

REACHED = 0.5  # an input that used this share of a cap was stopped by it
TIME_MARGIN = 2.0  # grown inputs aim at the golds' allowance over this: a gold may be superlinear
OUTPUT_MARGIN = 1.25  # ... and at the output limit over this (an answer grows with its input)
GROWTH_MAX = 4.0  # at most this many times the default caps (inputs of 16 MB)
GROWTH_MIN = 1.5  # below this the round costs gold time for inputs hardly larger
TIME_FLOOR_S = 0.01  # a gold time below this is read as this (CPU clocks are coarse)


@dataclass
class Growth:
    """What the round did, for the record's ``testgen.growth``."""

    factor: float = 1.0
    reason: str = ""
    drawn: int = 0
    kept: int = 0
    dropped: Optional[dict[str, int]] = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"factor": round(self.factor, 2), "reason": self.reason}
        if self.drawn:
            out.update(drawn=self.drawn, kept=self.kept, dropped=self.dropped or {})
        return out


def reached_caps(stdin: str) -> bool:
    """Did an input use ``REACHED`` of a cap: tokens, characters, or (a grid's) cells, read as the
    characters that are not white space?"""
    tokens = stdin.split()
    return (len(stdin) >= REACHED * DEFAULT_CAPS.chars or len(tokens) >= REACHED * DEFAULT_CAPS.tokens
            or sum(map(len, tokens)) >= REACHED * DEFAULT_CAPS.grid_cells)


def capped(kept: list[Candidate]) -> list[Candidate]:
    """The kept stress inputs the caps stopped."""
    return [c for c in kept if c.family == "stress" and reached_caps(c.stdin or "")]


def growth_factor(stopped: list[Candidate], allowance_s: float, output_bytes: int) -> tuple[float, str]:
    """How much larger the caps may grow, and why that much."""
    if not stopped:
        return 1.0, "no kept stress input reached the input caps"
    slowest = max(TIME_FLOOR_S, max(c.gold_time_s for c in stopped))
    longest = max(1, max(len((c.expected_stdout or "").encode()) for c in stopped))
    by_time = allowance_s / slowest / TIME_MARGIN
    by_output = output_bytes / longest / OUTPUT_MARGIN
    factor = min(GROWTH_MAX, by_time, by_output)
    why = (f"{len(stopped)} stress inputs reached the caps; the slowest gold took {slowest:.3g} s of its "
           f"{allowance_s:.3g} s, the longest answer {longest} of {output_bytes} bytes")
    if factor < GROWTH_MIN:
        return 1.0, why + ": too little room to grow"
    return factor, why


def grow(problem: Problem, model: Optional[StdioModel], kept: list[Candidate], runner: Runner, seed: int,
         budget: Budget, slack: float) -> tuple[list[Candidate], Growth]:
    """Stress inputs larger than the first round's largest, drawn under grown caps, that every gold
    answers within its allowance; and what the round did."""
    limits = problem.limits
    factor, why = growth_factor(capped(kept), limits.time_s / slack, limits.output_kb * 1024)
    growth = Growth(factor=factor, reason=why)
    if factor == 1.0:
        return [], growth
    pid = problem.id + "#grown"  # other draws than the first round's
    with caps_scaled(factor):
        drawn = generate(problem.io, model, [], seed, pid, budget, ["stress"])
        if problem.grammars:
            more, _ = grammar_family(problem.grammars, problem.seeds_text, seed, pid, budget.grammar, stress_only=True)
            drawn += more
    largest = max(len(c.stdin or "") for c in kept if c.family == "stress")
    drawn = [c for c in drawn if c.family == "stress" and len(c.stdin or "") > largest
             and (model is None or model.admits(c.stdin or ""))]
    drawn, _ = dedupe(drawn)
    growth.drawn = len(drawn)
    if not drawn:
        growth.reason += "; nothing drawn larger than the first round's largest (the stated maxima stop there)"
        return [], growth
    seeds = [Candidate("seed", stdin=s["stdin"]) for s in problem.seeds]
    val = validate_stdio(problem, seeds + drawn, runner, slack)
    grown = [c for c in val.kept if c.family != "seed"]
    for c in grown:
        c.meta["grown"] = round(factor, 2)
    growth.kept, growth.dropped = len(grown), dict(val.dropped)
    return grown, growth

