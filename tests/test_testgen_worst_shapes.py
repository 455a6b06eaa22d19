"""Stress inputs in the shapes where slow grid and graph solutions are slow (issue 14, "slow
submissions labelled TLE rejected").

On stdio-contest, `lookingforwaldo/bruteforce_prune.cpp` (a search over rectangles, pruned by the
best area so far) passed every synthesized grid: they were random letters over A-Z, where every
letter lies within a few cells of any other, and no larger than the validator allowed, since the
statement's `h * w <= 10^5` was not read (the 894 x 894 grids were dropped). It needs 2.3 s on a
316 x 316 grid of one letter with each other letter once, 4 s on one row of 10^5. And
`exponentiation/paul-no-caching.cpp` passed the random instructions over 1000 variables: it is slow
only when the 1000 instructions fall on two variables (5 s)."""

from __future__ import annotations

import random

from testgen.constraints import product_bounds
from testgen.evaluate import evaluate
from testgen.pipeline import Settings, synthesize
from testgen.smodel import StdioModel
from testgen.structures import Structure, fewest_nodes, graph_edges

GRID = r"""\section*{Input}
The input consists of:
\begin{itemize}
  \item One line with two integers $h$ and $w$ $(1\leq h, w \leq 10^5$, $h\cdot{}w \leq 10^5)$, the height and width.
  \item $h$ lines, each with $w$ characters \texttt{.} or \texttt{\#}.
\end{itemize}
\section*{Output} The number of pairs of equal rows."""
GRID_SAMPLES = ["2 3\n.#.\n.#.\n", "3 2\n##\n..\n##\n", "1 4\n.##.\n"]


def _grid(text: str) -> tuple[int, int, list[str]]:
    lines = text.split("\n")
    h, w = map(int, lines[0].split())
    return h, w, lines[1:1 + h]


def test_a_bound_on_a_product_is_read():
    assert product_bounds(GRID) == [("h", "w", 10**5)]
    assert product_bounds(r"$n \times m < 10^6$ and $1 \le a_i \le 10^9$") == [("n", "m", 10**6 - 1)]
    assert product_bounds(r"$1 \le n \le 10^5$, $0 \le x_i \cdot 2$") == []


def test_grids_stay_within_the_stated_product_bound_in_every_family():
    m = StdioModel.infer(GRID_SAMPLES, GRID)
    assert m.structure.width_of is not None and m.structure.max_cells == 10**5
    for kind in ("stress", "regular", "boundary", "special", "structured"):
        for text in m.draw(kind, random.Random(1), 10):
            h, w, rows = _grid(text)
            assert h * w <= 10**5, (kind, h, w)  # before: 894 x 894 stress grids, dropped by validators
            assert len(rows) == h and all(len(r) == w for r in rows)


def test_stress_grids_fill_the_bound_as_a_square_one_row_and_one_column_some_sparse():
    m = StdioModel.infer(GRID_SAMPLES, GRID)
    got = {}
    for text, note in m.draw_noted("stress", random.Random(0), 10):
        h, w, rows = _grid(text)
        got.setdefault(note, []).append((h, w, rows))
    assert {"shape:grid-random", "shape:grid-sparse", "shape:grid-wide", "shape:grid-tall"} <= set(got)
    h, w, _ = max(got["shape:grid-random"], key=lambda x: x[0] * x[1])
    assert (h, w) == (316, 316)
    h, w, rows = max(got["shape:grid-wide"], key=lambda x: x[0] * x[1])
    assert (h, w) == (1, 10**5)
    h, w, rows = got["shape:grid-tall"][0]
    assert (h, w) == (10**5, 1)
    h, w, rows = max(got["shape:grid-sparse"], key=lambda x: x[0] * x[1])
    cells = "".join(rows)
    counts = sorted(cells.count(c) for c in ".#")
    assert counts[0] == 1 and counts[1] == h * w - 1  # one letter everywhere, the other once


def test_without_a_product_bound_wide_and_tall_grids_take_the_whole_side():
    text = GRID.replace(r", $h\cdot{}w \leq 10^5)$", "$)").replace("10^5", "2000")
    m = StdioModel.infer(GRID_SAMPLES, text)
    assert m.structure.max_cells is None
    sizes = {note: _grid(t)[:2] for t, note in m.draw_noted("stress", random.Random(0), 5)}
    assert sizes["shape:grid-wide"] == (400, 2000) and sizes["shape:grid-tall"] == (2000, 400)


def test_repeated_edges_never_become_self_loops_and_fewest_nodes_puts_every_edge_on_two():
    multi = Structure(labels={0: 0, 1: 0}, graph="graph", connected=True, simple=False)
    for n in (2, 3, 50):
        edges = graph_edges(n, 500, multi, random.Random(n))
        assert edges is not None and all(a != b for a, b in edges)
    assert fewest_nodes(1000, multi) == 2
    simple = Structure(labels={0: 0, 1: 0}, graph="graph", simple=True)
    k = fewest_nodes(10**5, simple)
    assert k * (k - 1) // 2 >= 10**5 > (k - 1) * (k - 2) // 2  # 448: a dense graph at the edge bound
    edges = graph_edges(k, 10**5, simple, random.Random(0))
    assert edges is not None and len({frozenset(e) for e in edges}) == 10**5


# NWERC 2023 exponentiation's layout: n variables, m instructions "! i j" / "? i j" with i != j
EXPO = r"""\begin{Input}
\begin{itemize}
  \item One line with two integers $n$ and $m$ ($2 \leq n \leq 1000$, $1 \leq m \leq 1000$).
  \item $m$ lines, each containing a character $c$ and two integers $i$ and $j$ ($1 \leq i, j \leq n$, $i \neq j$).
\end{itemize}
\end{Input}"""
EXPO_SAMPLES = ["4 8\n! 1 4\n! 2 1\n! 4 3\n! 1 4\n! 2 3\n? 3 4\n? 2 4\n? 2 1\n",
                "4 9\n! 2 4\n! 1 2\n? 3 1\n? 1 2\n! 2 3\n? 1 2\n! 1 3\n! 3 2\n? 1 3\n"]


def test_a_stress_input_puts_the_most_edges_on_the_fewest_nodes():
    m = StdioModel.infer(EXPO_SAMPLES, EXPO)
    assert m.structure.graph == "graph" and not m.structure.simple and not m.structure.loops
    by_note = {note: text for text, note in m.draw_noted("stress", random.Random(0), 5)}
    lines = by_note["shape:graph-fewest-nodes"].split("\n")
    assert lines[0] == "2 1000"
    rows = [ln.split() for ln in lines[1:1001]]
    assert {(r[1], r[2]) for r in rows} <= {("1", "2"), ("2", "1")}
    for text in by_note.values():  # i != j in every row of every stress input
        assert all(r.split()[1] != r.split()[2] for r in text.split("\n")[1:] if r)


# The equal-rows problem: a correct program quadratic in the number of rows is fast on every grid
# but the tall one (10^5 rows of one cell), which only a read h * w bound lets exist.
PAIRS_PY = ("import sys\nfrom collections import Counter\nd = sys.stdin.read().split()\nh = int(d[0])\n"
            "c = Counter(d[2:2 + h])\nprint(sum(k * (k - 1) // 2 for k in c.values()))\n")
PAIRS_SLOW_PY = ("import sys\nd = sys.stdin.read().split()\nh = int(d[0])\nr = d[2:2 + h]\n"
                 "print(sum(1 for i in range(h) for j in range(i) if r[i] == r[j]))\n")


def test_a_program_quadratic_in_one_side_times_out_on_the_synthesized_suite(runner):
    rec = {
        "id": "pairs", "io": "stdio", "statement": GRID,
        "gold_solutions": [{"language": "python", "code": PAIRS_PY}],
        "seed_tests": [{"stdin": s, "expected_stdout": o} for s, o in zip(GRID_SAMPLES, ["1\n", "1\n", "0\n"])],
        "limits": {"time_s": 1, "memory_mb": 256},
        "heldout_correct": [{"language": "python", "code": PAIRS_PY}],
        "heldout_incorrect": [{"language": "python", "code": PAIRS_SLOW_PY, "label": "TLE"}],
    }
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=20, min_tests=3))
    assert out["testgen"]["status"] == "ok", out["testgen"]
    assert any(t["stdin"].startswith("100000 1\n") for t in out["tests"])  # the tall grid is kept
    pool = evaluate([out], runner).pooled()
    assert pool["tpr"] == 1.0
    assert pool["slow"] == 1 and pool["slow_rejected"] == 1


def test_a_stress_grid_keeps_a_row_count_its_caller_fixed():
    # a test case of a file of several gets its share of the rows (``cases.py``): the grid shapes
    # may make fewer rows, never more
    m = StdioModel.infer(GRID_SAMPLES, GRID)
    for i in range(5):
        text = m._one("stress", random.Random(i), i, n=7)
        assert text is not None
        h, w, rows = _grid(text)
        assert h <= 7 and len(rows) == h and h * w <= 10**5
