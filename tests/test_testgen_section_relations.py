"""Relations a problem's input validator checks between the values of a layout of several sections
(issue 14: "maximum-size stress inputs" the problem admits). Each rule was found by running a real
problem's validator on generated maximum-size inputs and reading why it rejected them; the
statements below are written in the same contest phrasing, with their own samples. Every rule only
narrows what is generated, and only where the statement says it and every sample shows it."""

from __future__ import annotations

import random

from testgen.constraints import input_lines
from testgen.smodel import StdioModel
from testgen.tokens import tokenize

FAMILIES = ("regular", "boundary", "special", "structured", "mutation", "stress")


def _inputs(m: StdioModel, n: int = 4) -> list[list[list[str]]]:
    out = []
    for fam in FAMILIES:
        out += [tokenize(t) for t in m.draw(fam, random.Random(3), n if fam != "stress" else 3)]
    assert len(out) >= 10
    return out


# "2 <= k <= n" and "k distinct integers, the towns ...": a header value bounded by another one,
# a list of labels (gcpc2023/cosmiccommute's validator: "Integer 99999 out of range [2, 50001)")
SHOPS = r"""\section*{Input}
\begin{itemize}
  \item One line with three integers $n$, $m$ and $k$ ($2 \le n \le 10^5$, $1 \le m \le 10^5$, $1 \le k \le n$), the number of towns, roads and shops.
  \item One line containing $k$ distinct integers, the towns with a shop.
  \item $m$ lines, each with two integers $a$ and $c$ ($1 \le a \le n$, $1 \le c \le 10^9$), a road from town $a$ of cost $c$.
\end{itemize}
\section*{Output} One integer."""
SHOPS_SAMPLES = ["5 3 3\n2 3 4\n1 7\n5 2\n3 9\n", "6 4 2\n6 1\n2 5\n4 4\n6 1\n1 8\n", "4 2 4\n1 2 3 4\n4 5\n2 6\n"]


def test_a_header_value_bounded_by_another_and_a_list_of_labels_stay_inside_it():
    m = StdioModel.infer(SHOPS_SAMPLES, SHOPS)
    assert m.shape == "sections" and m.sections is not None
    big = 0
    for t in _inputs(m):
        n, mm, k = map(int, t[0])
        shops = [int(x) for x in t[1]]
        assert 1 <= k <= n and len(shops) == k, t[0]
        assert len(set(shops)) == k and all(1 <= x <= n for x in shops), (n, shops[:10])
        assert len(t) == 2 + mm
        big = max(big, k)
    assert big >= 1000  # still stress-sized


def test_a_header_bound_the_samples_break_is_not_kept():
    # a sample with k > n: the statement's "k <= n" is not read the way the samples mean it
    m = StdioModel.infer(SHOPS_SAMPLES + ["2 1 3\n1 2 1\n1 3\n"], SHOPS)
    assert m.sections is not None and m.sections.head_le == []


# "s_1 + s_2 = n + 1" and two lists that are together the numbers 0..n (gcpc2021/harbour2's
# validators: "ASSERT(s1+s2 == n+1)", "tracking_no.size() != n + 1")
CRATES = r"""\section*{Input}
The input consists of:
\begin{itemize}
  \item One line with three integers $n$, $s_1$ and $s_2$ ($2 \leq s_1, s_2 \leq 2 \cdot 10^{5}, s_1 + s_2 = n + 1$),
    the number of crates and the sizes of the two stacks.
  \item One line containing $s_1$ integers, the crates on the first stack.
  \item One line containing $s_2$ integers, the crates on the second stack.
\end{itemize}
\section*{Output} One integer."""
CRATES_SAMPLES = ["4 3 2\n2 0 3\n1 4\n", "6 4 3\n2 4 0 1\n6 3 5\n", "5 2 4\n5 1\n0 3 2 4\n"]


def test_a_stated_equation_and_lists_that_are_one_permutation_hold_in_every_input():
    m = StdioModel.infer(CRATES_SAMPLES, CRATES)
    assert m.sections is not None and m.sections.perm == 0 and len(m.sections.head_eq) == 1
    big = 0
    for t in _inputs(m):
        n, s1, s2 = map(int, t[0])
        assert s1 + s2 == n + 1, t[0]
        a, b = [int(x) for x in t[1]], [int(x) for x in t[2]]
        assert len(a) == s1 and len(b) == s2
        assert sorted(a + b) == list(range(n + 1))
        big = max(big, n)
    assert big >= 10_000


def test_an_equation_or_a_permutation_the_samples_do_not_show_is_not_kept():
    # one sample repeats a crate: the lists are no permutation; one breaks the sum: no equation
    m = StdioModel.infer(CRATES_SAMPLES + ["5 3 3\n1 1 2\n3 4 5\n"], CRATES)
    assert m.sections is not None and m.sections.perm is None and len(m.sections.head_eq) == 1
    m = StdioModel.infer(CRATES_SAMPLES + ["6 2 2\n1 0\n2 3\n"], CRATES)
    assert m.sections is not None and m.sections.perm == 0 and m.sections.head_eq == []
    m = StdioModel.infer(CRATES_SAMPLES, CRATES.replace("s_1 + s_2 = n + 1", "n \\le 10^6"))
    assert m.sections is not None and m.sections.head_eq == []


# "Two integers $n$ and $m$ $(... n - 1 \leq m ...)$", "$(1 \leq i < n, ...)$" and "at least one
# connection from city i to i+1 for each i" (gcpc2021/excursion's validators: "integer 9137 outside
# of range [1, 9136]", and a city with no connection)
ROADS = r"""\section*{Input}
The input consists of:
\begin{itemize}
  \item Two integers $n$ and $m$ $(2 \leq n \leq 10^5, n - 1 \leq m \leq 10^5)$, the number of cities and roads.
  \item $m$ lines, each containing two integers $i$ and $d$ $(1 \leq i < n, 1 \leq d \leq 10^4)$,
    a road between city $i$ and city $i + 1$ of length $d$.
  \item One integer $q$ $(1 \leq q \leq 10^5)$, the number of trips.
  \item $q$ lines, each with one integer $w$ $(1 \leq w \leq 10^6)$.
\end{itemize}
There is at least one road from city $i$ to city $i+1$ for each $i$ ($1 \le i < n$).
\section*{Output} One line per trip."""
ROADS_SAMPLES = ["4 4\n1 5\n2 3\n3 9\n2 1\n2\n10\n20\n", "3 2\n2 7\n1 1\n1\n5\n", "5 6\n4 2\n1 1\n3 3\n2 2\n1 9\n4 4\n1\n3\n"]


def test_items_that_are_one_line_without_saying_so_are_read_with_their_names():
    lines = input_lines(ROADS)
    assert [d.names for d in lines][:3] == [["n", "m"], ["i", "d"], ["q"]]
    assert [d.rows for d in lines] == [False, True, False, True]
    # a range inside the name's own math span: "$n\ (0 \le n \le 10^6)$"
    one = input_lines(r"""\section*{Input} \begin{itemize}
      \item One line with an integer $n\ (0 \le n \le 10^6)$, the number of pipes.
      \item $n$ lines, each with two integers $x$ and $y$. \end{itemize} \section*{Output}""")
    assert [d.names for d in one] == [["n"], ["x", "y"]]
    # as many names as the item says it has values: "One string $s$ of length $n$ ... position $i$"
    word = input_lines(r"""\section*{Input} \begin{itemize}
      \item One line with integers $n, k$ ($1 \leq n,k \leq 10^3$), the length and the number of kids.
      \item One string $s$ of length $n$ consisting of characters L and R: at position $i$, ...
      \end{itemize} \section*{Output}""")
    assert [d.names for d in word] == [["n", "k"], ["s"]]


def test_a_column_bounded_by_a_header_value_that_covers_every_label_does_so_in_every_input():
    m = StdioModel.infer(ROADS_SAMPLES, ROADS)
    assert m.sections is not None and m.sections.confirmed
    big = 0
    for t in _inputs(m):
        n, mm = map(int, t[0])
        col = [int(r[0]) for r in t[1:1 + mm]]
        assert all(1 <= i < n for i in col), (n, max(col))
        assert set(col) == set(range(1, n)), n  # every city but the last has a road onwards
        big = max(big, n)
    assert big >= 10_000


# "x_s < x_1 < \dots < x_n < x_t" and "y_{i, 1} < y_{i, 2}" (gcpc2021/flappy's validator: "ASSERT(xp < x)",
# "ASSERT(y0 < y1)"); before, the x column was read as labels under x_t and the y pairs could be equal
GATES = r"""\section*{Input}
The input consists of:
\begin{itemize}
  \item One line with four integers $x_s, y_s, x_t$ and $y_t$ ($-10^9 \le x_s, y_s, x_t, y_t \le 10^9$), the start and end points.
  \item One line with an integer $n\ (0 \le n \le 10^6)$, the number of gates.
  \item $n$ lines, the $i$th of which contains three integers $x_i, y_{i,1}$ and $y_{i,2}$ ($-10^9 \le x_i, y_{i, 1}, y_{i, 2} \le 10^9$, $y_{i, 1} < y_{i, 2}$), the gates.
\end{itemize}
It can be assumed that $x_s < x_1 < \dots < x_n < x_t$.
\section*{Output} The length of the shortest path."""
GATES_SAMPLES = ["0 0 10 0\n1\n5 -10 10\n", "0 0 10 0\n4\n2 1 3\n4 2 3\n7 0 2\n9 -2 -1\n",
                 "-5 3 20 1\n3\n-1 0 4\n6 -3 -2\n15 8 9\n"]


def test_a_column_chained_between_two_header_values_rises_strictly_between_them():
    m = StdioModel.infer(GATES_SAMPLES, GATES)
    assert m.sections is not None and m.sections.confirmed
    big = 0
    for t in _inputs(m):
        xs, _, xt, _ = map(int, t[0])
        n = int(t[1][0])
        rows = [[int(x) for x in r] for r in t[2:2 + n]]
        xcol = [xs] + [r[0] for r in rows] + [xt]
        assert all(a < b for a, b in zip(xcol, xcol[1:])), (xs, xt, xcol[:5])
        assert all(r[1] < r[2] for r in rows)  # stated strictly: never equal, not even all-equal stress
        big = max(big, n)
    assert big >= 10_000
    # a sample outside the chain: the chain is not read that way (narrow: no relation, no guess)
    m = StdioModel.infer(GATES_SAMPLES + ["0 0 10 0\n2\n12 1 3\n4 2 3\n"], GATES)
    assert m.sections is not None and all(not p.between for p in m.sections.parts)


# "2 <= c <= n": a label column whose stated minimum is above the first label (nwerc2023/galaxyquest's
# validator: "Expected c: integer between 2 and 16667, found 1"); before, labels were drawn from 1
MISSIONS = r"""\section*{Input}
\begin{itemize}
  \item One line with three integers $n$, $m$, and $q$ ($2 \le n, m, q \le 10^5$).
  \item $n$ lines, each with two integers $x_i$ and $y_i$ ($|x_i|, |y_i| \le 1000$), the planets.
  \item $m$ lines, each with two integers $a$ and $b$ ($1 \le a, b \le n$, $a \neq b$), a highway.
  \item $q$ lines, each with two integers $c$ and $t$ ($2 \le c \le n$, $1 \le t \le 1000$), a mission.
\end{itemize}
\section*{Output} One line per mission."""
MISSIONS_SAMPLES = ["4 3 3\n0 0\n1 5\n-3 2\n7 7\n1 2\n2 3\n3 4\n2 10\n3 25\n4 7\n",
                    "3 2 4\n0 0\n4 4\n9 -9\n1 2\n2 3\n2 1000\n3 100\n3 1000\n2 100\n"]


def test_a_label_column_keeps_its_stated_minimum():
    m = StdioModel.infer(MISSIONS_SAMPLES, MISSIONS)
    assert m.sections is not None
    big = 0
    for t in _inputs(m):
        n, mm, q = map(int, t[0])
        targets = [int(r[0]) for r in t[1 + n + mm:1 + n + mm + q]]
        assert len(targets) == q and all(2 <= c <= n for c in targets), (n, min(targets))
        big = max(big, q)
    assert big >= 10_000
