"""A set the rows keep: one format puts a value in, another takes it out, each guaranteed of what
came before.

    ``- a``: segment a is closed; it is guaranteed that segment a was open before.
    ``+ a``: segment a is reopened; it is guaranteed that segment a was closed before.

    "1 x": insert x (x is not in the set);  "2 x": erase x (it is guaranteed that x is in the set).

Rows drawn one by one break such guarantees, and the problem's validator rejects nearly every input
drawn. The statement says which two formats carry a guarantee and which of their values it is
about (the one it names); which of them *puts* a value in is read from the samples: walking each
sample's rows from an empty set, a put needs its value out and puts it in, a take needs it in and
takes it out, and exactly one of the two ways round must keep every row (``read_toggle``). An empty
set at the start holds either way the statement words it: "initially every lamp is on" with "off x
(x is on)" and "on x (x is off)" is an empty set of lamps that are off. Anything else (one guarded
format, a guarantee that names no value or several, both ways round or neither keeping the samples)
is unsure, and the block is not read.

Drawn rows are then walked in order (``Toggle.keep``): a put whose value is held takes another
value of its range, a take whose value is not held takes a held one, and where no value fits (all
held, none held) the row becomes the other format.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Optional

ROW_TRIES = 64  # draws of a value not held before a put becomes a take


@dataclass
class Held:
    """The values in the set, drawable at random and removable in O(1)."""

    items: list[int] = field(default_factory=list)
    at: dict[int, int] = field(default_factory=dict)

    def __contains__(self, v: int) -> bool:
        return v in self.at

    def __len__(self) -> int:
        return len(self.items)

    def add(self, v: int) -> None:
        self.at[v] = len(self.items)
        self.items.append(v)

    def remove(self, v: int) -> None:
        k = self.at.pop(v)
        last = self.items.pop()
        if k < len(self.items):
            self.items[k] = last
            self.at[last] = k


@dataclass
class Toggle:
    """Two formats that keep one set: ``put`` needs its value out of the set and puts it in,
    ``take`` needs it in and takes it out. ``column``: each tag's column of that value (0 is the
    first value after the tag)."""

    put: str
    take: str
    column: dict[str, int]

    def holds(self, rows: list[list[str]]) -> bool:
        """Does every put and take of ``rows`` (tokens, the tag first) keep its guarantee?"""
        held: set[str] = set()
        for r in rows:
            if r[0] == self.put or r[0] == self.take:
                v = r[1 + self.column[r[0]]]
                if (v in held) == (r[0] == self.put):
                    return False
                held ^= {v}
        return True

    def keep(self, rows: list[list[str]], span: tuple[int, int], draw: Callable[[str], Optional[list[str]]],
             rng: random.Random) -> Optional[list[list[str]]]:
        """``rows`` with each put's and take's value changed, or the row turned into the other
        format, where it breaks its guarantee. ``span``: the values' range; ``draw``: a fresh row
        of a tag (tokens), or None. None when a row cannot be drawn."""
        held = Held()
        out = []
        for r in rows:
            if r[0] != self.put and r[0] != self.take:
                out.append(r)
                continue
            v = _int(r[1 + self.column[r[0]]])
            putting = r[0] == self.put
            if putting and (v is None or v in held):
                v = _free(held, span, rng)
                if v is None:  # every value held: a take instead
                    if not held:
                        return None
                    putting = False
                    r = draw(self.take)
                    v = rng.choice(held.items)
            elif not putting and (v is None or v not in held):
                if held:
                    v = rng.choice(held.items)
                else:  # nothing held: a put instead
                    putting = True
                    r = draw(self.put)
                    v = _free(held, span, rng)
            if r is None or v is None:
                return None
            r = list(r)
            r[1 + self.column[r[0]]] = str(v)
            if putting:
                held.add(v)
            else:
                held.remove(v)
            out.append(r)
        return out


def _int(tok: str) -> Optional[int]:
    try:
        return int(tok)
    except ValueError:
        return None


def _free(held: Held, span: tuple[int, int], rng: random.Random) -> Optional[int]:
    """A value of ``span`` not held, or None when none is found."""
    lo, hi = span
    if hi - lo + 1 <= len(held):
        return None
    for _ in range(ROW_TRIES):
        v = rng.randint(lo, hi)
        if v not in held:
            return v
    if hi - lo + 1 <= 4 * ROW_TRIES:  # a small range nearly full: look at each value
        free = [v for v in range(lo, hi + 1) if v not in held]
        return rng.choice(free) if free else None
    return None


def read_toggle(guarded: dict[str, int], samples: list[list[list[str]]]) -> Optional[Toggle]:
    """The toggle of two guarded formats (``guarded``: tag -> the column its guarantee names) that
    the samples' rows keep exactly one way round, else None."""
    if len(guarded) != 2:
        return None
    a, b = guarded
    ways = [Toggle(a, b, dict(guarded)), Toggle(b, a, dict(guarded))]
    keeping = [t for t in ways if all(t.holds(s) for s in samples)]
    return keeping[0] if len(keeping) == 1 else None

