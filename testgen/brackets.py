"""Balanced bracket words: a word of a stdin layout that is a balanced sequence of brackets in
every sample (and the statement says "balanced", or three samples show it) is generated
balanced, in the shapes that matter: deeply nested, flat, and random.

Any word drawn for such a slot (random, boundary, stress, mutated) is turned into a balanced
one of its length (an odd length one shorter): a word of one opening bracket repeated becomes
fully nested, one of a closing bracket flat ``()()()``, anything else a random balanced word.
"""

from __future__ import annotations

import random
import re
import zlib
from typing import Optional

PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_SAYS = re.compile(r"\b(balanced|well[- ]formed|properly nested|(?:regular|correct|valid) bracket)", re.I)
MIN_SEEN = 3  # balanced words that, without the statement saying so, make a slot balanced


def is_balanced(s: str) -> bool:
    stack: list[str] = []
    for ch in s:
        if ch in PAIRS:
            stack.append(PAIRS[ch])
        elif not stack or stack.pop() != ch:
            return False
    return not stack and bool(s)


def balanced_pairs(words: list[str], statement: str) -> Optional[str]:
    """The opening brackets used when every word is balanced (and it is evidence enough), else None."""
    words = [w for w in words if w]
    if len(words) < 2 or not all(is_balanced(w) for w in words):
        return None
    if not _SAYS.search(statement) and len(set(words)) < MIN_SEEN:
        return None
    return "".join(sorted({ch for w in words for ch in w if ch in PAIRS}))


def make_balanced(s: str, openers: str) -> str:
    """A balanced word as long as ``s`` (even, at least 2), its shape taken from ``s``."""
    if is_balanced(s):
        return s
    n = max(2, len(s) - len(s) % 2)
    rng = random.Random(zlib.crc32(s.encode()))
    if s and set(s) <= set(openers):  # nested
        o = s[0]
        return o * (n // 2) + PAIRS[o] * (n // 2)
    if s and set(s) <= set(PAIRS.values()):  # flat
        o = next(k for k, v in PAIRS.items() if v == s[0]) if s[0] in PAIRS.values() else openers[0]
        return (o + PAIRS[o]) * (n // 2)
    out: list[str] = []
    stack: list[str] = []
    opens = n // 2
    for k in range(n):
        left = n - k
        if opens and (not stack or (len(stack) < left - 1 and rng.random() < 0.5)):
            o = rng.choice(openers)
            out.append(o)
            stack.append(PAIRS[o])
            opens -= 1
        else:
            out.append(stack.pop())
    return "".join(out)
