"""Entry points of function-call problems: a plain function (``solve``) or a LeetCode-style
method (``Solution.twoSum``).

A method entry is a first-class kind of the engine itself (``/v1/run`` takes
``entry_point="Solution.twoSum"``): both function-call drivers (the engine's and testgen's
batched harness) call it through ``sandbox/leetcode.py`` — LeetCode's imports in scope, a
fresh ``Solution()`` per call, ``ListNode``/``TreeNode`` arguments built from LeetCode's
encodings where the signature names them, in-place (``-> None``) methods judged by their first
argument. So testgen and ``codetest evaluate`` send the program unchanged.
"""

from __future__ import annotations

import re

from sandbox.leetcode import lc_split_entry as split_entry

ENTRY_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?\Z")

__all__ = ["ENTRY_RE", "split_entry", "function_name", "runnable"]


def function_name(entry: str) -> str:
    """The name the statement's ``def`` line uses (the method for a class entry)."""
    return split_entry(entry)[1]


def runnable(code: str, entry: str) -> tuple[str, str]:
    """(source, entry) for the harness and the engine's function-call mode: both take a
    ``Class.method`` entry as it is."""
    return code, entry
