"""Strings that match a regular expression, of a length the caller may ask for.

A checktestdata grammar reads words with ``REGEX("[a-z]+", s)`` and often bounds their length
in an assertion right after (``ASSERT(STRLEN(s) == n)``); the grammar's generating library
(``library.py``) draws such a word here. The pattern is walked in Python's own parse tree (``re._parser``): literals, classes,
alternatives, groups and repeats. A length asked for is spread over the repeats; the result
is checked against the pattern, and None means no string was found (the caller retries).

Characters: a class's punctuation that the problem's own examples never show is left out while
other characters remain (``[L|R]`` is a jury's slip for ``[LR]`` more often than a promise
that ``|`` is valid input: when unsure, narrow).
"""

from __future__ import annotations

import random
import re
import re._constants as C  # noqa: N812 - the parser's opcode names
import re._parser as sre
from typing import Optional

UNBOUNDED = 10 ** 9  # an open repeat (``*``, ``+``) counts as this long at most
_ANY = [chr(c) for c in range(0x21, 0x7F)]  # what ``.`` draws from: printable, no blanks
_CATEGORIES = {
    C.CATEGORY_DIGIT: "0123456789",
    C.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    C.CATEGORY_SPACE: " ",
}


class Unsupported(ValueError):
    """A pattern feature this generator does not produce (a back-reference, a look-around)."""


def _class_chars(items: list, seen: frozenset) -> list[str]:
    chars: list[str] = []
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            chars.append(chr(av))
        elif op is C.RANGE:
            chars.extend(chr(c) for c in range(av[0], av[1] + 1))
        elif op is C.CATEGORY and av in _CATEGORIES:
            chars.extend(_CATEGORIES[av])
        else:
            raise Unsupported(f"class item {op}")
    if negate:
        excluded = set(chars)
        chars = [c for c in _ANY if c not in excluded]
    plain = [c for c in chars if c.isalnum() or c in seen]
    return plain or chars


class _Node:
    """A parsed piece: how short and how long it can be, and how to draw one of a given length."""

    def __init__(self, op, av, seen: frozenset):
        self.op, self.seen = op, seen
        if op is C.LITERAL:
            self.text, self.lo, self.hi = chr(av), 1, 1
        elif op is C.IN:
            self.chars, self.lo, self.hi = _class_chars(av, seen), 1, 1
        elif op is C.ANY:
            self.chars, self.lo, self.hi = _ANY, 1, 1
        elif op is C.CATEGORY:
            self.chars, self.lo, self.hi = list(_CATEGORIES.get(av, "")), 1, 1
            if not self.chars:
                raise Unsupported(f"category {av}")
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            rmin, rmax, sub = av
            self.rmin, self.rmax = rmin, (UNBOUNDED if rmax is C.MAXREPEAT else rmax)
            self.sub = _Seq(sub, seen)
            self.lo = self.rmin * self.sub.lo
            self.hi = min(UNBOUNDED, self.rmax * self.sub.hi)
        elif op is C.SUBPATTERN:
            self.sub = _Seq(av[-1], seen)
            self.lo, self.hi = self.sub.lo, self.sub.hi
        elif op is C.BRANCH:
            self.alts = [_Seq(a, seen) for a in av[1]]
            self.lo = min(a.lo for a in self.alts)
            self.hi = max(a.hi for a in self.alts)
        elif op is C.AT:
            self.lo = self.hi = 0
        else:
            raise Unsupported(str(op))

    def draw(self, n: int, rng: random.Random) -> str:
        op = self.op
        if op is C.LITERAL:
            return self.text
        if op in (C.IN, C.ANY, C.CATEGORY):
            return rng.choice(self.chars)
        if op is C.AT:
            return ""
        if op is C.SUBPATTERN:
            return self.sub.draw(n, rng)
        if op is C.BRANCH:
            fits = [a for a in self.alts if a.lo <= n <= a.hi] or self.alts
            return rng.choice(fits).draw(n, rng)
        # a repeat: as many copies as the length allows, each of about an even share
        sub = self.sub
        if sub.hi == 0:
            return ""
        k_lo = max(self.rmin, -(-n // sub.hi))
        k_hi = min(self.rmax, n // sub.lo if sub.lo else max(self.rmin, n))
        k = max(self.rmin, min(k_hi, k_lo if sub.lo == sub.hi else rng.randint(k_lo, max(k_lo, k_hi))))
        if k == 0:
            return ""
        if len(sub.nodes) == 1 and sub.nodes[0].op in (C.IN, C.ANY, C.CATEGORY):  # [a-z]{k}: at once
            return "".join(rng.choices(sub.nodes[0].chars, k=k))
        parts, left = [], n
        for j in range(k):
            share = left // (k - j)
            piece = sub.draw(max(sub.lo, min(sub.hi, share)), rng)
            parts.append(piece)
            left -= len(piece)
        return "".join(parts)


class _Seq:
    def __init__(self, items, seen: frozenset):
        self.nodes = [_Node(op, av, seen) for op, av in items]
        self.lo = sum(x.lo for x in self.nodes)
        self.hi = min(UNBOUNDED, sum(x.hi for x in self.nodes))

    def draw(self, n: int, rng: random.Random) -> str:
        """About ``n`` characters: the length above the pieces' minimum spread at random."""
        n = max(self.lo, min(self.hi, n))
        lengths = [x.lo for x in self.nodes]
        extra = n - self.lo
        open_ = [i for i, x in enumerate(self.nodes) if x.hi > x.lo]
        while extra > 0 and open_:
            i = rng.choice(open_)
            room = self.nodes[i].hi - lengths[i]
            step = min(room, max(1, extra // len(open_)) if len(open_) > 1 else extra)
            lengths[i] += step
            extra -= step
            if lengths[i] >= self.nodes[i].hi:
                open_.remove(i)
        return "".join(x.draw(m, rng) for x, m in zip(self.nodes, lengths))


class _OneLetter:
    """A random source whose every choice among characters (and alternatives) is the first or
    the last: a word of one letter, the worst case of naive string matching."""

    def __init__(self, rng: random.Random, last: bool):
        self._rng, self._at = rng, -1 if last else 0

    def choice(self, seq):
        return seq[self._at]

    def choices(self, seq, k: int = 1):
        return [seq[self._at]] * k

    def __getattr__(self, name: str):
        return getattr(self._rng, name)


class _Periodic:
    """A random source whose choices among characters repeat with a short period: the k-th
    character drawn is the (k mod p)-th of a block chosen once, so a word of one character class
    repeats a block of p letters (``abcabc...``), the worst case of the string algorithms that are
    quadratic only on repetition. Other choices (alternatives, lengths) stay random."""

    def __init__(self, rng: random.Random, period: int):
        self._rng, self._period, self._seed, self._k = rng, period, rng.random(), 0
        self._blocks: dict[int, list[str]] = {}

    def _block(self, seq) -> list[str]:
        """The block for this class: ``period`` of its characters, distinct while it has enough."""
        got = self._blocks.get(id(seq))
        if got is None:
            order = list(seq)
            random.Random(self._seed).shuffle(order)
            got = self._blocks[id(seq)] = [order[j % len(order)] for j in range(self._period)]
        return got

    @staticmethod
    def _letters(seq) -> bool:
        return bool(seq) and isinstance(seq[0], str)

    def choice(self, seq):
        if not self._letters(seq):
            return self._rng.choice(seq)
        return self.choices(seq)[0]

    def choices(self, seq, k: int = 1):
        if not self._letters(seq):
            return self._rng.choices(seq, k=k)
        p, block = self._period, self._block(seq)
        start, self._k = self._k % p, self._k + k
        return ((block[start:] + block[:start]) * (k // p + 1))[:k]

    def __getattr__(self, name: str):
        return getattr(self._rng, name)


class Pattern:
    """A compiled generator for one regular expression (``str`` or ``bytes`` source)."""

    def __init__(self, pattern, seen: str = ""):
        source = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
        self.regex = re.compile(source, re.DOTALL)
        self.seq = _Seq(sre.parse(source, re.DOTALL), frozenset(seen))

    @property
    def shortest(self) -> int:
        return self.seq.lo

    @property
    def longest(self) -> int:
        return self.seq.hi

    def draw(self, rng: random.Random, length: Optional[int] = None, longest: Optional[int] = None,
             shortest: int = 0, letter: Optional[str] = None, period: Optional[int] = None) -> Optional[str]:
        """A matching string: ``length`` characters when given (else a length in
        [shortest, longest] at random, short ones likelier); with ``letter`` "first" or "last",
        every character the first (last) its class allows; with ``period``, the characters a
        block of that many repeated; None if none was found."""
        if letter is not None:
            rng = _OneLetter(rng, last=letter == "last")  # type: ignore[assignment]
        elif period is not None:
            rng = _Periodic(rng, period)  # type: ignore[assignment]
        lo = max(self.seq.lo, shortest)
        hi = min(self.seq.hi, longest if longest is not None else self.seq.hi)
        if length is not None:
            if not lo <= length <= hi:
                return None
            want = length
        elif lo > hi:
            return None
        else:
            want = rng.randint(lo, min(hi, lo + rng.choice((3, 10, 30))))
        for _ in range(4):
            s = self.seq.draw(want, rng)
            if self.regex.fullmatch(s) and (length is None or len(s) == length) and lo <= len(s) <= hi:
                return s
        return None
