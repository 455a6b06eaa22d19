"""An int argument bounded by what another argument holds, as a LeetCode statement writes it.

* From below by a list's length: ``piles.length <= h <= 10^9`` (Koko's hours: at least one per
  pile). Drawn from its range alone, ``h`` fell below the piles' count, an input with no answer;
  the gold returned something, a correct binary search over speeds another.
* From above by the list's number of distinct values: "k is in the range [1, the number of unique
  elements in the array]". Drawn from the seeds (k = 1, 2) and widened, ``k = 0`` asked for the
  0 most frequent values, which correct programs answer as they please.

A bound is kept only where every seed holds it (one the examples break was misread); generated
arguments are repaired to hold it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..constraints import normalize
from .base import Spec
from .guarantees import hashable
from .ints import IntSpec

_DISTINCT_RANGE = (r"\b{k}\s+is\s+in\s+the\s+range\s+\[\s*(\d+)\s*,\s*the\s+number\s+of\s+(?:unique|distinct)\s+"
                   r"(?:elements|values|numbers|integers)\b")


@dataclass
class SizeBounds:
    """``at_least_len``: (i, j, gap), int argument i >= len(argument j) + gap; ``at_most_distinct``:
    (i, j, lo), lo <= int argument i <= the number of distinct values of list argument j."""

    at_least_len: list[tuple[int, int, int]] = field(default_factory=list)
    at_most_distinct: list[tuple[int, int, int]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.at_least_len or self.at_most_distinct)

    @classmethod
    def mine(cls, statement: str, names: list[str], seeds: list[list[Any]], specs: list[Spec]) -> "SizeBounds":
        """The bounds the statement states between ``names``' arguments; a stated lower end
        (``[1, ...]``) becomes that int's spec's lower end."""
        out = cls()
        text = normalize(statement)
        ints = [i for i in range(len(names)) if all(isinstance(s[i], int) and not isinstance(s[i], bool) for s in seeds)]
        seqs = [j for j in range(len(names)) if all(isinstance(s[j], (list, str)) for s in seeds)]
        lists = [j for j in seqs if all(isinstance(s[j], list) for s in seeds)]
        for i in ints:
            k = re.escape(names[i])
            for j in seqs:
                ln = rf"(?:{re.escape(names[j])}\.length|len\(\s*{re.escape(names[j])}\s*\))"
                m = re.search(rf"{ln}\s*(≤|<)\s*{k}\b(?![\[.(])", text)
                gap = 1 if m and m.group(1) == "<" else 0
                if m and all(s[i] >= len(s[j]) + gap for s in seeds):
                    out.at_least_len.append((i, j, gap))
            m = re.search(_DISTINCT_RANGE.format(k=k), text, re.I)
            if m and len(lists) == 1 and all(int(m.group(1)) <= s[i] <= _distinct(s[lists[0]]) for s in seeds):
                out.at_most_distinct.append((i, lists[0], int(m.group(1))))
                spec = specs[i]
                if isinstance(spec, IntSpec):
                    spec.lo, spec.lo_stated = max(spec.lo, int(m.group(1))), True
        return out

    def repair(self, args: list[Any]) -> list[Any]:
        args = list(args)
        for i, j, gap in self.at_least_len:
            if isinstance(args[i], int) and isinstance(args[j], (list, str)):
                args[i] = max(args[i], len(args[j]) + gap)
        for i, j, lo in self.at_most_distinct:
            if isinstance(args[i], int) and isinstance(args[j], list):
                args[i] = max(lo, min(args[i], _distinct(args[j])))
        return args

    def holds(self, args: list[Any]) -> bool:
        """After ``repair``: false where a list has fewer distinct values than the lower end."""
        return all(not isinstance(args[j], list) or _distinct(args[j]) >= lo for _, j, lo in self.at_most_distinct)


def _distinct(values: list[Any]) -> int:
    return len({hashable(x) for x in values})
