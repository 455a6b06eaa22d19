"""Entry points of function-call problems: a plain function (``solve``) or a LeetCode-style
method (``Solution.twoSum``).

A method entry is a first-class kind: the program is run with the names LeetCode's judge
provides in scope (``List``, ``Optional``, ``collections``, ``heapq``, ``bisect``, ``math``,
...), a fresh ``Solution()`` per call, and the method called with the test's arguments. It is
done by wrapping the source, so the harness and the engine's function-call mode run it
unchanged under the plain name ``ENTRY_SHIM``. Plain functions get no extra imports: a
HumanEval program that forgets ``import math`` is wrong, and stays wrong.
"""

from __future__ import annotations

import re
from typing import Optional

ENTRY_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?\Z")
ENTRY_SHIM = "_codetest_entry"

# What LeetCode's Python 3 judge has imported before the user's code runs.
LEETCODE_PRELUDE = """\
from typing import *
import collections, heapq, bisect, math, itertools, functools, operator, string, re, random
from collections import *
from heapq import *
from bisect import *
from itertools import *
from functools import *
from math import inf
"""


def split_entry(entry: str) -> tuple[Optional[str], str]:
    """``"Solution.twoSum"`` -> ``("Solution", "twoSum")``; ``"solve"`` -> ``(None, "solve")``."""
    if "." in entry:
        cls, meth = entry.split(".", 1)
        return cls, meth
    return None, entry


def function_name(entry: str) -> str:
    """The name the statement's ``def`` line uses (the method for a class entry)."""
    return split_entry(entry)[1]


def runnable(code: str, entry: str) -> tuple[str, str]:
    """(source, name to call) for the harness and the engine's function-call mode."""
    cls, meth = split_entry(entry)
    if cls is None:
        return code, entry
    shim = (f"\n\ndef {ENTRY_SHIM}(*args):\n"
            f"    return {cls}().{meth}(*args)\n")
    return LEETCODE_PRELUDE + code + shim, ENTRY_SHIM
