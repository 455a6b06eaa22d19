"""Strings of one fixed shape: digit groups of fixed width between fixed separators ("09:15", "2024-03-01").

A time of day or a date is a string whose every seed has the same pieces: two digits, a colon,
two digits. Drawn as free text ("51:90", "001:5") it leaves the problem's domain, and the gold
answers it somehow (``int("90")`` minutes) where a correct program that reads the fields by
place does not. Where every seed has one shape, every value drawn keeps it, each digit group
inside its range:

* a range the statement quotes in that shape ("from '00:00' to '23:59'"), group by group;
* else the groups' values the seeds show, from 0 (where a seed has 0) or 1 up to the largest seen:
  the range is not known, so it narrows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from random import Random
from typing import Any, Optional, Union

Piece = Union[str, tuple[int, int, int]]  # a separator, or a digit group (width, lo, hi)
_PIECES = re.compile(r"\d+|\D+")
QUOTED_RANGE = re.compile(r"\b(?:from|between)\s+['\"]([^'\"\n]{1,20})['\"]\s+(?:to|and)\s+['\"]([^'\"\n]{1,20})['\"]",
                           re.I)


def _split(value: str) -> list[str]:
    return _PIECES.findall(value)


def _shape(value: str) -> tuple[Any, ...]:
    """The pieces' kinds: a digit group's width, a separator's text."""
    return tuple(len(p) if p.isdigit() else p for p in _split(value))


@dataclass
class Template:
    pieces: list[Piece]

    @classmethod
    def infer(cls, values: list[str], quoted_ranges: tuple[tuple[str, str], ...] = ()) -> Optional["Template"]:
        """The shape every value has, with a digit group and a separator at least (plain numbers
        are numbers), seen at least twice; None where the values differ in shape.
        ``quoted_ranges``: the statement's "from 'A' to 'B'" (``quoted_ranges``)."""
        if len(values) < 2 or not all(isinstance(v, str) and v for v in values):
            return None
        shapes = {_shape(v) for v in values}
        if len(shapes) != 1:
            return None
        shape = shapes.pop()
        if not any(isinstance(p, int) for p in shape) or not any(isinstance(p, str) for p in shape):
            return None
        groups = [[int(_split(v)[k]) for v in values] for k, p in enumerate(shape) if isinstance(p, int)]
        stated = _stated_ends(quoted_ranges, shape)
        if stated is not None and not all(lo <= v <= hi for (lo, hi), vs in zip(stated, groups) for v in vs):
            stated = None  # a range the seeds break was misread
        pieces: list[Piece] = []
        g = 0
        for k, p in enumerate(shape):
            if isinstance(p, str):
                pieces.append(p)
                continue
            if stated is not None:
                lo, hi = stated[g]
            else:
                lo, hi = (0 if min(groups[g]) == 0 else 1), max(groups[g])
            pieces.append((p, lo, hi))
            g += 1
        return cls(pieces)

    def _groups(self) -> list[tuple[int, int, int]]:
        return [p for p in self.pieces if isinstance(p, tuple)]

    def _join(self, nums: list[int]) -> str:
        it = iter(nums)
        return "".join(p if isinstance(p, str) else str(next(it)).zfill(p[0]) for p in self.pieces)

    def random(self, rng: Random) -> str:
        return self._join([rng.randint(lo, hi) for _, lo, hi in self._groups()])

    def boundary(self) -> list[str]:
        gs = self._groups()
        out = [self._join([lo for _, lo, _ in gs]), self._join([hi for _, _, hi in gs])]
        for k in range(len(gs)):  # one group at an end, the others at the other
            out.append(self._join([(g[2] if j == k else g[1]) for j, g in enumerate(gs)]))
            out.append(self._join([(g[1] if j == k else g[2]) for j, g in enumerate(gs)]))
        return list(dict.fromkeys(out))

    def mutate(self, value: str, rng: Random) -> str:
        """``value`` with one group redrawn (a value of another shape: drawn afresh)."""
        if not self.accepts(value):
            return self.random(rng)
        nums = [int(p) for p in _split(value) if p.isdigit()]
        k = rng.randrange(len(nums))
        _, lo, hi = self._groups()[k]
        nums[k] = rng.randint(lo, hi)
        return self._join(nums)

    def accepts(self, value: Any) -> bool:
        if not isinstance(value, str) or _shape(value) != tuple(p if isinstance(p, str) else p[0] for p in self.pieces):
            return False
        nums = [int(p) for p in _split(value) if p.isdigit()]
        return all(lo <= v <= hi for v, (_, lo, hi) in zip(nums, self._groups()))


def quoted_ranges(statement: str) -> tuple[tuple[str, str], ...]:
    """The ranges the statement quotes: "from '00:00' to '23:59'"."""
    return tuple((m.group(1), m.group(2)) for m in QUOTED_RANGE.finditer(statement))


def _stated_ends(ranges: tuple[tuple[str, str], ...], shape: tuple[Any, ...]) -> Optional[list[tuple[int, int]]]:
    """Each digit group's range where the statement quotes the values' range in their shape."""
    for a, b in ranges:
        if _shape(a) == shape == _shape(b):
            lows = [int(p) for p in _split(a) if p.isdigit()]
            highs = [int(p) for p in _split(b) if p.isdigit()]
            if all(lo <= hi for lo, hi in zip(lows, highs)):
                return list(zip(lows, highs))
    return None
