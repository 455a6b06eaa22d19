"""What a LeetCode-style statement says of a record's fields (``testgen/inputs/fields.py``), of a
grid's rows and of a list's values, kept in every generated input: ``edges[i] = [ai, bi]`` with
``0 <= ai, bi < n`` and ``ai != bi``, ``starti < endi``, ``m == grid.length``,
``grid[i][j] is 0, 1, or 2``. The gold answers inputs outside them somehow; a correct program
written another way indexes past its adjacency list or counts what it was promised is not there."""

from __future__ import annotations

import random
from collections import Counter

from testgen.constraints import parse_number
from testgen.docspec import arg_bounds
from testgen.generators import Budget, generate
from testgen.inputs.fields import FieldRules, record_fields
from testgen.inputs.model import FunctionModel


def _model(stmt: str, seeds: list[list], entry: str, signature: str) -> FunctionModel:
    gold = f"class Solution:\n    def {signature}:\n        pass\n"
    return FunctionModel.infer(seeds, stmt, f"Solution.{entry}", gold)


def _draws(model: FunctionModel, seeds: list[list]) -> list[list]:
    cands = generate("function", model, [{"args": s} for s in seeds], 0, "p", Budget())
    return [c.args for c in cands if c.family != "seed"]


GRAPH = ("You are given an integer n and a list of edges where edges[i] = [ai, bi] indicates an undirected "
         "edge between nodes ai and bi.\n\nConstraints:\n1 <= n <= 2000\n0 <= edges.length <= 5000\n"
         "0 <= ai, bi < n\nai != bi\nThere are no self-loops or repeated edges.\n")


def test_edges_name_nodes_below_n_never_loop_and_never_repeat():
    seeds = [[5, [[0, 1], [0, 2], [0, 3], [1, 4]]], [5, [[0, 1], [1, 2], [2, 3], [1, 3], [1, 4]]]]
    model = _model(GRAPH, seeds, "validTree", "validTree(self, n: int, edges: List[List[int]]) -> bool")
    rules = model.invariants.fields
    assert rules.below == [(1, 0, 0, 1, 0), (1, 1, 0, 1, 0)] and rules.differ == [(1, 0, 1)]
    drawn = _draws(model, seeds)
    assert len(drawn) >= 50 and any(len(a[1]) > 20 for a in drawn) and any(a[0] > 5 for a in drawn)
    for n, edges in drawn:
        assert all(0 <= a < n and 0 <= b < n and a != b for a, b in edges), (n, edges)
        assert len({tuple(e) for e in edges}) == len(edges)


def test_labels_that_start_at_one_stay_between_one_and_n():
    stmt = ("There are n people labeled from 1 to n. You are given trust where trust[i] = [ai, bi].\n\n"
            "Constraints:\n1 <= n <= 1000\n0 <= trust.length <= 10^4\ntrust[i].length == 2\nai != bi\n1 <= ai, bi <= n\n")
    seeds = [[2, [[1, 2]]], [3, [[1, 3], [2, 3]]], [3, [[1, 3], [2, 3], [3, 1]]]]
    model = _model(stmt, seeds, "findJudge", "findJudge(self, n: int, trust: List[List[int]]) -> int")
    for n, trust in _draws(model, seeds):
        assert all(1 <= a <= n and 1 <= b <= n and a != b for a, b in trust), (n, trust)


def test_an_interval_keeps_its_start_below_its_end_and_its_stated_bounds():
    stmt = ("Given an array of intervals where intervals[i] = [starti, endi], return the minimum number of "
            "intervals to remove.\n\nConstraints:\n1 <= intervals.length <= 10^5\nintervals[i].length == 2\n"
            "-5 * 10^4 <= starti < endi <= 5 * 10^4\n")
    seeds = [[[[1, 2], [2, 3], [3, 4], [1, 3]]], [[[1, 2], [1, 2], [1, 2]]], [[[1, 2], [2, 3]]]]
    model = _model(stmt, seeds, "eraseOverlapIntervals", "eraseOverlapIntervals(self, intervals: List[List[int]]) -> int")
    drawn = _draws(model, seeds)
    assert any(s < 0 for a in drawn for s, _ in a[0])
    assert all(-5 * 10**4 <= s < e <= 5 * 10**4 for a in drawn for s, e in a[0])


def test_field_rules_the_seeds_break_were_misread_and_are_not_kept():
    assert record_fields("points[i] = [xi, yi] and times[i] = (ui, vi, wi)", ["points", "times"]) == {
        "points": ["xi", "yi"], "times": ["ui", "vi", "wi"]}
    stmt = "edges[i] = [ai, bi]\n0 <= ai, bi < n\n"
    rules = FieldRules.mine(stmt, ["n", "edges"], [[2, [[0, 5]]], [3, [[4, 2]]]], record_fields(stmt, ["n", "edges"]))
    assert not rules


def test_a_grid_stays_rectangular_and_its_cells_within_the_values_stated():
    stmt = ("You are given an m x n grid where each cell can have one of three values.\n\nConstraints:\n"
            "m == grid.length\nn == grid[i].length\n1 <= m, n <= 10\ngrid[i][j] is 0, 1, or 2.\n")
    seeds = [[[[2, 1, 1], [1, 1, 0], [0, 1, 1]]], [[[2, 1, 1], [0, 1, 1], [1, 0, 1]]], [[[0, 2]]]]
    model = _model(stmt, seeds, "orangesRotting", "orangesRotting(self, grid: List[List[int]]) -> int")
    assert model.invariants.rectangular == [0]
    drawn = [a[0] for a in _draws(model, seeds)]
    assert any(len(g) > 3 for g in drawn) and any(len(g[0]) != len(g) for g in drawn if g)
    assert all(len({len(r) for r in g}) <= 1 and all(c in (0, 1, 2) for r in g for c in r) for g in drawn)


def test_two_singles_among_pairs_stay_so():
    stmt = ("Given an integer array nums, in which exactly two elements appear only once and all the other "
            "elements appear exactly twice. Return them in ascending order.\n\nConstraints:\n"
            "2 <= nums.length <= 3 * 10^4\n-2^31 <= nums[i] <= 2^31 - 1\n")
    seeds = [[[1, 2, 1, 3, 2, 5]], [[-1, 0]], [[7, -2, 9, 9]]]
    model = _model(stmt, seeds, "singleNumber", "singleNumber(self, nums: List[int]) -> List[int]")
    assert model.invariants.guarantees.repeated_but_singles == [(0, 2, 2)]
    drawn = [a[0] for a in _draws(model, seeds)]
    assert len(drawn) >= 20 and any(len(v) > 10 for v in drawn)
    assert all(sorted(Counter(v).values())[:3] in ([1, 1], [1, 1, 2]) and set(Counter(v).values()) <= {1, 2}
               for v in drawn)


def test_powers_of_two_and_pythons_power_are_numbers():
    assert parse_number("2^31 - 1") == 2**31 - 1 and parse_number("-2^31") == -(2**31)
    b = arg_bounds("1 <= coins[i] <= 2^31 - 1\nTakes in n with 0 <= n < 10**18.\n", "f", ["coins", "n"])
    assert (b["coins"].lo, b["coins"].hi) == (1, 2**31 - 1) and (b["n"].lo, b["n"].hi) == (0, 10**18 - 1)


def test_each_of_two_sorted_lists_stays_sorted_on_short_examples():
    stmt = ('def merge_sorted(a, b):\n    """Takes in two lists of integers a and b, each sorted in non-decreasing order, '
            'and returns them merged."""\n')
    seeds = [[[1, 4, 9], [2, 3, 10, 11]], [[-2, 5, 5], [5]], [[], [0, 8]]]
    model = FunctionModel.infer(seeds, stmt, "merge_sorted")
    assert model.invariants.sorted_args == [0, 1]
    assert all(a == sorted(a) and b == sorted(b) for a, b in _draws(model, seeds))


def test_an_input_the_statement_says_may_be_empty_is_a_corner_kept_whole():
    stmt = ('def run_length(s):\n    """Returns the run-length encoding of s. If s is empty, the result is the '
            'empty list.\n    >>> run_length("aaab")\n    [("a", 3), ("b", 1)]\n    """\n')
    seeds = [["aaabccdd"], ["abca"], ["zZ"]]
    cands = generate("function", FunctionModel.infer(seeds, stmt, "run_length"), [{"args": s} for s in seeds],
                     0, "p", Budget())
    assert {tuple(c.args) for c in cands if c.family == "corner"} == {("",)}
    # "return an empty list" speaks of the answer: the empty input stays one candidate among others
    answer = stmt.replace("If s is empty, the result is the empty list.", "Return an empty list when there are none.")
    cands = generate("function", FunctionModel.infer(seeds, answer, "run_length"), [{"args": s} for s in seeds],
                     0, "p", Budget())
    assert not [c for c in cands if c.family == "corner"]
