"""A matrix of numbers: a header, then as many rows as one header value, each of as many numbers
as another ("Each of the next n lines contains m integers"), read into the model (``smodel.try_matrix``).

``tests/data/stdin_tasks_r9.jsonl``'s ``brightest-square`` (written by a writer who saw none of
``testgen/``) has two samples of widths 4 and 2. Before, no layout fit (rows of two widths), the
model was ``tokens`` and only the samples' mutations were drawn: its suite rejected 2 of its 5
wrong or slow programs. With one sample, or samples of one width, the rows were read as four fixed
columns while the header's m was drawn on its own ("813" above rows of 4): with no validator to
drop those inputs, the gold's answers to them were kept and both correct programs were rejected.
"""

from __future__ import annotations

import json
import os
import random

from conftest import assert_round_judged, synthesize_and_judge
from testgen.relations import stated_bounds
from testgen.smodel import StdioModel
from testgen.tokens import tokenize

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

SQUARE = """# Square

## Input

The first line contains three integers n, m and k (1 ≤ n, m ≤ 1000, 1 ≤ k ≤ min(n, m)).

Each of the next n lines contains m integers a_{i,1}, a_{i,2}, …, a_{i,m} (−10^9 ≤ a_{i,j} ≤ 10^9).

## Output

One integer.
"""

LATEX = r"""\section*{Input}
The input consists of:
\begin{itemize}
\item One line with two integers $h$ and $w$ ($1 \le h, w \le 500$).
\item $h$ lines, each with $w$ integers $a_{i,j}$ ($0 \le a_{i,j} \le 9$).
\end{itemize}
\section*{Output}
One integer.
"""


def _assert_matrices(m: StdioModel, kinds: tuple[str, ...], k_at: int | None) -> int:
    """Every input the model draws has a header's count of rows, each of the header's width of
    numbers in the cells' range, and a k (at ``k_at``) at most min(n, m); how many were drawn."""
    drawn = 0
    for kind in kinds:
        for text in m.draw(kind, random.Random(3), 8):
            lines = tokenize(text)
            n, w = int(lines[0][0]), int(lines[0][1])
            assert len(lines) == n + 1 and all(len(r) == w for r in lines[1:]), (kind, text[:80])
            cell = m.row[0]
            assert all(cell.lo <= int(x) <= cell.hi for r in lines[1:] for x in r)
            if k_at is not None:
                assert 1 <= int(lines[0][k_at]) <= min(n, w), (kind, lines[0])
            drawn += 1
    return drawn


def test_one_sample_of_a_matrix_draws_rows_as_wide_as_the_drawn_width():
    m = StdioModel.infer(["3 4 2\n1 -2 3 0\n4 5 -6 1\n-1 2 2 7\n"], SQUARE)
    assert m.structure.matrix and m.structure.width_of == 1 and m.count_at == 0
    assert _assert_matrices(m, ("regular", "boundary", "special", "stress", "mutation"), k_at=2) >= 30


def test_samples_of_two_widths_are_one_matrix_layout_and_its_stress_inputs_fill_the_token_cap():
    m = StdioModel.infer(["2 3\n1 2 3\n4 5 6\n", "1 1\n7\n"], LATEX)
    assert m.structure.matrix and (m.row[0].lo, m.row[0].hi) == (0, 9)
    assert _assert_matrices(m, ("regular", "boundary", "stress"), k_at=None) >= 20
    sizes = [sum(len(r) for r in tokenize(t)[1:]) for t in m.draw("stress", random.Random(0), 3)]
    assert max(sizes) >= 500 * 400  # the stated 500 x 500, under the 200 000 tokens a stress input may have


def test_a_value_under_min_of_two_names_is_bounded_by_each():
    for text in ("1 ≤ k ≤ min(n, m)", r"$1 \le k \le \min(n, m)$", r"$1 \leq k \leq \min\{n,m\}$"):
        assert {(b.name, b.upper, b.lo) for b in stated_bounds(text)} == {("k", "n", 1), ("k", "m", 1)}, text


def test_a_one_sample_matrix_without_a_validator_accepts_every_correct_program(tmp_path, cli_state_env):
    """``brightest-square`` with its first sample only and its validator left out, as a problem
    copied from an archive comes: before, 0 of its 2 correct programs accepted and 4 of 5 incorrect
    rejected; now 2 of 2 and 5 of 5."""
    rec = next(r for r in map(json.loads, open(os.path.join(DATA, "stdin_tasks_r9.jsonl")))
               if r["id"] == "r9s/brightest-square")
    rec.update(sample_tests=rec["sample_tests"][:1], seed_tests=rec["seed_tests"][:1], input_validators=[],
               input_validators_other=[])
    src = tmp_path / "one_sample.jsonl"
    src.write_text(json.dumps(rec) + "\n")
    report, by_id, _ = synthesize_and_judge(cli_state_env, str(src), tmp_path)
    assert_round_judged(report, by_id, problems=1, correct=2, rejected_at_least=5)
