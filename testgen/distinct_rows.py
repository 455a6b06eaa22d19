"""Rows whose points, or whose values of one column, the statement says never repeat.

Statements say so in two ways:

* **points**: "the n planets are in distinct locations", "no two balloons are at the same
  location", "the bakeries are at distinct coordinates", "all points are pairwise distinct";
* **values**: "no price appears more than once", "all heights are distinct".

A block of rows drawn column by column repeats a point or a value often: always in the all-equal
shapes (every row at the minimum or the maximum), and in a maximum-size draw whenever the range is
not much larger than the square of the row count (the stress shapes draw from the top tenth of a
range). The input validator then rejects the input, and a problem loses exactly its largest inputs.

Where the statement says so and every sample agrees, the block's free numeric columns (not node
labels, not ordered, rising, bounded or related columns: those have their own rules) are drawn
distinct: a point's columns together (two or more), else each column whose values no sample
repeats, one with three rows or more. A repeated point or value moves to the nearest free one,
the columns read as the digits of one number (the last column fastest; a float column in steps
of its decimals), away from the edge of the range it is nearer to: the all-equal shapes become
the densest cluster the domain has in that corner (a line of points along the last coordinate, a
run of consecutive values), which is a stress shape in its own right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

# "No two points coincide", sentence by sentence.
_SAYS_POINTS = [
    re.compile(r"\b(distinct|different)\s+(locations?|positions?|points?|coordinates|places|cells)\b", re.I),
    re.compile(r"\bno\s+two\s+[^.;]{0,60}?\b(at|in|on|share)\s+the\s+same\s+"
               r"(locations?|positions?|points?|coordinates|place|cell|spot)\b", re.I),
    re.compile(r"\b(points|locations|positions|coordinates)\b[^.;]{0,40}\b(pairwise\s+)?(distinct|different)\b", re.I),
    re.compile(r"\(\s*x_\{?i\}?\s*,\s*y_\{?i\}?\s*\)\s*\\neq?\s*\(\s*x_\{?j\}?\s*,\s*y_\{?j\}?\s*\)", re.I),
]
# "No value repeats": which column is meant is left to the samples (a column that repeats in one
# is not it).
_SAYS_VALUES = [
    re.compile(r"\bappears?\s+more\s+than\s+once\b", re.I),
    re.compile(r"\b(all|pairwise)\b[^.;]{0,40}\b(distinct|different|unique)\b", re.I),
    re.compile(r"\b(are|be)\s+(pairwise\s+)?(distinct|unique)\b", re.I),
]

# a list's values: "The second line contains n distinct integers p_1, ..., p_n"
_SAYS_LIST = re.compile(r"\b(?:pairwise\s+)?distinct\s+(?:integers|numbers|values|elements)\b", re.I)

MIN_POINT_COLUMNS = 2  # a point has two or more coordinates
MIN_VALUE_ROWS = 3  # rows in one sample before "no value of this column repeats" is more than chance


def says_distinct_points(statement: str) -> bool:
    """Whether the statement says that the points (rows of coordinates) never coincide."""
    return any(p.search(statement) for p in _SAYS_POINTS)


def says_distinct_values(statement: str) -> bool:
    """Whether the statement says that some values never repeat."""
    return any(p.search(statement) for p in _SAYS_VALUES)


@dataclass
class DistinctRows:
    """The column groups of a block of rows drawn distinct: a point's columns (``points``), or
    single columns (``values``)."""

    points: list[int] = field(default_factory=list)
    values: list[int] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.points or self.values)


def _repeats(blocks: list[list[list[str]]], cols: list[int]) -> bool:
    return any(len({tuple(r[c] for c in cols) for r in b}) != len(b) for b in blocks)


def ruled_columns(labels: Iterable[int], head_bounds: Iterable[Any], ordered: Iterable[int],
                  *others: Iterable[int]) -> set[int]:
    """The row columns a rule of their own draws: labels, columns a header value bounds, both
    columns of each ordered pair (``j`` and ``j + 1``), and the ``others`` (rising, chained or
    related columns)."""
    taken = set(labels) | {b.col for b in head_bounds} | {c for j in ordered for c in (j, j + 1)}
    for cols in others:
        taken |= set(cols)
    return taken


def distinct_columns(kinds: Sequence[str], taken: set[int], blocks: list[list[list[str]]],
                     statement: str) -> DistinctRows:
    """What of a block of rows is drawn distinct, from the statement and the sample ``blocks``:
    its free numeric columns (not in ``taken``, the columns another rule draws) as one point when
    the statement says the points are distinct, else each column no sample repeats when it says
    values are; nothing where the samples repeat what it says or are too short to tell."""
    free = [c for c, k in enumerate(kinds) if k in ("int", "float") and c not in taken]
    if not free or not blocks or max(len(b) for b in blocks) < 2 or any(len(r) < len(kinds) for b in blocks for r in b):
        return DistinctRows()
    points = [c for c in free if kinds[c] == "int"]
    if len(points) >= MIN_POINT_COLUMNS and says_distinct_points(statement):
        return DistinctRows(points=[] if _repeats(blocks, points) else points)
    if max(len(b) for b in blocks) >= MIN_VALUE_ROWS and says_distinct_values(statement):
        return DistinctRows(values=[c for c in free if not _repeats(blocks, [c])])
    return DistinctRows()


def distinct_list(lists: list[list[str]], statement: str) -> DistinctRows:
    """A list layout's values (column 0 of its one-value rows), drawn distinct where the statement
    says so ("n distinct integers", "all a_i are distinct") and no sample's list repeats a value,
    one of them three values long or more. Under a header bound ("1 <= p_i <= n") n distinct
    values are a permutation."""
    if not lists or max(map(len, lists)) < MIN_VALUE_ROWS or any(len(set(v)) != len(v) for v in lists):
        return DistinctRows()
    return DistinctRows(values=[0]) if _SAYS_LIST.search(statement) or says_distinct_values(statement) else DistinctRows()


def apply(rows: list[list[Any]], rule: DistinctRows, slots: Sequence[Any]) -> bool:
    """Make the rows distinct as ``rule`` says, in place (``slots``: the row's slots, for each
    column's range and decimals). False when the points cannot all be distinct (the range holds
    fewer than the rows); a single column that cannot is left as drawn (which column the
    statement means was read from the samples alone)."""
    if rule.points and make_distinct(rows, rule.points, [_grid(slots[c]) for c in rule.points]) is None:
        return False
    for c in rule.values:
        make_distinct(rows, [c], [_grid(slots[c])])
    return True


def _grid(sl: Any) -> tuple[float, float, int]:
    return float(sl.lo), float(sl.hi), int(sl.decimals) if sl.kind == "float" else 0


TIGHT_RANGE = 4  # a range at most this many times the list's length is drawn from, not walked in


def distinct_values(vals: list[int], grid: tuple[float, float, int], rng: Any) -> Optional[list[int]]:
    """A list's int values made distinct within ``grid``'s range: in a tight range (a permutation
    of 1..n, or near one) n values drawn from it at random and placed in the drawn values' order
    (a sorted draw stays sorted); else each repeat moved to the nearest free value
    (``make_distinct``, whose walks cross long runs of taken values in a tight range). None where
    the range holds fewer values than the list."""
    lo, hi = int(grid[0]), int(grid[1])
    if hi - lo + 1 < len(vals):
        return None
    if hi - lo + 1 > TIGHT_RANGE * len(vals):
        box = make_distinct([[v] for v in vals], [0], [grid])
        return None if box is None else [r[0] for r in box]
    picked = sorted(rng.sample(range(lo, hi + 1), len(vals)))
    out = [0] * len(vals)
    for j, v in zip(sorted(range(len(vals)), key=lambda j: vals[j]), picked):
        out[j] = v
    return out


def make_distinct(rows: list[list[Any]], cols: list[int], grids: list[tuple[float, float, int]]
                  ) -> Optional[list[list[Any]]]:
    """The rows with no two equal on ``cols``, each column on its grid (lo, hi, decimals): a
    repeated tuple moves to the nearest free one (see the module's text). None, and the rows as
    they were, when the grids hold fewer tuples than there are rows."""
    if not cols or len(rows) < 2:
        return rows
    scale = [10 ** d for _, _, d in grids]
    lows = [round(lo * s) for (lo, _, _), s in zip(grids, scale)]
    sizes = [max(0, round(hi * s) - low + 1) for (_, hi, _), s, low in zip(grids, scale, lows)]
    total = 1
    for size in sizes:
        total *= size
    if total < len(rows):
        return None

    def index(r: list[Any]) -> int:
        k = 0
        for c, s, low, size in zip(cols, scale, lows, sizes):
            k = k * size + min(size - 1, max(0, round(float(r[c]) * s) - low))
        return k

    def put(r: list[Any], k: int) -> None:
        for c, s, low, size, (_, _, d) in zip(reversed(cols), reversed(scale), reversed(lows), reversed(sizes),
                                               reversed(grids)):
            k, digit = divmod(k, size)
            r[c] = low + digit if d == 0 else round((low + digit) / s, d)

    used: set[int] = set()
    walked: dict[int, int] = {}  # tuple -> how far its repeats have walked from it
    for r in rows:
        start = index(r)
        if start not in used:
            used.add(start)
            continue
        step = -1 if start >= total // 2 else 1  # away from the nearer edge
        room = (total - 1 - start) if step == 1 else start  # steps before that direction's edge
        k = walked.get(start, 0)
        while True:
            k += 1
            cand = start + step * k if k <= room else start - step * (k - room)
            if cand not in used:
                break
        walked[start] = k
        used.add(cand)
        put(r, cand)
    return rows
