"""LeetCode-style problems through the engine's own function-call mode (the sandbox under test):
``Solution.method`` entries, ``ListNode``/``TreeNode`` arguments and return values in
LeetCode's encodings, in-place methods, and the same behaviour in testgen's batched harness."""

from __future__ import annotations

import pytest

from sandbox import Limits, RunRequest, TestCase, Verdict
from sandbox.leetcode import LC_PRELUDE, lc_encode, lc_node_classes, lc_prepare, lc_resolve
from testgen.execute import FnProgram, call_function
from testgen.runner import LocalRunner

REVERSE = """\
class Solution:
    def reverseList(self, head: Optional[ListNode]) -> Optional[ListNode]:
        prev = None
        while head:
            head.next, prev, head = prev, head, head.next
        return prev
"""
REVERSE_WRONG = """\
class Solution:
    def reverseList(self, head: Optional[ListNode]) -> Optional[ListNode]:
        return head
"""
INVERT = """\
class Solution:
    def invertTree(self, root: Optional[TreeNode]) -> Optional[TreeNode]:
        if root:
            root.left, root.right = self.invertTree(root.right), self.invertTree(root.left)
        return root
"""
MERGE_K = """\
class Solution:
    def mergeKLists(self, lists: List[Optional[ListNode]]) -> Optional[ListNode]:
        vals = []
        for node in lists:
            while node:
                vals.append(node.val); node = node.next
        dummy = cur = ListNode()
        for v in sorted(vals):
            cur.next = ListNode(v); cur = cur.next
        return dummy.next
"""
# The program's own (old-style, commented-in) ListNode class is the one used.
OWN_CLASS = """\
class ListNode(object):
    def __init__(self, x):
        self.val = x
        self.next = None

class Solution(object):
    def middleNode(self, head):
        \"\"\":type head: ListNode :rtype: ListNode\"\"\"
        slow = fast = head
        while fast and fast.next:
            slow, fast = slow.next, fast.next.next
        return slow
    middleNode.__annotations__ = {"head": "ListNode", "return": "ListNode"}
"""
ROTATE = """\
class Solution:
    def rotate(self, nums: List[int], k: int) -> None:
        k %= len(nums)
        nums[:] = nums[-k:] + nums[:-k]
"""
CYCLE = """\
class Solution:
    def reverseList(self, head: Optional[ListNode]) -> Optional[ListNode]:
        node = head
        while node.next:
            node = node.next
        node.next = head
        return head
"""


def _run(sb, code, entry, cases):
    res = sb.run(RunRequest(language="python", code=code, entry_point=entry,
                            tests=[TestCase(args=a, expected=e) for a, e in cases]))
    return [t.verdict for t in res.tests], res


def test_list_node_arguments_and_return_values(sandbox):
    cases = [([[1, 2, 3, 4, 5]], [5, 4, 3, 2, 1]), ([[]], []), ([[7]], [7])]
    verdicts, res = _run(sandbox, REVERSE, "Solution.reverseList", cases)
    assert verdicts == [Verdict.AC] * 3, res
    verdicts, _ = _run(sandbox, REVERSE_WRONG, "Solution.reverseList", cases)
    assert verdicts == [Verdict.WA, Verdict.AC, Verdict.AC]


def test_tree_node_level_order_both_ways(sandbox):
    cases = [([[4, 2, 7, 1, 3, 6, 9]], [4, 7, 2, 9, 6, 3, 1]), ([[2, 1, 3]], [2, 3, 1]), ([[]], []),
             ([[1, None, 2]], [1, 2]), ([[1, 2, None, 3]], [1, None, 2, None, 3])]
    verdicts, res = _run(sandbox, INVERT, "Solution.invertTree", cases)
    assert verdicts == [Verdict.AC] * len(cases), res


def test_lists_of_list_nodes_and_the_programs_own_class(sandbox):
    verdicts, res = _run(sandbox, MERGE_K, "Solution.mergeKLists",
                         [([[[1, 4, 5], [1, 3, 4], [2, 6]]], [1, 1, 2, 3, 4, 4, 5, 6]), ([[]], []), ([[[]]], [])])
    assert verdicts == [Verdict.AC] * 3, res
    verdicts, res = _run(sandbox, OWN_CLASS, "Solution.middleNode", [([[1, 2, 3, 4, 5]], [3, 4, 5])])
    assert verdicts == [Verdict.AC], res


def test_in_place_methods_are_judged_by_their_first_argument(sandbox):
    verdicts, res = _run(sandbox, ROTATE, "Solution.rotate", [([[1, 2, 3, 4, 5, 6, 7], 3], [5, 6, 7, 1, 2, 3, 4])])
    assert verdicts == [Verdict.AC], res
    # A plain function that returns None is judged by its None, as before.
    verdicts, _ = _run(sandbox, "def f(a):\n    a.append(1)\n", "f", [([[0]], [0, 1])])
    assert verdicts == [Verdict.WA]


def test_a_cyclic_returned_list_is_the_programs_wrong_answer_not_a_hang(sandbox):
    verdicts, res = _run(sandbox, CYCLE, "Solution.reverseList", [([[1, 2, 3]], [1, 2, 3])])
    assert verdicts[0] in (Verdict.RE, Verdict.WA), res
    assert "cycle" in (res.tests[0].stderr or "") + (res.tests[0].message or ""), res


def test_method_entries_get_leetcode_imports_plain_functions_do_not(sandbox):
    verdicts, _ = _run(sandbox, "class Solution:\n    def f(self, a: List[int]) -> int:\n"
                                "        return len(Counter(a)) + int(inf > 0)\n", "Solution.f", [([[1, 1, 2]], 3)])
    assert verdicts == [Verdict.AC]
    verdicts, _ = _run(sandbox, "def f(a: List[int]) -> int:\n    return len(a)\n", "f", [([[1]], 1)])
    assert verdicts == [Verdict.RE]  # NameError: List, as in plain Python
    verdicts, _ = _run(sandbox, "class Other:\n    pass\n", "Solution.f", [([[1]], 1)])
    assert verdicts == [Verdict.RE]


def test_module_names_and_their_star_imports_are_both_in_scope(sandbox):
    # LeetCode programs write ``bisect.bisect_left`` and ``bisect_left`` alike; ``from bisect
    # import *`` after ``import bisect`` would leave ``bisect`` the function (AttributeError).
    code = ("class Solution:\n    def f(self, a: List[int], t: int) -> int:\n"
            "        assert bisect_left(a, t) == bisect.bisect_left(a, t)\n"
            "        return bisect.bisect_left(a, t) + len(heapq.nsmallest(1, a)) + int(math.isqrt(4))\n")
    verdicts, res = _run(sandbox, code, "Solution.f", [([[1, 3, 5, 6], 5], 5)])
    assert verdicts == [Verdict.AC], res


def test_testgen_harness_calls_the_same_way(sandbox):
    runner = LocalRunner(sandbox)
    inputs = [[[1, 2, 3]], [[]], [[4, 2, 7, 1, 3, 6, 9]]]
    res = call_function(runner, [FnProgram(REVERSE, "Solution.reverseList"), FnProgram(INVERT, "Solution.invertTree")],
                        inputs, Limits(time_s=3))
    rev, inv = res
    assert [r.value for r in rev] == [[3, 2, 1], [], [9, 6, 3, 1, 7, 2, 4]]
    assert [r.value for r in inv] == [[1, 3, 2], [], [4, 7, 2, 9, 6, 3, 1]]


def test_encodings_on_the_host():
    ns: dict = {}
    lc_prepare(ns, "Solution.f")
    exec(compile(LC_PRELUDE, "p", "exec"), ns)
    exec("class Solution:\n    def f(self, t: 'Optional[TreeNode]', ls: 'List[ListNode]') -> 'TreeNode':\n"
         "        return t\n", ns)
    call = lc_resolve(ns, "Solution.f")
    classes = lc_node_classes(ns)
    tree = call([[5, None, 8, 7], [[1], []]])
    assert lc_encode(tree, classes) == [5, None, 8, 7]
    assert lc_encode([tree, None], classes) == [[5, None, 8, 7], None]
    with pytest.raises(AttributeError):
        lc_resolve(ns, "Solution.g")
