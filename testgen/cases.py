"""Several test cases per input file: a first line with T, then T cases of one inner layout.

Contest problems often read "The first line contains t, the number of test cases. Each test
case ...", with "the sum of n over all test cases does not exceed 2*10^5". The samples show
it: the first line is one integer T, and the rest splits into exactly T blocks that all fit
one inner layout (``list``: a header with n then n tokens; ``counted``: a header with n then
n rows — trees and graphs included, per case; ``fixed``: the same L lines every case). The
inner layout is a ``StdioModel`` of its own, inferred from the blocks of every sample.

Generation keeps the file inside the statement: T within its stated range, and the sum of
the cases' counts within the stated sum bound (``constraints.sum_bound``). With no sum bound
stated, the sum is kept within one case's maximum (when unsure, narrow). Header values other
than the count are capped at bound/T, so any sum of them stays inside the bound too.
``stress`` makes one maximum case, many small cases, and a middle split, so both a per-case
and a per-file slow solution meet their worst input.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from .constraints import Range, input_lines, sum_bound
from .input_caps import caps
from .slot import Slot, slots_from_rows
from .tokens import token_kind, tokenize

if TYPE_CHECKING:
    from .smodel import StdioModel

Block = list[list[str]]
_MENTIONS_CASES = re.compile(r"test ?cases?|\bcases\b|\bqueries\b|\bscenarios?\b", re.I)


@dataclass
class Cases:
    """The per-file part of a several-test-cases layout; ``inner`` is one case's layout."""

    inner: "StdioModel"
    blocks: list[list[Block]] = field(default_factory=list)  # per sample: its cases
    total_hi: Optional[int] = None  # the sum bound over all cases (None: one case's maximum)


def _int_line(line: list[str]) -> Optional[int]:
    if len(line) == 1 and re.fullmatch(r"\d+", line[0]):
        return int(line[0])
    return None


def _split_fixed(lines: list[list[str]], t: int, size: int) -> Optional[list[Block]]:
    if t <= 0 or len(lines) != t * size:
        return None
    return [lines[i * size:(i + 1) * size] for i in range(t)]


def _split_counted(lines: list[list[str]], t: int, k: int, off: int) -> Optional[list[Block]]:
    blocks, p = [], 0
    for _ in range(t):
        if p >= len(lines) or len(lines[p]) <= k or token_kind(lines[p][k]) != "int":
            return None
        c = int(lines[p][k]) + off
        if c < 0 or p + 1 + c > len(lines):
            return None
        blocks.append(lines[p:p + 1 + c])
        p += 1 + c
    return blocks if p == len(lines) else None


def infer_cases(toks: list[list[list[str]]], statement: str) -> Optional["StdioModel"]:
    """A ``cases`` model when every sample is T then T blocks of one inner layout, else None."""
    from .smodel import StdioModel, try_counted, try_fixed, try_list

    ts = [_int_line(t[0]) if t and t[0] else None for t in toks]
    if any(v is None or v < 1 for v in ts):
        return None
    if not (any(v >= 2 for v in ts) or _MENTIONS_CASES.search(statement)):  # type: ignore[operator]
        return None
    bodies = [t[1:] for t in toks]
    candidates: list[tuple[str, Any]] = [("list", None)]
    width = len(bodies[0][0]) if bodies[0] else 0
    candidates += [("counted", (k, off)) for k in range(width) for off in (0, -1)]
    sizes = {len(b) // v for b, v in zip(bodies, ts) if v} if all(ts) else set()
    candidates += [("fixed", s) for s in sorted(sizes) if s >= 1]
    for kind, arg in candidates:
        per_sample: list[list[Block]] = []
        for b, v in zip(bodies, ts):
            assert v is not None
            split = (_split_fixed(b, v, 2) if kind == "list" else
                     _split_counted(b, v, *arg) if kind == "counted" else _split_fixed(b, v, arg))
            if split is None:
                break
            per_sample.append(split)
        else:
            flat = [blk for s in per_sample for blk in s]
            inner = (try_list(flat) if kind == "list" else try_counted(flat) if kind == "counted"
                     else try_fixed(flat))
            if inner is None or inner.shape != kind:
                continue
            if kind == "fixed" and len(flat[0]) < 2:
                continue  # T rows of one shape is the plain counted layout
            inner.seeds = flat
            m = StdioModel(shape="cases", lines=[slots_from_rows([t[0] for t in toks])], count_at=0)
            m.cases = Cases(inner=inner, blocks=per_sample)
            return m
    return None


def fit_cases(m: "StdioModel", ranges: list[Range], alpha: Optional[str], statement: str) -> None:
    """T's range (a range named t/T/q or about test cases), the inner layout's names from the input
    description's lines after T's (as a one-case layout is named), its domains from the other
    ranges, and the sum bound."""
    assert m.cases is not None
    t_slot = m.lines[0][0]
    obs = [int(v) for v in t_slot.obs]
    lo_o, hi_o = min(obs), max(obs)
    named = [r for r in ranges if r.lo is not None and r.hi is not None and r.lo <= lo_o and hi_o <= r.hi
             and ((r.name or "").lower() in ("t", "q", "tc") or re.search(r"test|cases", r.context))]
    if named:
        pick = min(named, key=lambda r: r.hi)  # type: ignore[arg-type,return-value]
        t_slot.lo, t_slot.hi = float(pick.lo), float(pick.hi)  # type: ignore[arg-type]
        rest = [r for r in ranges if r is not pick]
    else:
        t_slot.lo, t_slot.hi = 1.0, float(max(hi_o * 2, 10))  # the samples, widened
        rest = ranges
    m.count_lo, m.count_hi = int(t_slot.lo), int(t_slot.hi)
    inner = m.cases.inner
    if inner.shape == "counted":
        from .structures import detect

        inner.structure = detect([b[0] for b in inner.seeds], [b[1:] for b in inner.seeds],
                                 tuple(sl.kind for sl in inner.row), statement, inner.count_at)
    desc = input_lines(statement)
    if len(desc) > 1 and not desc[0].rows and len(desc[0].names) <= 1:  # T's line, then one case's
        inner._name_slots(desc[1:])
    inner._fit(rest, alpha)
    bound = sum_bound(statement)
    m.cases.total_hi = int(bound) if bound is not None else None


def _cap_slots(slots: list["Slot"], cap: int, skip: Optional[int]) -> list[tuple["Slot", str, Any]]:
    """Int values and word lengths of one case at most ``cap`` (restored by the caller)."""
    saved: list[tuple["Slot", str, Any]] = []
    for j, sl in enumerate(slots):
        if j == skip:
            continue
        if sl.kind == "int" and sl.hi > cap >= sl.lo:
            saved.append((sl, "hi", sl.hi))
            sl.hi = float(cap)
        elif sl.kind == "word" and sl.max_len > cap >= sl.min_len:
            saved.append((sl, "max_len", sl.max_len))
            sl.max_len = cap
    return saved


def draw_cases(m: "StdioModel", kind: str, rng: random.Random, i: int) -> Optional[str]:
    """One input file of several test cases."""
    assert m.cases is not None
    inner = m.cases.inner
    t_lo, t_hi = max(1, m.count_lo), max(1, m.count_lo, m.count_hi)
    counted = inner.shape in ("counted", "list")
    c_lo = max(0, inner.count_lo) if counted else 1
    c_hi = max(c_lo, inner.count_hi) if counted else 1
    per_row = max(1, len(inner.row) if inner.shape == "counted" else 1)
    total = m.cases.total_hi if m.cases.total_hi is not None else c_hi
    total = max(c_lo, min(total, caps().tokens // per_row))
    if kind == "stress":
        step = i % 3
        if step == 0:  # one case at the maximum
            t = t_lo
        elif step == 1:  # as many cases as the bounds allow
            t = min(t_hi, total // max(1, c_lo), caps().tokens // (2 * per_row))
        else:
            t = max(t_lo, min(t_hi, total // max(1, c_lo)) // 10)
        t = max(t_lo, min(t, t_hi))
    elif kind == "boundary":
        t = [t_lo, min(t_hi, 10), min(t_hi, t_lo + 1)][i % 3]
    else:
        t = rng.randint(t_lo, max(t_lo, min(t_hi, 10)))
    if t * c_lo > total:
        return None
    per_case = total // t
    sizes: list[int] = []
    left = total
    for c in range(t):
        if not counted:
            sizes.append(1)
            continue
        room = min(c_hi, left - c_lo * (t - c - 1))
        if kind == "stress":
            n = max(c_lo, min(room, per_case if t > 1 else room))
        else:
            n = inner._count(kind, rng, i * 7 + c)
            n = max(c_lo, min(n, room, max(c_lo, per_case)))
        sizes.append(n)
        left -= n
    inner_kind = kind if kind != "stress" or t == 1 else "regular"
    # other header values (and every value of a fixed case) at most bound/T: any sum stays inside
    cap = (m.cases.total_hi // t) if m.cases.total_hi is not None else None
    head = inner.lines[0] if inner.lines else []
    slots = (head + (list(inner.row) if inner.shape == "counted" else [])) if counted else \
        [s for ln in inner.lines for s in ln]
    saved = _cap_slots(slots, cap, inner.count_at if counted else None) if cap is not None else []
    try:
        parts: list[str] = []
        for c, n in enumerate(sizes):
            one = None
            for attempt in range(3):
                one = inner._one(inner_kind, rng, i * 31 + c + attempt * 1000, n=n if counted else None)
                if one is not None:
                    break
            if one is None:
                return None
            parts.append(one)
    finally:
        for sl, name, value in saved:
            setattr(sl, name, value)
    return f"{t}\n" + "".join(parts)


def mutate_cases(m: "StdioModel", rng: random.Random) -> Optional[str]:
    """A sample with one case dropped, duplicated, swapped or replaced by a mutated case."""
    assert m.cases is not None
    if not m.cases.blocks:
        return None
    blocks = [list(map(list, b)) for b in rng.choice(m.cases.blocks)]
    op = rng.randrange(4)
    if op == 0 and len(blocks) > max(1, m.count_lo):
        del blocks[rng.randrange(len(blocks))]
    elif op == 1 and len(blocks) < m.count_hi:
        blocks.insert(rng.randrange(len(blocks) + 1), [list(x) for x in rng.choice(blocks)])
    elif op == 2 and len(blocks) >= 2:
        a, b = rng.sample(range(len(blocks)), 2)
        blocks[a], blocks[b] = blocks[b], blocks[a]
    else:
        text = m.cases.inner._mutate(rng)
        if text is None:
            return None
        blocks[rng.randrange(len(blocks))] = tokenize(text)
    return f"{len(blocks)}\n" + "".join(" ".join(ln) + "\n" for b in blocks for ln in b)
