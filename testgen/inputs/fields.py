"""What a statement says of a record's fields, named LeetCode's way: kept in every input.

``edges[i] = [ai, bi]`` names the fields of ``edges``' records; the constraints then speak of
them by those names: ``0 <= ai, bi < n`` (below another argument), ``ai != bi`` (the fields
differ), ``-5 * 10^4 <= starti < endi <= 5 * 10^4`` (numbers, and one field below the other).
Records drawn from the fields' ranges alone break all three: edges to nodes past ``n``,
self-loops, empty intervals. The gold answers them somehow; a correct program indexes past its
adjacency list or counts an interval it was promised does not exist.

A rule is kept only where every seed's records satisfy it (a rule the examples break was
misread). Generated inputs are repaired to hold them (a field past ``n`` wraps into range; equal
fields are moved apart) and dropped where they cannot be (``holds``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from random import Random
from typing import Any, Optional

from ..constraints import normalize
from .base import kind_of

NAMING = re.compile(r"\b([A-Za-z_]\w*)\[i\]\s*=\s*[\[(]\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*[\])]")
# one record: "an interval newInterval = [start, end]"
NAMING_ONE = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*\[\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*\]")
# consecutive records: "intervals[i][1] < intervals[i + 1][0]" (no two intervals overlap)
CHAIN = re.compile(r"\b([A-Za-z_]\w*)\[i\]\[(\d)\]\s*(<|≤)\s*\1\[i\s*\+\s*1\]\[(\d)\]")


# in prose: "a list records of (gender, age) pairs", "two dates d1 and d2, each a (month, day) pair"
PROSE_NAMING = re.compile(r"\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)+)\s*\)\s*(?:-\s*)?"
                          r"(?:pairs?|tuples?|triples?|triplets?|records?|points?|coordinates)\b")


def record_fields(statement: str, names: list[str]) -> dict[str, list[str]]:
    """Each argument's record field names where the statement writes ``arg[i] = [a, b, ...]``, or
    names them in prose, ``(a, b) pairs``: then for every argument the sentence names before them."""
    out: dict[str, list[str]] = {}
    for m in (*NAMING.finditer(statement), *NAMING_ONE.finditer(statement)):
        if m.group(1) in names and m.group(1) not in out:
            out[m.group(1)] = [f.strip() for f in m.group(2).split(",")]
    for m in PROSE_NAMING.finditer(statement):
        fields = [f.strip() for f in m.group(1).split(",")]
        before = re.split(r"[.;:]\s|\n\s*\n", statement[:m.start()])[-1]
        for name in names:
            if name not in out and name not in fields and re.search(rf"\b{re.escape(name)}\b", before):
                out[name] = fields
    return out


@dataclass
class FieldRules:
    """Per list-of-records argument ``i`` and field positions ``f``, ``g``; ``j`` an int argument."""

    # (i, f, j, gap, lo): lo <= field <= arg j - gap, lo 0 or 1 as the seeds' labels start
    below: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    ascending: list[tuple[int, int, int, int]] = field(default_factory=list)  # (i, f, g, gap): f <= g - gap
    differ: list[tuple[int, int, int]] = field(default_factory=list)  # (i, f, g): f != g
    # (i, f, g, gap): each record's field f <= the next record's field g - gap (records sorted by g)
    chain: list[tuple[int, int, int, int]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.below or self.ascending or self.differ or self.chain)

    @classmethod
    def mine(cls, statement: str, names: list[str], seeds: list[list[Any]], named: dict[str, list[str]]
             ) -> "FieldRules":
        """``named``: each argument's field names (``record_fields``)."""
        rules = cls()
        text = normalize(statement).replace("!=", "≠")
        for arg, fields in named.items():
            i = names.index(arg)
            pos = {name: f for f, name in enumerate(fields)}
            alt = "|".join(re.escape(n) for n in fields)
            for m in re.finditer(rf"\b((?:(?:{alt})\s*,\s*)*(?:{alt}))\s*(<|≤)\s*([A-Za-z_]\w*)\b(?!\s*[\[.(])", text):
                gap = 1 if m.group(2) == "<" else 0
                other = m.group(3)
                for name in re.split(r"\s*,\s*", m.group(1)):
                    if other in pos:
                        if name != other:
                            rules.ascending.append((i, pos[name], pos[other], gap))
                    elif other in names and other != arg:
                        seen = [r[pos[name]] for s in seeds for r in (s[i] if isinstance(s[i], list) else [])
                                if isinstance(r, list) and len(r) > pos[name]]
                        rules.below.append((i, pos[name], names.index(other), gap, 0 if 0 in seen or not seen else 1))
            for m in re.finditer(rf"\b({alt})\s*≠\s*({alt})\b", text):
                if m.group(1) != m.group(2):
                    rules.differ.append((i, pos[m.group(1)], pos[m.group(2)]))
        for m in CHAIN.finditer(text):
            if m.group(1) in names:
                rules.chain.append((names.index(m.group(1)), int(m.group(2)), int(m.group(4)),
                                    1 if m.group(3) == "<" else 0))
        # the fields below one argument are labels of one kind ("0 <= ai, bi < n"): one first label
        first = {(i, j): min(lo for a, _, b, _, lo in rules.below if (a, b) == (i, j)) for i, _, j, _, _ in rules.below}
        rules.below = [(i, f, j, gap, first[i, j]) for i, f, j, gap, _ in rules.below]
        return rules.kept(seeds)

    def kept(self, seeds: list[list[Any]]) -> "FieldRules":
        """The rules every seed satisfies (fields of records of the right length, ints where an
        argument bounds them)."""
        return FieldRules(below=[r for r in self.below if all(self._below(s, *r) for s in seeds)],
                          ascending=[r for r in self.ascending if all(self._ascending(s, *r) for s in seeds)],
                          differ=[r for r in self.differ if all(self._differ(s, *r) for s in seeds)],
                          chain=[r for r in self.chain if all(self._chain(s, *r) for s in seeds)])

    @staticmethod
    def _records(args: list[Any], i: int, *fs: int) -> Optional[list[list[Any]]]:
        """Argument ``i``'s records: its elements, or itself where it is one record (``[start, end]``)."""
        v = args[i] if i < len(args) else None
        if isinstance(v, list) and v and not any(isinstance(r, list) for r in v) and len(v) > max(fs):
            return [v]
        if not isinstance(v, list) or not all(isinstance(r, list) and len(r) > max(fs) for r in v):
            return None
        return v

    def _below(self, args: list[Any], i: int, f: int, j: int, gap: int, lo: int) -> bool:
        recs, top = self._records(args, i, f), args[j] if j < len(args) else None
        return recs is not None and _int(top) and all(_int(r[f]) and lo <= r[f] <= top - gap for r in recs)

    def _ascending(self, args: list[Any], i: int, f: int, g: int, gap: int) -> bool:
        recs = self._records(args, i, f, g)
        return recs is not None and all(_num(r[f]) and _num(r[g]) and r[f] <= r[g] - gap for r in recs)

    def _differ(self, args: list[Any], i: int, f: int, g: int) -> bool:
        recs = self._records(args, i, f, g)
        return recs is not None and all(r[f] != r[g] for r in recs)

    def _chain(self, args: list[Any], i: int, f: int, g: int, gap: int) -> bool:
        recs = self._records(args, i, f, g)
        return recs is not None and all(_num(a[f]) and _num(b[g]) and a[f] <= b[g] - gap
                                        for a, b in zip(recs, recs[1:]))

    def holds(self, args: list[Any]) -> bool:
        return (all(self._below(args, *r) for r in self.below)
                and all(self._ascending(args, *r) for r in self.ascending)
                and all(self._differ(args, *r) for r in self.differ)
                and all(self._chain(args, *r) for r in self.chain))

    def repair(self, args: list[Any], rng: Random) -> list[Any]:
        """Fields past their argument wrapped into lo..arg - gap (an index, a node's label);
        equal fields that must differ moved apart within that range; fields that must ascend
        swapped, and moved apart when equal. ``holds`` says whether it worked."""
        args = list(args)
        for i in {r[0] for r in self.below + self.ascending + self.differ + self.chain}:
            if isinstance(args[i], list):
                args[i] = [list(r) if isinstance(r, list) else r for r in args[i]]
        for i, f, j, gap, lo in self.below:
            recs, top = self._records(args, i, f), args[j]
            if recs is None or not _int(top) or top - gap < lo:
                continue
            for r in recs:
                if _int(r[f]) and not lo <= r[f] <= top - gap:
                    r[f] = lo + (r[f] - lo) % (top - gap - lo + 1)
        for i, f, g in self.differ:
            recs = self._records(args, i, f, g)
            for r in recs or []:
                if r[f] == r[g] and _int(r[g]):
                    r[g] = self._moved(args, i, g, r[g], rng)
        for i, f, g, gap in self.ascending:
            recs = self._records(args, i, f, g)
            for r in recs or []:
                if _num(r[f]) and _num(r[g]):
                    if r[f] > r[g]:
                        r[f], r[g] = r[g], r[f]
                    if r[f] > r[g] - gap:
                        r[g] = r[f] + gap
        for i, f, g, gap in self.chain:
            recs = self._records(args, i, f, g)
            if recs is not None and len(recs) > 1 and not self._chain(args, i, f, g, gap):
                self._spread(recs, (g, f) if f != g else (g,), rng)
        return args

    @staticmethod
    def _spread(recs: list[list[Any]], order: tuple[int, ...], rng: Random) -> None:
        """Records that must follow one another (intervals that do not overlap): their fields
        ``order`` given distinct values of the range they had, rising record after record. Left
        as they are where the range is too small (``holds`` then drops them)."""
        vals = [r[f] for r in recs for f in order]
        if not all(_int(v) for v in vals):
            return
        lo, hi = min(vals), max(vals)
        if hi - lo + 1 < len(vals):
            return
        drawn = iter(sorted(rng.sample(range(lo, hi + 1), len(vals))))
        for r in recs:
            for f in order:
                r[f] = next(drawn)

    def _moved(self, args: list[Any], i: int, g: int, v: int, rng: Random) -> int:
        """Another value for field ``g`` than ``v``, inside any argument bound it has."""
        ranges = [(lo, args[j] - gap) for (a, f, j, gap, lo) in self.below if a == i and f == g and _int(args[j])]
        step = rng.choice((-1, 1))
        w = v + step
        if any(not lo <= w <= top for lo, top in ranges):
            w = v - step
        return w


def _int(x: Any) -> bool:
    return kind_of(x) == "int"


def _num(x: Any) -> bool:
    return kind_of(x) in ("int", "float")
