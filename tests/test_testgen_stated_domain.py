"""What a function task's docstring states of its domain in CS1 prose, read into the input model.

``tests/data/intro_tasks_r8.jsonl`` (fourteen intro tasks with student-style programs) and
``tests/data/leetcode_tasks_r8.jsonl`` (twelve LeetCode problems) were written on 2026-12-01 by a
writer who saw none of ``testgen/``, each program checked against the gold on hundreds of inputs
inside the docstring's contract and every wrong one given a witness inside it. Measured before any
rule for them, the intro suites accepted 73 of 76 correct programs:

* ``letter_grade``: "an integer score between 0 and 100 inclusive" was not read; scores of 190 and
  1000003 crashed a table lookup ``"FFFFFFDCBAA"[score // 10]``;
* ``is_before``: two "(month, day) pair[s]" with "month from 1 to 12, day from 1 to the number of
  days in that month" were drawn as months 23 and -3;
* ``average_age``: "a string gender that is 'M' or 'F'" was drawn as "" and "MF" (a dict keyed by
  'M' and 'F' raised KeyError);

and, once those were read, a program that keys the records by name (``dict(records)``) failed on a
drawn list that broke "the names are distinct".
The rules: a range in words right after a name (``docspec._prose_range``), quoted values joined by
"or" (``docspec.arg_choices``), record fields named in prose (``fields.PROSE_NAMING``), a field
the statement says is distinct, by its name. Two more draw what the statement compares with: the
thresholds of "at least 90" and "at least 8 characters long" (``docspec.stated_thresholds``), and
the characters of "printable ASCII" or "(spaces and punctuation allowed)" (``base.stated_chars``).
"""

from __future__ import annotations

import json
import os
from random import Random

from conftest import assert_round_judged, synthesize_and_judge

from testgen.docspec import arg_bounds, arg_choices, stated_thresholds
from testgen.inputs import FunctionModel, IntSpec, ListSpec, StrSpec
from testgen.inputs.records import RecordSpec
from testgen.inputs.base import Hints
from testgen.inputs.fields import record_fields

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _task(name: str) -> dict:
    with open(os.path.join(DATA, "intro_tasks_r8.jsonl")) as f:
        return next(r for r in map(json.loads, f) if r["id"] == name)


def _model(name: str) -> FunctionModel:
    t = _task(name)
    return FunctionModel.infer([b["args"] for b in t["base_tests"]], t["statement"], t["entry_point"],
                               t["gold_solutions"][0]["code"])


def test_a_range_in_words_after_the_name_bounds_it():
    b = arg_bounds("Takes in an integer score between 0 and 100 inclusive and returns 'A' if score is at least 90.",
                   "f", ["score"])["score"]
    assert (b.lo, b.hi, b.hi_unread) == (0, 100, False)
    assert (arg_bounds("x is between 1 and 10 exclusive.", "f", ["x"])["x"].lo,
            arg_bounds("x is between 1 and 10 exclusive.", "f", ["x"])["x"].hi) == (2, 9)
    plural = arg_bounds("the scores are integers between 0 and 100.", "f", ["score"])["score"]
    assert (plural.lo, plural.hi) == (0, 100)
    # an upper end in words: bounded, but only as far as the seeds go
    day = arg_bounds("(month from 1 to 12, day from 1 to the number of days in that month).", "f",
                     ["month", "day"])
    assert (day["month"].lo, day["month"].hi) == (1, 12)
    assert (day["day"].lo, day["day"].hi, day["day"].hi_unread) == (1, None, True)


def test_quoted_values_joined_by_or_are_the_values_a_name_takes():
    st = ("Takes in a list records of (gender, age) pairs, where each gender is the string 'M' or 'F', "
          "and a string gender that is 'M' or 'F'. Returns the average.")
    assert arg_choices(st, ["records", "gender"]) == {"gender": ["M", "F"]}
    assert arg_choices("each op is one of 'push', 'pop' or 'top'.", ["op"]) == {"op": ["push", "pop", "top"]}
    assert arg_choices("Given a string s, return 'Yes' or 'No'.", ["s"]) == {}


def test_record_fields_named_in_prose_belong_to_the_arguments_named_before_them():
    assert record_fields("Takes in two dates d1 and d2, each given as a (month, day) pair of integers.",
                         ["d1", "d2"]) == {"d1": ["month", "day"], "d2": ["month", "day"]}
    assert record_fields("Takes in a list records of (gender, age) pairs, and a string gender.",
                         ["records", "gender"]) == {"records": ["gender", "age"]}


def test_the_model_keeps_the_stated_domain_of_records_categories_and_distinct_fields():
    d1, d2 = _model("r8i/is_before").specs  # three seeds each, yet records of two bounded fields
    for rec in (d1, d2):
        assert isinstance(rec, RecordSpec)
        month, day = rec.fields
        assert (month.lo, month.hi) == (1, 12) and day.lo == 1 and day.hi <= 25  # the seeds' largest day
    records, gender = _model("r8i/average_age").specs
    assert gender.choices == ["M", "F"] and records.elem.fields[0].choices == ["F", "M"]
    assert (0, 0) in _model("r8i/passing_names").invariants.distinct_fields  # "the names are distinct"


def test_what_the_statement_compares_with_is_drawn_on_both_sides():
    # the grade boundaries, and the ends of "an integer score between 0 and 100 inclusive"
    assert stated_thresholds(_task("r8i/letter_grade")["statement"]) == ([0, 60, 70, 80, 90, 100], [])
    assert stated_thresholds(_task("r8i/valid_password")["statement"]) == ([], [8])
    (score,) = _model("r8i/letter_grade").specs
    assert isinstance(score, IntSpec) and {59, 60, 61, 89, 90, 91} <= set(score.boundary())
    (pw,) = _model("r8i/valid_password").specs
    assert isinstance(pw, StrSpec) and {" ", "!", "Z"} <= set(pw.alphabet)  # "printable ASCII characters"
    assert {7, 8, 9} <= {len(s) for s in pw.special(Random(0))}
    assert Hints.from_text("s is a sentence (spaces and punctuation allowed).").stated_chars.startswith("!")
    assert Hints.from_text("s consists of lowercase letters.").stated_chars == ""
    assert isinstance(_model("r8i/chunk").specs[0], ListSpec)  # no word for it: nothing changes


def test_the_intro_round_accepts_every_correct_program(tmp_path, cli_state_env):
    report, by_id, suites = synthesize_and_judge(cli_state_env, "intro_tasks_r8.jsonl", tmp_path)
    assert_round_judged(report, by_id, problems=14, correct=76, rejected_at_least=69)
    assert by_id["r8i/letter_grade"]["rejected"] == 5  # `score > 90` among them: 90 is drawn
    for t in suites["r8i/is_before"]["tests"]:
        assert all(1 <= m <= 12 and 1 <= d <= 28 for m, d in t["args"]), t
    assert all(t["args"][1] in ("M", "F") for t in suites["r8i/average_age"]["tests"])


def test_the_leetcode_round_accepts_every_correct_program(tmp_path, cli_state_env):
    report, by_id, _ = synthesize_and_judge(cli_state_env, "leetcode_tasks_r8.jsonl", tmp_path)
    assert_round_judged(report, by_id, problems=12, correct=36, rejected_at_least=37)
