"""The corner grid of a stdin input of a few values on fixed lines ("One line with three integers
l, w, n"): its boundary values in pairs, and its smallest values one after another.

Setters test such a problem on its bounds in combination (one value at its minimum while another
is at its maximum: "1 100 25") and on each of its smallest cases (n = 1, 2, 3, ...: where a
formula's special cases live, and where a program that stops iterating at some n breaks). The
boundary family's draws put the values at their bounds position by position along one diagonal,
so most such pairs never meet. The grid is the ``corner`` family of a ``fixed`` layout, kept
whole by selection as the grammar's corner grid is:

1. **pairs**: the values' boundary levels (``Slot.boundary``: the bounds, their neighbours, 0 and
   1, the integer-width edges) so that every two values meet at every pair of their levels
   (a greedy covering array), in at most ``1 - SMALL_SHARE`` of the budget;
2. **small**: every combination of the integer values' smallest few (``lo``, ``lo + 1``, ...), as
   many per value as the rows the pairs leave allow (at least ``SMALL_SHARE`` of the budget: all
   of ``lo .. lo + 33`` for one value of eight levels at a budget of 40, a 4 x 4 square for two);
   the other values at their first boundary value.

Nothing here widens a domain: every level is one the slot already allows, and the statement's
bounds between values (``s + e < d``) are applied to each row as to any other draw.
"""

from __future__ import annotations

import itertools
import random
from typing import Any, Sequence

SMALL_SHARE = 0.5  # of the grid's rows, the least that walk the smallest values
PAIR_CANDIDATES = 64  # rows tried for each row of the covering array when the product is larger
PRODUCT_ENUMERATED = 4096  # up to this many combinations, every one is tried


def small_rows(slots: Sequence[Any], budget: int) -> list[list[Any]]:
    """Every combination of the integer slots' smallest values, at most ``budget`` rows."""
    ints = [k for k, sl in enumerate(slots) if _walks(sl)]
    if not ints or budget < 2:
        return []
    per = 1
    while (per + 1) ** len(ints) <= budget:
        per += 1
    if per < 2:
        return []
    ladders = {k: list(range(int(slots[k].lo), int(min(slots[k].hi, slots[k].lo + per - 1)) + 1)) for k in ints}
    fixed = [_first_level(sl) for sl in slots]
    rows = []
    for combo in itertools.product(*(ladders[k] for k in ints)):
        row = list(fixed)
        for k, v in zip(ints, combo):
            row[k] = v
        rows.append(row)
    return rows[:budget]


def pair_rows(slots: Sequence[Any], budget: int, rng: random.Random) -> list[list[Any]]:
    """Rows over the slots' boundary levels in which every level of every slot appears, and every
    two slots meet at every pair of their levels, greedily, at most ``budget`` rows."""
    levels = [sl.boundary() or [_first_level(sl)] for sl in slots]
    need = {(p, a) for p, lv in enumerate(levels) for a in range(len(lv))}
    need |= {(p, a, q, b) for p, q in itertools.combinations(range(len(levels)), 2)
             for a in range(len(levels[p])) for b in range(len(levels[q]))}
    total = 1
    for lv in levels:
        total *= len(lv)
    everything = list(itertools.product(*(range(len(lv)) for lv in levels))) if total <= PRODUCT_ENUMERATED else None
    rows: list[list[Any]] = []
    while need and len(rows) < budget:
        pool = everything if everything is not None else [
            tuple(rng.randrange(len(lv)) for lv in levels) for _ in range(PAIR_CANDIDATES)]
        best = max(pool, key=lambda c: len(_covers(c) & need))
        gained = _covers(best) & need
        if not gained:
            break
        need -= gained
        rows.append([levels[p][a] for p, a in enumerate(best)])
    return rows


def corner_rows(slots: Sequence[Any], budget: int, rng: random.Random) -> list[list[Any]]:
    """The grid, at most ``budget`` rows: the pairs first (at most ``1 - SMALL_SHARE`` of the
    budget), then the walk over the smallest values in every row they leave, past the rows the
    pairs already hold (a value's 1 and 2 are among its levels)."""
    pairs = pair_rows(slots, budget - int(budget * SMALL_SHARE), rng)
    room = budget - len(pairs)
    small = small_rows(slots, room)
    held = sum(row in pairs for row in small)
    if held:
        small = small_rows(slots, room + held)
    return pairs + [row for row in small if row not in pairs][:room]


def _covers(combo: tuple[int, ...]) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = {(p, a) for p, a in enumerate(combo)}
    out |= {(p, combo[p], q, combo[q]) for p, q in itertools.combinations(range(len(combo)), 2)}
    return out


def _walks(sl: Any) -> bool:
    """Does the slot take part in the walk over the smallest values (an integer of a range)?"""
    return sl.kind == "int" and not sl.choices and sl.hi > sl.lo


def _first_level(sl: Any) -> Any:
    b = sl.boundary()
    if b:
        return b[0]
    return int(sl.lo) if sl.kind == "int" else sl.lo
