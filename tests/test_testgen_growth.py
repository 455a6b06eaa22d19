"""The growth round (``testgen/growth.py``): stress inputs drawn again past the input caps where the
golds left room.

Stress inputs stop at 200 000 tokens, below many stated maxima, and a too-slow program is slow
only past them: a point-update problem's O(n q) loop took 0.76 s of its 2 s on the widest input
the caps allowed. Raising the caps for every problem made golds time out and print past the output
limit (docs/testgen-measured.md, 2026-11-29), so the caps grow per problem, by the room its golds
left on the inputs the caps stopped."""

from __future__ import annotations

import random

from conftest import synthesize_and_judge
from test_testgen_query_rows import POINT_SAMPLES, POINT_UPDATE
from testgen.candidates import Candidate
from testgen.grammar import draw_family_bounded
from testgen.growth import GROWTH_MAX, growth_factor
from testgen.input_caps import DEFAULT_CAPS, caps, caps_scaled
from testgen.smodel import StdioModel

MIB = 1 << 20


def stopped(gold_s: float, answer_bytes: int) -> Candidate:
    c = Candidate("stress", stdin="1 " * DEFAULT_CAPS.tokens)
    c.gold_time_s, c.expected_stdout = gold_s, "9" * answer_bytes
    return c


def test_the_factor_is_the_least_room_the_golds_left_in_time_and_in_output():
    # 0.05 s of a 1 s allowance: 20x the time, half of it aimed at; a short answer: the cap decides
    assert growth_factor([stopped(0.05, 100)], 1.0, MIB)[0] == GROWTH_MAX
    f, _ = growth_factor([stopped(0.1, 100), stopped(0.2, 100)], 1.0, MIB)
    assert f == 2.5  # the slowest gold, with its margin
    f, why = growth_factor([stopped(0.01, MIB // 3)], 1.0, MIB)
    assert 2 <= f < 3 and "answer" in why  # an answer a third of the limit grows 3x, less its margin
    # too little room in either: no round, and the record says why
    f, why = growth_factor([stopped(0.4, 100)], 1.0, MIB)
    assert f == 1.0 and "too little room" in why
    f, why = growth_factor([stopped(0.01, MIB * 2 // 3)], 1.0, MIB)
    assert f == 1.0 and "too little room" in why
    assert growth_factor([], 1.0, MIB) == (1.0, "no kept stress input reached the input caps")


def test_grown_caps_hold_inside_their_block_and_the_drawers_reach_them():
    m = StdioModel.infer(POINT_SAMPLES, POINT_UPDATE)

    def largest() -> int:
        return max(len(t.split()) for t in m.draw("stress", random.Random(5), 6))

    at_default = largest()  # the caps bound the rows; a header's few tokens come on top
    assert DEFAULT_CAPS.tokens // 2 <= at_default <= DEFAULT_CAPS.tokens + 10
    with caps_scaled(3) as grown:
        assert caps() == grown and grown.tokens == 3 * DEFAULT_CAPS.tokens
        assert 2 * DEFAULT_CAPS.tokens < largest() <= grown.tokens + 10
    assert caps() == DEFAULT_CAPS and largest() == at_default


def test_the_grammar_child_draws_under_the_callers_caps_and_only_stress_when_asked():
    src = "INT(1, 10^6, n) NEWLINE\nREP(n, SPACE) INT(1, 10^9) END NEWLINE\nEOF\n"
    drawn, _ = draw_family_bounded([src], "", 0, "p", 6, timeout_s=120)
    assert max(len(t.split()) for _, t, _ in drawn) <= DEFAULT_CAPS.tokens + 1
    assert {f for f, _, _ in drawn} > {"stress"}
    with caps_scaled(2):
        drawn, _ = draw_family_bounded([src], "", 0, "p", 6, timeout_s=120, stress_only=True)
    assert {f for f, _, _ in drawn} == {"stress"}
    assert max(len(t.split()) for _, t, _ in drawn) > DEFAULT_CAPS.tokens


def test_a_held_out_query_problem_grows_past_the_caps_and_its_validator_accepts_what_grew(tmp_path, cli_state_env):
    """The range-add problem of ``tests/data/query_tasks.jsonl``: its golds answer the largest inputs
    the caps allow in a tenth of their allowance, with answers far below the output limit."""
    pid = "r6/range-add-point-query"
    report, by_id, suites = synthesize_and_judge(cli_state_env, "query_tasks.jsonl", tmp_path, "--only", pid,
                                                 "--budget-scale", "0.5")
    tg = suites[pid]["testgen"]
    growth = tg["growth"]
    assert growth["factor"] > 1.5 and growth["kept"] >= 1, growth
    assert "validator_rejects" not in growth["dropped"], growth  # the grown inputs stay in the domain
    assert max(len(t["stdin"].split()) for t in suites[pid]["tests"]) > DEFAULT_CAPS.tokens
    assert by_id[pid]["accepted"] == by_id[pid]["correct"] == 4, by_id[pid]["false_rejects"]
    assert by_id[pid]["rejected"] == by_id[pid]["incorrect"], by_id[pid]["missed"]
