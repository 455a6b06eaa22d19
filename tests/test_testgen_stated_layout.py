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

from conftest import assert_round_judged, synthesize_and_judge
from testgen.constraints import alphabet_hint, once_chars, text_total
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


STRINGS = """# Substrings

## Input

The first line contains a single integer t (1 ≤ t ≤ 10^4) — the number of test cases.

Each of the next t lines contains a non-empty string s consisting of lowercase Latin letters.

It is guaranteed that the total length of all strings does not exceed 2·10^5.

## Output

For each test case, one integer.
"""


def test_the_strings_total_length_allows_one_string_that_long_and_bounds_them_together():
    """``tests/data/stdin_tasks_r9.jsonl``'s ``even-substrings`` (written by a writer who saw none of
    ``testgen/``): the total was not read, every string stayed within twice the samples' longest
    (10 letters), and an O(n^2) count of pairs and an int32 count passed (2 of 5 rejected)."""
    assert text_total(STRINGS) == 200_000
    assert text_total("The sum of lengths of the given strings is at most 10^6.") == 10 ** 6
    assert text_total("The sum of n over all test cases does not exceed 2·10^5.") is None
    m = StdioModel.infer(["3\nab\naab\nbb\n", "2\nzz\nabcab\n"], STRINGS)
    assert m.shape == "counted" and m.text_total == 200_000
    rng = random.Random(0)
    longest = 0
    for text in m.draw("regular", rng, 20) + m.draw("stress", rng, 10):
        lines = text.split("\n")
        words = [w for w in lines[1:] if w]
        assert int(lines[0]) == len(words) and sum(map(len, words)) <= 200_000
        longest = max(longest, max(map(len, words)))
    assert longest == 200_000


def test_the_next_round_rejects_the_walks_up_a_deep_tree(tmp_path, cli_state_env):
    """``r9s/taller-ancestors``: parents that are labels of a rooted tree (``parent_lists.py``). Its
    suite rejected 3 of 5 before, neither walk up the ancestors: no deep tree was drawn. (Its
    ``even-substrings`` takes some 5 minutes to synthesize here, past a test's time.)"""
    report, by_id, _ = synthesize_and_judge(cli_state_env, "stdin_tasks_r9.jsonl", tmp_path, "--only",
                                            "r9s/taller-ancestors")
    assert_round_judged(report, by_id, problems=1, correct=2, rejected_at_least=5)
