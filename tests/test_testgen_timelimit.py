"""The time limit of a stdin suite whose problem states none: derived from the golds' CPU time.

The pipeline test runs real programs in the sandbox: a gold whose CPU time grows with n, a
correct program that does more work per step than the gold, one that needs no loop, and one
that does 20 times the gold's work (labelled TLE). The derived limit must accept the first
two and reject the last, and the suite record must say where its limit came from.
"""

from __future__ import annotations

import pytest

from testgen.evaluate import evaluate
from testgen.generators import Budget
from testgen.pipeline import Settings, synthesize
from testgen.problem import load_problem
from testgen.timelimit import CAP_S, DEFAULT_MULTIPLIER, FLOOR_S, SAFETY, TimePolicy, policy_for

# sum of i^2 mod p, one step per i: about 0.1 us of CPU per step in CPython
GOLD = "n = int(input())\ns = 0\nfor i in range(1, n + 1):\n    s = (s + i * i) % 1000003\nprint(s)\n"
MORE_WORK = ("n = int(input())\ns = 0\nfor i in range(1, n + 1):\n    s = (s + i * i) % 1000003\n"
             "    t = (i * 7) % 13\nprint(s)\n")
FORMULA = "n = int(input())\nprint(n * (n + 1) * (2 * n + 1) // 6 % 1000003)\n"
TWENTY_TIMES = ("n = int(input())\ns = 0\nfor i in range(1, n + 1):\n    for _ in range(20):\n"
                "        s = (s + i * i) % 1000003\n    s = (s - 19 * i * i) % 1000003\nprint(s)\n")


def squares(limits: dict) -> dict:
    return {"id": "squares", "io": "stdio",
            "statement": r"The input is one integer $n$ ($1 \le n \le 4\cdot 10^6$). "
                         r"Print $\sum_{i=1}^{n} i^2$ modulo $1000003$.",
            "gold_solutions": [{"language": "python", "code": GOLD}],
            "seed_tests": [{"stdin": "3\n", "expected_stdout": "14\n"}, {"stdin": "1\n", "expected_stdout": "1\n"}],
            "heldout_correct": [{"language": "python", "code": MORE_WORK, "name": "more_work"},
                                {"language": "python", "code": FORMULA, "name": "formula"}],
            "heldout_incorrect": [{"language": "python", "code": TWENTY_TIMES, "name": "twenty_times",
                                   "label": "TLE"}],
            "limits": limits}


SMALL = Settings(mutants=4, max_tests=8, min_tests=3, budget=Budget().scaled(0.15))


def test_derive_is_gold_time_times_multiplier_and_safety_within_floor_and_cap():
    p = TimePolicy(stated_s=None)
    assert p.derive([0.9, 0.2]) == pytest.approx(0.9 * DEFAULT_MULTIPLIER * SAFETY)
    assert p.derive([0.01]) == FLOOR_S  # startup-sized golds: never below the floor
    assert p.derive([]) == FLOOR_S
    assert p.derive([9.0]) == CAP_S
    assert p.derive([0.81]) == pytest.approx(2.5)  # 2.43 rounded up to the next 0.1 s, never down
    assert p.wall_s(2.0) >= 3 * 2.0  # wall only catches sleepers: a busy machine is no TLE
    assert TimePolicy(stated_s=0.5).derive([9.0]) == 0.5  # a stated limit is kept as it is


def test_the_problems_own_multiplier_is_used_and_a_stated_limit_wins():
    assert policy_for({"limits": {"time_s": None, "time_multiplier": 1.5}}, None).multiplier == 1.5
    assert policy_for({"limits": {"time_multiplier": "fast"}}, None).multiplier == DEFAULT_MULTIPLIER
    stdio = load_problem({"id": "a", "io": "stdio", "gold_solutions": [{"language": "python", "code": "print(1)"}],
                          "limits": {"time_s": None}})
    assert stdio.time_policy.derived
    stated = load_problem({"id": "a", "io": "stdio", "gold_solutions": [{"language": "python", "code": "print(1)"}],
                           "statement": "Time limit: 3 seconds."})
    assert not stated.time_policy.derived and stated.limits.time_s == 3.0
    fn = load_problem({"id": "f", "io": "function", "entry_point": "f",
                       "gold_solutions": [{"language": "python", "code": "def f():\n    return 1\n"}]})
    assert not fn.time_policy.derived and fn.limits.time_s == 3.0  # function problems keep their per-call default


def test_a_derived_limit_accepts_correct_programs_and_rejects_one_twenty_times_slower(runner):
    out = synthesize(squares({"time_s": None, "memory_mb": 256}), runner, SMALL)
    tg = out["testgen"]
    assert tg["status"] == "ok", tg
    tl = tg["time_limit"]
    assert tl["source"] == "derived" and tl["multiplier"] == DEFAULT_MULTIPLIER and tl["inputs"] == len(out["tests"])
    # measured, not assumed: the largest input costs the gold real CPU time, and the limit follows it
    assert tl["gold_max_cpu_s"] > 0.05
    assert out["limits"]["time_s"] == tl["time_s"] == TimePolicy(stated_s=None).derive([tl["gold_max_cpu_s"]])
    assert out["limits"]["time_s"] >= tl["gold_max_cpu_s"] * DEFAULT_MULTIPLIER * SAFETY - 1e-9
    assert "derived by codetest testgen" in out["limits"]["time_source"]
    assert out["limits"]["wall_time_s"] > 3 * out["limits"]["time_s"]
    assert max(int(t["stdin"]) for t in out["tests"]) >= 10 ** 6  # a stress input near the stated maximum
    assert load_problem(out).limits.time_s == tl["time_s"]  # judges read the suite's limit
    rep = evaluate([out], runner).to_json()["problems"][0]
    assert rep["false_rejects"] == [] and rep["accepted"] == 2, rep
    assert rep["slow"] == 1 and rep["slow_rejected"] == 1, rep


def test_a_stated_limit_is_kept_and_not_rewritten(runner):
    out = synthesize(squares({"time_s": 5, "memory_mb": 256}), runner, SMALL)
    assert out["testgen"]["status"] == "ok", out["testgen"]
    assert out["testgen"]["time_limit"] == {"time_s": 5.0, "source": "stated"}
    assert out["limits"] == {"time_s": 5, "memory_mb": 256}
