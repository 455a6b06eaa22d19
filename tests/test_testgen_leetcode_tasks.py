"""Issue 14's LeetCode-style held-out kind, in small: 22 ``class Solution`` problems
(``tests/data/leetcode_tasks.jsonl``), one gold each, correct programs written another way than the
gold and wrong ones. Fourteen (``lc/``) promise their input a shape no type or range says ("exactly
one solution", "the majority element always exists", "every element appears twice except for
one", "n distinct numbers in the range [0, n]", "only one repeated number", "possibly rotated",
"sorted and rotated"); eight more (``ho/``) were written afterwards as a check, and failed 8 of
their 15 correct programs on bounds the statement states in LeetCode's way.

Before ``testgen/inputs/guarantees.py`` and the bound reading of ``testgen/docspec.py``, the
synthesized suites of the first fourteen accepted 7 of 31 correct programs: on a list drawn from
the values' ranges the gold answers something (the XOR of a list with no single element, the
Boyer-Moore candidate of a list with no majority, Floyd's cycle on several repeated values, a
binary search of a list that is no rotation) that a correct program written another way does
not; ``search_insert``'s gold failed its own samples (``bisect.bisect_left`` with LeetCode's
``from bisect import *`` in front of the module's name); ``merge`` got an empty list, which
"1 <= intervals.length" excludes, because the statement shows no signature to name the argument.
The eight: an element bound on the line after a length bound (``-7`` as a price, ``13`` as a
digit), "nums[i] is either 0, 1, or 2", two names under one bound, "All the pairs of trust are
unique" of short lists, "no leading 0's", a binary search tree, and ``k`` past the tree's nodes.
Synthesized through the CLI on a real sandbox and judged with ``codetest evaluate``: every
correct program is accepted and every incorrect one rejected."""

from __future__ import annotations

import json

from conftest import synthesize_and_judge


def test_a_leetcode_style_set_accepts_every_correct_program_written_another_way(tmp_path, cli_state_env):
    report, by_id, suites = synthesize_and_judge(cli_state_env, "leetcode_tasks.jsonl", tmp_path)
    assert len(by_id) == 22 and not report["pooled"]["unjudged_programs"]
    assert report["pooled"]["accepted"] == report["pooled"]["correct"] == 48, \
        {k: p["false_rejects"] for k, p in by_id.items() if p["false_rejects"]}
    assert report["pooled"]["rejected"] == report["pooled"]["incorrect"] == 45, \
        {k: p["missed"] for k, p in by_id.items() if p["missed"]}
    for t in suites["lc/single_number"]["tests"]:  # every value twice but one
        counts = sorted(json.dumps(x) for x in t["args"][0])
        assert sum(1 for x in set(counts) if counts.count(x) == 1) == 1, t
    assert all(t["args"][0] for t in suites["lc/merge_intervals"]["tests"])  # 1 <= intervals.length
    assert all(0 <= d <= 9 for t in suites["ho/plus_one"]["tests"] for d in t["args"][0])  # on the next line
