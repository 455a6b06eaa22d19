"""Stress inputs that make slow solutions time out (issue 14: "slow submissions labelled TLE
rejected"): the maximum the statement admits for every value, in the shapes slow solutions
are slow on, and the statement's own range for each named value.

On stdio-contest, the TLE-labelled programs that passed the suites ran fast on the largest
synthesized inputs: their values were random and large (a greedy's staircase, a scan with no
early exit need sorted or all-equal values), and header values such as a budget `s` or a height
`h` took the narrowest stated range that fitted the samples (another variable's, 2*10^5 instead
of 10^9), so the slow path never ran long."""

from __future__ import annotations

import random

from testgen.candidates import Candidate
from testgen.constraints import extract, input_lines
from testgen.evaluate import evaluate
from testgen.pipeline import Settings, synthesize
from testgen.selection import greedy_cover
from testgen.smodel import StdioModel


def _tokens(text: str) -> list[list[str]]:
    return [ln.split() for ln in text.strip("\n").split("\n")]


# the phrasing of a GCPC statement (freestylemasonry): the width's range is narrower than the
# height's, and both hold the samples' heights
WALL = r"""\begin{Input}
The input consists of:
\begin{itemize}
  \item One line with two integers $w$ and $h$ ($1\leq w\leq2\cdot10^5$, $1\leq h\leq10^6$), the width and height.
  \item One line with $w$ integers $h_1,\dots,h_n$ ($0\leq h_i\leq 10^6$), the current heights.
\end{itemize}
\end{Input}
\begin{Output} Output possible or impossible. \end{Output}"""
WALL_SAMPLES = ["3 3\n0 0 1\n", "6 3\n1 0 1 1 0 1\n"]


def test_input_description_names_the_values_of_each_line():
    lines = input_lines(WALL)
    assert [(ln.names, ln.rows, ln.listed) for ln in lines] == [(["w", "h"], False, False), (["h_1"], False, True)]
    rows = input_lines(r"""\section*{Input} \begin{itemize}
      \item One line with three integers $w, h$ and $q$ ($2 \leq w \leq 20$, $1\leq h,q \leq 2\cdot10^5$).
      \item $q$ lines, each containing three integers $y, x_{1}$ and $x_{2}$ ($1\leq y \leq h$).
      \end{itemize} \section*{Output}""")
    assert [(ln.names, ln.rows) for ln in rows] == [(["w", "h", "q"], False), (["y", "x_1", "x_2"], True)]


def test_a_named_value_takes_its_own_stated_range_not_a_narrower_one():
    m = StdioModel.infer(WALL_SAMPLES, WALL)
    assert m.shape == "list"
    w, h = m.lines[0]
    assert (w.name, h.name) == ("w", "h")
    assert (w.lo, w.hi) == (1, 2 * 10**5)
    assert (h.lo, h.hi) == (1, 10**6)  # was 2*10^5: the narrowest range holding 3 and 3 is w's
    assert m.elem is not None and (m.elem.lo, m.elem.hi) == (0, 10**6)


def test_bounds_written_with_the_statements_own_macros_are_read():
    # NWERC 2023 (exponentiation): the limits are macros defined at the top of the statement
    st = (r"\newcommand{\maxn}{1000}%" "\n" r"\newcommand\maxm{2 \cdot 10^{5}}" "\n" r"\newcommand{\x}{{2023}}"
          "\n" r"\begin{Input} \begin{itemize} \item One line with two integers $n$ and $m$ "
          r"($2 \leq n \leq \maxn$, $1 \leq m \leq \maxm$). \item $m$ lines, each containing two integers "
          r"$i$ and $j$ ($1 \leq i, j \leq n$). \end{itemize} \end{Input} Compute $\x^{\x}$.")
    got = {r.name: (r.lo, r.hi) for r in extract(st) if r.name}
    assert got["n"] == (2, 1000) and got["m"] == (1, 2 * 10**5)
    m = StdioModel.infer(["4 2\n1 2\n3 4\n", "3 3\n1 2\n2 3\n3 1\n"], st)
    assert m.shape == "counted" and (m.count_lo, m.count_hi) == (1, 2 * 10**5)
    assert (m.lines[0][0].lo, m.lines[0][0].hi) == (2, 1000)


def test_absolute_value_bounds_are_ranges_for_numbers_and_lengths_for_strings():
    pts = (r"\begin{Input} \begin{itemize} \item One line containing an integer $n$ ($1 \leq n \leq 10^4$)."
           r" \item $n$ lines, each containing two integers $x$ and $y$ ($|x|, |y| \leq 10^9$)."
           r" \end{itemize} \end{Input}")
    m = StdioModel.infer(["3\n0 0\n1 1\n2 4\n", "2\n5 25\n3 9\n"], pts)
    assert [(sl.name, sl.lo, sl.hi) for sl in m.row] == [("x", -10**9, 10**9), ("y", -10**9, 10**9)]
    word = StdioModel.infer(["abba\n", "abcab\n"], r"\begin{Input} One line with a string $s$ ($1\le|s|\le 50$)"
                            r" of lowercase letters. \end{Input}")
    (s_slot,), = word.lines
    assert s_slot.kind == "word" and s_slot.max_len == 50
    # a string's |s| bounds no unnamed number: k stays within the samples' widening, never negative
    other = StdioModel.infer(["abba 3\n", "abcab 4\n"], r"Given $s$ and $k$ with $|s| \le 20$.")
    assert other.lines[0][1].lo >= 0


def test_stress_inputs_at_the_maximum_come_in_worst_case_shapes():
    m = StdioModel.infer(WALL_SAMPLES, WALL)
    got = m.draw_noted("stress", random.Random(0), 10)
    by_shape: dict[str, list[list[list[str]]]] = {}
    for text, note in got:
        by_shape.setdefault(note, []).append(_tokens(text))
    assert set(by_shape) == {"shape:random", "shape:ascending", "shape:descending", "shape:equal-min",
                             "shape:equal-max"}
    for note, inputs in by_shape.items():
        t = max(inputs, key=lambda x: len(x[1]))
        assert int(t[0][0]) == 2 * 10**5 == len(t[1]), note  # every shape reaches the stated maximum
        vals = [int(x) for x in t[1]]
        assert all(0 <= v <= 10**6 for v in vals)
        if note != "shape:random":
            assert int(t[0][1]) == 10**6, note  # the header's other values at their maximum
        if note == "shape:ascending":
            assert vals == sorted(vals) and vals[0] < 10**5 and vals[-1] > 9 * 10**5  # a staircase
        if note == "shape:descending":
            assert vals == sorted(vals, reverse=True)
        if note == "shape:equal-min":
            assert set(vals) == {0}
        if note == "shape:equal-max":
            assert set(vals) == {10**6}


def test_selection_keeps_the_largest_input_of_every_stress_shape():
    cands = [Candidate("seed", stdin="1 1\n1\n")]
    sizes = {"shape:random": [900, 500], "shape:ascending": [800, 400], "shape:equal-min": [300, 30]}
    for note, ns in sizes.items():
        for n in ns:
            cands.append(Candidate("stress", stdin="x" * n, note=note))
    chosen = greedy_cover(cands, [set() for _ in cands], max_tests=50, multiplicity=1, fill=True)
    stress = [len(cands[i].stdin or "") for i in chosen if cands[i].family == "stress"][:3]
    # the two largest, then the largest all-equal input, small as it is in bytes
    assert stress == [900, 800, 300]


# "How often can the smallest coin be taken from s?": a program that subtracts one coin at a
# time is correct and as slow as s / min(a). Only a large s with small coins shows it.
COINS = r"""\begin{Input}
\begin{itemize}
  \item One line with two integers $n$ and $s$ ($1 \le n \le 2000$, $1 \le s \le 10^9$).
  \item One line with $n$ integers $a_1, \dots, a_n$ ($1 \le a_i \le 10^9$), the coins.
\end{itemize}
\end{Input}
\begin{Output} The number of times. \end{Output}"""
COINS_PY = "n, s = map(int, input().split())\na = list(map(int, input().split()))\nprint(s // min(a))\n"
COINS_CPP = r"""#include <cstdio>
int main() { long long n, s; scanf("%lld %lld", &n, &s); long long m = -1;
  for (long long i = 0; i < n; i++) { long long x; scanf("%lld", &x); if (m < 0 || x < m) m = x; }
  printf("%lld\n", s / m); }
"""
COINS_SLOW_PY = ("n, s = map(int, input().split())\nm = min(map(int, input().split()))\nc = 0\n"
                 "while s >= m:\n    s -= m\n    c += 1\nprint(c)\n")


def test_a_slow_program_times_out_on_the_synthesized_stress_inputs(runner):
    rec = {
        "id": "coins", "io": "stdio", "statement": COINS,
        "gold_solutions": [{"language": "python", "code": COINS_PY}, {"language": "cpp", "code": COINS_CPP}],
        "seed_tests": [{"stdin": "3 10\n2 5 3\n", "expected_stdout": "5\n"},
                       {"stdin": "2 7\n4 4\n", "expected_stdout": "1\n"}],
        "limits": {"time_s": 1, "memory_mb": 256},
        "heldout_correct": [{"language": "cpp", "code": COINS_CPP}],
        "heldout_incorrect": [{"language": "python", "code": COINS_SLOW_PY, "label": "TLE"}],
    }
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=20, min_tests=3))
    assert out["testgen"]["status"] == "ok", out["testgen"]
    # the samples alone let the slow program pass; the suite does not
    samples = evaluate([dict(out, tests=rec["seed_tests"])], runner).pooled()
    assert samples["slow"] == 1 and samples["slow_rejected"] == 0
    pool = evaluate([out], runner).pooled()
    assert pool["tpr"] == 1.0
    assert pool["slow"] == 1 and pool["slow_rejected"] == 1, out["tests"][:3]


# GCPC 2021 joinedsessions: a wrong answer that splits the meetings into groups by the previous
# meeting's end instead of the latest end so far differs from the golds only when a meeting lies
# inside an earlier one; among random meetings over 0..10^9 that is rare, among a few meetings
# crowded into 0..10 it is common.
MEETINGS = r"""\begin{Input} \begin{itemize}
  \item One line with an integer $n$ ($2 \leq n \leq 10^6$), the number of meetings.
  \item $n$ lines describing the meetings, each with two integers $a$ and $b$ ($0 \leq a \leq b \leq 10^9$).
\end{itemize} \end{Input}"""


def test_special_inputs_include_a_few_rows_crowded_at_the_bottom_of_the_range():
    m = StdioModel.infer(["4\n1 3\n2 5\n4 7\n6 9\n", "5\n1 3\n4 7\n8 10\n2 5\n9 11\n"], MEETINGS)
    assert [(sl.name, sl.lo, sl.hi) for sl in m.row] == [("a", 0, 10**9), ("b", 0, 10**9)]  # a <= b <= 10^9 read
    crowded = [t for t in (_tokens(s) for s in m.draw("special", random.Random(0), 15)) if int(t[0][0]) <= 8]
    assert len(crowded) >= 3
    for t in crowded:
        vals = [int(x) for row in t[1:] for x in row]
        assert all(0 <= v <= 10 for v in vals)
    nested = sum(1 for t in crowded for (a, b) in [tuple(map(int, r)) for r in t[1:]]
                 for (c, d) in [tuple(map(int, r)) for r in t[1:]] if a < c <= d < b)
    assert nested > 0  # a meeting inside another


def test_rows_whose_columns_are_ordered_in_every_sample_stay_ordered():
    m = StdioModel.infer(["4\n1 3\n2 5\n4 7\n6 9\n", "5\n1 3\n4 7\n8 10\n2 5\n9 11\n"], MEETINGS)
    assert m.ordered == [0]  # a <= b in all 9 sample rows, and the statement says a <= b
    rng = random.Random(3)
    for kind in ("regular", "special", "boundary", "stress"):
        for s in m.draw(kind, rng, 6):
            rows = [tuple(map(int, r)) for r in _tokens(s)[1:]]
            assert all(a <= b for a, b in rows), (kind, s[:60])
    # points whose samples happen to have x <= y, named by a statement that does not relate them
    pts = (r"\begin{Input} \begin{itemize} \item One line containing an integer $n$ ($1 \leq n \leq 10^4$)."
           r" \item $n$ lines, each containing two integers $x$ and $y$ ($|x|, |y| \leq 10^9$)."
           r" \end{itemize} \end{Input}")
    assert StdioModel.infer(["6\n0 0\n1 1\n2 4\n3 9\n4 16\n5 25\n"], pts).ordered == []
