"""The shapes a function task's statement gives its arguments, kept in every input drawn.

``tests/data/intro_tasks_r9.jsonl`` (12 CS1 tasks, 50 correct and 60 wrong student-style
programs) and ``tests/data/leetcode_tasks_r9.jsonl`` (10 LeetCode-style problems, 30 correct and
40 wrong) were written on 2026-12-02 by a writer who saw none of ``testgen/``. Measured before
any rule for them, their suites accepted 45/50 and 24/30 correct programs:

* ``minutes_between``: two times 'HH:MM' "from '00:00' to '23:59'" were drawn as free text of
  digits and colons ("001:5", "51:90"): all 4 correct programs rejected (``inputs/templates.py``);
* ``ticket_price``: "age in whole years (an integer from 0 to 120)" was not read, and 1400 was
  drawn (``docspec._PAREN_RANGE``);
* ``container_with_most_water``: "n == height.length" then "2 <= n <= 10^5": ``[]`` was drawn
  (``docspec.length_aliases``);
* ``insert_interval``: "newInterval = [start, end]", "0 <= start <= end", "newInterval.length ==
  2" and "intervals[i][1] < intervals[i + 1][0]" were not kept: [4, 3] and overlapping intervals
  were drawn (``fields.NAMING_ONE``, ``fields.CHAIN``, the fixed length in ``docspec``);
* ``evaluate_reverse_polish_notation``: "The input represents a valid arithmetic expression in a
  reverse polish notation": mutated token lists left operands over, the gold answered
  ``stack[-1]`` and the correct ``st[0]``: all 3 rejected (``guarantees.promises_validity``: such
  an argument keeps the samples' values, and the suite is the samples, as ``too_few_tests``).
"""

from __future__ import annotations

import json
import os
import random

from conftest import assert_round_judged, synthesize_and_judge
from testgen.docspec import arg_bounds
from testgen.generators import Budget, generate
from testgen.inputs.guarantees import promises_validity
from testgen.inputs import FunctionModel
from testgen.inputs.templates import Digits, Template, quoted_ranges
from testgen.problem import load_problem

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _task(name: str, pid: str) -> dict:
    return next(r for r in map(json.loads, open(os.path.join(DATA, name))) if r["id"] == pid)


def _model(task: dict) -> FunctionModel:
    return FunctionModel.infer([t["args"] for t in task["base_tests"]], task["statement"], task["entry_point"],
                               task["gold_solutions"][0]["code"])


def _drawn(task: dict, m: FunctionModel) -> list[list]:
    """Every family's inputs, as the pipeline draws them (repaired, and kept where the model admits them)."""
    p = load_problem(task, "cpp")
    return [c.args for c in generate(p.io, m, p.seeds, 0, p.id, Budget(), None) if c.args is not None]


def test_a_length_the_statement_names_and_a_fixed_length_bound_the_list():
    stmt = "Constraints:\nn == height.length\n2 <= n <= 10^5\n0 <= height[i] <= 10^4\nnewInterval.length == 2\n"
    b = arg_bounds(stmt, "maxArea", ["height", "newInterval"])
    assert (b["height"].length_lo, b["height"].length_hi, b["height"].hi) == (2, 10 ** 5, 10 ** 4)
    assert (b["newInterval"].length_lo, b["newInterval"].length_hi) == (2, 2)
    # an argument named n is no alias; nor is a row's length
    b = arg_bounds("n == nums.length\n1 <= n <= 10\nm == grid[i].length\n", "f", ["nums", "n", "grid"])
    assert b["nums"].length_lo is None and b["n"].hi == 10 and b["grid"].length_hi is None


def test_a_range_in_parentheses_a_few_words_after_the_name_bounds_it():
    stmt = ("def ticket_price(age, student):\n    \"\"\"Takes in a person's age in whole years (an integer from 0 "
            "to 120) and a boolean student.\"\"\"")
    b = arg_bounds(stmt, "ticket_price")
    assert (b["age"].lo, b["age"].hi) == (0, 120) and b["student"].hi is None


def test_strings_of_one_shape_keep_it_inside_the_quoted_range_or_the_seeds():
    stated = Template.infer(["09:15", "23:30", "12:00"], quoted_ranges("from '00:00' to '23:59'"))
    assert stated is not None and stated.pieces == [Digits(2, 0, 23), ":", Digits(2, 0, 59)]
    rng = random.Random(0)
    values = [stated.random(rng) for _ in range(300)] + stated.boundary() + \
        [stated.mutate("23:59", rng) for _ in range(50)]
    assert {"00:00", "23:59"} <= set(values) and all(stated.accepts(v) for v in values)
    assert all(len(v) == 5 and v[2] == ":" and int(v[:2]) <= 23 and int(v[3:]) <= 59 for v in values)
    unstated = Template.infer(["2024-03-01", "1999-12-31"])  # no range stated: the seeds' largest
    assert unstated is not None and unstated.pieces == [Digits(4, 1, 2024), "-", Digits(2, 1, 12), "-", Digits(2, 1, 31)]
    assert Template.infer(["123", "456"]) is None  # numbers, not a shape of pieces
    assert Template.infer(["abc1", "xy2"]) is None  # no separator the same in all: free text
    assert Template.infer(["9:15", "10:3 0"]) is None  # pieces that alternate otherwise
    task = _task("intro_tasks_r9.jsonl", "r9i/minutes_between")
    for args in _drawn(task, _model(task)):
        assert all(stated.accepts(a) for a in args), args


def test_a_record_and_intervals_that_do_not_overlap_are_drawn_so():
    task = _task("leetcode_tasks_r9.jsonl", "r9/insert_interval")
    drawn = _drawn(task, _model(task))
    assert any(len(a[0]) > 10 for a in drawn)
    for intervals, new in drawn:
        assert len(new) == 2 and new[0] <= new[1], new
        assert all(s <= e for s, e in intervals), intervals
        assert all(a[1] < b[0] for a, b in zip(intervals, intervals[1:])), intervals


def test_the_round_accepts_every_correct_program_of_the_problems_it_failed(tmp_path, cli_state_env):
    only = ["--only", "r9i/minutes_between", "--only", "r9i/ticket_price"]
    report, by_id, _ = synthesize_and_judge(cli_state_env, "intro_tasks_r9.jsonl", tmp_path, *only)
    assert_round_judged(report, by_id, problems=2, correct=8, rejected_at_least=8)  # 3 of 8 correct before
    only = ["--only", "r9/container_with_most_water", "--only", "r9/insert_interval", "--only",
            "r9/evaluate_reverse_polish_notation", "--min-tests", "3"]  # (the samples: 3 tests)
    (tmp_path / "lc").mkdir()
    report, by_id, suites = synthesize_and_judge(cli_state_env, "leetcode_tasks_r9.jsonl", tmp_path / "lc", *only)
    assert_round_judged(report, by_id, problems=3, correct=9, rejected_at_least=11)  # 3 of 9 correct before
    rpn = suites["r9/evaluate_reverse_polish_notation"]["testgen"]
    assert rpn["selected"] == 3 and "promises a valid input" in " ".join(rpn["notes"])


def test_an_input_promised_valid_in_a_form_not_read_keeps_the_samples_values():
    assert promises_validity("The input represents a valid arithmetic expression in a reverse polish notation.")
    assert promises_validity("You can assume that x, and n are valid fractions.")
    assert not promises_validity("Return True if the date is valid otherwise False.")
    assert not promises_validity("Determine if the input string is valid.")
    m = _model(_task("leetcode_tasks_r9.jsonl", "r9/evaluate_reverse_polish_notation"))
    seeds = [t["args"][0] for t in _task("leetcode_tasks_r9.jsonl", "r9/evaluate_reverse_polish_notation")["base_tests"]]
    assert m.seeded == {0: seeds}
    assert m.admits([seeds[0]]) and not m.admits([["2", "1", "3", "*"]])
    # a text of a shape the model knows is drawn as usual
    shaped = FunctionModel.infer([["09:15"], ["23:30"]], "def f(t):\n    \"\"\"Assume t is always valid.\"\"\"", "f")
    assert shaped.seeded == {}
