"""How a stdin model fits its slots to the statement: names, stated ranges, and bounds between
values (a header value that caps a column, a value that caps another); and whether an input from
elsewhere (a validator's grammar) stays within those ranges (``admits``)."""

from __future__ import annotations

from typing import Optional

from .constraints import InputLine, Range, product_bounds, said_of
from .relations import infer_fixed_bounds, infer_head_bounds
from .slot import Slot, fit_slot, pick_count_range
from .tokens import parse_token, token_kind, tokenize


class StatementFit:
    """The inference half of ``StdioModel`` that reads the statement (``smodel.py``)."""

    def _grid_cells(self, statement: str) -> Optional[int]:
        """A grid's stated bound on rows x width ("$h \\cdot w \\le 10^5$"): the product of the
        names of the row count and the width, in either order, where the samples respect it."""
        names = {self.lines[0][self.count_at].name, self.lines[0][self.structure.width_of].name}  # type: ignore[index]
        for a, b, hi in product_bounds(statement):
            if None in names or {x for x in names if said_of(x, a) or said_of(x, b)} != names or said_of(a, b):
                continue
            if all(int(t[0][self.count_at]) * int(t[0][self.structure.width_of]) <= hi  # type: ignore[index]
                   for t in self.seeds):
                return int(hi)
        return None

    def _name_slots(self, desc: list[InputLine]) -> None:
        """Give slots the statement's names for them, line by line, where the input description
        and the layout agree on the number of lines and of values per line (else none: unsure)."""
        singles = [d for d in desc if not d.rows and not d.listed]
        blocks = [d for d in desc if d.rows]
        if self.shape == "fixed":
            if len(singles) == len(desc) == len(self.lines):
                for ln, d in zip(self.lines, singles):
                    if len(d.names) == len(ln):
                        for sl, nm in zip(ln, d.names):
                            sl.name = nm
            return
        if self.shape in ("counted", "list") and self.lines and desc and not desc[0].rows:
            if len(desc[0].names) == len(self.lines[0]) and not desc[0].listed:
                for sl, nm in zip(self.lines[0], desc[0].names):
                    sl.name = nm
        if self.shape == "list" and self.elem is not None and len(desc) == 2 and not desc[1].rows \
                and len(desc[1].names) == 1:
            self.elem.name = desc[1].names[0]
        if self.shape in ("counted", "repeat") and len(blocks) == 1 and len(blocks[0].names) == len(self.row):
            for sl, nm in zip(self.row, blocks[0].names):
                sl.name = nm

    def _bind_heads(self, toks: list[list[list[str]]], statement: str) -> None:
        """Row columns bounded by a header value (``1 \\le b \\le w``): their domain becomes
        [the stated lower bound, the header slot's maximum], each input's header value caps it."""
        cols = [self.elem] if self.shape == "list" and self.elem is not None else self.row
        if self.shape == "list":
            samples = [(t[0], [[x] for x in t[1]] if len(t) > 1 else []) for t in toks]
        else:
            samples = [(t[0], t[1:]) for t in toks]
        names = [None if (self.shape == "counted" and c in self.structure.labels) or sl.kind != "int" else sl.name
                 for c, sl in enumerate(cols)]
        self.head_bounds = infer_head_bounds(statement, [sl.name for sl in self.lines[0]], names, samples, said_of)
        for b in self.head_bounds:
            sl, hs = cols[b.col], self.lines[0][b.head]
            if b.magnitude:  # either sign where the samples show both
                sl.hi = max(float(b.lo or 0), hs.hi - b.strict)
                sl.lo = -sl.hi if sl.lo < 0 else float(b.lo or 0)
                continue
            if b.lo is not None:
                sl.lo = float(b.lo)
            sl.hi = max(sl.lo, hs.hi - b.strict)

    def _bind_fixed(self, toks: list[list[list[str]]], statement: str, ranges: list[Range],
                    header_only: bool = False) -> None:
        """Fixed values (or a counted layout's header values) bounded by another ("$1 \\le a, b < n$",
        "$1 \\le k \\le n$" with n the count): each gets [lo, that value's maximum - strict] as its
        domain, within a range the statement gives it by name."""
        names = {(li, j): sl.name for li, ln in enumerate(self.lines[:1] if header_only else self.lines)
                 for j, sl in enumerate(ln) if sl.name and sl.kind == "int"}
        shaping = self._shaping_header() if header_only and self.rows_structured else set()
        self.fixed_bounds = [b for b in infer_fixed_bounds(statement, names, toks, said_of) if b.at not in shaping]
        for b in self.fixed_bounds:
            sl, up = self.lines[b.at[0]][b.at[1]], self.lines[b.upper[0]][b.upper[1]]
            own = [r.hi for r in ranges if said_of(r.name, sl.name) and r.hi is not None]
            if b.lo is not None:
                sl.lo = float(b.lo)
            sl.hi = max(sl.lo, min([up.hi - b.strict] + own))  # (a count's slot holds the count's range: _fit)

    def _shaping_header(self) -> set[tuple[int, int]]:
        """Header values that give structured rows their shape (the count, a graph's node count, a
        grid's width, a bound of labels): the structure sets them, so no stated bound moves them.
        Each may still be the upper end of another's bound ("$1 \\le s \\le n$")."""
        st = self.structure
        cols = {self.count_at, st.node_col, st.width_of} | set(st.labels.values())
        return {(0, j) for j in cols if j is not None}

    def _all_slots(self) -> list[Slot]:
        out = [s for ln in self.lines for s in ln] + list(self.row)
        if self.elem:
            out.append(self.elem)
        return out

    def _fit(self, ranges: list[Range], alpha: Optional[str]) -> None:
        """Domains: statement ranges that contain what the samples show, else the samples widened."""
        counts_obs: list[int] = []
        if self.shape == "counted":
            counts_obs = [len(t) - 1 - self.count_offset for t in self.seeds]
        elif self.shape == "list":
            counts_obs = [len(t[1]) if len(t) > 1 else 0 for t in self.seeds]
        elif self.shape == "repeat":
            counts_obs = [len(t) for t in self.seeds]
        count_slot = self.lines[0][self.count_at] if self.count_at is not None and self.lines else None
        for sl in self._all_slots():
            fit_slot(sl, ranges, alpha, is_count=sl is count_slot)
        if counts_obs:
            lo_c, hi_c = min(counts_obs), max(counts_obs)
            fit = pick_count_range(ranges, lo_c, hi_c, named=count_slot is not None)
            if count_slot is not None:
                lo_r = int(count_slot.lo)
                hi_r = int(count_slot.hi)
            elif fit is not None:
                lo_r, hi_r = int(fit.lo if fit.lo is not None else 1), int(fit.hi if fit.hi is not None else hi_c * 2)
            else:
                lo_r, hi_r = max(1, lo_c), max(hi_c * 2, 10)
            self.count_lo, self.count_hi = max(0, lo_r), max(hi_r, lo_r)
            if count_slot is not None:
                count_slot.lo, count_slot.hi = self.count_lo, self.count_hi
        if self.shape == "tokens":
            for t in self.seeds:
                for ln in t:
                    for tok in ln:
                        k = token_kind(tok)
                        sl = self.token_slots.setdefault(k, Slot(kind=k))
                        sl.obs.append(parse_token(tok, k))
            for sl in self.token_slots.values():
                fit_slot(sl, ranges, alpha, is_count=False)

    def admits(self, stdin: str) -> bool:
        r"""False when a value on the input's first lines (a ``fixed`` layout's lines, or the header
        of a counted or list one) lies outside the range the statement states of it by name. An
        input family that does not draw from this model (a validator's grammar, looser than the
        statement: ``INT(1,10^6)`` beside "$2 \le a,b \le 10^6$") is held to the statement's ranges
        this way. Lines of another length than the layout's are not judged here."""
        if self.shape not in ("fixed", "counted", "list"):
            return True
        for slots, toks in zip(self.lines, tokenize(stdin)):
            if len(slots) != len(toks):
                return True
            for sl, tok in zip(slots, toks):
                if not sl.stated or sl.kind not in ("int", "float") or token_kind(tok) not in ("int", "float"):
                    continue
                if not sl.lo <= float(tok) <= sl.hi:
                    return False
        return True
