"""Points, or values, the statement says never repeat are generated distinct (``testgen/distinct_rows.py``).

"The n planets are in distinct locations": a block of coordinate rows drawn column by column
repeats a point in every all-equal stress shape and in most maximum-size random draws, and the
problem's validator then rejects exactly the largest inputs. These tests hold the rule (read
from the statement, checked against the samples) and its effect end to end: a program that is
slow only on many points times out on the suite.
"""

from __future__ import annotations

import random

from _slow_program import assert_the_slow_program_is_rejected, slow_program_record, synthesized
from testgen.distinct_rows import DistinctRows, make_distinct, says_distinct_points, says_distinct_values
from testgen.input_caps import MAX_INPUT_TOKENS
from testgen.smodel import StdioModel

POINTS = r"""\begin{Input}
\begin{itemize}
  \item One line with an integer $n$ ($2 \le n \le 2 \cdot 10^5$), the number of points.
  \item $n$ lines, each with two integers $x$ and $y$ ($0 \le x, y \le 1000$), a point.
\end{itemize}
No two points are at the same location.
\end{Input}
\begin{Output} The number of points whose $x$ is the largest of all. \end{Output}"""
POINTS_SAMPLES = ["3\n0 0\n5 2\n5 7\n", "4\n1 1\n2 2\n3 3\n0 9\n"]
POINTS_OUTPUTS = ["2\n", "1\n"]


def _points(text: str) -> list[tuple[str, ...]]:
    lines = text.split("\n")
    n = int(lines[0])
    return [tuple(ln.split()) for ln in lines[1:1 + n]]


def _draws(model: StdioModel, kind: str, n: int) -> list[str]:
    return [s for s, _ in model.draw_noted(kind, random.Random(3), n)]


def test_the_statement_phrasings_of_distinct_points_are_read_and_others_are_not():
    said = ["The $n$ planets are in distinct locations.",
            "It is guaranteed that no two balloons are at the same location.",
            "No two crossings are at the same position.",
            "The bakeries are at distinct coordinates, so $(x_i, y_i) \\neq (x_j, y_j)$.",
            "All points are pairwise distinct."]
    not_said = ["No two people in each room dislike each other.",
                "Each train connects two distinct planets of the galaxy.",
                "One line containing $k$ distinct integers, the planets.",
                "The numbers $a, b, c$ and $d$ all have to be distinct."]
    assert all(says_distinct_points(s) for s in said)
    assert not any(says_distinct_points(s) for s in not_said)


def test_repeated_points_move_to_the_nearest_free_ones_inside_the_ranges():
    rows = [[1000, 1000] for _ in range(2500)]  # the equal-max shape: every row the same point
    assert make_distinct(rows, [0, 1], [(0, 1000, 0), (0, 1000, 0)]) is rows
    points = {tuple(r) for r in rows}
    assert len(points) == 2500 and all(0 <= x <= 1000 and 0 <= y <= 1000 for x, y in points)
    # the densest cluster in that corner: the last coordinate fastest, then the next column
    assert points == {(1000, y) for y in range(1001)} | {(999, y) for y in range(1001)} | \
        {(998, y) for y in range(1001 - 498, 1001)}
    low = [[0, 0, 7] for _ in range(5)]  # only columns 0 and 1 are the point; column 2 is left alone
    make_distinct(low, [0, 1], [(0, 3, 0), (0, 3, 0)])
    assert [r[:2] for r in low] == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]] and all(r[2] == 7 for r in low)
    assert make_distinct([[1, 1]] * 5, [0, 1], [(0, 1, 0), (0, 1, 0)]) is None  # 4 points cannot be 5
    prices = [[9999.99, 4], [9999.99, 4], [0.5, 1], [0.5, 2]]  # a float column steps by its decimals
    make_distinct(prices, [0], [(0.01, 10000.0, 2)])
    assert prices == [[9999.99, 4], [9999.98, 4], [0.5, 1], [0.51, 2]]


def test_generated_points_never_repeat_where_the_statement_says_so():
    model = StdioModel.infer(POINTS_SAMPLES, POINTS)
    assert model.distinct == DistinctRows(points=[0, 1])
    for kind in ("stress", "boundary", "special", "regular", "structured"):
        for text in _draws(model, kind, 10):
            pts = _points(text)
            assert len(set(pts)) == len(pts), kind
    stress = _draws(model, "stress", 5)
    # the largest the token budget holds (two tokens a point) survives
    assert max(len(_points(t)) for t in stress) == MAX_INPUT_TOKENS // 2


def test_without_the_sentence_points_may_repeat_as_before():
    model = StdioModel.infer(POINTS_SAMPLES, POINTS.replace("No two points are at the same location.", ""))
    assert not model.distinct
    stress = _draws(model, "stress", 5)
    assert any(len(set(_points(t))) < len(_points(t)) for t in stress)


def test_samples_that_repeat_a_point_keep_the_rule_off():
    model = StdioModel.infer(["3\n0 0\n0 0\n5 7\n", "2\n1 1\n2 2\n"], POINTS)
    assert not model.distinct


# gcpc2021/cardtrading2's layout: prices with two decimals that never repeat, beside counts that do
OFFERS = r"""\begin{Input}
\begin{itemize}
  \item One line with one integer $n$ ($1 \le n \le 10^{5}$), the number of prices.
  \item $n$ lines, each containing one real number $p$ and two integers $b$ and $s$
    ($0 < p \le 10^{4}, 0 \le b,s \le 10^{6}$), the price with exactly two decimal places and the
    number of buy and sell offers at this price.
\end{itemize}
No price appears more than once.
\end{Input}
\begin{Output} The best price. \end{Output}"""
OFFERS_SAMPLES = ["5\n12.00 0 3\n11.99 2 0\n11.98 5 0\n10.00 1 0\n12.01 0 6\n",
                  "6\n2.85 14 0\n4.50 0 1\n5.26 3 3\n6.17 1 0\n14.78 0 2\n21.04 1 0\n"]


def test_a_column_whose_values_never_repeat_is_drawn_distinct_the_others_are_not():
    assert says_distinct_values("No price appears more than once.")
    assert says_distinct_values("All heights are pairwise distinct.")
    assert not says_distinct_values("Each train connects two distinct planets of the galaxy.")
    model = StdioModel.infer(OFFERS_SAMPLES, OFFERS)
    assert model.distinct == DistinctRows(values=[0])  # b repeats 0 in the samples: not b, not s
    equal_counts = 0
    for text in _draws(model, "stress", 5) + _draws(model, "special", 10):
        rows = [ln.split() for ln in text.split("\n")[1:] if ln]
        prices = [r[0] for r in rows]
        assert len(set(prices)) == len(prices)
        assert all(len(p.split(".")[1]) == 2 and 0 < float(p) <= 10**4 for p in prices)
        equal_counts += len({r[1] for r in rows}) < len(rows)
    assert equal_counts  # the counts still repeat
    without = StdioModel.infer(OFFERS_SAMPLES, OFFERS.replace("No price appears more than once.", ""))
    assert not without.distinct


VALIDATOR = """import sys
lines = sys.stdin.read().split("\\n")
n = int(lines[0])
assert 2 <= n <= 200000
pts = [tuple(map(int, ln.split())) for ln in lines[1:1 + n]]
assert all(len(p) == 2 and 0 <= p[0] <= 1000 and 0 <= p[1] <= 1000 for p in pts)
sys.exit(42 if len(set(pts)) == n else 43)
"""
GOLD_CPP = r"""#include <cstdio>
int main() { int n; scanf("%d", &n); int best = -1, count = 0;
  for (int i = 0; i < n; i++) { int x, y; scanf("%d %d", &x, &y);
    if (x > best) { best = x; count = 1; } else if (x == best) count++; }
  printf("%d\n", count); }"""
# quadratic: for each point, is any x larger? (10^10 steps at n = 10^5)
SLOW_CPP = r"""#include <cstdio>
#include <vector>
int main() { int n; scanf("%d", &n); std::vector<int> xs(n);
  for (int i = 0; i < n; i++) { int y; scanf("%d %d", &xs[i], &y); }
  int count = 0;
  for (int i = 0; i < n; i++) { bool top = true;
    for (int j = 0; j < n; j++) if (xs[j] > xs[i]) { top = false; }
    if (top) count++; }
  printf("%d\n", count); }"""


def test_a_program_slow_only_on_many_points_times_out_on_the_suite(runner):
    """Without the rule every large input repeats a point (10^6 positions, 10^5 points) and
    the validator drops it: the quadratic program passes every input that is left."""
    out = synthesized(slow_program_record("distinct-points", POINTS, POINTS_SAMPLES, POINTS_OUTPUTS, GOLD_CPP,
                                          SLOW_CPP, validator=VALIDATOR), runner)
    assert max(len(_points(t["stdin"])) for t in out["tests"]) >= 5 * 10**4
    assert_the_slow_program_is_rejected(out, runner)
