"""Stdin layouts of several sections (issue 14: "structured stdin inputs at full size"): a fixed
line, then blocks whose row count (or list length) is a value read earlier, as contest inputs
"n m / m rows / q / q rows" or "a fixed line / n / n rows" are. Before, no layout read them, the
model only mutated the samples, and a slow solution never met a large input."""

from __future__ import annotations

import random

from _slow_program import assert_the_slow_program_is_rejected, slow_program_record, synthesized
from testgen.evaluate import evaluate
from testgen.sections import choose
from testgen.input_caps import MAX_INPUT_TOKENS
from testgen.smodel import StdioModel
from testgen.tokens import tokenize

# "n m / m rows / q / q rows", the phrasing of a GCPC statement
ROADS = r"""\begin{Input}
The input consists of:
\begin{itemize}
  \item One line with two integers $n$ and $m$ ($2 \leq n \leq 10^5$, $1 \leq m \leq 10^5$), the number of cities and roads.
  \item $m$ lines, each containing three integers $a$, $b$ and $d$ ($1 \le d \le 10^4$), a road between cities $a$ and $b$ of length $d$.
  \item One line with an integer $q$ ($1 \leq q \leq 2 \cdot 10^5$), the number of trips.
  \item $q$ lines, each with one integer $w$ ($1 \leq w \leq 10^6$), the weight of a car.
\end{itemize}
\end{Input}
\begin{Output} For each trip, output one integer. \end{Output}"""
ROADS_SAMPLES = ["3 2\n1 2 5\n2 3 7\n2\n400\n30\n",
                 "5 4\n1 2 1\n2 3 2\n3 4 3\n4 5 4\n3\n1\n2\n3\n",
                 "4 5\n1 2 9\n2 3 9\n3 4 9\n1 3 2\n2 4 1\n1\n10\n"]


def _counts_ok(text: str, m: StdioModel) -> list[list[list[str]]]:
    """The input read back section by section, every count equal to its block's size."""
    assert m.sections is not None
    toks = tokenize(text)
    specs = choose([tokenize(s) for s in ROADS_SAMPLES], ROADS, False)
    assert specs is not None
    out, p = [], 0
    for sec in m.sections.parts:
        if sec.kind == "line":
            assert len(toks[p]) == len(sec.slots), text[:80]
            out.append(toks[p:p + 1])
            p += 1
        else:
            assert sec.ref is not None
            n = int(out[sec.ref[0]][0][sec.ref[1]]) + sec.offset
            if sec.kind == "list":
                assert len(toks[p]) == n
                out.append(toks[p:p + 1])
                p += 1
            else:
                block = toks[p:p + n]
                assert len(block) == n and all(len(r) == len(sec.slots) for r in block), text[:80]
                out.append(block)
                p += n
    assert p == len(toks), "lines left over"
    return out


def test_blocks_counted_by_values_read_earlier_are_one_layout():
    m = StdioModel.infer(ROADS_SAMPLES, ROADS)
    assert m.shape == "sections"  # was "tokens": no layout read it
    assert m.sections is not None and m.sections.signature() == "LRLR" and m.sections.confirmed
    head, roads, trips_line, trips = m.sections.parts
    assert roads.ref == (0, 1) and trips.ref == (2, 0)  # m rows, then q rows
    assert [(sl.name, sl.lo, sl.hi) for sl in head.slots] == [("n", 2, 10**5), ("m", 1, 10**5)]
    assert (trips_line.slots[0].name, trips_line.slots[0].hi) == ("q", 2 * 10**5)
    assert (trips.slots[0].lo, trips.slots[0].hi) == (1, 10**6)
    assert roads.structure.labels == {0: (0, 0), 1: (0, 0)}  # city numbers in 1..n


def test_generated_inputs_keep_every_count_and_range_and_stress_reaches_the_token_budget():
    m = StdioModel.infer(ROADS_SAMPLES, ROADS)
    rng = random.Random(1)
    for kind in ("regular", "boundary", "special", "structured", "mutation"):
        got = m.draw(kind, rng, 8)
        assert got, kind
        for s in got:
            head, roads, _, trips = _counts_ok(s, m)
            n = int(head[0][0])
            assert 2 <= n <= 10**5
            assert all(1 <= int(a) <= n and 1 <= int(b) <= n and 1 <= int(d) <= 10**4 for a, b, d in roads)
            assert all(1 <= int(w[0]) <= 10**6 for w in trips)
    stress = m.draw_noted("stress", rng, 5)
    sizes = []
    for s, note in stress:
        assert note.startswith("shape:")
        parts = _counts_ok(s, m)
        tokens = sum(len(ln) for sec in parts for ln in sec)
        assert tokens <= MAX_INPUT_TOKENS + 10
        sizes.append(tokens)
    # the largest fills the budget: both blocks at the stated maxima, scaled down alike
    assert max(sizes) >= MAX_INPUT_TOKENS * 0.9


def test_a_fixed_line_before_the_count_line():
    stmt = r"""\begin{Input} \begin{itemize}
      \item One line with four integers $x_s, y_s, x_t$ and $y_t$ ($-10^9 \le x_s, y_s, x_t, y_t \le 10^9$).
      \item One line with an integer $k$ ($0 \le k \le 10^6$).
      \item $k$ lines, each with two integers $u$ and $v$ ($-10^9 \le u, v \le 10^9$).
      \end{itemize} \end{Input}"""
    samples = ["0 0 10 0\n1\n5 -10\n", "0 0 10 0\n3\n2 1\n4 2\n7 0\n"]
    m = StdioModel.infer(samples, stmt)
    assert m.shape == "sections" and m.sections is not None
    assert m.sections.signature() == "LLR"
    assert m.sections.parts[2].ref == (1, 0)
    for s in m.draw("stress", random.Random(0), 2):
        t = tokenize(s)
        assert len(t) == 2 + int(t[1][0]) and int(t[1][0]) >= 50_000


def test_a_listed_layout_wins_over_a_fixed_one_only_when_the_statement_lists_it():
    # every sample has the same shape, so a fixed layout fits too; it would change n, m, q while
    # keeping the samples' number of rows, an input no program reads right
    stmt = r"""\begin{Input} \begin{itemize}
      \item One line with three integers $n$, $m$ and $q$ ($1 \le n,m,q \le 10^5$).
      \item $n$ lines, each with two integers $x$ and $y$ ($0 \le x, y \le 10^3$).
      \item $m$ lines, each with two integers $a$ and $b$ ($1 \le a,b \le n$).
      \item $q$ lines, each with one integer $c$ ($1 \le c \le 10^3$).
      \end{itemize} \end{Input}"""
    samples = ["3 2 1\n0 0\n1 1\n2 2\n1 2\n2 3\n7\n", "3 2 1\n5 0\n1 4\n2 9\n1 3\n3 2\n8\n"]
    m = StdioModel.infer(samples, stmt)
    assert m.shape == "sections" and m.sections is not None and m.sections.signature() == "LRRR"
    assert StdioModel.infer(samples, "").shape == "fixed"  # no description: as before


def test_samples_that_read_more_than_one_way_are_not_guessed():
    # n = m in every sample: the rows may be counted by either; nothing says which
    assert StdioModel.infer(["2 2\n1 5\n3 4\n1\n7\n", "3 3\n1 2\n3 4\n5 6\n2\n1\n2\n"], "").shape == "tokens"
    # one sample: every count may be a coincidence
    assert StdioModel.infer(["2 3\n1 5\n3 4\n1 1 1\n4\n1\n"], "").shape == "tokens"
    # m^3 lines with m = 2 in every sample: four blocks of m rows fit, but no count ever varies
    cube = ["4 2\n1\n2\n1\n2\n2\n1\n2\n1\n1 2 1 2\n", "6 2\n1\n2\n1\n2\n2\n1\n2\n1\n1 2 1 2 1 2\n"]
    assert StdioModel.infer(cube, "").shape == "tokens"


def test_the_same_samples_read_one_way_make_a_layout_without_a_description():
    # n, then n numbers, then q, then q rows: the counts differ between samples and no other
    # reading consumes every line
    samples = ["5\n1 2 3 5 7\n3\n1\n2\n4\n", "4\n2 4 6 8\n1\n3\n", "2\n9 10\n4\n1\n1\n2\n2\n"]
    m = StdioModel.infer(samples, "")
    assert m.shape == "sections" and m.sections is not None and not m.sections.confirmed
    assert m.sections.signature() == "LVLR"
    for s in m.draw("mutation", random.Random(2), 10):
        t = tokenize(s)
        n = int(t[0][0])
        assert len(t[1]) == n and len(t) == 3 + int(t[2][0]), s


def test_a_graph_block_keeps_its_edges_inside_the_nodes_and_connected():
    stmt = r"""\begin{Input} \begin{itemize}
      \item One line with integers $n, m, k$ ($2 \leq n \leq 2\cdot10^5$, $n - 1 \leq m \leq 10^6$, $2\leq k\leq n$).
      \item One line containing $k$ distinct integers, the planets with a wormhole.
      \item $m$ lines, each containing two integers $a$ and $b$ ($1 \leq a,b \leq n$ and $a \neq b$).
      \end{itemize}
      It is guaranteed that the graph is connected. \end{Input}"""
    samples = ["5 5 3\n2 3 4\n1 2\n1 3\n2 4\n3 4\n4 5\n", "5 6 3\n2 3 4\n1 2\n1 3\n2 4\n3 4\n4 5\n1 4\n"]
    m = StdioModel.infer(samples, stmt)
    assert m.shape == "sections" and m.sections is not None and m.sections.signature() == "LVR"
    edges = m.sections.parts[2]
    assert edges.structure.graph == "graph" and edges.structure.connected
    assert m.sections.parts[1].rising == {0: "distinct"}  # "k distinct integers"
    for kind in ("regular", "structured", "stress", "mutation"):
        for s in m.draw(kind, random.Random(5), 2):
            t = tokenize(s)
            n, mm, k = map(int, t[0])
            assert len(t[1]) == k == len(set(t[1])) and len(t) == 2 + mm, (kind, s[:60])
            es = [tuple(map(int, r)) for r in t[2:]]
            assert all(1 <= a <= n and 1 <= b <= n and a != b for a, b in es)
            parent = list(range(n + 1))

            def find(x: int) -> int:
                while parent[x] != x:
                    parent[x] = parent[parent[x]]
                    x = parent[x]
                return x
            for a, b in es:
                parent[find(a)] = find(b)
            assert len({find(v) for v in range(1, n + 1)}) == 1, (kind, n, mm)


PREFIX = r"""\begin{Input} \begin{itemize}
  \item One line with an integer $n$ ($1 \le n \le 2\cdot10^5$).
  \item One line with $n$ integers $a_1, \dots, a_n$ ($1 \le a_i \le 10^9$).
  \item One line with an integer $q$ ($1 \le q \le 2\cdot10^5$).
  \item $q$ lines, each with two integers $l$ and $r$ ($1 \le l \le r \le n$).
\end{itemize} \end{Input}
\begin{Output} For each query, the sum $a_l + \dots + a_r$. \end{Output}"""
PREFIX_PY = """import sys
d = sys.stdin.buffer.read().split()
n = int(d[0]); a = d[1:1 + n]; q = int(d[1 + n]); p = [0]
for x in a:
    p.append(p[-1] + int(x))
out = []
for i in range(q):
    l, r = int(d[2 + n + 2 * i]), int(d[3 + n + 2 * i])
    out.append(p[r] - p[l - 1])
print("\\n".join(map(str, out)))
"""
PREFIX_SLOW_PY = """import sys
d = sys.stdin.buffer.read().split()
n = int(d[0]); a = list(map(int, d[1:1 + n])); q = int(d[1 + n])
out = []
for i in range(q):
    l, r = int(d[2 + n + 2 * i]), int(d[3 + n + 2 * i])
    out.append(sum(a[l - 1:r]))
print("\\n".join(map(str, out)))
"""


def test_a_slow_program_times_out_on_a_layout_of_several_sections(runner):
    rec = slow_program_record("prefix", PREFIX, ["5\n1 2 3 4 5\n2\n1 5\n2 3\n", "3\n7 7 7\n3\n1 1\n1 3\n2 3\n"],
                              ["15\n5\n", "7\n21\n14\n"], PREFIX_PY, PREFIX_SLOW_PY, language="python",
                              time_s=2, memory_mb=512)
    out = synthesized(rec, runner)
    assert out["testgen"]["model"] == "stdio:sections(LVLR)"
    samples = evaluate([dict(out, tests=rec["seed_tests"])], runner).pooled()
    assert samples["slow"] == 1 and samples["slow_rejected"] == 0
    assert_the_slow_program_is_rejected(out, runner)


def test_values_the_statement_orders_rise_in_every_generated_input():
    stmt = r"""\begin{Input} \begin{itemize}
      \item One line with an integer $n$ ($1\leq n \leq 2\cdot10^5$), the number of frogs.
      \item One line with $n$ integers $x_1,\dots, x_n$ ($1\leq x_i \leq 10^6$), strictly increasing, i.e. $x_1 < x_2 < \dots < x_n$.
      \item One line with an integer $q$ ($1\leq q \leq 2\cdot10^5$), the number of jumps.
      \item $q$ lines, each containing an integer $i$ ($1\leq i\leq n$).
      \end{itemize} \end{Input}"""
    samples = ["5\n1 2 3 5 7\n3\n1\n2\n4\n", "5\n1 2 3 5 7\n4\n1\n1\n1\n1\n"]
    m = StdioModel.infer(samples, stmt)
    assert m.shape == "sections" and m.sections is not None and m.sections.parts[1].rising == {0: "strict"}
    rng = random.Random(4)
    for kind in ("regular", "special", "boundary", "mutation", "stress"):
        for s in m.draw(kind, rng, 3):
            t = tokenize(s)
            xs = [int(x) for x in t[1]]
            assert len(xs) == int(t[0][0]) and all(a < b for a, b in zip(xs, xs[1:])), (kind, s[:80])
            assert all(1 <= x <= 10**6 for x in xs)
            assert all(1 <= int(r[0]) <= len(xs) for r in t[3:])
    # the all-equal stress shapes of distinct rising values: a run of consecutive values
    runs = [[int(x) for x in tokenize(s)[1]] for s, note in m.draw_noted("stress", rng, 3) if note == "shape:equal-min"]
    assert runs and all(xs == list(range(1, len(xs) + 1)) for xs in runs)
    # the same samples under a statement that orders nothing: values as drawn
    plain = stmt.replace("strictly increasing, i.e. $x_1 < x_2 < \\dots < x_n$", "the positions")
    assert StdioModel.infer(samples, plain).sections.parts[1].rising == {}
