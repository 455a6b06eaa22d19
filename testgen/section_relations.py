"""Relations among a ``sections`` layout's parts that the statement states and every sample keeps.

Each rule is learned at inference (``sections.infer_sections``) and kept at generation
(``sections.draw_sections``): only when the statement says it and every sample agrees.

* ``joint_permutation``: the int lists' values together are one permutation ("crates numbered
  0..n" on two stacks);
* ``head_equations`` / ``keep_equations``: an equation among header values ("s_1 + s_2 = n + 1");
* ``chain_between`` / ``chain_fits`` / ``chained``: a column rising strictly between two header
  values ("x_s < x_1 < ... < x_n < x_t");
* ``covers``: a label column that takes every label of its range ("for each i");
* ``head_bounds`` / ``keep_head_bounds``: a header value bounded by another ("2 <= k <= n");
* ``rising`` / ``rise``: values that rise from row to row, or are distinct, as stated.

docs/testgen.md, "Relations among a layout's sections".
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from .relations import indexed_partner, one_of, stated_bounds, within

if TYPE_CHECKING:
    from .sections import Ref, Section
    from .slot import Slot
    from .smodel import StdioModel


PERM_MIN = 4  # values one sample must have before its lists being a permutation is more than chance


def joint_permutation(parts: list[Section], splits: list[list[list[list[str]]]]) -> Optional[int]:
    """The base b when, in every sample, the int lists' values together are exactly
    b..b+T-1 (T the number of their values) and one sample has ``PERM_MIN`` or more; else None."""
    lists = [k for k, p in enumerate(parts) if p.kind == "list" and p.slots[0].kind == "int"]
    if not lists or not splits:
        return None
    for base in (0, 1):
        ok, big = True, False
        for s in splits:
            try:
                vals = sorted(int(x) for k in lists for x in s[k][0])
            except (ValueError, IndexError):
                return None
            if vals != list(range(base, base + len(vals))):
                ok = False
                break
            big = big or len(vals) >= PERM_MIN
        if ok and big:
            return base
    return None


_TERM = r"(?:[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?|\d+)"
_EQ = re.compile(rf"(?<![\w}}=<>≤≥!+\-*/^])({_TERM}(?:\s*[+-]\s*{_TERM})*)\s*=\s*({_TERM}(?:\s*[+-]\s*{_TERM})*)"
                 rf"(?![\w{{=*/^(])")


def _linear(expr: str) -> tuple[dict[str, int], int]:
    """'s_1 + s_2' -> ({'s_1': 1, 's_2': 1}, 0); names bare."""
    coef: dict[str, int] = {}
    const = 0
    for sign, term in re.findall(rf"([+-]?)\s*({_TERM})", expr):
        k = -1 if sign == "-" else 1
        if term.isdigit():
            const += k * int(term)
        else:
            nm = _bare_name(term)
            coef[nm] = coef.get(nm, 0) + k
    return coef, const


def head_equations(parts: list[Section], splits: list[list[list[list[str]]]], flat: list[Ref], statement: str
                    ) -> list[tuple[Ref, dict[Ref, int], int]]:
    """Equations among named header values the statement states (``s_1 + s_2 = n + 1``) and every
    sample satisfies, each solved for a value that counts no block (the counts stay drawn as
    before and that value follows them)."""
    from .constraints import normalize

    where = {_bare_name(parts[si].slots[j].name): (si, j) for si, j in flat if parts[si].slots[j].name}
    fixed = {p.ref for p in parts if p.ref is not None}  # counts; bounds of labels may follow
    out: list[tuple[Ref, dict[Ref, int], int]] = []
    for mt in _EQ.finditer(normalize(statement)):
        (lc, lk), (rc, rk) = _linear(mt.group(1)), _linear(mt.group(2))
        coef = dict(lc)
        for nm, c in rc.items():
            coef[nm] = coef.get(nm, 0) - c
        coef = {nm: c for nm, c in coef.items() if c}
        const = lk - rk  # sum(coef * value) + const = 0
        if len(coef) < 2 or any(nm not in where for nm in coef):
            continue
        refs = {where[nm]: c for nm, c in coef.items()}
        try:
            ok = all(sum(c * int(s[r[0]][0][r[1]]) for r, c in refs.items()) + const == 0 for s in splits)
        except (ValueError, IndexError):
            ok = False
        free = [r for r, c in refs.items() if abs(c) == 1 and r not in fixed and all(r != e[0] for e in out)]
        if not ok or not free:
            continue
        t = free[-1]
        k = refs.pop(t)  # k * t + sum + const = 0  ->  t = -(sum + const) / k
        out.append((t, {r: -c * k for r, c in refs.items()}, -const * k))
    return out


def keep_equations(m: "StdioModel", head: list[list[Any]]) -> bool:
    """Set each value a stated equation determines; False when it comes out negative where its
    range is not (its own stated range may be unknown: the equation is what the statement says)."""
    assert m.sections is not None
    for t, others, const in m.sections.head_eq:
        v = sum(c * int(head[r[0]][r[1]]) for r, c in others.items()) + const
        if v < 0 <= m.sections.parts[t[0]].slots[t[1]].lo:
            return False
        head[t[0]][t[1]] = v
    return True


_NMC = r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?"
_BETWEEN = re.compile(rf"({_NMC})\s*<\s*({_NMC})\s*<\s*(?:\\[lc]?dots|\.\.\.|…)\s*<\s*({_NMC})\s*<\s*({_NMC})(?![A-Za-z0-9_{{])")


def chain_between(p: Section, blocks: list[list[list[str]]], splits: list[list[list[list[str]]]], flat: list[Ref],
             parts: list[Section], statement: str) -> dict[int, tuple[Ref, Ref]]:
    """Int columns the statement's chain ``a < x_1 < \\dots < x_n < b`` puts strictly between two
    header values a and b, kept only where every sample's column rises strictly between them."""
    from .constraints import name_stem, normalize

    where = {_bare_name(parts[si].slots[j].name): (si, j) for si, j in flat if parts[si].slots[j].name}
    out: dict[int, tuple[Ref, Ref]] = {}
    for mt in _BETWEEN.finditer(normalize(statement)):
        lo_nm, first, last, hi_nm = (_bare_name(g) for g in mt.groups())
        a, b = where.get(lo_nm), where.get(hi_nm)
        if a is None or b is None or name_stem(first) != name_stem(last):
            continue
        for c, sl in enumerate(p.slots if p.kind == "rows" else p.slots[:1]):
            if sl.kind != "int" or not sl.name or name_stem(sl.name) != name_stem(first) or sl.name in where:
                continue
            try:
                ok = True
                for s, blk in zip(splits, blocks):
                    col = [int(x) for x in blk[0]] if p.kind == "list" else [int(r[c]) for r in blk]
                    seq = [int(s[a[0]][0][a[1]])] + col + [int(s[b[0]][0][b[1]])]
                    ok = ok and all(u < v for u, v in zip(seq, seq[1:]))
            except (ValueError, IndexError):
                ok = False
            if ok:
                out[c] = (a, b)
    return out


def chain_fits(m: "StdioModel", head: list[list[Any]]) -> bool:
    """Room between the two header values around each chained column for as many distinct values
    as it has rows: the two put in order, then apart (the lower one first) within their ranges."""
    assert m.sections is not None
    parts = m.sections.parts
    for p in parts:
        if p.ref is None:
            continue
        n = int(head[p.ref[0]][p.ref[1]]) + p.offset
        for a, b in p.between.values():
            sa, sb = parts[a[0]].slots[a[1]], parts[b[0]].slots[b[1]]
            x, y = sorted((int(head[a[0]][a[1]]), int(head[b[0]][b[1]])))
            if y - x - 1 < n:
                x = max(int(sa.lo), y - n - 1)
            if y - x - 1 < n:
                y = min(int(sb.hi), x + n + 1)
            if y - x - 1 < n:
                return False
            head[a[0]][a[1]], head[b[0]][b[1]] = x, y
    return True


def chained(vals_n: int, lo: int, hi: int, rng: random.Random, shape: Optional[str]) -> list[int]:
    """``vals_n`` values rising strictly inside (lo, hi); the all-equal stress shapes: a run of
    consecutive values at the bottom or the top."""
    if shape == "equal-min":
        return list(range(lo + 1, lo + 1 + vals_n))
    if shape == "equal-max":
        return list(range(hi - vals_n, hi))
    return sorted(rng.sample(range(lo + 1, hi), vals_n))


COVER_MIN = 3  # labels one sample must have before taking every one of them is more than chance


def cap_of(p: Section, c: int, flat: list[Ref], head: list[list[Any]]) -> Optional[int]:
    """The largest value column ``c`` may take under the header value bounding it, if one does."""
    for b in p.head_bounds:
        if b.col == c:
            si, j = flat[b.head]
            return int(head[si][j]) - b.strict
    return None


def covers(p: Section, headers: list[list[str]], blocks: list[list[list[str]]], flat: list[Ref]) -> list[int]:
    """Label columns (not a graph's ends) whose values are every label of their range, under a
    stated header bound where there is one, in every sample (one with ``COVER_MIN`` or more)."""
    out = []
    for c, ref in p.structure.labels.items():
        if p.structure.graph and c in p.structure.ends:
            continue
        h = flat.index(ref)  # type: ignore[arg-type]
        ok, big = True, False
        for hd, rows in zip(headers, blocks):
            top = int(hd[h]) - 1 + p.structure.base
            for b in p.head_bounds:
                if b.col == c:
                    top = min(top, int(hd[b.head]) - b.strict)
            want = set(range(p.structure.base, top + 1))
            if {int(r[c]) for r in rows} != want:
                ok = False
                break
            big = big or len(want) >= COVER_MIN
        if ok and big:
            out.append(c)
    return out


@dataclass(frozen=True)
class HeaderBound:
    """Header value ``value`` lies at most at header value ``bound`` - strict ("2 <= k <= n"); with
    ``magnitude``, its absolute value does, and is at least ``lo`` (the stated minimum: a plain
    bound keeps a header value's own range for that)."""

    value: Ref
    bound: Ref
    strict: int = 0
    lo: Optional[int] = None
    magnitude: bool = False


def head_bounds(parts: list[Section], splits: list[list[list[list[str]]]], flat: list[Ref], statement: str
                 ) -> list[HeaderBound]:
    """Header values the statement bounds above by another named header value (``2 \\le k \\le n``,
    ``m < n``, ``1 \\le |b_i| \\le d_i`` for a line of ``b_6, b_7`` under one of ``d_1, \\ldots, d_7``),
    kept only where every sample respects the bound (else the names are not read right)."""
    names = [parts[si].slots[j].name for si, j in flat]
    out: list[HeaderBound] = []
    for sb in stated_bounds(statement):
        for ai, name in enumerate(names):
            if not name or not (_bare_name(name) == sb.name or one_of(sb.name, name)):
                continue
            heads = indexed_partner(name, sb.upper, names)
            a, b = flat[ai], (flat[heads[0]] if len(heads) == 1 else None)
            if b is None or a == b or any(x.value == a for x in out):
                continue
            try:
                ok = all(within(int(s[a[0]][0][a[1]]), int(s[b[0]][0][b[1]]), sb) for s in splits)
            except (ValueError, IndexError):
                ok = False
            if ok:
                out.append(HeaderBound(a, b, sb.strict, sb.lo, sb.magnitude))
    return out


def _bare_name(name: str) -> str:
    return re.sub(r"[{}\s']", "", name)


def keep_head_bounds(m: "StdioModel", head: list[list[Any]]) -> bool:
    """Lower each header value the statement bounds by another to that value (a count only
    shrinks); False when that takes it below its own stated minimum."""
    assert m.sections is not None
    for _ in range(2):  # a chain k <= m <= n settles in two passes over short lists
        for hb in m.sections.head_le:
            a, b = hb.value, hb.bound
            cap = int(head[b[0]][b[1]]) - hb.strict
            v = int(head[a[0]][a[1]])
            if hb.magnitude:  # the drawn sign kept, the magnitude brought into [lo, cap]
                low = hb.lo or 0
                if cap < low:
                    return False
                head[a[0]][a[1]] = (-1 if v < 0 else 1) * min(cap, max(low, abs(v)))
            elif v > cap:
                if cap < m.sections.parts[a[0]].slots[a[1]].lo:
                    return False
                head[a[0]][a[1]] = cap
    return True


RISING_MIN = 3  # values in one sample before a rise from value to value is more than chance
_SAYS_RISING = re.compile(r"increasing|ascending|sorted|<\s*\\[lc]?dots\s*<|<\s*\.\.\.\s*<|<\s*…\s*<", re.I)


def rising(p: Section, blocks: list[list[list[str]]], statement: str) -> dict[int, str]:
    """Int columns (a list's values: column 0) that rise in every sample, at least ``RISING_MIN``
    values in one, when the statement speaks of an order: "strict" when no two neighbours are
    equal in any sample, else "sorted". Label columns (node numbers) are left alone."""
    out: dict[int, str] = {}
    if p.kind == "list" and p.slots[0].kind == "int" and re.search(r"\bdistinct\b", statement, re.I):
        seqs = [b[0] for b in blocks]
        if max(len(q) for q in seqs) >= 2 and all(len(set(q)) == len(q) for q in seqs):
            out[0] = "distinct"
    if not _SAYS_RISING.search(statement):
        return out
    cols = range(1) if p.kind == "list" else range(len(p.slots))
    for c in cols:
        if p.slots[c].kind != "int" or c in p.structure.labels:
            continue
        seqs = [[int(x) for x in b[0]] if p.kind == "list" else [int(r[c]) for r in b] for b in blocks]
        if max(len(q) for q in seqs) < RISING_MIN:
            continue
        if any(a > b for q in seqs for a, b in zip(q, q[1:])) or c in out:
            continue
        out[c] = "strict" if all(a < b for q in seqs for a, b in zip(q, q[1:])) else "sorted"
    return out


def rise(vals: list[Any], how: str, sl: "Slot", rng: random.Random, shape: Optional[str] = None
          ) -> Optional[list[Any]]:
    """The values in rising order ("sorted"; "strict": distinct too), or distinct in drawn order
    ("distinct"); repeated values are drawn anew over the slot's range (None when the range holds
    fewer values than needed)."""
    if how == "sorted":
        return sorted(vals)
    lo, hi = int(sl.lo), int(sl.hi)
    if hi - lo + 1 < len(vals):
        return None
    if how == "strict" and shape in ("equal-min", "equal-max"):
        # the all-equal stress shapes of distinct rising values: as close as they can be, a run of
        # consecutive values at the bottom or the top of the range (a scan over neighbours is longest)
        start = lo if shape == "equal-min" else hi - len(vals) + 1
        return list(range(start, start + len(vals)))
    if len(set(vals)) != len(vals):
        vals = rng.sample(range(lo, hi + 1), len(vals))
    return sorted(vals) if how == "strict" else vals
