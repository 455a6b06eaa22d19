"""A list of distinct values and a directed acyclic graph, as the statement says, in every stdin input.

``tests/data/stdin_tasks_r10.jsonl`` (six olympiad-style problems, written on 2026-12-02 by a writer
who saw none of ``testgen/``) measured before any rule for it:

* ``railway-cars``: "n distinct integers p_1, …, p_n (1 ≤ p_i ≤ n)" was drawn with repeats ("13 13
  8 13 1 ..."), which its validator dropped (``distinct_rows.distinct_list``); a mutated list cut
  from 5 values to 4 kept a 5 (the cap was the old count);
* ``dag-paths``: "the slopes do not form a directed cycle" was not kept: random orientations, cycles
  among them, which its validator dropped; its route-walking program was never slow
  (``structures.orient_acyclic``).
"""

from __future__ import annotations

import json
import os
import random
from graphlib import TopologicalSorter

from conftest import assert_round_judged, synthesize_and_judge
from testgen.smodel import StdioModel
from testgen.tokens import tokenize

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FAMILIES = ("regular", "boundary", "special", "stress", "structured", "mutation")


def _model(pid: str) -> StdioModel:
    t = next(r for r in map(json.loads, open(os.path.join(DATA, "stdin_tasks_r10.jsonl"))) if r["id"] == pid)
    return StdioModel.infer([s["stdin"] for s in t["sample_tests"]], t["statement"])


def _drawn(m: StdioModel) -> list[list[list[int]]]:
    return [[[int(x) for x in ln] for ln in tokenize(text)] for kind in FAMILIES
            for text in m.draw(kind, random.Random(1), 10)]


def test_distinct_values_under_the_count_are_a_permutation_in_every_family():
    drawn = _drawn(_model("r10s/railway-cars"))
    assert len(drawn) >= 50
    for (n,), perm in drawn:
        assert sorted(perm) == list(range(1, n + 1)), (n, perm[:20])


def test_a_mutated_list_bounded_by_its_count_is_capped_by_the_new_count():
    stmt = ("## Input\n\nThe first line contains an integer n (1 ≤ n ≤ 100).\n\nThe second line contains n "
            "integers a_1, a_2, …, a_n (1 ≤ a_i ≤ n).\n\n## Output\n\nOne integer.\n")
    m = StdioModel.infer(["5\n5 5 1 2 4\n", "6\n6 1 6 2 3 6\n"], stmt)
    for text in m.draw("mutation", random.Random(0), 60):
        (n,), vals = [[int(x) for x in ln] for ln in tokenize(text)]
        assert len(vals) == n and all(1 <= v <= n for v in vals), text


def _routes_to_last(n: int, edges: list[list[int]]) -> int:
    """Routes from node 1 to node n; the edges must be acyclic (``static_order`` raises otherwise)."""
    pred: dict[int, set[int]] = {v: set() for v in range(1, n + 1)}
    for u, v in edges:
        pred[v].add(u)
    count = {v: 0 for v in range(1, n + 1)}
    count[1] = 1
    for v in TopologicalSorter(pred).static_order():
        count[v] += sum(count[u] for u in pred[v] if u != v) if v != 1 else 0
    return count[n]


def test_a_graph_said_to_have_no_directed_cycle_is_drawn_acyclic_with_many_routes_among_its_stress():
    drawn = _drawn(_model("r10s/dag-paths"))
    assert len(drawn) >= 50
    routes = [_routes_to_last(head[0], [e for e in rest]) for head, *rest in drawn]
    assert max(routes) >= 10 ** 30  # a layered DAG: what walking every route times out on


def test_the_round_rejects_the_slow_walks_of_a_permutation_and_of_every_route(tmp_path, cli_state_env):
    """Before: ``railway-cars`` rejected 3 of its 5 incorrect programs (neither too-slow walk) and
    ``dag-paths`` 3 of 5 (not the route walker, not the overflowing modulus); now 4 and 5."""
    report, by_id, _ = synthesize_and_judge(cli_state_env, "stdin_tasks_r10.jsonl", tmp_path, "--only",
                                            "r10s/railway-cars", "--only", "r10s/dag-paths")
    assert_round_judged(report, by_id, problems=2, correct=4, rejected_at_least=8)
