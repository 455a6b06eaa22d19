"""What a function task's statement says of its arguments' domain, kept in every input drawn.

``tests/data/intro_tasks_r10.jsonl`` (10 CS1 tasks, 40 correct and 52 wrong student-style
programs) and ``tests/data/leetcode_tasks_r10.jsonl`` (8 LeetCode-style problems, 24 correct and
32 wrong) were written on 2026-12-02 by a writer who saw none of ``testgen/``. Measured before
any rule for them, their suites accepted 31/40 and 20/24 correct programs:

* ``days_in_month``: "a month number (1 for January up to 12 for December)" was not read, and
  month 1000003 was drawn: all 4 correct programs rejected (``docspec._PAREN_ENDS``); then
  "divisible by 400" was never drawn for February (``Hints.divisors``: a stated divisor's first
  and last multiples are boundary values);
* ``to_24h``: 'H:MM AM' or 'H:MM PM', seeds "7:05 PM" and "12:30 AM": an hour one digit wide in
  one seed and two in another, and two endings, were no one shape; free text was drawn ("21:00 PM",
  "12:0P0 PM"): all 4 rejected (``inputs/templates.py``: an unpadded group, separators of
  several texts);
* ``diagonal_sum``: "a square grid" was drawn 5 x 10 (``relations.SQUARE_WORDS``);
* ``koko_eating_bananas``: "piles.length <= h" was not kept: h below the piles' count, an input
  with no answer (``inputs/size_bounds.py``);
* ``top_k_frequent_elements``: "k is in the range [1, the number of unique elements in the
  array]": k = 0 was drawn (``inputs/size_bounds.py``).
"""

from __future__ import annotations

import json
import os

from conftest import assert_round_judged, synthesize_and_judge
from testgen.docspec import arg_bounds
from testgen.generators import Budget, generate
from testgen.inputs import FunctionModel
from testgen.inputs.base import Hints
from testgen.inputs.templates import Digits, Template
from testgen.problem import load_problem

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _task(name: str, pid: str) -> dict:
    return next(r for r in map(json.loads, open(os.path.join(DATA, name))) if r["id"] == pid)


def _drawn(task: dict) -> list[list]:
    """Every family's inputs, as the pipeline draws them (repaired, kept where the model admits them)."""
    m = FunctionModel.infer([t["args"] for t in task["base_tests"]], task["statement"], task["entry_point"],
                            task["gold_solutions"][0]["code"])
    p = load_problem(task, "cpp")
    return [c.args for c in generate(p.io, m, p.seeds, 0, p.id, Budget(), None) if c.args is not None]


def test_ends_in_parentheses_after_the_name_bound_it_and_stated_divisors_give_their_multiples():
    stmt = ("def f(month, year):\n    \"\"\"Takes in a month number (1 for January up to 12 for December) and a "
            "year from 1 to 9999. A leap year is divisible by 4, except years divisible by 100 unless also by 400.\"\"\"")
    b = arg_bounds(stmt, "f")
    assert (b["month"].lo, b["month"].hi) == (1, 12) and (b["year"].lo, b["year"].hi) == (1, 9999)
    assert Hints.from_text(stmt).divisors == (4, 100)  # "also by 400" names no divisibility
    assert Hints.from_text("divisible by 3 and 5, or a multiple of 7").divisors == (3, 5, 7)
    drawn = _drawn(_task("intro_tasks_r10.jsonl", "r10i/days_in_month"))
    assert all(1 <= month <= 12 for month, _ in drawn)
    assert any(month == 2 and year % 400 == 0 for month, year in drawn)


def test_digit_groups_of_several_widths_and_separators_of_several_texts_keep_the_seeds_shape():
    t = Template.infer(["7:05 PM", "12:30 AM", "12:00 PM"])
    assert t is not None and t.pieces == [Digits(0, 1, 12), ":", Digits(2, 0, 30), (" PM", " AM")]
    assert t.accepts("9:15 AM") and not t.accepts("09:15 AM") and not t.accepts("9:15 XM")
    drawn = [a for (a,) in _drawn(_task("intro_tasks_r10.jsonl", "r10i/to_24h"))]
    assert {"1:00 PM", "1:00 AM"} <= set(drawn) and all(t.accepts(a) for a in drawn), drawn


def test_a_square_grid_is_drawn_square():
    drawn = [g for (g,) in _drawn(_task("intro_tasks_r10.jsonl", "r10i/diagonal_sum"))]
    assert len(drawn) >= 30 and all(all(len(r) == len(g) for r in g) for g in drawn)
    assert len({len(g) for g in drawn}) >= 5


def test_an_int_bounded_by_a_length_or_by_the_distinct_values_of_a_list_stays_so():
    koko = _drawn(_task("leetcode_tasks_r10.jsonl", "r10/koko_eating_bananas"))
    assert koko and all(h >= len(piles) for piles, h in koko)
    top = _drawn(_task("leetcode_tasks_r10.jsonl", "r10/top_k_frequent_elements"))
    assert top and all(1 <= k <= len(set(nums)) for nums, k in top)


def test_the_round_accepts_every_correct_program_of_the_tasks_it_failed(tmp_path, cli_state_env):
    only = [x for p in ("days_in_month", "to_24h", "diagonal_sum") for x in ("--only", f"r10i/{p}")]
    report, by_id, _ = synthesize_and_judge(cli_state_env, "intro_tasks_r10.jsonl", tmp_path, *only)
    assert_round_judged(report, by_id, problems=3, correct=12, rejected_at_least=15)  # 3 of 12 correct before
    (tmp_path / "lc").mkdir()
    report, by_id, _ = synthesize_and_judge(cli_state_env, "leetcode_tasks_r10.jsonl", tmp_path / "lc", "--only",
                                            "r10/koko_eating_bananas")
    assert_round_judged(report, by_id, problems=1, correct=3, rejected_at_least=4)  # 2 of 3 before
