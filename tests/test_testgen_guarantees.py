"""What a statement guarantees of a list's values (``testgen/inputs/guarantees.py``): mined from
the seeds only where the statement has the words for it, repaired into generated inputs, and,
where the statement promises the input more than the model reads, every shape the seeds show kept."""

from __future__ import annotations

import random
from collections import Counter

from testgen.generators import Budget, generate
from testgen.inputs.guarantees import Guarantees, Promised, promises, sum_pairs, unread_constraints
from testgen.inputs.model import FunctionModel

TWO_SUM = ("Given an array of integers nums and an integer target, return indices of the two numbers such that "
           "they add up to target. You may assume that each input would have exactly one solution.\n")
SINGLE = "Given a non-empty array of integers nums, every element appears twice except for one. Find that single one.\n"
MAJORITY = "The majority element is the element that appears more than n / 2 times.\n"
MISSING = "Given an array nums containing n distinct numbers in the range [0, n], return the only number missing.\n"


def _draws(model: FunctionModel, seeds: list[list], pid: str = "p") -> list[list]:
    cands = generate("function", model, [{"args": s} for s in seeds], 0, pid, Budget())
    return [c.args for c in cands if c.family != "seed"]


def test_each_shape_is_mined_where_the_statement_says_it_and_every_draw_keeps_it():
    cases = [
        (TWO_SUM, [[[2, 7, 11, 15], 9], [[3, 2, 4], 6], [[3, 3], 6]], lambda a: sum_pairs(a[0], a[1]) == 1),
        (SINGLE, [[[2, 2, 1]], [[4, 1, 2, 1, 2]], [[1]]],
         lambda a: sorted(Counter(a[0]).values())[:2] in ([1], [1, 2])),
        (MAJORITY, [[[3, 2, 3]], [[2, 2, 1, 1, 1, 2, 2]]], lambda a: Counter(a[0]).most_common(1)[0][1] * 2 > len(a[0])),
        (MISSING, [[[3, 0, 1]], [[0, 1]], [[9, 6, 4, 2, 3, 5, 7, 0, 1]]],
         lambda a: len(set(a[0])) == len(a[0]) and all(0 <= x <= len(a[0]) for x in a[0])),
    ]
    for statement, seeds, shape in cases:
        model = FunctionModel.infer(seeds, statement)
        assert model.invariants.guarantees, statement
        drawn = _draws(model, seeds)
        assert len(drawn) >= 20 and all(shape(a) for a in drawn), (statement, [a for a in drawn if not shape(a)][:3])
        assert any(a not in seeds for a in drawn)


def test_seeds_that_show_a_shape_by_chance_do_not_narrow_without_the_statements_words():
    # HumanEval/62's coefficients are distinct values of 0..n; a top-k task's k is one pair's sum
    coeffs = [[[3, 1, 2, 4, 5]], [[1, 2, 3]], [[3, 2, 1]], [[3, 2, 1, 0, 4]]]
    topk = [[[9, 9, 4, 9, 7, 9, 3, 1, 6], 5], [[4, 5, 2, 3, 1, 6], 3]]
    for seeds, statement in ((coeffs, "xs represent coefficients of a polynomial. Return its derivative."),
                             (topk, "Return the k largest numbers of the list.")):
        model = FunctionModel.infer(seeds, statement)
        assert not model.invariants.guarantees and not model.invariants.promised


def test_repairs_use_the_lists_own_values_and_say_when_they_could_not():
    rng = random.Random(1)
    g = Guarantees(majority=[0], repeated_but_singles=[(1, 3, 1)])
    for _ in range(200):
        v, w = [rng.randint(-5, 5) for _ in range(rng.randint(1, 9))], [rng.randint(0, 99) for _ in range(10)]
        a = g.repair([v, w], rng)
        assert g.holds(a) and set(a[0]) <= set(v) and set(a[1]) <= set(w)
        assert sorted(Counter(a[1]).values()) == [1] + [3] * (len(set(a[1])) - 1)
    assert not g.holds([[], [1]])  # an empty list has no majority: dropped, not "repaired"
    pair = Guarantees(one_pair_sum=[(0, 1)])
    for _ in range(200):
        a = pair.repair([[rng.randint(-20, 20) for _ in range(rng.randint(2, 12))], 0], rng)
        assert sum_pairs(a[0], a[1]) == 1


def test_a_promise_the_model_does_not_read_keeps_every_shape_the_seeds_show():
    stmt = ("There is an integer array nums sorted in ascending order (with distinct values), possibly rotated.\n\n"
            "Constraints:\n\n1 <= nums.length <= 5000\n-10^4 <= nums[i] <= 10^4\nAll values of nums are unique.\n"
            "nums is an ascending array that is possibly rotated.\n")
    assert unread_constraints(stmt) == ["All values of nums are unique.",
                                        "nums is an ascending array that is possibly rotated."]
    assert promises(stmt)
    seeds = [[[4, 5, 6, 7, 0, 1, 2], 0], [[4, 5, 6, 7, 0, 1, 2], 3], [[1], 0]]
    model = FunctionModel.infer(seeds, stmt)
    assert {"rotated ascending", "distinct"} <= {n for _, n in model.invariants.promised.shapes}
    for nums, _ in _draws(model, seeds):
        k = nums.index(min(nums)) if nums else 0
        assert len(set(nums)) == len(nums) and nums[k:] + nums[:k] == sorted(nums) and max(nums, default=0) <= len(nums)
    dup = [[[1, 3, 4, 2, 2]], [[3, 1, 3, 4, 2]], [[3, 3, 3, 3, 3]]]
    p = Promised.mine(dup, 1, "There is only one repeated number in nums, return this repeated number.")
    assert p.holds([[2, 1, 2, 3]]) and not p.holds([[1, 1, 2, 2]]) and not p.holds([[5, 1, 5, 2]])


def test_what_the_statement_says_of_the_answer_is_no_promise_of_the_input():
    assert not promises("It is guaranteed that the answer is unique. Return the k most frequent elements.")
    assert not promises("Constraints:\n1 <= n <= 10^5\nThe answer is guaranteed to fit in a 32-bit integer.\n")
    assert not promises("Constraints:\n1 <= k <= nums.length\nk is in the range [1, the number of unique elements].\n")
    assert promises("You may assume that the majority element always exists in the array.")


def test_a_signature_only_in_the_gold_still_names_the_arguments_for_the_statements_bounds():
    stmt = "Merge all overlapping intervals.\n\nConstraints:\n1 <= intervals.length <= 10^4\n0 <= start_i <= end_i <= 10^4\n"
    gold = "class Solution:\n    def merge(self, intervals: List[List[int]]) -> List[List[int]]:\n        return intervals\n"
    seeds = [[[[1, 3], [2, 6], [8, 10], [15, 18]]], [[[1, 4], [4, 5]]], [[[4, 7], [1, 4]]]]
    assert [] in [a[0] for a in _draws(FunctionModel.infer(seeds, stmt, "Solution.merge"), seeds)]
    model = FunctionModel.infer(seeds, stmt, "Solution.merge", gold)
    assert all(a[0] for a in _draws(model, seeds))


def test_leetcode_constraint_lines_each_give_their_bound():
    from testgen.docspec import arg_bounds

    stmt = ("Constraints:\n\n1 <= nums.length <= 3 * 10^4\n-100 <= nums[i] <= 100\nnums is sorted.\n"
            "1 <= s.length, t.length <= 5 * 10^4\n0 <= a[i], b[i] <= 1000\n1 <= k <= n <= 10^4\n"
            "colors[i] is either 0, 1, or 2.\n")
    b = arg_bounds(stmt, "f", ["nums", "s", "t", "a", "b", "k", "colors"])
    assert (b["nums"].length_lo, b["nums"].length_hi, b["nums"].lo, b["nums"].hi) == (1, 30000, -100, 100)
    assert (b["s"].length_lo, b["t"].length_hi) == (1, 50000) and (b["a"].hi, b["b"].lo) == (1000, 0)
    assert (b["k"].lo, b["k"].hi) == (1, None) and (b["colors"].lo, b["colors"].hi) == (0, 2)


def test_unique_pairs_stay_unique_in_short_lists_when_the_statement_says_so():
    seeds = [[2, [[1, 2]]], [3, [[1, 3], [2, 3]]], [3, [[1, 3], [2, 3], [3, 1]]]]
    stmt = "Return the judge.\n\nConstraints:\n1 <= n <= 1000\nAll the pairs of trust are unique.\n"
    model = FunctionModel.infer(seeds, stmt)
    assert 1 in model.invariants.distinct_args
    assert all(len({tuple(p) for p in a[1]}) == len(a[1]) for a in _draws(model, seeds))


def test_a_binary_search_tree_stays_one_and_its_k_within_its_nodes():
    from testgen.inputs.guarantees import is_search_tree, tree_size

    stmt = ("Given the root of a binary search tree, and an integer k, return the kth smallest value.\n\n"
            "Constraints:\nThe number of nodes in the tree is n.\n1 <= k <= n <= 10^4\n")
    gold = "class Solution:\n    def kthSmallest(self, root: Optional[TreeNode], k: int) -> int:\n        pass\n"
    seeds = [[[3, 1, 4, None, 2], 1], [[5, 3, 6, 2, 4, None, None, 1], 3]]
    model = FunctionModel.infer(seeds, stmt, "Solution.kthSmallest", gold)
    assert model.invariants.guarantees.bst == [0] and model.invariants.trees == [0]
    drawn = _draws(model, seeds)
    assert len(drawn) >= 20 and any(tree_size(a[0]) > 10 for a in drawn)
    assert all(is_search_tree(a[0]) and 1 <= a[1] <= tree_size(a[0]) for a in drawn)
    assert tree_size([None, 3, 1]) == 0 and not is_search_tree([2, 3, 1])


def test_an_int_with_its_own_stated_bound_is_not_made_an_index_of_a_list():
    # both samples rotate by less than the length, but the statement bounds k apart from it: a
    # program without ``k %= n`` is wrong, and only a k past the length shows it
    stmt = ("Given an integer array nums, rotate the array to the right by k steps.\n\nConstraints:\n"
            "1 <= nums.length <= 10^5\n-2^31 <= nums[i] <= 2^31 - 1\n0 <= k <= 10^5\n")
    seeds = [[[1, 2, 3, 4, 5, 6, 7], 3], [[-1, -100, 3, 99], 2]]
    gold = "class Solution:\n    def rotate(self, nums: List[int], k: int) -> None:\n        pass\n"
    model = FunctionModel.infer(seeds, stmt, "Solution.rotate", gold)
    assert model.invariants.index_of == []
    drawn = _draws(model, seeds)
    assert any(a[1] > len(a[0]) for a in drawn) and all(0 <= a[1] <= 10**5 for a in drawn)
    # an index the statement bounds by the list ("0 <= k <= len(arr)") stays one
    stmt = "Return the k largest numbers of arr.\n1. The length of arr is in the range of [1, 1000].\n2. 0 <= k <= len(arr)\n"
    seeds = [[[-3, -4, 5], 3], [[4, -4, 4], 2], [[-3, 2, 1, 2, -1, -2, 1], 1]]
    model = FunctionModel.infer(seeds, stmt, "maximum", "def maximum(arr, k):\n    pass\n")
    assert model.invariants.index_of == [(1, 0)]
    assert all(0 <= a[1] <= len(a[0]) for a in _draws(model, seeds))
