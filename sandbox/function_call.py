"""Function-call (HumanEval-style) tasks, host side: ship the driver, read the return value.

The driver (``sandbox/function_driver.py``, shipped as text as ``/prog/main.py``) writes the
entry point's return value as JSON on the jail's private result descriptor. Whatever the
program prints on stdout cannot forge it. The host reads that JSON here with bounded size
and depth: anything the program returns is a value (AC or WA), never an exception of ours.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

# The driver is shipped as one file: the LeetCode support (``Class.method``, ListNode/TreeNode,
# the encoding of values; shared with testgen's harness) and then the driver itself.
LEETCODE_SOURCE = (Path(__file__).with_name("leetcode.py")).read_text(encoding="utf-8")
DRIVER_SOURCE = LEETCODE_SOURCE + "\n" + (Path(__file__).with_name("function_driver.py")).read_text(encoding="utf-8")
DRIVER_NAME, SOLUTION_NAME = "main.py", "solution.py"

MAX_RESULT_BYTES = 16 << 20
MAX_DEPTH = 100


class Unreadable(Exception):
    """The program's return value could not be read as a value: the program's doing (WA)."""


def program_files(code: str) -> dict[str, str]:
    return {SOLUTION_NAME: code, DRIVER_NAME: DRIVER_SOURCE}


def _big_int(s: str) -> int:
    # json's own int() refuses more than 4300 digits; a big int is a legitimate return value.
    return int(s) if len(s) < 4000 else int(Decimal(s))


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON in ``data`` nests [ and { deeper than ``limit`` (or is unbalanced),
    checked before parsing so that a deep value cannot exhaust the parser's recursion. The
    work is done by C loops: strings dropped, the brackets kept, one level of empty pairs
    removed per pass."""
    s = _JSON_STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        if not s:
            return False
        t = s.replace(b"[]", b"").replace(b"{}", b"")
        if len(t) == len(s):
            return True  # unbalanced: not a value at all
        s = t
    return bool(s)


def parse_result(data: bytes, max_bytes: int = MAX_RESULT_BYTES) -> Any:
    """The value the driver wrote; Unreadable when it is too big, too deep or not JSON."""
    data = data.strip()
    if not data:
        raise Unreadable("the function returned nothing (the program exited before returning)")
    if len(data) > max_bytes:
        raise Unreadable(f"the return value is over {max_bytes} bytes of JSON")
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH and too_deep(data):
        raise Unreadable(f"the return value is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(data, parse_int=_big_int)
    except (ValueError, RecursionError, ArithmeticError) as e:
        raise Unreadable(f"the return value could not be read: {type(e).__name__}") from None
