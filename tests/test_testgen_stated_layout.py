"""What a stdin statement says of its layout where the samples cannot tell, read into the model.

``tests/data/stdin_tasks_r8.jsonl`` (seven olympiad-style problems with a Python and a C++ gold,
two more correct programs, three wrong and two too slow each) was written on 2026-12-01 by a
writer who saw none of ``testgen/``. Measured before any rule for it, three of its suites rejected
2 of their 5 wrong or slow programs each; two of them for these reasons:

* ``free-ticket``: both samples' headers are ``n m`` with n = m ("4 4", "5 5"), so the rows were
  counted by n, the first value that fits, where the statement says "Each of the next m lines":
  "18 182532" came with 18 rows and its validator rejected 112 of 159 draws
  (``smodel.stated_count_at``);
* ``grid-robot``: "each of them is '.', '#', 'S' or 'T'" was not read, and the cells were drawn
  from every capital letter; then "the character 'S' appears in the grid exactly once" was not
  kept (``constraints.alphabet_hint``, ``constraints.once_chars``, ``structures.place_once``).
"""

from __future__ import annotations

import os
import random

from conftest import synthesize_and_judge
from testgen.constraints import alphabet_hint, once_chars
from testgen.smodel import StdioModel
from testgen.structures import place_once

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

GRAPH = """# Routes

## Input

The first line contains two integers n and m (2 ≤ n ≤ 1000, n − 1 ≤ m ≤ 5000) — the number of towns and roads.

Each of the next m lines contains three integers u_i, v_i and w_i (1 ≤ u_i, v_i ≤ n, u_i ≠ v_i, 1 ≤ w_i ≤ 10^9).

## Output

One integer.
"""

GRID = """# Maze

## Input

The first line contains two integers n and m (1 ≤ n, m ≤ 50).

Each of the next n lines contains a string of exactly m characters, each of them is '.', '#', 'S' or 'T'. It is guaranteed that the character 'S' appears in the grid exactly once and the character 'T' appears in the grid exactly once.

## Output

One integer.
"""


def test_the_row_count_the_statement_names_counts_the_rows_where_the_samples_cannot_tell():
    samples = ["3 3\n1 2 5\n2 3 1\n1 3 7\n", "4 4\n1 2 1\n2 3 1\n3 4 1\n1 4 9\n"]
    m = StdioModel.infer(samples, GRAPH)
    assert m.shape == "counted" and m.count_at == 1  # m, not n
    rng = random.Random(0)
    for text in m.draw("regular", rng, 30) + m.draw("stress", rng, 4):
        lines = text.split("\n")
        n, rows = map(int, lines[0].split())
        assert len([ln for ln in lines[1:] if ln]) == rows and rows >= n - 1
    # where the samples tell (3 nodes, 4 roads), they decide
    assert StdioModel.infer(["3 4\n1 2 5\n2 3 1\n1 3 7\n1 2 2\n"], GRAPH).count_at == 1
    assert StdioModel.infer(["3 3\n1 2 5\n2 3 1\n1 3 7\n"], GRAPH.replace("next m lines", "next n lines")).count_at == 0


def test_quoted_cells_are_the_alphabet_and_cells_said_once_appear_once():
    assert alphabet_hint(GRID) == "#.ST"
    assert alphabet_hint("Every cell is either '.' or '#'.") == "#."
    assert once_chars(GRID) == "ST" and once_chars("There is exactly one 'E' in the maze.") == "E"
    assert once_chars("Each of them is '.' or '#'.") == ""
    grid = place_once(["SSTT", "S..T"], "ST", ".#", random.Random(1))
    assert grid is not None and "".join(grid).count("S") == 1 and "".join(grid).count("T") == 1
    assert place_once(["S"], "ST", ".", random.Random(1)) is None  # fewer cells than marks
    m = StdioModel.infer(["2 3\nS.#\n..T\n", "3 2\nS.\n#.\n.T\n"], GRID)
    rng = random.Random(0)
    for text in m.draw("regular", rng, 30) + m.draw("special", rng, 10) + m.draw("stress", rng, 4):
        cells = "".join(text.split("\n")[1:])
        assert set(cells) <= set("#.ST") and cells.count("S") == 1 and cells.count("T") == 1, text[:80]


def test_the_olympiad_round_accepts_every_correct_program_and_rejects_the_grid_and_graph_ones(tmp_path,
                                                                                             cli_state_env):
    report, by_id, _ = synthesize_and_judge(cli_state_env, "stdin_tasks_r8.jsonl", tmp_path, "--only",
                                            "r8s/grid-robot", "--only", "r8s/free-ticket")
    assert set(by_id) == {"r8s/grid-robot", "r8s/free-ticket"}
    assert report["pooled"]["accepted"] == report["pooled"]["correct"] == 4
    for pid in by_id:  # 2 of 5 rejected in each before
        assert by_id[pid]["rejected"] >= 3, (pid, by_id[pid]["missed"])
