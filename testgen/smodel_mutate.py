"""How a stdin model mutates a sample: rows dropped, added, swapped or changed, within the layout
and the bounds the statement gives."""

from __future__ import annotations

import random
from typing import Optional

from .relations import apply_fixed_bounds
from .tokens import parse_token, token_kind


class SampleMutation:
    """The ``mutation`` family of ``StdioModel`` (``smodel.py``)."""

    def _mutate(self, rng: random.Random) -> Optional[str]:
        if not self.seeds:
            return None
        seed = [list(ln) for ln in rng.choice(self.seeds)]
        if self.shape in ("counted", "repeat") and self.row:
            start = 1 if self.shape == "counted" else 0
            body = seed[start:]
            op = rng.randrange(4)
            if (self.relations or self.head_bounds) and op == 1:
                op = 2  # a new row could break a relation: only drop, reorder or change free columns
            st = self.structure
            if self.rows_structured:
                # rows are a tree, a graph or a grid: only reorder rows or change the free columns
                op = 2 if rng.random() < 0.5 else 3
                free = [j for j in range(len(self.row)) if j not in st.labels and st.width_of is None
                        and j not in self.relations.columns(len(self.row))]
                if op == 3 and not free:
                    op = 2
                if op == 3:
                    for r in body:
                        for j in free:
                            if j < len(r) and rng.random() < 0.3:
                                r[j] = self.row[j].fmt(self.row[j].mutate(parse_token(r[j], self.row[j].kind), rng))
                    return self._render([seed[0]] + body)
            if op == 0 and len(body) > self.count_lo:
                del body[rng.randrange(len(body))]
            elif op == 1 and len(body) < self.count_hi:
                body.insert(rng.randrange(len(body) + 1),
                            [sl.fmt(sl.draw(rng)) for sl in self.row])
            elif op == 2 and len(body) >= 2:
                i, j = rng.sample(range(len(body)), 2)
                body[i], body[j] = body[j], body[i]
            else:
                tied = self.relations.columns(len(self.row)) | {b.col for b in self.head_bounds}
                for r in body:
                    for j, sl in enumerate(self.row):
                        if j < len(r) and j not in tied and rng.random() < 0.3:
                            r[j] = sl.fmt(sl.mutate(parse_token(r[j], sl.kind), rng))
            if self.shape == "counted":
                head = seed[0]
                assert self.count_at is not None
                head[self.count_at] = str(len(body) - self.count_offset)  # a tree's n is its edges + 1
                if self.fixed_bounds and not self._clamp_header(head):
                    return None
                return self._render([head] + body)
            return self._render(body) if body else None
        if self.shape == "fixed":
            for ln, slots in zip(seed, self.lines):
                for j, sl in enumerate(slots):
                    if rng.random() < 0.5:
                        ln[j] = sl.fmt(sl.mutate(parse_token(ln[j], sl.kind), rng))
            if self.length_of or self.fixed_bounds:
                vals = [[parse_token(t, sl.kind) for t, sl in zip(ln, slots)] for ln, slots in zip(seed, self.lines)]
                if not apply_fixed_bounds(vals, self.fixed_bounds, self._fixed_span, clamp=True):
                    return None
                self._tie_lengths(vals)
                seed = [[sl.fmt(v) for v, sl in zip(ln, slots)] for ln, slots in zip(vals, self.lines)]
            return self._render(seed)
        if self.shape == "list" and self.elem is not None and len(seed) > 1:
            vals = [parse_token(x, self.elem.kind) for x in seed[1]]
            op = rng.randrange(3)
            if self.distinct:  # distinct values (a permutation): reordered only
                if len(vals) >= 2:
                    a, b = rng.sample(range(len(vals)), 2)
                    vals[a], vals[b] = vals[b], vals[a]
            elif op == 0 and len(vals) > self.count_lo:
                del vals[rng.randrange(len(vals))]
            elif op == 1 and len(vals) < self.count_hi:
                vals.insert(rng.randrange(len(vals) + 1), self.elem.draw(rng))
            else:
                for j in range(len(vals)):
                    if rng.random() < 0.3:
                        vals[j] = self.elem.mutate(vals[j], rng)
            assert self.count_at is not None
            seed[0][self.count_at] = str(len(vals))
            for b in self.head_bounds:  # within the header value that bounds them (the new count, if it is)
                cap = int(seed[0][b.head]) - b.strict
                vals = [min(v, cap) for v in vals]
            if self.fixed_bounds and not self._clamp_header(seed[0]):
                return None
            seed[1] = [self.elem.fmt(v) for v in vals]
            return self._render(seed)
        # tokens: mutate words and numbers that do not look like counts (not on the first line)
        for li, ln in enumerate(seed):
            for j, tok in enumerate(ln):
                k = token_kind(tok)
                if (li == 0 and k == "int" and len(seed) > 1) or rng.random() > 0.3:
                    continue
                sl = self.token_slots.get(k)
                if sl is not None:
                    ln[j] = sl.fmt(sl.mutate(parse_token(tok, k), rng))
        return self._render(seed)

    def _clamp_header(self, head: list[str]) -> bool:
        """A mutated header's bounded values lowered to their bounds (the count may have changed), in place."""
        vals = [[parse_token(t, sl.kind) for t, sl in zip(head, self.lines[0])]]
        if not apply_fixed_bounds(vals, self.fixed_bounds, self._fixed_span, clamp=True):
            return False
        head[:] = [sl.fmt(v) for sl, v in zip(self.lines[0], vals[0])]
        return True
