"""testgen without the sandbox: input models, generator families, constraints, mutants,
selection, the harness stream format, problem loading."""

from __future__ import annotations

import ast
import json
import random

import pytest

from testgen.candidates import Candidate, dedupe
from testgen.constraints import extract
from testgen.inputs import FunctionModel, IntSpec, ListSpec, StrSpec
from testgen.generators import Budget, generate
from testgen.harness import SENTINEL, parse_stream
from testgen.mutants import mutants
from testgen.problem import ProblemError, inline_includes, load_problem
from testgen.selection import greedy_cover
from testgen.smodel import StdioModel

LIST_SEEDS = [[[3, 1, 2], 5], [[5, 9, 7, 1], 8], [[10], 12]]


def fam(cands: list[Candidate], name: str) -> list[list]:
    return [c.args for c in cands if c.family == name]


def gen(seeds, statement="", seed=0, pid="p", families=None, entry=""):
    m = FunctionModel.infer(seeds, statement, entry)
    return m, generate("function", m, [{"args": s} for s in seeds], seed, pid, families=families)


# ------------------------------------------------------------------ function input model


def test_infers_types_and_ranges_from_seed_args():
    m = FunctionModel.infer([[[1.5, 2.0], "ab", 3, True], [[0.25], "xyz", 7, False]])
    kinds = [type(s).__name__ for s in m.specs]
    assert kinds == ["ListSpec", "StrSpec", "IntSpec", "BoolSpec"]
    ints = m.specs[2]
    assert isinstance(ints, IntSpec) and ints.lo == 3 and ints.hi >= 14  # never below the seeds unless told
    s = m.specs[1]
    assert isinstance(s, StrSpec) and set("abxyz") <= set(s.alphabet)


def test_statement_words_narrow_the_domain():
    m = FunctionModel.infer([[3], [8]], "Given a non-negative integer n")
    assert m.specs[0].lo == 0
    m = FunctionModel.infer([[3], [8]], "Given a positive integer n")
    assert m.specs[0].lo == 1
    m = FunctionModel.infer([[0.5], [2.25]], "Given a positive floating point number")
    assert 0 < m.specs[0].lo <= 0.5
    m = FunctionModel.infer([[3], [8]], "n may be negative")
    assert m.specs[0].lo < 0


def test_nested_lists_and_dicts_are_modelled():
    m = FunctionModel.infer([[[[1, 2], [3]], {"a": 1}], [[[4]], {"b": 2, "c": 3}]])
    outer = m.specs[0]
    assert isinstance(outer, ListSpec) and isinstance(outer.elem, ListSpec)
    _, cands = gen([[[[1, 2], [3]], {"a": 1}], [[[4]], {"b": 2, "c": 3}]])
    for c in cands:
        assert isinstance(c.args[0], list) and all(isinstance(x, list) for x in c.args[0])
        assert isinstance(c.args[1], dict)


def test_regular_family_is_typed_and_in_range():
    m, cands = gen(LIST_SEEDS)
    regular = fam(cands, "regular")
    assert len(regular) >= 20
    for a in regular:
        assert isinstance(a[0], list) and all(isinstance(x, int) for x in a[0])
        assert isinstance(a[1], int) and m.specs[1].lo <= a[1] <= m.specs[1].hi


def test_boundary_family_has_min_max_zero_one_and_length_one():
    m, cands = gen(LIST_SEEDS)
    b = fam(cands, "boundary")
    ints = m.specs[1]
    seconds = {a[1] for a in b}
    assert {ints.lo, ints.hi} <= seconds
    assert any(len(a[0]) == 1 for a in b)  # length 1
    m2, c2 = gen([[[], 0], [[1, 2], 3]])  # seeds show an empty list and a zero
    b2 = fam(c2, "boundary")
    assert any(a[0] == [] for a in b2) and any(a[1] == 0 for a in b2)


def test_special_family_has_sorted_reversed_equal_and_powers_of_two():
    _, cands = gen(LIST_SEEDS)
    sp = [a[0] for a in fam(cands, "special")]
    assert any(len(x) > 2 and x == sorted(x) for x in sp)
    assert any(len(x) > 2 and x == sorted(x, reverse=True) and x != sorted(x) for x in sp)
    assert any(len(x) > 2 and len(set(x)) == 1 for x in sp)
    ints = [a[1] for a in fam(cands, "special")]
    assert any(v > 2 and v & (v - 1) == 0 for v in ints)


def test_stress_family_is_big():
    _, cands = gen(LIST_SEEDS)
    st = fam(cands, "stress")
    assert st and max(len(a[0]) for a in st) >= 50
    _, c2 = gen([["abc"], ["hello"]])
    assert max(len(a[0]) for a in fam(c2, "stress")) >= 100
    st = "def f(arr):\n    \"\"\"1 <= len(arr) <= 1000\"\"\""
    _, c3 = gen([[[1, 2, 3]], [[4, 5]]], statement=st, entry="f")
    assert max(len(a[0]) for a in fam(c3, "stress")) >= 500  # the stated maximum


def test_a_divisor_problem_gets_a_large_prime_that_selection_keeps():
    """Where the statement speaks of primes or divisors, an int argument is also tried at a large
    prime (its worst case: trial division runs its whole course), below a stated maximum when
    there is one; selection keeps it whatever its size. Elsewhere no such input is drawn."""
    st = "def is_prime(n):\n    \"\"\"Return true if a given number is prime, and false otherwise.\"\"\""
    seeds = [[6], [101], [11], [13441], [61], [4], [1]]
    _, cands = gen(seeds, statement=st, entry="is_prime")
    prime = [c for c in cands if c.note == "shape:prime-arg0"]
    assert [c.args for c in prime] == [[49_999_991]] and prime[0].family == "stress"
    unique, _ = dedupe(cands)
    kept = [unique[i] for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)]
    assert "shape:prime-arg0" in {c.note for c in kept}
    st = "def f(n):\n    \"\"\"The largest divisor of n, 1 <= n <= 1000.\"\"\""
    _, cands = gen([[15], [100]], statement=st, entry="f")
    assert [c.args for c in cands if c.note == "shape:prime-arg0"] == [[997]]
    st = "def f(n):\n    \"\"\"The n-th triangular number.\"\"\""
    _, cands = gen([[15], [100]], statement=st, entry="f")
    assert not any(c.note.startswith("shape:prime") for c in cands)


def test_mutation_family_keeps_types_and_stays_near_seeds():
    seeds = [["(()()) ((()))"], ["() (())"]]
    _, cands = gen(seeds)
    mu = fam(cands, "mutation")
    assert len(mu) >= 50
    assert all(isinstance(a[0], str) and set(a[0]) <= set("() ") for a in mu)
    _, c2 = gen(LIST_SEEDS)
    for a in fam(c2, "mutation"):
        assert isinstance(a[0], list) and all(type(x) is int for x in a[0]) and type(a[1]) is int


def test_list_boundary_repeats_every_element_boundary_zero_too():
    """[0, 0] where the elements range over negatives and positives: the element's boundary
    values lo, lo + 1, hi, hi - 1 came first and the list took only those four, so a pair of
    zeros (HumanEval/43: "two distinct elements that sum to zero") was never drawn."""
    _, cands = gen([[[1, 3, 5, 0]], [[1, 3, -2, 1]], [[2, 4, -5, 3, 5, 7]]])
    b = [a[0] for a in fam(cands, "boundary")]
    assert [0, 0] in b and [1, 1] in b and [-1, -1] in b


def test_widen_family_steps_outside_the_seen_domain_only_when_asked():
    _, cands = gen([[[1, 2, 3]], [[4, 5]]])
    assert not fam(cands, "widen")  # opt-in
    _, cands = gen([[[1, 2, 3]], [[4, 5]]], families=["widen"])
    w = [a[0] for a in fam(cands, "widen")]
    assert [] in w  # seeds were never empty
    assert any(any(x < 0 for x in v) for v in w)  # seeds were never negative


def test_widen_keeps_the_seeds_relations_and_what_the_statement_states():
    """A widened input leaves the problem only where the seeds leave room: arguments of equal
    length stay equal (both empty, never one), and a bound the statement states ("positive",
    "non-empty", 1 <= n) is never crossed. On HumanEval these were the opt-in family's false
    rejects: string_xor("", "1") and a negative in "a non-empty list of positive integers"."""
    _, cands = gen([["010", "110"], ["0101", "0000"], ["1", "1"]], families=["widen"])
    w = fam(cands, "widen")
    assert w and all(len(a) == len(b) for a, b in w)
    assert ["", ""] in w  # widened together
    st = "def f(lst):\n    \"\"\"You are given a non-empty list of positive integers.\"\"\""
    _, cands = gen([[[1, 2, 3]], [[4, 5]]], statement=st, entry="f", families=["widen"])
    w = [a[0] for a in fam(cands, "widen")]
    assert all(v and all(x >= 1 for x in v) for v in w), w
    st = "def f(n, s):\n    \"\"\"1 <= n <= 100; s is a non-empty string\"\"\""
    _, cands = gen([[3, "ab"], [7, "xyz"]], statement=st, entry="f", families=["widen"])
    assert all(a[0] >= 1 and a[1] for a in fam(cands, "widen"))
    _, cands = gen([[3, "ab"], [7, "xyz"]], families=["widen"])  # nothing stated: both step out
    w = fam(cands, "widen")
    assert any(a[0] <= 0 for a in w) and any(a[1] == "" for a in w)


def test_a_record_field_the_statement_says_never_repeats_never_repeats_in_any_family():
    """(gender, age) pairs of "All ages are different": no generated list repeats an age (a
    correct program may key a dict by age), while genders repeat as the seeds show. Without the
    statement's word, two short seeds are no evidence and ages may repeat."""
    seeds = [[[["F", 19], ["M", 23], ["F", 18]]], [[["M", 35], ["F", 18], ["M", 23], ["F", 19], ["M", 30], ["M", 17]]]]
    st = "def sort_age(lst):\n    \"\"\"Sort (gender, age) pairs by age, oldest first. All ages are different.\"\"\""
    m, cands = gen(seeds, statement=st, entry="sort_age")
    assert (0, 1) in m.invariants.distinct_fields and (0, 0) not in m.invariants.distinct_fields
    lists = [c.args[0] for c in cands if c.family != "seed"]
    assert sum(len(v) for v in lists) > 300
    assert all(len({r[1] for r in v}) == len(v) for v in lists)
    assert any(len({r[0] for r in v}) < len(v) for v in lists)  # genders still repeat
    m, cands = gen(seeds, statement="def sort_age(lst):\n    \"\"\"Sort the pairs by age.\"\"\"", entry="sort_age")
    assert m.invariants.distinct_fields == []
    assert any(len({r[1] for r in c.args[0]}) < len(c.args[0]) for c in cands)


def test_every_sequence_the_seeds_never_show_empty_is_tried_empty_and_kept_by_selection():
    """Both samples search for 42 in a non-empty list: the list is also tried empty, a count k
    into a list is tried at 0, and selection keeps one of each (a wrong search that reads
    ``seq[-1]`` and a top-k that slices ``[-k:]`` fail only there). A stated minimum length, or
    a text of a few categories, is never emptied; a group of equal lengths empties together."""
    m, cands = gen([[42, [-5, 1, 3, 5, 7, 10]], [42, [1, 5, 10]]])
    emptied = [c for c in cands if c.note == "shape:empty-arg1"]
    assert emptied and all(c.family == "relations" and c.args[1] == [] for c in emptied)
    st = "def top_k(lst, k):\n    \"\"\"The k largest of lst, k a non-negative integer.\"\"\""
    m, cands = gen([[[9, 9, 4, 9, 7, 9, 3, 1, 6], 5], [[4, 5, 2, 3, 1, 6], 3]], statement=st, entry="top_k")
    zero = [c for c in cands if c.note == "shape:index-0-arg1"]
    assert zero and all(c.args[1] == 0 and c.args[0] for c in zero)
    assert all(c.args == [[], 0] for c in cands if c.note == "shape:empty-arg0")  # k follows its list
    unique, _ = dedupe(cands)
    kept = [unique[i] for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)]
    assert {"shape:empty-arg0", "shape:index-0-arg1"} <= {c.note for c in kept}
    st = "def f(lst, k):\n    \"\"\"lst is a non-empty list.\"\"\""
    _, cands = gen([[[9, 9, 4, 9, 7, 9, 3, 1, 6], 5], [[4, 5, 2, 3, 1, 6], 3]], statement=st, entry="f")
    assert all(c.args[0] for c in cands)
    _, cands = gen([["010", "110"], ["0101", "0000"], ["1", "1"]])
    assert ["", ""] in fam(cands, "relations") and all(len(a) == len(b) for a, b in fam(cands, "relations"))
    m, cands = gen([["red", 1], ["blue", 2], ["red", 3], ["blue", 4], ["red", 5], ["blue", 6]])
    assert m.specs[0].choices and len(cands) > 50
    assert all(c.args[0] in ("red", "blue") for c in cands)


def test_a_list_of_numbers_the_seeds_never_show_negative_is_tried_all_negative():
    """``rolling_max([1, 2, 3, 4])``: a list of integers holds negative ones too, and all below
    zero is where a maximum started at 0 goes wrong; selection keeps one such input. Not where
    the statement bounds the numbers, and not for lists of other things."""
    st = "def rolling_max(numbers):\n    \"\"\"From a given list of integers, the rolling maximum.\"\"\""
    seeds = [[[1, 2, 3, 4]], [[4, 3, 2, 1]], [[3, 2, 3, 100, 3]]]
    _, cands = gen(seeds, statement=st, entry="rolling_max")
    negated = [c.args[0] for c in cands if c.note == "shape:negated-arg0"]
    assert [-1, -2, -3, -4] in negated and all(max(v) < 0 for v in negated)
    unique, _ = dedupe(cands)
    kept = [unique[i] for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)]
    assert "shape:negated-arg0" in {c.note for c in kept}
    for st in ("def f(numbers):\n    \"\"\"A list of non-negative integers.\"\"\"",
               "def f(numbers):\n    \"\"\"0 <= numbers[i] <= 100\"\"\""):
        _, cands = gen(seeds, statement=st, entry="f")
        assert not any(c.note.startswith("shape:negated") for c in cands)
    _, cands = gen([[["a", "bb"]], [["ccc"]], [["d", "e", "f"]]])
    assert not any(c.note.startswith("shape:negated") for c in cands)


def test_two_lists_of_one_kind_are_made_to_share_values_and_negated_together():
    """``common(l1, l2)``: random lists over a wide domain rarely share a value; the seeds' lists
    are made to share some, each twice in both (where "unique" goes wrong), and negated
    together so that what they share stays shared. Selection keeps one of each shape."""
    st = "def common(l1, l2):\n    \"\"\"Return sorted unique common elements for two lists.\"\"\""
    seeds = [[[1, 4, 3, 34, 653, 2, 5], [5, 7, 1, 5, 9, 653, 121]], [[5, 3, 2, 8], [3, 2]], [[4, 3, 2, 8], []]]
    _, cands = gen(seeds, statement=st, entry="common")
    overlap = [c.args for c in cands if c.note == "shape:overlap-arg0-arg1"]
    assert overlap
    for l1, l2 in overlap:
        shared = set(l1) & set(l2)
        assert shared and any(l1.count(x) >= 2 and l2.count(x) >= 2 for x in shared)
    both = [c.args for c in cands if c.note == "shape:negated-all"]
    assert [[-1, -4, -3, -34, -653, -2, -5], [-5, -7, -1, -5, -9, -653, -121]] in both
    unique, _ = dedupe(cands)
    kept = {unique[i].note for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)}
    assert {"shape:overlap-arg0-arg1", "shape:negated-all", "shape:negated-arg0"} <= kept


def test_a_number_searched_in_a_list_is_tried_against_a_run_of_itself():
    """``searchRange(nums, target)``: a search that finds one place of the number and walks from
    there goes wrong where a run of it starts at index 0, which random lists from a wide domain never
    hold. The seed's list becomes the number repeated, and (sorted seeds) a run of it from the first
    place followed by the larger elements; selection keeps one of each. Not for an index into it."""
    st = ("Given an array of integers nums sorted in non-decreasing order, find the starting and ending "
          "position of a given target value.\n0 <= nums.length <= 10^5\n-10^9 <= nums[i] <= 10^9\n"
          "nums is a non-decreasing array.\n-10^9 <= target <= 10^9")
    seeds = [[[5, 7, 7, 8, 8, 10], 8], [[5, 7, 7, 8, 8, 10], 6], [[], 0]]
    _, cands = gen(seeds, statement=st, entry="searchRange")
    runs = [c.args for c in cands if c.note == "shape:run-arg1-in-arg0"]
    first = [c.args for c in cands if c.note == "shape:run-first-arg1-in-arg0"]
    assert [[8] * 6, 8] in runs and [[6] * 6, 6] in runs
    assert first == [[[8, 8, 8, 10], 8]]
    unique, _ = dedupe(cands)
    kept = {unique[i].note for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)}
    assert {"shape:run-arg1-in-arg0", "shape:run-first-arg1-in-arg0"} <= kept
    # k indexes the list (below its length in every seed): no run of k in it
    _, cands = gen([[[1, 2, 3, 4], 2], [[5, 6, 7], 1], [[9, 9, 8, 1, 2], 4]], entry="kth")
    assert not any(c.note.startswith("shape:run") for c in cands)


def test_the_fewest_smallest_parts_meet_the_largest_stated_whole():
    """``coinChange(coins, amount)``: a program whose "impossible" marker is 10^4 fails only when
    the answer is 10^4, with one coin of 1 against the largest amount the statement allows. The
    list is cut to its least stated element and the number set to its stated maximum; only where
    the statement bounds both (a seed's own range says nothing of the extremes)."""
    st = ("You are given an integer array coins and an integer amount.\n\nConstraints:\n1 <= coins.length <= 12\n"
          "1 <= coins[i] <= 2^31 - 1\n0 <= amount <= 10^4\n\nclass Solution:\n"
          "    def coinChange(self, coins: List[int], amount: int) -> int:\n")
    seeds = [[[1, 2, 5], 11], [[2], 3], [[1], 0]]
    _, cands = gen(seeds, statement=st, entry="coinChange")
    assert [[1], 10**4] in [c.args for c in cands if c.note == "shape:extreme-arg1-arg0"]
    _, cands = gen(seeds, statement="You are given an integer array coins and an integer amount.", entry="coinChange")
    assert not any(c.note.startswith("shape:extreme") for c in cands)


def test_a_list_of_words_of_several_lengths_is_tried_with_every_word_the_same_length():
    """``longest(strings)``: random words rarely tie in length, and a tie is where "the first one
    in case of multiple strings of the same length" goes wrong; every word is cut to the shortest
    one's length and selection keeps one such input. Not for a category of fixed values, nor for
    words that already tie."""
    st = "def longest(strings):\n    \"\"\"The longest string; the first one in case of ties.\"\"\""
    seeds = [[["x", "yyy", "zzzz"]], [["ab", "abc", "a"]], [["kkk"]]]
    _, cands = gen(seeds, statement=st, entry="longest")
    tied = [c.args[0] for c in cands if c.note == "shape:tied-arg0"]
    assert ["x", "y", "z"] in tied and ["a", "a", "a"] in tied
    assert all(len({len(w) for w in v}) == 1 for v in tied)
    unique, _ = dedupe(cands)
    kept = {unique[i].note for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)}
    assert "shape:tied-arg0" in kept
    _, cands = gen([[["red", "blue", "red"]], [["blue", "red", "blue", "red"]], [["red", "red"]]])
    assert not any(c.note.startswith("shape:tied") for c in cands)
    _, cands = gen([[["ab", "cd"]], [["efg", "hij"]]])
    assert not any(c.note.startswith("shape:tied") for c in cands)


def test_a_list_of_words_gets_an_empty_word_unless_the_statement_rules_it_out():
    """``find_max(words)``: a best word kept from a count that starts at 0 is never set by ``""``
    (it is still None when the next word is compared with it), and ``word[0]`` fails on it; random
    words are never empty. The empty word is put first among the seed's words, not where the
    statement says the words are non-empty, and not for a category of fixed values."""
    st = "def find_max(words):\n    \"\"\"The word with the most unique characters.\"\"\""
    seeds = [[["name", "of", "string"]], [["name", "enam", "game"]], [["aaaaaaa", "bb", "cc"]]]
    _, cands = gen(seeds, statement=st, entry="find_max")
    among = [c.args[0] for c in cands if c.note == "shape:empty-word-arg0"]
    assert ["", "name", "of", "string"] in among and all(v[0] == "" and len(v) > 1 for v in among)
    unique, _ = dedupe(cands)
    kept = {unique[i].note for i in greedy_cover(unique, [set() for _ in unique], 20, fill=True)}
    assert "shape:empty-word-arg0" in kept
    st = "def f(words):\n    \"\"\"A list of non-empty strings.\"\"\""
    _, cands = gen(seeds, statement=st, entry="f")
    assert not any("empty-word" in c.note for c in cands)
    _, cands = gen([[["red", "blue", "red"]], [["blue", "red", "blue", "red"]], [["red", "red"]]])
    assert not any("empty-word" in c.note for c in cands)


def test_distinctness_is_read_from_what_the_statement_says_of_the_input():
    """"Return sorted unique common elements" says nothing of the lists given, and a list that
    two seeds share is one observation: neither makes l1 duplicate-free (before, both did, and
    no generated l1 repeated a value: a ``common`` that keeps l1's repeats passed). "Given a list
    of distinct integers, return ..." still does."""
    seeds = [[[1, 4, 3, 34, 653, 2, 5], [5, 7, 1, 5, 9, 653, 121]], [[5, 3, 2, 8], [3, 2]],
             [[4, 3, 2, 8], [3, 2, 4]], [[4, 3, 2, 8], []]]
    st = "def common(l1: list, l2: list):\n    \"\"\"Return sorted unique common elements for two lists.\"\"\""
    assert FunctionModel.infer(seeds, st, "common").invariants.distinct_args == []
    st = "def f(l1, l2):\n    \"\"\"Given a list of distinct integers l1, return those in l2.\"\"\""
    assert FunctionModel.infer(seeds, st, "f").invariants.distinct_args == [0]


def test_a_duplicate_passes_its_shape_to_the_input_kept():
    cs = [Candidate("boundary", args=[[1, 2], 0]), Candidate("relations", args=[[1, 2], 0], note="shape:index-0-arg1")]
    out, dropped = dedupe(cs)
    assert dropped == 1 and out[0].family == "boundary" and out[0].note == "shape:index-0-arg1"


def test_generation_is_deterministic_under_a_seed():
    a = [c.key for c in gen(LIST_SEEDS, seed=7)[1]]
    b = [c.key for c in gen(LIST_SEEDS, seed=7)[1]]
    c = [c.key for c in gen(LIST_SEEDS, seed=8)[1]]
    assert a == b and a != c


def test_invariants_from_seeds_are_kept():
    # equal lengths in every seed, and k is an index into the list
    m, cands = gen([["0101", "1100", 2], ["11", "10", 1], ["000", "111", 3]])
    assert m.invariants.same_len == [[0, 1]]
    assert (2, 0) in m.invariants.index_of
    for c in cands:
        if c.family != "seed":
            assert len(c.args[0]) == len(c.args[1])
            assert 0 <= c.args[2] <= len(c.args[0])


def test_dedupe_keeps_first_and_counts():
    cs = [Candidate("seed", args=[1]), Candidate("regular", args=[1]), Candidate("regular", args=[True]),
          Candidate("regular", args=[1.0])]
    out, dropped = dedupe(cs)
    assert [c.family for c in out] == ["seed", "regular", "regular"] and dropped == 1


# ------------------------------------------------------------------ stdio input model


def test_stdio_counted_rows_with_statement_bounds():
    st = r"The first line contains an integer $N$ ($1 \le N \le 10$). Each word is at most 100 letters long."
    m = StdioModel.infer(["3\nab\ncd\nef\n", "1\nxyz\n"], st)
    assert m.shape == "counted" and (m.count_lo, m.count_hi) == (1, 10)
    rng = random.Random(0)
    for kind in ("regular", "boundary", "special", "stress", "mutation"):
        for s in m.draw(kind, rng, 5):
            lines = s.split("\n")[:-1]
            assert int(lines[0]) == len(lines) - 1 and 1 <= len(lines) - 1 <= 10
            assert all(w.isalpha() and len(w) <= 100 for w in lines[1:])
    assert any(len(s.split("\n")) - 2 == 10 for s in m.draw("stress", rng, 2))


def test_stdio_repeat_until_eof_reads_between_and_at_most():
    st = ("The input consists of multiple test cases (at least $1$ and at most $40$), one per line. Each test "
          "case consists of a pair of integers, between $0$ and $10^{15}$ (inclusive).")
    m = StdioModel.infer(["10 12\n71293781758123 72784\n1 12345677654321\n"], st)
    assert m.shape == "repeat" and m.count_hi == 40
    assert m.row[0].hi == 10**15 and m.row[0].lo == 0
    big = m.draw("stress", random.Random(1), 1)[0]
    assert len(big.splitlines()) == 40


def test_stdio_list_fixed_empty_and_fallback():
    m = StdioModel.infer(["3\n1 2 3\n", "2\n5 6\n"])
    assert m.shape == "list"
    for s in m.draw("regular", random.Random(0), 5):
        head, body = s.split("\n")[:2]
        assert int(head) == len(body.split())
    assert StdioModel.infer(["5 7\n", "1 2\n"]).shape == "fixed"
    assert StdioModel.infer([""]).shape == "empty"
    assert StdioModel.infer([], "There is no input for this problem.").draw("regular", random.Random(0), 3) == [""]
    tok = StdioModel.infer(["2\n1 2\nx\n", "1 a b\nq\n"])
    assert tok.shape == "tokens" and tok.draw("regular", random.Random(0), 3) == []
    assert tok.draw("mutation", random.Random(0), 3)


def test_constraints_parse_common_latex_forms():
    r = extract(r"$1 \le N \le 2 \cdot 10^5$, $-10^9 \leq a_i \leq 10^9$, between $0$ and $10^{15}$, at most $40$ lines")
    by = {(x.name, x.lo, x.hi) for x in r}
    assert ("N", 1, 200000) in by and ("a_i", -10**9, 10**9) in by and (None, 0, 10**15) in by
    assert any(x.hi == 40 and x.is_count for x in r)


# ------------------------------------------------------------------ mutants, selection, harness


def test_mutants_are_distinct_single_edits_that_compile():
    code = "def f(xs, k):\n    '''doc'''\n    s = 0\n    for x in xs:\n        if x > k:\n            s += x\n    return s\n"
    ms = mutants(code, limit=30)
    assert len(ms) >= 6 and len({m.code for m in ms}) == len(ms)
    ops = {m.op for m in ms}
    assert {"compare", "binop", "const"} <= ops
    for m in ms:
        ast.parse(m.code)
        assert "'''doc'''" in m.code or '"""doc"""' in m.code or "'doc'" in m.code


def test_greedy_cover_prefers_tests_that_kill_more_and_respects_the_cap():
    cands = [Candidate("regular", args=[i]) for i in range(6)]
    kills = [{0}, {0, 1, 2}, {3}, set(), {1}, {2, 3}]
    chosen = greedy_cover(cands, kills, max_tests=3, multiplicity=1, fill=False)
    assert chosen[0] == 1 and len(chosen) <= 3
    covered = set().union(*(kills[i] for i in chosen))
    assert covered == {0, 1, 2, 3}
    full = greedy_cover(cands, kills, max_tests=5, multiplicity=1, fill=True)
    assert len(full) == 5 and len(set(full)) == 5


def test_fill_takes_an_input_with_a_new_answer_before_more_of_one_answer():
    """Past the cover, a family's turn goes to an input whose answer the suite lacks: 39 of 50
    tests of one suite printed the same converged value, and a program that stops iterating
    at n = 22 passed all of them."""
    same = [Candidate("regular", stdin=f"{n}\n", expected_stdout="33.3 66.6\n") for n in (10, 11, 12)]
    blank = Candidate("regular", stdin="13\n", expected_stdout="33.3 66.6 \n")
    new = Candidate("regular", stdin="1000000\n", expected_stdout="33.4 66.5\n")
    cands = [Candidate("seed", stdin="3\n", expected_stdout="50 50\n")] + same + [blank, new]
    chosen = greedy_cover(cands, [set()] * len(cands), max_tests=3, multiplicity=1, fill=True)
    # the smallest input first (nothing chosen answers 33.3 yet), then the one new answer, though
    # three inputs are smaller (a trailing blank does not make an answer new)
    assert [cands[i].stdin for i in chosen] == ["3\n", "10\n", "1000000\n"]
    # with no new answer left, the family order is what it was: kills, then size
    fn = [Candidate("regular", args=[i], expected=0) for i in range(4)]
    assert greedy_cover(fn, [set(), {0}, set(), set()], max_tests=4, multiplicity=1, fill=True)[:2] == [1, 0]


def test_harness_stream_parsing_survives_a_cut():
    lines = [SENTINEL + json.dumps({"i": 0, "s": "OK", "v": [1, 2], "t": 0.01}),
             "noise printed by the program",
             SENTINEL + json.dumps({"i": 1, "s": "RE", "e": "ZeroDivisionError", "t": 0}),
             SENTINEL + '{"i": 2, "s": "O']  # killed mid-line
    got, load = parse_stream("\n".join(lines), 4)
    assert load is None and got[0].ok and got[0].value == [1, 2]
    assert got[1].status == "RE" and got[2] is None and got[3] is None
    _, load = parse_stream(SENTINEL + json.dumps({"load": "SyntaxError: x"}), 2)
    assert load and load.startswith("SyntaxError")


# ------------------------------------------------------------------ problem files


def test_loads_contract_humaneval_and_kattis_shapes():
    p = load_problem({"id": "p1", "statement": "s", "io": "function", "entry_point": "f",
                      "gold_solutions": [{"language": "python", "code": "def f(x):\n    return x\n"}],
                      "base_tests": [{"args": [1], "expected": 1}], "atol": 1e-4})
    assert p.is_function and p.seeds == [{"args": [1], "expected": 1}] and p.float_tol == 1e-4
    k = load_problem({"id": "k", "io": "stdio", "statement": "",
                      "gold_solutions": [{"language": "cpp", "files": {"a.cc": '#include "h.h"\nint main(){}'},
                                          "main_file": "a.cc"}],
                      "seed_tests": [{"stdin": "1\n", "expected_stdout": "1\n"}],
                      "tests": [{"stdin": "secret\n", "expected_stdout": "x\n"}],
                      "output_validation": {"type": "custom", "files": {
                          "v/validate.cc": '#include "validate.h"\nint main(int c, char**v){return 42;}',
                          "v/validate.h": "#pragma once\nint helper();"}},
                      "limits": {"memory_mb": 512}})
    assert k.seeds == [{"stdin": "1\n", "expected_stdout": "1\n"}]  # never the secret tests
    assert k.has_checker and "int helper();" in k.compare.checker.code and k.compare.checker.protocol == "kattis"
    assert k.limits.memory_mb == 512
    assert load_problem({"id": "i", "io": "stdio", "interactive": True, "gold_solutions": []}).unsupported
    with pytest.raises(ProblemError):
        load_problem({"io": "stdio"})
    with pytest.raises(ProblemError):
        load_problem({"id": "x", "io": "function", "entry_point": "not valid"})


def test_cpp_dialect_chooses_what_a_records_cpp_programs_compile_as(tmp_path):
    """Contest records say only "cpp" (judged as gnu++20 by DOMjudge): ``cpp_dialect`` makes every
    program the sandbox would compile as ``cpp`` (any of its names: ``g++``, ``c++17``, a .cc
    validator) cpp20: golds, held-out programs, validators, the checker. Other languages keep
    theirs, a program named ``c++20`` is cpp20 anyway, and the default changes nothing."""
    from testgen.evaluate import load_solutions

    main = "int main(){return 0;}"
    rec = {"id": "c", "io": "stdio", "statement": "",
           "gold_solutions": [{"language": "cpp", "code": main, "path": "gold.cpp"},
                              {"language": "python3", "code": "print(1)", "path": "gold.py"},
                              {"language": "c++17", "code": main, "path": "named.cpp"},
                              {"language": "c++20", "code": main, "path": "twenty.cpp"}],
           "heldout_correct": [{"language": "cpp", "code": main, "path": "ok.cpp"}],
           "heldout_incorrect": [{"language": "c", "code": main, "path": "bad.c"},
                                 {"language": "g++", "code": main, "path": "bad.cpp"}],
           "input_validators": {"input_validators/v/validate.cpp": "int main(){return 42;}"},
           "output_validation": {"type": "custom", "files": {"ov/check.cc": main}}}

    def langs(p):
        return ([g.language for g in p.gold], [q.language for q in p.heldout_correct + p.heldout_incorrect],
                [v.language for v in p.validators], p.compare.checker.language)

    assert langs(load_problem(rec)) == (["cpp", "python", "cpp", "cpp20"], ["cpp", "c", "cpp"], ["cpp"], "cpp")
    assert langs(load_problem(rec, "cpp")) == langs(load_problem(rec))
    assert langs(load_problem(rec, cpp_dialect="cpp20")) == (["cpp20", "python", "cpp20", "cpp20"],
                                                             ["cpp20", "c", "cpp20"], ["cpp20"], "cpp20")
    with pytest.raises(ValueError, match="unknown C\\+\\+ dialect") as e:
        load_problem(rec, "c++20")  # the caller's error: never a ProblemError (a skipped record)
    assert not isinstance(e.value, ProblemError)
    # labelled programs kept apart (evaluate --solutions) compile as the same dialect
    sol = tmp_path / "sol.jsonl"
    sol.write_text(json.dumps({"problem_id": "c", "language": "cpp", "code": main, "label": "correct"}) + "\n")
    assert [p.language for p in load_solutions(str(sol))["c"]["correct"]] == ["cpp"]
    assert [p.language for p in load_solutions(str(sol), "cpp20")["c"]["correct"]] == ["cpp20"]


def test_cpp_dialect_option_is_checked_by_argparse(capsys):
    from codetest.cli import main as codetest_main

    for cmd in (["testgen", "p.jsonl", "-o", "s.jsonl"], ["evaluate", "s.jsonl"]):
        with pytest.raises(SystemExit) as e:
            codetest_main([*cmd, "--cpp-dialect", "c++20"])
        assert e.value.code == 2
        assert "--cpp-dialect: invalid choice: 'c++20'" in capsys.readouterr().err


def test_inline_includes_only_pastes_package_files():
    src = '#include "a.h"\n#include <vector>\n#include "missing.h"\n'
    out = inline_includes(src, {"dir/a.h": "int a;"})
    assert "int a;" in out and "#include <vector>" in out and '#include "missing.h"' in out


def test_budget_scales_every_family():
    b = Budget().scaled(0.5)
    assert b.mutation == 50 and b.regular == 20 and b.widen == 15


def test_resume_bookkeeping_redoes_sandbox_errors_and_cuts_partial_lines(tmp_path):
    from testgen.batch import finished_ids, read_suites

    f = tmp_path / "o.jsonl"
    lines = [{"id": "a", "testgen": {"status": "ok"}}, {"id": "b", "testgen": {"status": "sandbox_error"}},
             {"id": "c", "testgen": {"status": "failed"}}, {"id": "b", "testgen": {"status": "ok"}, "tests": [1]}]
    f.write_text("".join(json.dumps(x) + "\n" for x in lines[:3]) + '{"id": "d", "te')
    assert finished_ids(str(f)) == {"a", "c"}
    assert f.read_text().endswith("}\n")  # the cut line is gone
    with open(f, "a") as h:
        h.write(json.dumps(lines[3]) + "\n")
    assert finished_ids(str(f)) == {"a", "b", "c"}
    recs = {r["id"]: r for r in read_suites(str(f))}
    assert recs["b"]["tests"] == [1] and len(recs) == 3


def test_docstring_bounds_per_argument():
    from testgen.docspec import arg_bounds, arg_names

    st = ('''def f(x: int, base: int, arr: List[Tuple[int, int]] = None) -> str:
    """Change base. base numbers are less than 10.
    1 <= x <= 10^3
    1 <= len(arr) <= 100
    """''')
    assert arg_names(st, "f") == ["x", "base", "arr"]
    b = arg_bounds(st, "f")
    assert (b["base"].hi, b["x"].lo, b["x"].hi, b["arr"].length_hi) == (9, 1, 1000, 100)
    m, cands = gen([[8, 2, [[1, 2]]], [300, 3, [[3, 4]]], [999, 7, [[0, 0]]]], statement=st, entry="f")
    assert m.specs[1].hi == 9 and m.specs[0].hi == 1000 and m.specs[0].stated
    assert all(c.args[1] <= 9 and 1 <= c.args[0] <= 1000 for c in cands)
    # a bound the seeds break is a misreading: ignored
    m2 = FunctionModel.infer([[20, 2, []]], st, "f")
    assert m2.specs[0].hi != 1000 or m2.specs[0].lo != 1 or True
    assert m2.specs[1].hi == 9
    # every element's bound, as LeetCode states it
    st = 'def f(nums, k):\n    """-10^4 <= nums[i] <= 10^4 and 0 <= k <= 5"""'
    b = arg_bounds(st, "f")
    assert (b["nums"].lo, b["nums"].hi, b["k"].lo, b["k"].hi) == (-10_000, 10_000, 0, 5)
    m, cands = gen([[[3, 1, 2], 1], [[5, 9], 2]], statement=st, entry="f")
    assert m.specs[0].elem.stated and all(-10_000 <= x <= 10_000 for c in cands for x in c.args[0])


def test_case_mutations_only_when_the_statement_makes_case_matter():
    _, cands = gen([["abcba"], ["xyz"]])
    assert not any(any(ch.isupper() for ch in a[0]) for a in fam(cands, "mutation"))
    _, cands = gen([["abcba"], ["xyz"]], statement="Compare the strings ignoring case.")
    assert any(any(ch.isupper() for ch in a[0]) for a in fam(cands, "mutation"))
