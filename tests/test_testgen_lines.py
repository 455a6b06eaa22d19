"""Points of the plane on a few lines (issue 14: "corner inputs" of geometry problems): a block of
rows whose two integer columns are a point the statement calls distinct gets, from the
``structured`` family, points on one line, on a few lines shared unevenly, on parallel lines, and a
triple one unit off collinear at the coordinates' full range; a statement that rules collinear
points out gets none; and the pipeline rejects a program that tests collinearity in floating point,
which random points never expose."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from testgen.evaluate import evaluate
from testgen.lines import LINE_PLAN, points_on_lines, says_no_three_collinear
from testgen.pipeline import Settings, synthesize
from testgen.smodel import StdioModel


def cross(o: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> int:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def covered(points: list[tuple[int, int]], lines: int) -> bool:
    """Can ``lines`` straight lines cover the points? (Exactly, in integers: among any lines + 1
    points two share a line.)"""
    if len(points) <= 2 * lines:
        return True
    if lines == 0:
        return False
    head = points[:lines + 1]
    for a, b in itertools.combinations(head, 2):
        rest = [p for p in points if cross(a, b, p) != 0]
        if covered(rest, lines - 1):
            return True
    return False


BIG = (-10**9, 10**9, -10**9, 10**9)
SMALL = (0, 20, 0, 20)


@pytest.mark.parametrize("plan", LINE_PLAN)
@pytest.mark.parametrize("box", [BIG, SMALL])
def test_every_shape_gives_distinct_points_in_the_box_on_the_lines_it_names(plan, box):
    shape, lines = plan
    rng = random.Random(7)
    for n in (3, 5, 9, 14) + ((40,) if box == BIG else ()):
        pts = points_on_lines(n, box, plan, rng)
        assert pts is not None, (plan, box, n)
        assert len(pts) == n and len(set(pts)) == n
        assert all(box[0] <= x <= box[1] and box[2] <= y <= box[3] for x, y in pts)
        if shape == "near-collinear":
            triples = [t for t in itertools.combinations(pts, 3) if abs(cross(*t)) == 1]
            assert triples, pts
            assert covered(pts, lines + 2)
        else:
            assert covered(pts, lines), (plan, pts)
            if n > 2 * lines and shape == "one-line":
                assert all(cross(pts[0], pts[1], p) == 0 for p in pts)


def test_the_near_collinear_triple_is_one_a_double_calls_collinear():
    # At the full range of 10^9, seen from its first point the two products of the cross product
    # are about 10^18: a double rounds both to the same number, and the 1 between them is lost.
    for seed in range(5):
        pts = points_on_lines(3, BIG, ("near-collinear", 1), random.Random(seed))
        assert pts is not None and abs(cross(*pts)) == 1
        rounded = [float(a[0] - o[0]) * float(b[1] - o[1]) - float(a[1] - o[1]) * float(b[0] - o[0])
                   for o, a, b in itertools.permutations(pts)]
        assert 0.0 in rounded, pts


def test_a_parallel_shape_has_one_direction():
    pts = points_on_lines(30, BIG, ("parallel", 3), random.Random(1))
    assert pts is not None and covered(pts, 3)
    directions = set()
    for a, b in itertools.combinations(pts, 2):
        if sum(cross(a, b, p) == 0 for p in pts) >= 3:  # a and b on one of the lines
            dx, dy = b[0] - a[0], b[1] - a[1]
            g = math.gcd(dx, dy)
            directions.add(max((dx // g, dy // g), (-dx // g, -dy // g)))
    assert len(directions) == 1, directions


@pytest.mark.parametrize("sentence,rules_out", [
    ("No three points are collinear.", True),
    ("It is guaranteed that no three of the points lie on a common straight line.", True),
    ("No three balloons are on one line.", True),
    ("No two balloons are at the same location.", False),
    ("Three points may be collinear.", False),
])
def test_a_statement_that_rules_collinear_points_out_is_read(sentence, rules_out):
    assert says_no_three_collinear(sentence) is rules_out


SAMPLES = ["4\n0 0\n1 1\n2 2\n5 0\n", "5\n0 0\n1 2\n3 1\n4 4\n-2 7\n"]
STATEMENT = ("You are given $n$ points in the plane ($1 \\le n \\le 1000$), each with integer "
             "coordinates $x$ and $y$ ($-10^9 \\le x, y \\le 10^9$). No two points are at the same location. ")


def test_the_model_puts_planar_points_on_lines_unless_the_statement_rules_it_out():
    m = StdioModel.infer(SAMPLES, STATEMENT)
    assert m.shape == "counted" and m.distinct.points == [0, 1] and m.planar
    drawn = [s for s, _ in m.draw_noted("structured", random.Random(0), 21)]
    assert len(drawn) == 21
    one_line = [tuple(map(int, ln.split())) for ln in drawn[0].split("\n")[1:] if ln]
    assert all(cross(one_line[0], one_line[1], p) == 0 for p in one_line)
    assert not StdioModel.infer(SAMPLES, STATEMENT + "No three points are collinear.").planar
    assert not StdioModel.infer(SAMPLES, STATEMENT.replace("No two points are at the same location. ", "")).planar


def test_rows_drawn_by_the_structure_path_are_not_called_points_on_lines():
    """A counted layout whose rows carry a label column (a city's index in 1..n) beside a distinct
    point is drawn by the structure path, which puts no points on lines: it must not claim the
    line shapes (selection keeps the largest input of every ``shape:`` note it sees)."""
    samples = ["4\n1 5 7\n3 9 3\n2 4 4\n4 0 2\n", "3\n2 10 20\n1 30 5\n3 7 7\n"]
    statement = ("You are given $n$ cities ($2 \\le n \\le 1000$). Each line gives a city's index $c$ "
                 "and its integer coordinates $x$ and $y$ ($-10^9 \\le x, y \\le 10^9$). "
                 "No two cities are at the same location. ")
    m = StdioModel.infer(samples, statement)
    assert m.shape == "counted" and m.structure.labels and m.distinct.points == [1, 2]
    assert not m.planar
    drawn = m.draw_noted("structured", random.Random(0), 6)
    assert drawn and not any(note.startswith("shape:points") for _, note in drawn)


TWO_LINES = r"""
import sys
def cross(o, a, b):
    return CROSS
def on_two_lines(pts):
    if len(pts) <= 4:
        return True
    for a, b in ((0, 1), (0, 2), (1, 2)):
        rest = [p for p in pts if not zero(cross(pts[a], pts[b], p))]
        if len(rest) <= 2 or all(zero(cross(rest[0], rest[1], p)) for p in rest):
            return True
    return False
def zero(v):
    return abs(v) < 1e-6
data = sys.stdin.read().split()
n = int(data[0])
pts = [(int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)]
print("yes" if on_two_lines(pts) else "no")
"""
EXACT = TWO_LINES.replace("CROSS", "(a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])")
ROUNDED = TWO_LINES.replace("CROSS", "float(a[0] - o[0]) * float(b[1] - o[1]) - float(a[1] - o[1]) * float(b[0] - o[0])")


def test_the_pipeline_rejects_a_collinearity_test_in_floating_point(runner):
    # "Can two straight lines cover all the points?" Random points never have three on a line, so
    # both programs answer "no" to all of them; only points on lines, and a triple one unit off a
    # line at 10^9, tell the exact cross product from the rounded one.
    rec = {"id": "two-lines", "io": "stdio",
           "statement": STATEMENT + "Print yes if two straight lines can cover all the points, else no.",
           "gold_solutions": [{"language": "python", "code": EXACT}],
           "seed_tests": [{"stdin": s, "expected_stdout": o} for s, o in zip(SAMPLES, ("yes\n", "no\n"))],
           "heldout_correct": [{"language": "python", "code": EXACT}],
           "heldout_incorrect": [{"language": "python", "code": ROUNDED, "label": "WA"}]}
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=20, min_tests=3))
    assert out["testgen"]["status"] == "ok", out["testgen"]
    pool = evaluate([out], runner).pooled()
    assert pool["tpr"] == 1.0 and pool["tnr"] == 1.0, pool
