"""Strings of one shape: digit groups between separators ("09:15", "2024-03-01", "7:05 PM").

A time of day or a date is a string whose every seed has the same pieces: two digits, a colon,
two digits. Drawn as free text ("51:90", "001:5") it leaves the problem's domain, and the gold
answers it somehow (``int("90")`` minutes) where a correct program that reads the fields by
place does not. Where every seed alternates digit groups and separators alike, every value
drawn keeps that shape:

* a digit group as wide as in every seed is written that wide ("05"); one whose width differs
  between seeds ("7:05 PM", "12:30 AM") is written without leading zeros, as the seeds write it;
* a separator is the seeds' text at that place, or one of their texts where they differ (" AM",
  " PM"), so long as one separator at least is the same in every seed (else the strings are
  free text that happens to hold digits);
* each digit group inside its range: one the statement quotes in that shape ("from '00:00' to
  '23:59'"), group by group; else the values the seeds show, from 0 (where a seed has 0) or 1 up
  to the largest seen: the range is not known, so it narrows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from random import Random
from typing import Any, Callable, Optional, Union

Piece = Union[str, tuple[str, ...], "Digits"]  # a separator, one of the seeds' separators there, a digit group
_PIECES = re.compile(r"\d+|\D+")
QUOTED_RANGE = re.compile(r"\b(?:from|between)\s+['\"]([^'\"\n]{1,20})['\"]\s+(?:to|and)\s+['\"]([^'\"\n]{1,20})['\"]",
                           re.I)


@dataclass(frozen=True)
class Digits:
    """A digit group: ``width`` digits, zero-padded (0: as many as the value has, no leading zero),
    its value in [lo, hi]."""

    width: int
    lo: int
    hi: int

    def text(self, v: int) -> str:
        return str(v).zfill(self.width)

    def reads(self, piece: str) -> bool:
        width_ok = len(piece) == self.width if self.width else str(int(piece)) == piece
        return width_ok and self.lo <= int(piece) <= self.hi


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
        """The shape every value has (digit groups and separators alternating alike, one separator
        the same in all), with a digit group and a separator at least (plain numbers are numbers),
        seen at least twice; None where the values differ in shape. ``quoted_ranges``: the
        statement's "from 'A' to 'B'" (``quoted_ranges``)."""
        if len(values) < 2 or not all(isinstance(v, str) and v for v in values):
            return None
        split = [_split(v) for v in values]
        if len({tuple(p.isdigit() for p in ps) for ps in split}) != 1:
            return None
        columns = list(zip(*split))
        digit = [col[0].isdigit() for col in columns]
        if not any(digit) or all(digit) or not any(len(set(col)) == 1 for col, d in zip(columns, digit) if not d):
            return None
        groups = [[int(p) for p in col] for col, d in zip(columns, digit) if d]
        shapes = {_shape(v) for v in values}
        stated = _stated_ends(quoted_ranges, shapes.pop()) if len(shapes) == 1 else None
        if stated is not None and not all(lo <= v <= hi for (lo, hi), vs in zip(stated, groups) for v in vs):
            stated = None  # a range the seeds break was misread
        pieces: list[Piece] = []
        g = 0
        for col, d in zip(columns, digit):
            if not d:
                texts = tuple(dict.fromkeys(col))
                pieces.append(texts[0] if len(texts) == 1 else texts)
                continue
            lo, hi = stated[g] if stated is not None else ((0 if min(groups[g]) == 0 else 1), max(groups[g]))
            widths = {len(p) for p in col}
            pieces.append(Digits(widths.pop() if len(widths) == 1 else 0, lo, hi))
            g += 1
        return cls(pieces)

    def _groups(self) -> list[Digits]:
        return [p for p in self.pieces if isinstance(p, Digits)]

    def _join(self, nums: list[int], pick: Optional[Callable[[int, tuple[str, ...]], str]] = None) -> str:
        """The value of these groups' numbers; a separator of several texts: ``pick(place, texts)``,
        else its first."""
        it = iter(nums)
        return "".join(p if isinstance(p, str) else p.text(next(it)) if isinstance(p, Digits)
                       else (pick(k, p) if pick else p[0]) for k, p in enumerate(self.pieces))

    def random(self, rng: Random) -> str:
        return self._join([rng.randint(g.lo, g.hi) for g in self._groups()], lambda _, texts: rng.choice(texts))

    def boundary(self) -> list[str]:
        gs = self._groups()
        out = [self._join([g.lo for g in gs]), self._join([g.hi for g in gs])]
        for k in range(len(gs)):  # one group at an end, the others at the other
            out.append(self._join([(g.hi if j == k else g.lo) for j, g in enumerate(gs)]))
            out.append(self._join([(g.lo if j == k else g.hi) for j, g in enumerate(gs)]))
        for k, p in enumerate(self.pieces):  # each other text of a separator, the groups at their lows
            if isinstance(p, tuple):
                out += [self._join([g.lo for g in gs], lambda at, texts, k=k, t=t: t if at == k else texts[0])
                        for t in p[1:]]
        return list(dict.fromkeys(out))

    def mutate(self, value: str, rng: Random) -> str:
        """``value`` with one group redrawn (a value of another shape: drawn afresh)."""
        if not self.accepts(value):
            return self.random(rng)
        parts = _split(value)
        at = [k for k, p in enumerate(self.pieces) if isinstance(p, Digits)]
        k = rng.choice(at)
        g = self.pieces[k]
        assert isinstance(g, Digits)
        parts[k] = g.text(rng.randint(g.lo, g.hi))
        return "".join(parts)

    def accepts(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        parts = _split(value)
        return len(parts) == len(self.pieces) and all(
            q.isdigit() and p.reads(q) if isinstance(p, Digits) else q == p if isinstance(p, str) else q in p
            for p, q in zip(self.pieces, parts))


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
