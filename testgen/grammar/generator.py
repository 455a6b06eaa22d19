"""A checktestdata script as a generator of inputs, and the plans a family draws under."""

from __future__ import annotations

import random
import time
from typing import Optional

from .library import CORNER_ENDS, Library, Plan, _Reject, _Stop
from .script import GrammarError, translate

DRAW_TRIES = 24  # whole-input attempts per generated input
DRAW_SECONDS = 4.0  # ... and the time they may take together
CORNER_POINTS = 64  # the most corner inputs a loop-free script gets (``Grammar.corner_plans``)


class Grammar:
    """A checktestdata script as a generator of inputs."""

    def __init__(self, source: str, seen: str = ""):
        from checktestdata.lib import VarType

        self.code, self.names, self.counts, labels = translate(source)
        self.labels = frozenset(labels)
        self.variables = [v for v in self.names.values() if isinstance(v, VarType)]
        self.seen = seen
        self.patterns: dict = {}

    def draw(self, plan: Plan, rng: random.Random) -> Optional[str]:
        """One input drawn under ``plan``, or None when no attempt produced one. A stress input
        starts at the stated maximum and shrinks its counts until the input fits the budget (by
        the library's ``shrink``) and its assertions hold (by half every other attempt)."""
        run = self._drawn(plan, rng)
        return "".join(run.out) if run is not None else None

    def _drawn(self, plan: Plan, rng: random.Random) -> Optional[Library]:
        """The library that drew ``draw``'s input (what it wrote, how many loops and integers)."""
        deadline = time.monotonic() + DRAW_SECONDS
        scale = 1.0
        for attempt in range(DRAW_TRIES):
            if time.monotonic() > deadline:
                return None
            for v in self.variables:
                v.reset()
            run = Library(plan, rng, self.counts, scale, self.seen, self.patterns, deadline, self.labels)
            try:
                exec(self.code, {**self.names, **run.functions()})  # noqa: S102 - our own translation of the script
            except GrammarError:
                raise
            except _Stop:
                scale *= run.shrink  # too big: the next attempt at half the counts, or less
                continue
            except (_Reject, TypeError, ValueError, ZeroDivisionError, OverflowError):
                if plan.kind == "stress" and attempt % 2 == 1:
                    scale /= 2  # an assertion between the sizes (h * w <= 10^5) holds further down
                if plan.corner is not None:
                    return None  # a corner is one point: drawing it again gives the same
                continue
            return run
        return None

    def corner_plans(self, limit: int = CORNER_POINTS) -> list[Plan]:
        """The boundary plans of a script with no loop (a few numbers on a line or two): every
        combination of its integers at the ends of their ranges, lo, lo + 1, hi - 1 and hi (or lo
        and hi, where that grid would pass ``limit``), as contest setters write the corner cases of
        a small-parameter problem by hand; [] for a script with a loop, with no integer, or with
        more than ``limit`` corners even at two ends each. A corner its assertions refuse is not
        drawn. Counted with a draw of its own randomness, so the other inputs stay as they were."""
        run = self._drawn(Plan("small"), random.Random(0))
        if run is None or run.loops_run or not run.integers:
            return []
        for ends in sorted(CORNER_ENDS, reverse=True):
            if ends ** run.integers <= limit:
                return [Plan("boundary", corner=i, ends=ends) for i in range(ends ** run.integers)]
        return []


STRESS_SHAPES = ("random", "skewed", "equal-max", "random", "equal-min", "skewed")


def plans(kind: str, n: int, labels: bool = False) -> list[Plan]:
    """The first ``n`` plans of a family: small inputs (plain, crowded, distinct) and medium ones
    in turn, boundary ones, or the stress shapes in turn; and, for a grammar whose values number
    things (``labels``), two stress inputs more, along a path and around a star (drawn last, so
    the others are the same with or without them)."""
    if kind == "stress":
        return [Plan("stress", shape, distinct=shape in ("random", "skewed"))
                for shape in (STRESS_SHAPES[i % len(STRESS_SHAPES)] for i in range(n))] + \
            ([Plan("stress", "path"), Plan("stress", "star")] if labels else [])
    if kind == "small":  # plain, crowded, distinct, medium (distinct), in turn
        return [[Plan("small"), Plan("small", crowded=True), Plan("small", distinct=True),
                 Plan("medium", distinct=True)][i % 4] for i in range(n)]
    return [Plan(kind, distinct=i % 2 == 1) for i in range(n)]
