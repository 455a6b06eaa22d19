"""Relations inside the rows of a stdin layout, read from the samples (and the statement).

Row values are drawn column by column, each within its own range; a problem's input
validator also checks how a row's columns relate, and rejects every generated row that
breaks the relation. Two relations are read here:

* **a fixed difference** between two int columns: ``b - a = c`` in every sample row (a
  segment of length c, "the next cell"), or ``|a - b| = c`` ("the two legs are adjacent,
  $|x_1 - x_2| = 1$"). At least ``MIN_ROWS`` sample rows must show it, and when the statement
  names both columns it must also state it (``|x_1 - x_2| = 1``, ``b = a + 1``): named points
  whose samples happen to differ by one stay free.
* **a key column**: within each sample, a row whose key value was seen before repeats that
  earlier row's other columns exactly (a toggle "add or remove the bar at height y between
  legs x1 and x2"; "the same id always with the same name"), and the samples show it at least
  ``MIN_REPEATS`` times. Generated rows that repeat a key copy the first row's other columns.

Both only narrow what is generated (a subset of the rows the columns' ranges allow): when a
sample relation is not the problem's, some inputs are missed, none is out of the domain.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .constraints import indexed_name, normalize

MIN_ROWS = 4  # sample rows that must all show a difference before generated rows keep it
MIN_REPEATS = 2  # repeated keys that must all repeat their row before generated rows do


@dataclass
class Diff:
    a: int  # row columns
    b: int
    c: int  # b - a == c, or |a - b| == c when ``absolute``
    absolute: bool


@dataclass
class RowRelations:
    diffs: list[Diff] = field(default_factory=list)
    key: Optional[int] = None  # a column whose repeated values repeat the rest of the row

    def __bool__(self) -> bool:
        return bool(self.diffs) or self.key is not None

    def columns(self, width: int) -> set[int]:
        """The row columns a change of one value could break a relation in."""
        if self.key is not None:
            return set(range(width))
        return {c for d in self.diffs for c in (d.a, d.b)}

    def fix(self, rows: list[list[Any]], bound: Callable[[int], tuple[int, int]], rng: random.Random
            ) -> Optional[list[list[Any]]]:
        """The rows with every relation made true in place (None when a difference does not fit
        the columns' ranges); ``bound(col)`` is a column's [lo, hi] for these rows."""
        for d in self.diffs:
            lo_a, hi_a = bound(d.a)
            lo_b, hi_b = bound(d.b)
            for r in rows:
                signs = [1, -1] if d.absolute else [1]
                rng.shuffle(signs)
                for s in signs:  # a in [lo_a, hi_a] with a + s*c in [lo_b, hi_b]
                    lo, hi = max(lo_a, lo_b - s * d.c), min(hi_a, hi_b - s * d.c)
                    if lo <= hi:
                        a = int(r[d.a]) if isinstance(r[d.a], int) and lo <= r[d.a] <= hi else rng.randint(lo, hi)
                        r[d.a], r[d.b] = a, a + s * d.c
                        break
                else:
                    return None
        if self.key is not None:
            first: dict[Any, list[Any]] = {}
            for i, r in enumerate(rows):
                k = r[self.key]
                if k in first:
                    rows[i] = list(first[k])
                else:
                    first[k] = list(r)
        return rows


def _ints(rows: list[list[str]], j: int) -> Optional[list[int]]:
    try:
        return [int(r[j]) for r in rows]
    except (ValueError, IndexError):
        return None


def _said(text: str, a: str, b: str, c: int, absolute: bool) -> bool:
    """Whether the statement states the difference between the names ``a`` and ``b``."""
    t = re.sub(r"[{}\s]", "", text)
    A, B, C = re.escape(a), re.escape(b), str(c)
    end = r"(?![A-Za-z0-9_])"
    start = r"(?<![A-Za-z0-9_])"
    if absolute:
        pats = [rf"\|{A}-{B}\|={C}{end}", rf"\|{B}-{A}\|={C}{end}"]
    else:
        pats = [rf"{start}{B}-{A}={C}{end}", rf"{start}{B}={A}\+{C}{end}", rf"{start}{A}\+{C}={B}{end}"]
    return any(re.search(p, t) for p in pats)


def infer_relations(samples: list[list[list[str]]], kinds: list[str], names: list[Optional[str]],
                    statement: str, skip: frozenset[int] = frozenset()) -> RowRelations:
    """The relations every sample's rows show. ``samples`` holds each sample's rows (tokens),
    ``kinds`` and ``names`` the row columns' kinds and statement names; columns in ``skip``
    (a tree's or graph's ends) take part in no difference."""
    rel = RowRelations()
    rows = [r for s in samples for r in s if len(r) == len(kinds)]
    text = normalize(statement)
    if len(rows) >= MIN_ROWS:
        used: set[int] = set()
        cols = [j for j, k in enumerate(kinds) if k == "int" and j not in skip]
        for ia, a in enumerate(cols):
            for b in cols[ia + 1:]:
                if a in used or b in used:
                    continue
                va, vb = _ints(rows, a), _ints(rows, b)
                if va is None or vb is None:
                    continue
                diffs = {y - x for x, y in zip(va, vb)}
                found: Optional[Diff] = None
                if len(diffs) == 1 and diffs != {0}:
                    c = diffs.pop()
                    found = Diff(a, b, c, False) if c > 0 else Diff(b, a, -c, False)
                elif len({abs(x) for x in diffs}) == 1 and 0 not in diffs:
                    found = Diff(a, b, abs(next(iter(diffs))), True)
                if found is None:
                    continue
                na, nb = names[found.a], names[found.b]
                if na and nb and not _said(text, na, nb, found.c, found.absolute):
                    continue
                rel.diffs.append(found)
                used |= {a, b}
    repeats, key = 0, None
    for j in range(len(kinds)):
        if j in skip:
            continue
        ok, n = True, 0
        for s in samples:
            first: dict[str, list[str]] = {}
            for r in s:
                if len(r) != len(kinds):
                    ok = False
                    break
                if r[j] in first:
                    n += 1
                    if first[r[j]] != r:
                        ok = False
                        break
                else:
                    first[r[j]] = r
            if not ok:
                break
        if ok and n >= MIN_REPEATS and n > repeats:
            repeats, key = n, j
    rel.key = key
    return rel


# ---------------------------------------------------------------- bounds by a header value

_NM = r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?'?"
_NMS = rf"{_NM}(?:\s*,\s*{_NM})*"
_NUMV = r"-?\d+"
# "1 <= b <= w", "0 <= a_i < n", "1 <= u, v <= n": names bounded above by another name
_CHAIN = re.compile(rf"({_NUMV})\s*(≤|<)\s*({_NMS})\s*(≤|<)\s*({_NM})(?![A-Za-z0-9_{{(^*+/\-]|\s*[*+/^\-(]|\s*\\)")
# "x_i < w", "y \le h" (the names not the end of a sum or a product: "s + e < d" is no bound on e)
_UPPER = re.compile(rf"(?<![0-9_}}+\-*/^≤<]\s)(?<![A-Za-z0-9_}}+\-*/^≤<])({_NMS})\s*(≤|<)\s*({_NM})"
                    rf"(?![A-Za-z0-9_{{(^*+/\-]|\s*[*+/^\-(≤<]|\s*\\)")

# "1 <= k <= min(n, m)", "$1 \le k \le \min\{n, m\}$": names bounded above by each of two names
_MIN_OF = re.compile(rf"({_NUMV})\s*(≤|<)\s*({_NMS})\s*(≤|<)\s*\\?min\s*(?:\(|\\?\{{)\s*({_NM})\s*,\s*({_NM})\s*(?:\)|\\?\}})")


# "1 <= |b_i| <= d_i": a value's magnitude bounded by another name (a signed choice, a step)
_MAGNITUDE = re.compile(rf"({_NUMV})\s*(≤|<)\s*\|\s*({_NM})\s*\|\s*(≤|<)\s*({_NM})"
                        rf"(?![A-Za-z0-9_{{(^*+/\-]|\s*[*+/^\-(]|\s*\\)")


@dataclass
class HeadBound:
    """Row column ``col`` (a list's elements: 0) lies in [lo, header[head] - strict]; with
    ``magnitude``, its absolute value does (``1 \\le |b_i| \\le d_i``: either sign, never 0)."""

    col: int
    head: int
    strict: int = 0
    lo: Optional[int] = None
    magnitude: bool = False


@dataclass(frozen=True)
class StatedBound:
    """A symbolic upper bound the statement states: ``name`` (its absolute value when
    ``magnitude``) lies in [lo, ``upper`` - strict]; ``lo`` None when it states none."""

    name: str
    lo: Optional[int]
    upper: str
    strict: int
    magnitude: bool = False


def _bare(name: str) -> str:
    return re.sub(r"[{}\s']", "", name)


def stated_bounds(statement: str) -> list[StatedBound]:
    """Each symbolic upper bound the statement states: ``1 \\le b \\le w`` gives
    ("b", 1, "w", 0), ``1 \\le |b_i| \\le d_i`` ("b_i", 1, "d_i", 0, magnitude)."""
    t = normalize(statement)
    out = []
    for m in _CHAIN.finditer(t):
        lo = int(m.group(1)) + (1 if m.group(2) == "<" else 0)
        for nm in re.split(r"\s*,\s*", m.group(3)):
            out.append(StatedBound(_bare(nm), lo, _bare(m.group(5)), 1 if m.group(4) == "<" else 0))
    for m in _MIN_OF.finditer(t):
        lo = int(m.group(1)) + (1 if m.group(2) == "<" else 0)
        for nm in re.split(r"\s*,\s*", m.group(3)):
            out += [StatedBound(_bare(nm), lo, _bare(m.group(g)), 1 if m.group(4) == "<" else 0) for g in (5, 6)]
    for m in _MAGNITUDE.finditer(t):
        lo = max(0, int(m.group(1)) + (1 if m.group(2) == "<" else 0))
        out.append(StatedBound(_bare(m.group(3)), lo, _bare(m.group(5)), 1 if m.group(4) == "<" else 0, True))
    seen = {(b.name, b.upper) for b in out}
    for m in _UPPER.finditer(t):
        for nm in re.split(r"\s*,\s*", m.group(1)):
            if (_bare(nm), _bare(m.group(3))) not in seen:
                out.append(StatedBound(_bare(nm), None, _bare(m.group(3)), 1 if m.group(2) == "<" else 0))
    return out


def indexed_partner(name: Optional[str], upper: str, names: list[Optional[str]]) -> list[int]:
    """Positions in ``names`` that ``upper`` names for a value called ``name``: ``upper`` itself,
    or, where both are indexed by one letter (``b_i \\le d_i``) and ``name`` carries a number
    (``b_3``), the value of ``upper``'s stem with that number (``d_3``)."""
    hits = [j for j, h in enumerate(names) if h and _bare(h) == upper]
    if hits:
        return hits
    up, mine = indexed_name(upper), indexed_name(_bare(name or ""))
    if not up or not up[1].isalpha() or not mine or not mine[1].isdigit():
        return []
    return [j for j, h in enumerate(names) if h and indexed_name(_bare(h)) == (up[0], mine[1])]


def one_of(general: str, name: Optional[str]) -> bool:
    """Is ``name`` one numbered value of the indexed ``general`` (``b_3`` of ``b_i``)?"""
    g, n = indexed_name(_bare(general)), indexed_name(_bare(name or ""))
    return bool(g and n and g[1].isalpha() and n[1].isdigit() and g[0] == n[0])


def within(v: int, head_value: int, b: StatedBound) -> bool:
    """Does ``v`` keep the bound ``b`` under the bounding value ``head_value``?"""
    x = abs(v) if b.magnitude else v
    return x <= head_value - b.strict and (b.lo is None or x >= b.lo)


def infer_head_bounds(statement: str, head_names: list[Optional[str]], col_names: list[Optional[str]],
                      samples: list[tuple[list[str], list[list[str]]]], same: Callable[[Optional[str], Optional[str]], bool]
                      ) -> list[HeadBound]:
    """Row columns (``col_names``; a list's elements are one column) the statement bounds
    by a header value (``head_names``), kept only where every sample (header tokens, rows)
    respects the bound. ``same`` says whether two names are one variable (``a_i`` and ``a``)."""
    out: list[HeadBound] = []
    stated = stated_bounds(statement)
    for c, cname in enumerate(col_names):
        if not cname:
            continue
        for sb in stated:
            if not same(sb.name, cname) and not one_of(sb.name, cname):
                continue
            heads = indexed_partner(cname, sb.upper, head_names)
            if len(heads) != 1 or same(cname, head_names[heads[0]]):
                continue
            j = heads[0]
            try:
                ok = all(within(int(r[c]), int(h[j]), sb) for h, rows in samples for r in rows)
            except (ValueError, IndexError):
                ok = False
            if ok:
                out.append(HeadBound(c, j, sb.strict, sb.lo, sb.magnitude))
                break
    return out


def bound_column(vals: list[int], b: HeadBound, lo: int, hi: int, cap: int) -> Optional[list[int]]:
    """A column's drawn values (in [lo, hi]) brought under the bound ``b`` at ``cap``: mapped
    as ``bound_values`` does, or, for a magnitude bound, their absolute values mapped into
    [b.lo, cap] with the drawn sign kept (a 0 becomes the smallest magnitude, positive)."""
    if not b.magnitude:
        return bound_values(vals, lo, hi, cap)
    low = b.lo or 0
    mags = bound_values([abs(int(v)) for v in vals], low, max(low, abs(lo), abs(hi)), cap)
    if mags is None:
        return None
    return [-m if int(v) < 0 else m for v, m in zip(vals, (min(cap, max(low, m)) for m in mags))]


def bound_values(vals: list[int], lo: int, hi: int, cap: int) -> Optional[list[int]]:
    """Values drawn in [lo, hi] mapped monotonically into [lo, cap] (sorted and all-equal
    shapes stay what they are); None when cap < lo."""
    if cap < lo:
        return None
    if cap >= hi:
        return vals
    span = max(1, hi - lo)
    return [min(cap, max(lo, lo + (int(v) - lo) * (cap - lo) // span)) for v in vals]


# ---------------------------------------------------------------- a word's length given by a number

LENGTH_MIN_SAMPLES = 2  # samples that must all show it, with two different lengths


def length_ties(samples: list[list[list[str]]], kinds: list[list[str]]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Fixed layouts ("one line with n, then a string of length n"): pairs (word position,
    int position), the int on an earlier line or earlier in the line, whose word is exactly that
    long in every sample (at least ``LENGTH_MIN_SAMPLES``, not all of one length)."""
    if len(samples) < LENGTH_MIN_SAMPLES:
        return []
    out = []
    pos = [(li, j) for li, ln in enumerate(kinds) for j in range(len(ln))]
    for li, j in pos:
        if kinds[li][j] != "word":
            continue
        for lk, k in pos:
            if (lk, k) >= (li, j) or kinds[lk][k] != "int":
                continue
            try:
                lens = [len(s[li][j]) for s in samples]
                ok = all(len(s[li][j]) == int(s[lk][k]) for s in samples)
            except (ValueError, IndexError):
                continue
            if ok and len(set(lens)) >= 2:
                out.append(((li, j), (lk, k)))
                break
    return out


def fit_length(word: str, n: int) -> str:
    """``word`` made exactly ``n`` long by repeating or cutting it (an all-equal word stays so)."""
    if not word:
        return word
    return (word * (n // len(word) + 1))[:n]


# ---------------------------------------------------------------- fixed lines bounded by each other

Pos = tuple[int, int]  # (line, position in the line) of a fixed layout


@dataclass(frozen=True)
class FixedBound:
    """A fixed layout's int value at ``at`` lies in [lo, the value at ``upper`` - strict]
    ("$1 \\le k \\le n \\le 10^5$", "$1 \\le a, b < n$")."""

    at: Pos
    upper: Pos
    strict: int
    lo: Optional[int]


def infer_fixed_bounds(statement: str, names: dict[Pos, str], samples: list[list[list[str]]],
                       same: Callable[[Optional[str], Optional[str]], bool]) -> list[FixedBound]:
    """The symbolic bounds the statement states between two named int values of a fixed layout
    (``names``: position -> name), each kept only where every sample respects it."""
    out: list[FixedBound] = []
    for sb in stated_bounds(statement):
        if sb.magnitude:
            continue
        at = [p for p, nm in names.items() if same(sb.name, nm)]
        up = [p for p, nm in names.items() if _bare(nm) == sb.upper]
        # one bound per pair (a value under min(n, m) has two)
        if len(at) != 1 or len(up) != 1 or at[0] == up[0] or any((b.at, b.upper) == (at[0], up[0]) for b in out):
            continue
        (li, j), (lk, k) = at[0], up[0]
        try:
            ok = all(int(s[li][j]) <= int(s[lk][k]) - sb.strict and (sb.lo is None or int(s[li][j]) >= sb.lo)
                     for s in samples)
        except (ValueError, IndexError):
            ok = False
        if ok:
            out.append(FixedBound(at[0], up[0], sb.strict, sb.lo))
    # a value bounded by one that is itself bounded: the bounding one first (k <= m <= n)
    return sorted(out, key=lambda b: b.upper in {x.at for x in out})


def apply_fixed_bounds(vals: list[list[Any]], bounds: list[FixedBound], span: Callable[[Pos], tuple[int, int]],
                       clamp: bool = False) -> bool:
    """Each bounded value brought into [its lo, the bounding value - strict], in place: mapped as
    ``bound_values`` maps (a value drawn at its maximum becomes the bound itself), or with ``clamp``
    (a mutated sample) only lowered to the bound where it is above it. False when one cannot fit."""
    for b in bounds:
        lo, hi = span(b.at)
        lo = max(lo, b.lo) if b.lo is not None else lo
        cap = min(hi, int(vals[b.upper[0]][b.upper[1]]) - b.strict)
        v = max(lo, int(vals[b.at[0]][b.at[1]]))
        got = ([min(v, cap)] if cap >= lo else None) if clamp else bound_values([v], lo, max(lo, hi), cap)
        if got is None:
            return False
        vals[b.at[0]][b.at[1]] = got[0]
    return True
