"""Relations between a row's values and the header's in stdin problems (issue 14): the stress
inputs of problems whose rows are bounded by a header value (``1 \\le y \\le h``), tied to each
other (``|x_1 - x_2| = 1``) or keyed (a bar toggled at a height) were all rejected by the
problems' own input validators, so the suites had no large input and slow programs passed.

Every test here states a problem the way contest statements do, gives samples, and checks each
generated input with the checks an input validator of that problem would make."""

from __future__ import annotations

import random

from testgen.relations import Diff, StatedBound, bound_values, infer_relations, stated_bounds
from testgen.smodel import StdioModel

FAMILIES = ("regular", "boundary", "special", "stress", "mutation", "structured")


def _inputs(m: StdioModel, per: int = 4) -> list[tuple[str, list[list[int]]]]:
    out = []
    for f in FAMILIES:
        for s in m.draw(f, random.Random(f), per):
            out.append((f, [[int(x) for x in ln.split()] for ln in s.strip("\n").split("\n")]))
    return out


# the phrasing of a GCPC statement (an Amida-kuji lottery): bars toggled at a height between
# two adjacent legs; the height is bounded by h, the legs by w
LOTTERY = r"""\begin{Input}
The input consists of:
\begin{itemize}
  \item One line with three integers $w, h$ and $q$ ($2 \leq w \leq 20$, $1\leq h,q \leq 2\cdot10^5$), the number of legs, the height of the legs, and the number of changes.
  \item $q$ lines, each containing three integers $y, x_{1}$ and $x_{2}$ ($1\leq y \leq h$, $1\leq x_{1}, x_{2} \leq w$), a bar added or removed at height $y$ between legs $x_1$ and $x_2$.
  It is guaranteed that the two legs are adjacent, i.e.\ $|x_{1}-x_{2}|=1$.
\end{itemize}
It is guaranteed that all horizontal bars have different heights at every moment.
\end{Input}
\begin{Output} After each change, output the answer. \end{Output}"""
LOTTERY_SAMPLES = ["4 6 7\n1 1 2\n2 3 4\n4 3 4\n5 1 2\n6 3 4\n3 2 3\n6 3 4\n",
                   "5 9 12\n1 3 4\n2 1 2\n3 2 3\n4 4 5\n5 2 1\n6 4 3\n7 2 3\n8 4 3\n9 4 5\n6 4 3\n7 2 3\n1 3 4\n"]


def _lottery_valid(lines: list[list[int]]) -> str:
    """The problem's input validator, in Python: '' when valid, else why not."""
    w, h, q = lines[0]
    if not (2 <= w <= 20 and 1 <= h <= 200000 and 1 <= q <= 200000) or len(lines) != q + 1:
        return "header"
    bar: dict[int, int] = {}
    for y, x1, x2 in lines[1:]:
        if not (1 <= y <= h and 1 <= x1 <= w and 1 <= x2 <= w):
            return f"range {y} {x1} {x2}"
        if abs(x1 - x2) != 1:
            return f"not adjacent {x1} {x2}"
        x = min(x1, x2)
        if y not in bar:
            bar[y] = x
        elif bar[y] == x:
            del bar[y]
        else:
            return f"two bars at height {y}"
    return ""


def test_rows_keep_a_stated_difference_and_a_key_and_stay_within_header_values():
    m = StdioModel.infer(LOTTERY_SAMPLES, LOTTERY)
    assert m.relations.diffs == [Diff(1, 2, 1, True)] and m.relations.key == 0
    got = _inputs(m)
    bad = [(f, why) for f, ln in got if (why := _lottery_valid(ln))]
    assert not bad, bad[:5]
    # the stress inputs are large ones: q at the token budget, h near its stated maximum
    stress = [ln for f, ln in got if f == "stress"]
    assert max(ln[0][2] for ln in stress) >= 60000
    assert max(ln[0][1] for ln in stress) >= 180000
    # both directions of the difference appear, and keys repeat (bars removed again)
    rows = [r for _, ln in got for r in ln[1:]]
    assert any(r[1] < r[2] for r in rows) and any(r[1] > r[2] for r in rows)
    assert any(len({r[0] for r in ln[1:]}) < len(ln) - 1 for _, ln in got)


def test_a_difference_between_named_values_needs_the_statement_to_say_so():
    # points (x, y) whose samples happen to lie on the line y = x + 1: nothing says they must
    stmt = LOTTERY.replace(r"It is guaranteed that the two legs are adjacent, i.e.\ $|x_{1}-x_{2}|=1$.", "")
    m = StdioModel.infer(LOTTERY_SAMPLES, stmt)
    assert m.relations.diffs == []
    # unnamed columns (no input description): every sample row shows it, so it is kept
    m = StdioModel.infer(LOTTERY_SAMPLES, "")
    assert Diff(1, 2, 1, True) in m.relations.diffs


def test_differences_and_keys_need_enough_evidence():
    rows = [[["1", "2"], ["5", "6"], ["7", "8"]]]
    assert infer_relations(rows, ["int", "int"], [None, None], "").diffs == []  # 3 rows: chance
    rows = [[["1", "2"], ["5", "6"], ["7", "8"], ["3", "4"]]]
    assert infer_relations(rows, ["int", "int"], [None, None], "").diffs == [Diff(0, 1, 1, False)]
    # a key repeated once is no evidence; twice, always with the same row, is
    once = [[["1", "5"], ["2", "9"], ["1", "5"], ["3", "4"]]]
    assert infer_relations(once, ["int", "int"], [None, None], "").key is None
    twice = [[["1", "5"], ["2", "9"], ["1", "5"], ["2", "9"]]]
    assert infer_relations(twice, ["int", "int"], [None, None], "").key == 0
    broken = [[["1", "5"], ["2", "9"], ["1", "5"], ["2", "8"]]]
    assert infer_relations(broken, ["int", "int"], [None, None], "").key is None


# NWERC's phrasing (brickwork): a list's elements bounded by a header value
BRICKS = r"""\begin{Input}
The input consists of:
\begin{itemize}
    \item One line with two integers $n$ and $w$ $(1\leq n,w\leq3\cdot10^5)$, the number of brick types and the width of the wall.
    \item One line with $n$ integers $b$ ($1\leq b\leq w$), the widths of the brick types.
\end{itemize}
\end{Input}
\begin{Output} Output possible or impossible. \end{Output}"""
BRICK_SAMPLES = ["4 12\n3 2 7 2\n", "3 11\n6 7 8\n"]


def test_list_elements_stay_below_the_header_value_that_bounds_them():
    m = StdioModel.infer(BRICK_SAMPLES, BRICKS)
    assert [(b.col, b.head, b.lo) for b in m.head_bounds] == [(0, 1, 1)]
    got = _inputs(m, 6)
    bad = [(f, ln[0], max(ln[1])) for f, ln in got if len(ln) > 1 and ln[1] and
           (max(ln[1]) > ln[0][1] or min(ln[1]) < 1)]
    assert not bad, bad[:5]
    # the elements still reach the stated maximum: a stress input with w and b near 3*10^5
    stress = [ln for f, ln in got if f == "stress"]
    assert max(max(ln[1]) for ln in stress) >= 270000
    # and a small w really caps them (not only the maximum header)
    assert any(ln[0][1] < 100 and len(ln) > 1 and len(ln[1]) >= 5 for _, ln in got)


INDEX_ROWS = r"""\begin{Input}
\begin{itemize}
  \item One line with two integers $n$ and $m$ ($1 \le n, m \le 10^5$).
  \item $m$ lines, each with two integers $t$ and $a$ ($1 \le t \le 10^9$, $0 \le a < n$).
\end{itemize}
\end{Input}"""


def test_row_columns_bounded_by_a_header_value_even_when_the_samples_stay_far_below_it():
    # the samples never reach n - 1, so no label column is read from them: the statement says it
    samples = ["9 3\n100 1\n5 0\n7 2\n", "8 2\n1 3\n2 3\n"]
    m = StdioModel.infer(samples, INDEX_ROWS)
    assert [(b.col, b.head, b.strict) for b in m.head_bounds] == [(1, 0, 1)]
    for f, ln in _inputs(m, 6):
        n = ln[0][0]
        assert all(0 <= r[1] < n for r in ln[1:]), (f, ln[0], [r[1] for r in ln[1:] if r[1] >= n][:5])


def test_a_sum_or_product_is_no_bound_on_its_last_term():
    b = stated_bounds(r"($1 \le d,s,e \le 10^{6}, s + e < d$) and $1 \le u, v \le n$ and $2 \cdot k \le n$")
    assert [(x.name, x.upper) for x in b] == [("u", "n"), ("v", "n")]
    assert StatedBound("y", 1, "h", 0) in stated_bounds(r"$1\leq y \leq h$")
    assert StatedBound("x", None, "w", 1) in stated_bounds(r"each value $x < w$")


def test_bounded_values_are_mapped_in_order():
    assert bound_values([1, 5, 10, 10], 1, 10, 4) == [1, 2, 4, 4]  # sorted and equal stay so
    assert bound_values([3], 1, 10, 20) == [3]
    assert bound_values([3], 5, 10, 4) is None


# a string whose length is the number on the line before it
STRING_OF_N = r"""\begin{Input}
The input consists of:
\begin{itemize}
  \item One line with an integer $n$ ($1 \le n \le 10^5$), the length of the string.
  \item One line with a string $s$ of length $n$ consisting of lowercase letters.
\end{itemize}
\end{Input}"""


def test_a_word_is_as_long_as_the_number_that_gives_its_length():
    m = StdioModel.infer(["3\nabc\n", "5\nhello\n"], STRING_OF_N)
    assert m.length_of == [((1, 0), (0, 0))]
    # "n, the length of the string" is still n's own range
    assert (m.lines[0][0].lo, m.lines[0][0].hi) == (1, 100000)
    lens = []
    for f in FAMILIES:
        for s in m.draw(f, random.Random(f), 4):
            n, w = s.split("\n")[:2]
            assert len(w) == int(n) and 1 <= int(n) <= 100000 and w.islower(), (f, n, w[:20])
            lens.append(int(n))
    assert max(lens) >= 90000  # the stress inputs reach the stated length
    # one sample, or every sample of one length, is no evidence of a tie
    assert StdioModel.infer(["3\nabc\n"], STRING_OF_N).length_of == []
    assert StdioModel.infer(["3\nabc\n", "3\nxyz\n"], STRING_OF_N).length_of == []


def test_characters_named_one_by_one_are_the_alphabet():
    stmt = r"""\begin{Input}
\begin{itemize}
  \item One line with a string $s$ ($1\leq|s|\leq 10^5$) that consists of the characters \texttt{h}, \texttt{d},
  \texttt{c}, and \texttt{s} (hearts, diamonds, clubs and spades).
\end{itemize}
\end{Input}"""
    m = StdioModel.infer(["hdhc\n", "sssd\n"], stmt)
    words = [s.strip() for f in FAMILIES for s in m.draw(f, random.Random(f), 4)]
    assert words and all(set(w) <= set("hdcs") for w in words), [w[:20] for w in words if set(w) - set("hdcs")]
    assert max(len(w) for w in words) >= 90000


def test_balanced_bracket_words_stay_balanced_in_every_family():
    from testgen.brackets import is_balanced

    stmt = r"""\begin{Input}
\begin{itemize}
  \item One line with a balanced sequence $s$ ($2\leq |s|\leq 10^6$).
\end{itemize}
\end{Input}"""
    m = StdioModel.infer(["(()())(()())\n", "()(())()\n"], stmt)
    assert m.lines[0][0].balanced == "("
    words = [(f, s.strip()) for f in FAMILIES for s in m.draw(f, random.Random(f), 6)]
    assert all(is_balanced(w) for _, w in words), [w for _, w in words if not is_balanced(w)][:3]
    # nested, flat and mixed words all appear
    assert any(w.startswith("((((") for _, w in words) and any(w.startswith("()()()") for _, w in words)
    # "a balanced sequence $s$" names s, so |s| <= 10^6 is its length: the stress words are long
    assert max(len(w) for f, w in words if f == "stress") >= 90000
    # two balanced words and a statement that says nothing of it: not evidence enough
    assert StdioModel.infer(["(())\n", "()\n"], "One line with a string.").lines[0][0].balanced is None
    # several kinds of brackets nest properly
    m = StdioModel.infer(["([]{})\n", "[()]\n", "{}[]\n"], "")
    assert m.lines[0][0].balanced == "([{"
    assert all(is_balanced(s.strip()) for f in FAMILIES for s in m.draw(f, random.Random(f), 4))
