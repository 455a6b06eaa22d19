"""Rows that are points at distinct positions ("the n planets are in distinct locations").

Geometry and grid problems say their points never coincide: "no two balloons are at the same
location", "the bakeries are at distinct coordinates", "all points are pairwise distinct". A
block of rows drawn column by column repeats a point often: always in the all-equal shapes
(every row at the minimum or the maximum), and in a maximum-size random draw whenever the
coordinate space is not much larger than the square of the row count. The input validator then
rejects the input, and a problem loses exactly its largest inputs.

Where the statement says so and every sample agrees, the rows' free integer columns (not node
labels, not ordered, bounded or related to other columns: those have their own rules) are drawn
as distinct tuples. A repeated tuple moves to the nearest free one, counting the columns as
digits of one number (the last column fastest), away from the edge of the range it is nearer
to: the all-equal shapes become the densest cluster the domain allows in that corner (a line
of points along the last coordinate), which is a stress shape in its own right.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

# Statement phrasings of "no two points coincide", sentence by sentence.
_SAYS_DISTINCT = [
    re.compile(r"\b(distinct|different)\s+(locations?|positions?|points?|coordinates|places|cells)\b", re.I),
    re.compile(r"\bno\s+two\s+[^.;]{0,60}?\b(at|in|on|share)\s+the\s+same\s+"
               r"(locations?|positions?|points?|coordinates|place|cell|spot)\b", re.I),
    re.compile(r"\b(points|locations|positions|coordinates)\b[^.;]{0,40}\b(pairwise\s+)?(distinct|different)\b", re.I),
    re.compile(r"\(\s*x_\{?i\}?\s*,\s*y_\{?i\}?\s*\)\s*\\neq?\s*\(\s*x_\{?j\}?\s*,\s*y_\{?j\}?\s*\)", re.I),
]

MIN_COLUMNS = 2  # a point has two or more coordinates (one distinct column is a list's rule)


def says_distinct_points(statement: str) -> bool:
    """Whether the statement says that the points (rows of coordinates) never coincide."""
    return any(p.search(statement) for p in _SAYS_DISTINCT)


def distinct_columns(kinds: Sequence[str], taken: set[int], blocks: list[list[list[str]]],
                     statement: str) -> list[int]:
    """The columns whose tuples are drawn distinct: the int columns not in ``taken`` (columns
    another rule draws), at least ``MIN_COLUMNS`` of them, when the statement says the points
    are distinct and no sample block repeats a tuple of them (some block has two rows or more).
    Otherwise none."""
    cols = [c for c, k in enumerate(kinds) if k == "int" and c not in taken]
    if len(cols) < MIN_COLUMNS or not says_distinct_points(statement):
        return []
    if not blocks or max(len(b) for b in blocks) < 2:
        return []
    for b in blocks:
        seen = {tuple(r[c] for c in cols) for r in b if len(r) > max(cols)}
        if len(seen) != len(b):
            return []
    return cols


def make_distinct(rows: list[list[Any]], cols: list[int], ranges: list[tuple[int, int]]) -> Optional[list[list[Any]]]:
    """The rows with no two equal on ``cols`` (each in its ``ranges`` entry, inclusive): a
    repeated tuple moves to the nearest free one (see the module's text). None when the ranges
    hold fewer tuples than there are rows."""
    if not cols or len(rows) < 2:
        return rows
    sizes = [hi - lo + 1 for lo, hi in ranges]
    total = 1
    for s in sizes:
        total *= max(0, s)
    if total < len(rows):
        return None

    def index(r: list[Any]) -> int:
        k = 0
        for c, (lo, _), s in zip(cols, ranges, sizes):
            k = k * s + (int(r[c]) - lo)
        return k

    def put(r: list[Any], k: int) -> None:
        for c, (lo, _), s in zip(reversed(cols), reversed(ranges), reversed(sizes)):
            k, d = divmod(k, s)
            r[c] = lo + d

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
            if k > total:
                return None
            cand = start + step * k if k <= room else start - step * (k - room)
            if cand not in used:
                break
        walked[start] = k
        used.add(cand)
        put(r, cand)
    return rows
