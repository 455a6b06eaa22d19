"""The shapes of generated stdin inputs that target slow and wrong solutions (issue 14).

* stress inputs at the stated maximum in several shapes (``STRESS_PLAN``): random large values,
  values sorted either way, every value equal at the minimum or the maximum, the header's other
  values at their maximum; the smaller rungs of the size ladder as a fallback;
* stress words (``stress_word``) at the stated length down the same ladder, in the same shapes:
  random letters, one letter repeated, or a short block repeated (a periodic string);
* grids (rows of one word, as wide as a header value) in shapes of their own (``GRID_PLAN``): as
  many cells as the statement allows (its ``h * w`` bound, else the token budget) as a square, as
  wide or as tall as the sides allow, filled at random or sparse (one letter everywhere, every other
  letter once);
* crowded ``special`` inputs: a few rows whose numbers lie in a narrow window at the bottom of
  their range, so ties, touching and nested values are common.

``smodel.StdioModel`` asks these functions which shape its ``i``-th input of a family takes.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any, Optional

from .brackets import make_balanced

if TYPE_CHECKING:
    from .slot import Slot

SMALL_ROWS = 1000  # rows of the non-stress families
CROWDED_ROWS = 8  # a crowded special input: at most this many rows ...
CROWDED_SPAN = 10  # ... with numbers in [lo, lo + 10]
# Stress inputs: (rung of the size ladder, shape), in order. Rung 0 is the stated maximum; the
# shapes are the usual worst cases of slow solutions at that size: random large values, values
# sorted either way (a staircase that a greedy or a naive search walks step by step), and every
# value equal at the minimum or the maximum (no early exit, the longest scan). Every shape but
# ``random`` puts the header's other values (a budget, a height, a modulus) at their maximum.
# The smaller rungs stay as a fallback for problems whose golds cannot run the maximum in time.
# A word (a string token) takes the shape too (``stress_word``): random letters, one letter
# repeated at ``equal-*``, and a short block repeated at ``ascending`` (period 2) and
# ``descending`` (period 3 to 6): a periodic string is the worst case of the string algorithms
# that are quadratic only on repetition (naive matching, rotations, border and bracket scans).
STRESS_LADDER = (1, 2, 10, 100)  # hi_cap // d; the last rung is min(hi_cap, 1000)
STRESS_PLAN = ((0, "random"), (0, "ascending"), (0, "equal-min"), (1, "random"), (0, "descending"),
               (2, "random"), (0, "equal-max"), (3, "random"), (4, "random"), (1, "ascending"))


# Grids: (rung, shape). ``random`` and ``sparse`` are as square as the cell budget allows, ``wide``
# and ``tall`` put the cells in as few rows (columns) as the sides' ranges allow: one row of 10^5
# where the statement bounds h * w <= 10^5 (a solution quadratic in one side is slow only there),
# filled as ``sparse`` is. ``sparse`` fills the grid with one letter and
# puts every other letter of the alphabet in one random cell: what a search looks for is rare and
# far apart, so pruning on a small answer or an early find never starts (a random grid over A-Z
# holds every letter within a few cells of any other).
GRID_PLAN = ((0, "random"), (0, "sparse"), (0, "wide"), (1, "random"), (0, "tall"),
             (2, "random"), (1, "sparse"), (3, "random"), (4, "random"), (1, "wide"))


def grid_step(i: int) -> tuple[int, str]:
    """The ``i``-th stress grid's rung of the size ladder and its shape (``GRID_PLAN``)."""
    return GRID_PLAN[i % len(GRID_PLAN)]


def grid_size(i: int, cells: int, rows: tuple[int, int], width: tuple[int, int], max_rows: int) -> tuple[int, int]:
    """Rows and width of the ``i``-th stress grid: at most ``cells`` cells (divided down the
    ladder), each side within its stated range, at most ``max_rows`` rows."""
    rung, shape = grid_step(i)
    cells = max(1, ladder(cells, rung))

    def fit(v: int, lo_hi: tuple[int, int]) -> int:
        return max(lo_hi[0], min(lo_hi[1], v))

    if shape == "wide":
        w = fit(cells // max(1, rows[0]), width)
        return fit(max(1, cells // w), rows), w
    if shape == "tall":
        h = fit(min(cells // max(1, width[0]), max_rows), rows)
        return h, fit(max(1, cells // h), width)
    h = fit(min(math.isqrt(cells), max_rows), rows)
    return h, fit(cells // h, width)


def grid_rows(shape: str, h: int, w: int, alphabet: str, rng: random.Random) -> list[str]:
    """The rows of a stress grid: random letters, or (every shape but ``random``) sparse: one
    letter everywhere, each other letter of the alphabet in one random cell."""
    if shape == "random" or len(alphabet) < 2:
        return ["".join(rng.choice(alphabet) for _ in range(w)) for _ in range(h)]
    fill = rng.choice(alphabet)
    grid = [[fill] * w for _ in range(h)]
    for ch in alphabet:
        if ch != fill:
            grid[rng.randrange(h)][rng.randrange(w)] = ch
    return ["".join(r) for r in grid]


def crowded(i: int) -> bool:
    """Is the ``i``-th ``special`` input a crowded one: a few rows whose numbers all lie in a
    narrow window at the bottom of their range, so equal, touching and nested values (ties,
    an interval inside another, a value absent between two) are common instead of rare?"""
    return i % 3 != 0 and (i // 3) % 2 == 1


def ladder(top: int, rung: int) -> int:
    """``top`` (a count, a word's length, a grid's cells) on the given rung of ``STRESS_LADDER``."""
    return top // STRESS_LADDER[rung] if rung < len(STRESS_LADDER) else min(top, 1000)


def stress_step(i: int) -> tuple[int, str]:
    """The ``i``-th stress input's rung of the size ladder and its shape (``STRESS_PLAN``)."""
    return STRESS_PLAN[i % len(STRESS_PLAN)]


def stress_value(sl: "Slot", step: tuple[int, str], rng: random.Random) -> Any:
    """One value of a stress input's row or list at the given rung and shape (``stress_step``)."""
    rung, shape = step
    if sl.kind == "word" and not sl.choices:
        return stress_word(sl, rung, shape, rng)
    if shape == "equal-min" or shape == "equal-max":
        if sl.kind == "word":
            return sl.choices[0 if shape == "equal-min" else -1]  # type: ignore[index]
        v = sl.lo if shape == "equal-min" else sl.hi
        return int(v) if sl.kind == "int" else v
    if shape in ("ascending", "descending") and sl.kind != "word":  # the whole range, sorted afterwards
        return sl.draw(rng, "full")
    return sl.draw(rng, "stress")


WORD_PERIOD = {"ascending": (2, 2), "descending": (3, 6)}  # a periodic stress word's block length


def stress_word_len(sl: "Slot", rung: int) -> int:
    """A stress word's length: the stated maximum, down the size ladder as the counts go."""
    return max(sl.min_len, ladder(max(1, sl.max_len), rung), 1)


def row_chars(slots: list["Slot"], kind: str) -> int:
    """About how many characters one row of ``slots`` takes in an input of family ``kind`` at
    most: a stress word its stated length, any other value a dozen."""
    return sum(stress_word_len(sl, 0) + 1 if kind == "stress" and sl.kind == "word" and not sl.choices else 12
               for sl in slots)


def rows_within(slots: list["Slot"], kind: str, max_tokens: int, max_chars: int) -> int:
    """How many rows of ``slots`` an input of family ``kind`` may have: within the token budget
    and the character budget (stress words are long)."""
    return min(max_tokens // max(1, len(slots)), max_chars // max(1, row_chars(slots, kind)))


def stress_word(sl: "Slot", rung: int, shape: str, rng: random.Random) -> str:
    """A word of a stress input (see ``STRESS_PLAN``'s comment for the shapes). A balanced slot's
    periodic word repeats a balanced block, so it stays periodic once balanced."""
    n = stress_word_len(sl, rung)
    if shape == "equal-min" or shape == "equal-max":
        return sl.alphabet[0 if shape == "equal-min" else -1] * n
    if shape in WORD_PERIOD:
        lo, hi = WORD_PERIOD[shape]
        block = "".join(rng.choice(sl.alphabet) for _ in range(rng.randint(lo, hi)))
        if sl.balanced:
            block = make_balanced(block, sl.balanced)
            n -= n % len(block)
        return (block * (n // len(block) + 1))[:max(n, len(block))]
    return "".join(rng.choice(sl.alphabet) for _ in range(n))


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
        return max(lo, ladder(hi_cap, rung))
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
