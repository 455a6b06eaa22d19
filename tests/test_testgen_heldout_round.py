"""Two sets written on 2026-11-30 after the LeetCode-style and intro rules, by a writer who saw
none of ``testgen/``, and measured before any rule for them (``tests/data/leetcode_tasks_r5.jsonl``,
``tests/data/intro_tasks_r5.jsonl``): twelve LeetCode problems (two singles among pairs, a graph as
``n`` and ``edges[i] = [ai, bi]``, intervals ``[starti, endi]``, an ``m x n`` grid of 0, 1 and 2,
a coin change with ``1 <= coins[i] <= 2^31 - 1``, ...) and twelve intro tasks (a matrix with rows of
one length, two sorted lists, a string that "may be empty", ``0 <= n < 10**18``, ...), each with a
gold, correct programs written other ways and wrong ones, every wrong one with a witness input
inside the statement's constraints.

Before the rules of ``testgen/inputs/fields.py``, the grid, sorted, two-singles and stated-empty
rules and the reading of ``2^31`` and ``10**18``, the suites accepted 29 of 40 correct LeetCode
programs and 69 of 72 correct intro programs: edges past ``n`` and self-loops, empty intervals,
ragged grids with cells of 9, a list with no two singles, coins of -1, ragged matrices and an
unsorted second list, all of which the one gold answered. Synthesized through the CLI on a real
sandbox and judged with ``codetest evaluate``: every correct program is accepted, and since the
run and extreme shapes of ``generators.f_relations`` every wrong LeetCode program is rejected (a
coin change whose "impossible" marker is 10^4 fails only on ``[[1], 10000]``; a range search only
where a run of one value starts at index 0 and the search lands past index 1)."""

from __future__ import annotations

from conftest import assert_round_judged, synthesize_and_judge


def test_a_leetcode_round_written_after_the_rules_accepts_every_correct_program(tmp_path, cli_state_env):
    report, by_id, suites = synthesize_and_judge(cli_state_env, "leetcode_tasks_r5.jsonl", tmp_path)
    assert len(by_id) == 12 and not report["pooled"]["unjudged_programs"]
    assert report["pooled"]["accepted"] == report["pooled"]["correct"] == 40, \
        {k: p["false_rejects"] for k, p in by_id.items() if p["false_rejects"]}
    assert report["pooled"]["rejected"] == report["pooled"]["incorrect"] == 48, \
        {k: p["missed"] for k, p in by_id.items() if p["missed"]}
    for t in suites["r5/graph_valid_tree"]["tests"]:  # 0 <= ai, bi < n, ai != bi
        n, edges = t["args"]
        assert all(0 <= a < n and 0 <= b < n and a != b for a, b in edges), t
    assert all(s < e for t in suites["r5/non_overlapping_intervals"]["tests"] for s, e in t["args"][0])
    for t in suites["r5/rotting_oranges"]["tests"]:  # m x n, grid[i][j] is 0, 1, or 2
        assert len({len(r) for r in t["args"][0]}) == 1 and {c for r in t["args"][0] for c in r} <= {0, 1, 2}


def test_an_intro_round_written_after_the_rules_accepts_every_correct_program(tmp_path, cli_state_env):
    report, by_id, suites = synthesize_and_judge(cli_state_env, "intro_tasks_r5.jsonl", tmp_path)
    assert_round_judged(report, by_id, problems=12, correct=72, rejected_at_least=70)
    assert [""] in [t["args"] for t in suites["r5i/run_length"]["tests"]]  # "If s is empty, ..."
    assert [0] in [t["args"] for t in suites["r5i/digital_root"]["tests"]]  # 0 <= n < 10**18
