"""Points of the plane put on a few straight lines, or three of them one unit off a line.

A block of rows whose two integer columns are one point (the statement says the points never
coincide: ``distinct_rows.py``) is drawn by every other family at random, and random points are in
general position: no three on a line, no two segments parallel. What geometry code gets wrong is
the opposite: points on a line (a cross product of exactly 0; a line through many points; lines
that never meet) and points nearly on one at the coordinates' full range, where the cross product
is a small number computed as the difference of two products near 10^18, which a ``double``
rounds to 0. The ``structured`` family of such a layout draws them (``StdioModel._one``), one
shape after another (``LINE_PLAN``), each at the family's three sizes:

* ``one-line``: every point on one line;
* ``lines``: two, three or four lines in different directions, the points shared among them
  unevenly (a line may get one or two points while another gets most);
* ``parallel``: three lines with one direction;
* ``near-collinear``: a triple ``p``, ``p + (m, m - 1)``, ``p + (m - 1, m - 2)``, with ``m`` half
  the coordinates' range, whose cross product is -1, and the other points on one or two lines: a
  test that counts lines exactly needs one more than a test that rounds.

A direction is a primitive vector, mostly small (``(1, 0)``, ``(2, -1)``), sometimes as long as
the line's share of points lets it be, so the points span the whole range either way. Nothing is
drawn where the statement says that no three points lie on a line, and the problem's validator
and golds still judge every input.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any, Optional

# (shape, lines) in the order the ``structured`` family draws them
LINE_PLAN = (("one-line", 1), ("lines", 2), ("near-collinear", 1), ("lines", 3), ("near-collinear", 2),
             ("lines", 4), ("parallel", 3))
LINE_SIZES = 3  # inputs of one shape in a row (``shapes.draw_count``'s three ``structured`` sizes)
PLACE_TRIES = 8  # lines tried for each share of the points; spare points drawn on a line

_NO_THREE_COLLINEAR = re.compile(
    r"\bno\s+three\b[^.;]{0,80}\b(collinear|co-linear|(lie|lies|are|on)\b[^.;]{0,20}\b(straight\s+)?line)", re.I)


def says_no_three_collinear(statement: str) -> bool:
    """Whether the statement rules collinear points out ("no three points are collinear", "no
    three of them lie on a common line")."""
    return bool(_NO_THREE_COLLINEAR.search(statement))


def line_plan(i: int) -> tuple[str, int]:
    """The ``i``-th ``structured`` input's shape and number of lines: each step of ``LINE_PLAN``
    for ``LINE_SIZES`` inputs in a row."""
    return LINE_PLAN[(i // LINE_SIZES) % len(LINE_PLAN)]


Box = tuple[int, int, int, int]  # x_lo, x_hi, y_lo, y_hi


def _t_range(a: int, d: int, lo: int, hi: int) -> tuple[int, int]:
    """The steps t with lo <= a + t * d <= hi."""
    if d == 0:
        return (-(1 << 62), 1 << 62) if lo <= a <= hi else (1, 0)
    if d > 0:
        return -((a - lo) // d), (hi - a) // d
    return -((hi - a) // -d), (a - lo) // -d


def _steps(anchor: tuple[int, int], d: tuple[int, int], box: Box) -> tuple[int, int]:
    x0, x1 = _t_range(anchor[0], d[0], box[0], box[1])
    y0, y1 = _t_range(anchor[1], d[1], box[2], box[3])
    return max(x0, y0), min(x1, y1)


def _direction(rng: random.Random, reach: int) -> tuple[int, int]:
    """A primitive direction, mostly with components up to 3 (``reach`` if less), else up to ``reach``."""
    top = min(3, reach) if rng.random() < 0.6 else reach
    while True:
        dx, dy = rng.randint(-top, top), rng.randint(-top, top)
        g = math.gcd(dx, dy)
        if g:
            return dx // g, dy // g


def _shares(n: int, k: int, rng: random.Random) -> list[int]:
    """``n`` points over ``k`` lines, each at least one, unevenly."""
    weights = [rng.random() ** 3 + 0.01 for _ in range(k)]
    shares = [1] * k
    for _ in range(n - k):
        shares[rng.choices(range(k), weights)[0]] += 1
    return shares


def _place(count: int, anchor: tuple[int, int], d: tuple[int, int], box: Box, taken: set[tuple[int, int]],
           rng: random.Random) -> Optional[list[tuple[int, int]]]:
    """``count`` points of the line ``anchor + t * d`` inside the box and not ``taken`` (then taken)."""
    lo, hi = _steps(anchor, d, box)
    if hi - lo + 1 < count:
        return None
    steps = rng.sample(range(lo, hi + 1), min(hi - lo + 1, count + PLACE_TRIES))
    out = [p for p in ((anchor[0] + t * d[0], anchor[1] + t * d[1]) for t in steps) if p not in taken][:count]
    if len(out) < count:
        return None
    taken.update(out)
    return out


def _anchor(box: Box, rng: random.Random) -> tuple[int, int]:
    return rng.randint(box[0], box[1]), rng.randint(box[2], box[3])


def _near_triple(box: Box, rng: random.Random) -> Optional[list[tuple[int, int]]]:
    """Three points whose cross product is -1 (``p``, ``p + (m, m - 1)``, ``p + (m - 1, m - 2)``,
    mirrored at random), ``m`` about half the smaller side of the box."""
    m = min(box[1] - box[0], box[3] - box[2]) // 2
    if m < 3:
        return None
    p = (rng.randint(box[0], box[1] - m), rng.randint(box[2], box[3] - m))
    pts = [p, (p[0] + m, p[1] + m - 1), (p[0] + m - 1, p[1] + m - 2)]
    if rng.random() < 0.5:  # mirrored in x: still inside the box, the cross product +1
        pts = [(box[0] + box[1] - x, y) for x, y in pts]
    return pts


def points_on_lines(n: int, box: Box, plan: tuple[str, int], rng: random.Random
                    ) -> Optional[list[tuple[int, int]]]:
    """``n`` distinct points of the box in the given shape (``LINE_PLAN``), shuffled; None when the
    box cannot hold them so."""
    shape, k = plan
    triple = _near_triple(box, rng) if shape == "near-collinear" else None
    if shape == "near-collinear" and (triple is None or n < 3):
        return None
    on_lines = n - 3 if triple else n
    k = min(k, on_lines)
    taken: set[tuple[int, int]] = set(triple or ())
    points: list[tuple[int, int]] = list(triple or ())
    side = min(box[1] - box[0], box[3] - box[2])
    shares = _shares(on_lines, k, rng) if k else []
    common = _direction(rng, max(1, side // max(shares, default=1)))
    for share in shares:
        for _ in range(PLACE_TRIES):
            d = common if shape == "parallel" else _direction(rng, max(1, side // share))
            placed = _place(share, _anchor(box, rng), d, box, taken, rng)
            if placed is not None:
                points += placed
                break
        else:
            return None
    rng.shuffle(points)
    return points


def put_on_lines(rows: list[list[Any]], cols: list[int], box: Box, plan: tuple[str, int], rng: random.Random) -> bool:
    """Rewrite the point columns ``cols`` (x, y) of ``rows`` in place; False when they cannot be."""
    pts = points_on_lines(len(rows), box, plan, rng)
    if pts is None:
        return False
    for r, (x, y) in zip(rows, pts):
        r[cols[0]], r[cols[1]] = x, y
    return True
