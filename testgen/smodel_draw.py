"""How a stdin model draws an input of each family (regular, boundary, special, stress, corner,
structured), within its layout, its domains and the bounds between values."""

from __future__ import annotations

import random
from typing import Any, Optional

from .cases import draw_cases, mutate_cases
from .corners import corner_rows
from .distinct_rows import apply as apply_distinct, distinct_values
from .input_caps import caps
from .lines import line_plan, put_on_lines
from .relations import apply_fixed_bounds, bound_column, fit_length
from .sections import draw_sections, mutate_sections
from .shapes import (CROWDED_SPAN, crowded, draw_count, grid_rows, grid_size, grid_step, row_order, stress_step,
                     rows_within, stress_value)
from .slot import Slot
from .structures import edge_shape, graph_edges, place_once, stress_graph_nodes, tree_edges


class Drawing:
    """The generating half of ``StdioModel`` (``smodel.py``)."""

    def draw(self, kind: str, rng: random.Random, n: int) -> list[str]:
        return [s for s, _ in self.draw_noted(kind, rng, n)]

    def draw_noted(self, kind: str, rng: random.Random, n: int) -> list[tuple[str, str]]:
        """Inputs of family ``kind`` with a note; a stress input's note names its shape
        (``shape:ascending``), and so does a ``structured`` input of points on lines
        (``shape:points-lines-3``), so selection can keep the largest input of every shape."""
        out: list[tuple[str, str]] = []
        if self.shape == "empty":
            return [("", "")]
        if kind == "corner":
            return [(s, "") for s in self._corner_grid(rng, n)] if self.shape == "fixed" else []
        for i in range(n * 3):
            if len(out) >= n:
                break
            try:
                s = self._one(kind, rng, i)
            except (ValueError, IndexError):
                continue
            if s is not None:
                note = ""
                if kind == "stress" and self.shape in ("fixed", "counted", "list", "repeat", "sections"):
                    note = "shape:" + self._stress_shape(i)
                elif kind == "structured" and self.planar:
                    note = "shape:points-%s-%d" % line_plan(i)
                out.append((s, note))
        return out

    def _corner_grid(self, rng: random.Random, n: int) -> list[str]:
        """The ``corner`` family of a ``fixed`` layout: ``corners.corner_rows``, each row put
        through the statement's bounds between values, as every draw is."""
        slots = [sl for ln in self.lines for sl in ln]
        out = []
        for row in corner_rows(slots, n, rng):
            it = iter(row)
            s = self._fixed_input([[next(it) for _ in ln] for ln in self.lines])
            if s is not None:
                out.append(s)
        return out

    def _fixed_input(self, vals: list[list[Any]]) -> Optional[str]:
        """A ``fixed`` layout's values, one list per line, as an input: put through the statement's
        bounds between values and its tied lengths; None when a bound cannot hold."""
        if not apply_fixed_bounds(vals, self.fixed_bounds, self._fixed_span):
            return None
        self._tie_lengths(vals)
        return self._render([[sl.fmt(v) for sl, v in zip(ln, row)] for ln, row in zip(self.lines, vals)])

    def _stress_shape(self, i: int) -> str:
        """The name of the ``i``-th stress input's shape: a grid's (``shapes.GRID_PLAN``), a tree's
        or graph's (``structures.edge_shape``; a graph on the fewest nodes at ``equal-min``), else the rows'
        values' (``shapes.STRESS_PLAN``)."""
        st = self.structure
        if self.shape == "counted" and st.width_of is not None:
            return "grid-" + grid_step(i)[1]
        if self.shape == "counted" and st.graph and st.node_col is not None:
            if self._fewest_nodes(i):
                return "graph-fewest-nodes"
            return st.graph + "-" + edge_shape("stress", i, None, st.graph, stress_step(i)[1])
        return stress_step(i)[1]

    def _fewest_nodes(self, i: int) -> bool:
        """Does the ``i``-th stress input put its edges on the fewest nodes they fit on (a graph, not
        a tree, whose node count is another header value than the edge count)?"""
        st = self.structure
        return st.graph == "graph" and st.node_col != self.count_at and stress_step(i)[1] == "equal-min"

    def _count(self, kind: str, rng: random.Random, i: int) -> int:
        cap = rows_within(self.row, kind, caps().tokens, caps().chars)
        return draw_count(kind, self.count_lo, min(self.count_hi, cap), rng, i)

    def _value(self, sl: Slot, kind: str, rng: random.Random, i: int, j: int) -> Any:
        if kind == "boundary":
            b = sl.boundary()
            return b[(i + j) % len(b)] if b and rng.random() < 0.7 else sl.draw(rng)
        if kind == "stress":
            return stress_value(sl, stress_step(i), rng)
        if kind == "special":
            b = sl.boundary()
            pick = i % 3
            if pick == 0 and b:
                return b[i % len(b)]  # all equal
            if crowded(i) and sl.kind in ("int", "float") and not sl.choices:
                top = min(sl.hi, sl.lo + CROWDED_SPAN)
                return rng.randint(int(sl.lo), int(top)) if sl.kind == "int" else round(
                    rng.uniform(sl.lo, top), sl.decimals)
            return sl.draw(rng)
        return sl.draw(rng)

    def _head(self, sl: Slot, kind: str, rng: random.Random, i: int, j: int) -> Any:
        """A header (or fixed-line) value: in every stress shape but ``random``, the maximum."""
        if kind == "stress" and stress_step(i)[1] != "random" and sl.kind in ("int", "float") and not sl.choices:
            return int(sl.hi) if sl.kind == "int" else sl.hi
        return self._value(sl, kind, rng, i, j)

    def _column_slot(self, c: int) -> Slot:
        """Row column ``c``'s slot; a list's elements' for a ``list`` layout (its one column)."""
        return self.elem if self.shape == "list" and self.elem is not None else self.row[c]

    def _row_bound(self, c: int, head: Optional[list[Any]] = None) -> tuple[int, int]:
        sl = self._column_slot(c)
        lo, hi = int(sl.lo), int(sl.hi)
        for b in self.head_bounds if head is not None else ():
            if b.col == c:
                hi = min(hi, int(head[b.head]) - b.strict)  # type: ignore[index]
        return lo, hi

    def _render(self, lines: list[list[str]]) -> str:
        return "".join(" ".join(ln) + "\n" for ln in lines)

    def _one(self, kind: str, rng: random.Random, i: int, n: Optional[int] = None) -> Optional[str]:
        """One input of family ``kind``; ``n`` fixes the count (a test case of a ``cases`` file)."""
        if self.shape == "cases":
            return mutate_cases(self, rng) if kind == "mutation" else draw_cases(self, kind, rng, i)
        if self.shape == "sections":
            return mutate_sections(self, rng) if kind == "mutation" else draw_sections(self, kind, rng, i)
        if kind == "mutation":
            return self._mutate(rng)
        if self.shape == "tokens":
            return None  # no layout known: only mutations of the samples are safe
        rows: list[list[Any]] = []
        if self.shape == "fixed":
            return self._fixed_input([[self._head(sl, kind, rng, i, j) for j, sl in enumerate(ln)] for ln in self.lines])
        n = self._count(kind, rng, i) if n is None else n
        if self.shape == "counted" and (self.structure.labels or self.structure.width_of is not None):
            return self._structured(kind, rng, i, n)
        if self.shape == "counted" and self.count_offset:
            n = max(n, -self.count_offset)
            rows = [[self._value(sl, kind, rng, i, j) for j, sl in enumerate(self.row)]
                    for _ in range(n + self.count_offset)]
            if self.relations and self.relations.fix(rows, self._row_bound, rng) is None:
                return None
            drawn = [self._value(sl, kind, rng, i, j) for j, sl in enumerate(self.lines[0])]
            assert self.count_at is not None
            drawn[self.count_at] = n
            if not apply_fixed_bounds([drawn], self.fixed_bounds, self._fixed_span):
                return None
            head = [sl.fmt(v) for sl, v in zip(self.lines[0], drawn)]
            return self._render([head] + [[sl.fmt(v) for sl, v in zip(self.row, r)] for r in rows])
        head_vals: Optional[list[Any]] = None
        if self.head_bounds or self.fixed_bounds:  # the header first: it caps the bounded columns
            head_vals = [self._head(sl, kind, rng, i, j) for j, sl in enumerate(self.lines[0])]
            head_vals[self.count_at] = n  # type: ignore[index]
            if not apply_fixed_bounds([head_vals], self.fixed_bounds, self._fixed_span):
                return None
        if self.shape in ("counted", "repeat"):
            rows = [[self._value(sl, kind, rng, i, j) for j, sl in enumerate(self.row)] for _ in range(n)]
            if head_vals is not None and not self._cap_rows(rows, head_vals):
                return None
            for r in rows:
                for j in self.ordered:
                    if r[j] > r[j + 1]:
                        r[j], r[j + 1] = r[j + 1], r[j]
            if self.relations and self.relations.fix(rows, lambda c: self._row_bound(c, head_vals), rng) is None:
                return None
            if kind == "structured" and self.planar and not self._on_lines(rows, rng, i):
                return None
            if not self._distinct(rows):
                return None
            if self.text_total is not None:
                rows = self._within_text_total(rows)
                if len(rows) < self.count_lo:
                    return None
                n = len(rows)
            order = row_order(kind, i)
            if rows and order:
                rows.sort(reverse=order == "descending")
            body = [[sl.fmt(v) for sl, v in zip(self.row, r)] for r in rows]
        else:  # list
            assert self.elem is not None
            vals = [self._value(self.elem, kind, rng, i, j) for j in range(n)]
            if head_vals is not None or self.distinct:
                box = [[v] for v in vals]
                if head_vals is not None and not self._cap_rows(box, head_vals):
                    return None
                vals = [r[0] for r in box]
                if self.distinct:
                    vals = distinct_values(vals, (*self._row_bound(0, head_vals), 0), rng)
                    if vals is None:
                        return None  # fewer values in the range than the list is long
            order = row_order(kind, i)
            if order:
                vals.sort(reverse=order == "descending")
            body = [[self.elem.fmt(v) for v in vals]]
        if self.shape == "repeat":
            if n == 0:
                return None
            return self._render(body)
        if head_vals is not None:
            head = [sl.fmt(v) for sl, v in zip(self.lines[0], head_vals)]
        else:
            head = [sl.fmt(self._head(sl, kind, rng, i, j)) for j, sl in enumerate(self.lines[0])]
        assert self.count_at is not None
        head[self.count_at] = str(n)
        return self._render([head] + body)

    def _structured(self, kind: str, rng: random.Random, i: int, n: int) -> Optional[str]:
        """A counted layout whose rows are a tree, a graph, labels in 1..n or a grid (``structures.py``)."""
        st = self.structure
        assert self.count_at is not None
        head_slots = self.lines[0]
        head: list[Any] = [self._value(sl, kind, rng, i, j) for j, sl in enumerate(head_slots)]
        head[self.count_at] = n
        n_rows = n + self.count_offset
        if n_rows < 0:
            return None
        node_col = st.node_col
        if st.graph and node_col is not None and node_col != self.count_at:
            # nodes and edges are both header values: nodes first, then as many edges as fit
            nodes = int(head[node_col])
            dense = stress_graph_nodes(n_rows, st, stress_step(i)[1], int(head_slots[node_col].lo),
                                       int(head_slots[node_col].hi)) if kind == "stress" and st.graph == "graph" else None
            if dense is not None:  # a dense graph, many edges among few nodes, or a set average degree
                nodes = dense
            elif kind == "stress":
                nodes = int(head_slots[node_col].hi) if head_slots[node_col].hi <= n_rows + 1 else max(
                    2, min(int(head_slots[node_col].hi), n_rows // 2 + 1))
            nodes = max(2, nodes)
            if st.connected and n_rows < nodes - 1:
                nodes = n_rows + 1
            if st.simple:
                n_rows = min(n_rows, nodes * (nodes - 1) // 2)
            if not head_slots[node_col].lo <= nodes <= head_slots[node_col].hi:
                return None
            head[node_col] = nodes
            head[self.count_at] = n_rows - self.count_offset
        width = None
        if st.width_of is not None:
            width = int(head[st.width_of])
            wslot = head_slots[st.width_of]
            cslot = head_slots[self.count_at]
            if kind == "stress":  # as many cells as allowed: square, wide or tall (``shapes.GRID_PLAN``)
                limit = caps()
                most = limit.tokens if st.matrix else limit.grid_cells  # a matrix's cells are tokens
                cells = min(st.max_cells or most, most)
                rows_max, width = grid_size(i, cells, (int(cslot.lo), int(cslot.hi)), (int(wslot.lo), int(wslot.hi)),
                                            limit.tokens)
                n_rows = min(n_rows, rows_max)  # a count fixed by the caller (a test case's share) stays a cap
                head[self.count_at] = n_rows - self.count_offset
            width = max(int(wslot.lo), min(int(wslot.hi), width))
            if st.matrix and n_rows * width > caps().tokens:  # a matrix drawn from its ranges: within the caps
                width = max(int(wslot.lo), caps().tokens // max(1, n_rows))
            if st.max_cells is not None and n_rows * width > st.max_cells:  # the stated h * w bound
                width = st.max_cells // max(1, n_rows)
                if width < wslot.lo:
                    return None
            head[st.width_of] = width
        if not apply_fixed_bounds([head], self.fixed_bounds, self._fixed_span):
            return None  # a header value bounded by another, e.g. a start node by the node count
        slots = [self.row[0]] * width if width is not None and st.matrix else self.row  # a matrix: width cells a row
        rows: list[list[Any]] = [[self._value(sl, kind, rng, i, j) for j, sl in enumerate(slots)]
                                 for _ in range(n_rows)]
        if width is not None and not st.matrix:
            cell = self.row[0]
            special = kind == "special" and i % 2 == 0
            fill = rng.choice(cell.alphabet)
            if kind == "stress":
                for r, text in zip(rows, grid_rows(grid_step(i)[1], n_rows, width, cell.alphabet, rng)):
                    r[0] = text
            else:
                for r in rows:
                    r[0] = fill * width if special else "".join(rng.choice(cell.alphabet) for _ in range(width))
            if st.once:  # a start and a target: each at one cell, nowhere else
                grid = place_once([r[0] for r in rows], st.once,
                                  "".join(c for c in cell.alphabet if c not in st.once), rng)
                if grid is None:
                    return None
                for r, text in zip(rows, grid):
                    r[0] = text
        if st.graph and node_col is not None:
            nodes = int(head[node_col])
            shape = edge_shape(kind, i, rng, st.graph, stress_step(i)[1])
            if st.graph == "tree":
                edges: Optional[list[tuple[int, int]]] = tree_edges(nodes, shape, rng)[:n_rows]
            else:
                edges = graph_edges(nodes, n_rows, st, rng, shape)
            if edges is None or len(edges) != n_rows:
                return None
            a, b = st.ends
            for r, (u, v) in zip(rows, edges):
                r[a], r[b] = u - 1 + st.base, v - 1 + st.base
        for c, j in st.labels.items():
            if st.graph and c in st.ends:
                continue
            bound = int(head[j])
            for r in rows:
                r[c] = rng.randint(st.base, bound - 1 + st.base)

        def row_bound(c: int) -> tuple[int, int]:
            if c in st.labels:
                return st.base, int(head[st.labels[c]]) - 1 + st.base
            return self._row_bound(c, head)

        if self.head_bounds and not self._cap_rows(rows, head):
            return None
        if self.relations and self.relations.fix(rows, row_bound, rng) is None:
            return None
        if not self._distinct(rows):
            return None
        lines = [[sl.fmt(v) for sl, v in zip(head_slots, head)]]
        lines += [[sl.fmt(v) for sl, v in zip(slots, r)] for r in rows]
        return self._render(lines)

    def _within_text_total(self, rows: list[list[Any]]) -> list[list[Any]]:
        """The first rows whose words together stay within ``text_total``."""
        words = [j for j, sl in enumerate(self.row) if sl.kind == "word"]
        total, kept = 0, []
        for r in rows:
            total += sum(len(str(r[j])) for j in words)
            if total > (self.text_total or 0):
                break
            kept.append(r)
        return kept

    def _distinct(self, rows: list[list[Any]]) -> bool:
        """Make the rows distinct as ``distinct`` says, in place; False when they cannot be."""
        return apply_distinct(rows, self.distinct, self.row) if self.distinct else True

    def _on_lines(self, rows: list[list[Any]], rng: random.Random, i: int) -> bool:
        """Put the rows' points on a few lines, in the ``i``-th shape of ``lines.LINE_PLAN``."""
        x, y = (self.row[c] for c in self.distinct.points)
        box = (int(x.lo), int(x.hi), int(y.lo), int(y.hi))
        return put_on_lines(rows, self.distinct.points, box, line_plan(i), rng)

    def _fixed_span(self, p: tuple[int, int]) -> tuple[int, int]:
        sl = self.lines[p[0]][p[1]]
        return int(sl.lo), int(sl.hi)

    def _tie_lengths(self, vals: list[list[Any]]) -> None:
        """Each tied word made as long as its number says, the number kept within both domains."""
        for (li, j), (lk, k) in self.length_of:
            word, num = self.lines[li][j], self.lines[lk][k]
            n = int(vals[lk][k])
            n = max(int(num.lo), word.min_len, min(n, int(num.hi), word.max_len))
            vals[lk][k] = n
            vals[li][j] = fit_length(str(vals[li][j]), n)

    def _cap_rows(self, rows: list[list[Any]], head: list[Any]) -> bool:
        """Map each bounded column's values into [lo, its header value]; False when none fits."""
        for b in self.head_bounds:
            sl = self._column_slot(b.col)
            col = [r[b.col] for r in rows]
            capped = bound_column(col, b, int(sl.lo), int(sl.hi), int(head[b.head]) - b.strict)
            if capped is None:
                return False
            for r, v in zip(rows, capped):
                r[b.col] = v
        return True
