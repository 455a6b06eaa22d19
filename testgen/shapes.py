"""The shapes of generated stdin inputs that target slow and wrong solutions (issue 14).

* stress inputs at the stated maximum in several shapes (``STRESS_PLAN``): random large values,
  values sorted either way, every value equal at the minimum or the maximum, the header's other
  values at their maximum; the smaller rungs of the size ladder as a fallback;
* crowded ``special`` inputs: a few rows whose numbers lie in a narrow window at the bottom of
  their range, so ties, touching and nested values are common.

``smodel.StdioModel`` asks these functions which shape its ``i``-th input of a family takes.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from .smodel import Slot

SMALL_ROWS = 1000  # rows of the non-stress families
CROWDED_ROWS = 8  # a crowded special input: at most this many rows ...
CROWDED_SPAN = 10  # ... with numbers in [lo, lo + 10]
# Stress inputs: (rung of the size ladder, shape), in order. Rung 0 is the stated maximum; the
# shapes are the usual worst cases of slow solutions at that size: random large values, values
# sorted either way (a staircase that a greedy or a naive search walks step by step), and every
# value equal at the minimum or the maximum (no early exit, the longest scan). Every shape but
# ``random`` puts the header's other values (a budget, a height, a modulus) at their maximum.
# The smaller rungs stay as a fallback for problems whose golds cannot run the maximum in time.
STRESS_LADDER = (1, 2, 10, 100)  # hi_cap // d; the last rung is min(hi_cap, 1000)
STRESS_PLAN = ((0, "random"), (0, "ascending"), (0, "equal-min"), (1, "random"), (0, "descending"),
               (2, "random"), (0, "equal-max"), (3, "random"), (4, "random"), (1, "ascending"))


def crowded(i: int) -> bool:
    """Is the ``i``-th ``special`` input a crowded one: a few rows whose numbers all lie in a
    narrow window at the bottom of their range, so equal, touching and nested values (ties,
    an interval inside another, a value absent between two) are common instead of rare?"""
    return i % 3 != 0 and (i // 3) % 2 == 1


def stress_step(i: int) -> tuple[int, str]:
    """The ``i``-th stress input's rung of the size ladder and its shape (``STRESS_PLAN``)."""
    return STRESS_PLAN[i % len(STRESS_PLAN)]


def stress_value(sl: "Slot", shape: str, rng: random.Random) -> Any:
    """One value of a stress input's row or list in the given shape."""
    if shape == "equal-min" or shape == "equal-max":
        if sl.kind == "word":
            if sl.choices:
                return sl.choices[0 if shape == "equal-min" else -1]
            ch = sl.alphabet[0 if shape == "equal-min" else -1]
            return ch * max(1, sl.max_len)
        v = sl.lo if shape == "equal-min" else sl.hi
        return int(v) if sl.kind == "int" else v
    if shape in ("ascending", "descending"):  # the whole range, sorted afterwards: a staircase
        return sl.draw(rng, "stress" if sl.kind == "word" else "full")
    return sl.draw(rng, "stress")


def row_order(kind: str, i: int) -> Optional[str]:
    """The order rows or list values are put in: ``special`` cycles through none/ascending/
    descending, ``stress`` follows its shape."""
    if kind == "special":
        return (None, "ascending", "descending")[i % 3]
    if kind == "stress":
        shape = stress_step(i)[1]
        return shape if shape in ("ascending", "descending") else None
    return None


def draw_count(kind: str, lo: int, hi: int, rng: random.Random, i: int) -> int:
    """How many rows (or values) input ``i`` of family ``kind`` has, between ``lo`` and ``hi``."""
    hi_cap = max(lo, hi)
    if kind == "stress":  # a ladder down from the maximum: validation keeps what every gold runs in time
        rung = stress_step(i)[0]
        return max(lo, hi_cap // STRESS_LADDER[rung] if rung < len(STRESS_LADDER) else min(hi_cap, 1000))
    if kind == "structured":
        return rng.randint(lo, max(lo, min(hi_cap, [10, 100, 2000][i % 3])))
    # maximum sizes are the stress family's job; the others stay small enough to generate,
    # validate and judge quickly (the largest count boundary lives in the stress ladder)
    small = max(lo, min(hi_cap, SMALL_ROWS))
    if kind == "special" and crowded(i):
        return rng.randint(lo, max(lo, min(hi_cap, CROWDED_ROWS)))
    if kind == "boundary":
        return [lo, small, min(lo + 1, hi_cap), max(lo, small - 1)][i % 4]
    return rng.randint(lo, max(lo, min(small, max(lo, 20) if kind == "regular" else small)))
