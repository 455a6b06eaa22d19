"""The input model of a stdin/stdout problem, inferred from its sample inputs.

Inputs are read as lines of whitespace-separated tokens (int, float or word). We look for
one of a few common layouts, checked against every sample:

* ``empty``     - no input at all;
* ``fixed``     - the same lines and token kinds every time;
* ``counted``   - a header line holding N, then N rows of the same shape;
* ``list``      - a header line holding N, then one line of N tokens;
* ``repeat``    - rows of the same shape until end of file;
* ``cases``     - a line with T, then T test cases of one of the layouts above (``cases.py``),
  the sum of their sizes within the statement's bound;
* ``sections``  - several sections, each a fixed line or a block counted by a value read
  earlier ("n m / m rows / q / q rows", ``sections.py``).

Value ranges, row counts and word lengths come from the statement's constraints where
they fit the samples, else from the samples themselves. When no layout fits, the model
falls back to token-wise mutation of the samples (``shape = "tokens"``).
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field
from typing import Any, Optional

from .brackets import balanced_pairs, make_balanced
from .cases import Cases, draw_cases, fit_cases, infer_cases, mutate_cases
from .corners import corner_rows
from .constraints import (InputLine, Range, alphabet_hint, extract, input_lines, normalize, product_bounds, said_of,
                          says_no_input)
from .distinct_rows import DistinctRows, distinct_columns, ruled_columns
from .distinct_rows import apply as apply_distinct
from .lines import line_plan, put_on_lines, says_no_three_collinear
from .sections import Sections, draw_sections, infer_sections, mutate_sections
from .shapes import (CROWDED_SPAN, crowded, draw_count, grid_rows, grid_size, grid_step, row_order, stress_step,
                     rows_within, stress_value)
from .relations import (FixedBound, HeadBound, RowRelations, apply_fixed_bounds, bound_column, fit_length,
                        infer_fixed_bounds, infer_head_bounds, infer_relations, length_ties)
from .structures import Structure, detect, edge_shape, graph_edges, stress_graph_nodes, tree_edges

CATEGORY_MAX = 8  # at most this many distinct words in a column that repeat them: a category
MAX_INPUT_TOKENS = 200_000  # stress inputs stay below this many tokens
MAX_INPUT_CHARS = 4_000_000  # ... and this many characters (a larger input is dropped: generators.generate)
MAX_WORD_LEN = 1_000_000  # a word's stated maximum length is kept up to this (stress words reach it)
WORD_LEN = 100_000  # the other families' words stay this short: generating and judging them stays quick
GRID_CELLS = 4 * MAX_INPUT_TOKENS  # ... and a stress grid below this many cells
# where a fixed-width integer ends (int32, uint32): a value stated to reach past one is tried at it,
# since reading or adding there is where a program with too narrow a type breaks
INT_WIDTH_EDGES = (2**31 - 1, 2**31, 2**32 - 1, 2**32)
_INT = re.compile(r"-?\d+\Z")
_FLOAT = re.compile(r"-?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)\Z")


def token_kind(tok: str) -> str:
    if _INT.match(tok):
        return "int"
    if _FLOAT.match(tok):
        return "float"
    return "word"


def tokenize(text: str) -> list[list[str]]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.split() for ln in lines]


@dataclass
class Slot:
    """One token position and its domain."""

    kind: str
    obs: list[Any] = field(default_factory=list)
    lo: float = 0
    hi: float = 10
    decimals: int = 0
    alphabet: str = string.ascii_lowercase
    min_len: int = 1
    max_len: int = 10
    # A category (a command "+"/"*"/"?", a direction "L"/"R"): the few words seen repeat, so only
    # they are drawn (the function model's rule, testgen/inputs/strings.py)
    choices: Optional[list[str]] = None
    # the statement's name for this value ("One line with two integers $w$ and $h$"): a stated
    # range with this name is the slot's own, however narrower another range that fits may be
    name: Optional[str] = None
    # a balanced bracket word in every sample (``brackets.py``): the opening brackets it uses;
    # every word written for this slot is made balanced
    balanced: Optional[str] = None
    # [lo, hi] is a range the statement states of this value by its name ("$2 \le a, b \le 10^6$"),
    # not one guessed or widened from the samples: an input outside it is outside the contract
    stated: bool = False

    @property
    def short_len(self) -> int:
        """The longest word of the families other than stress (``WORD_LEN``)."""
        return max(self.min_len, min(self.max_len, WORD_LEN))

    def fmt(self, v: Any) -> str:
        if self.balanced:
            return make_balanced(str(v), self.balanced)
        if self.kind == "int":
            return str(int(v))
        if self.kind == "float":
            return f"{v:.{self.decimals}f}"
        return str(v)

    def draw(self, rng: random.Random, mode: str = "regular") -> Any:
        if self.kind == "word" and self.choices:
            return rng.choice(self.choices)
        if self.kind == "word":
            # a stress word is ``shapes.stress_word``'s
            n = self.min_len if mode == "small" else rng.randint(self.min_len, self.short_len)
            return "".join(rng.choice(self.alphabet) for _ in range(max(1, n)))
        lo, hi = self.lo, self.hi
        if mode == "stress":
            lo = max(lo, hi - (hi - lo) * 0.1)
        if self.kind == "int":
            lo_i, hi_i = int(lo), int(hi)
            if mode == "regular" and rng.random() < 0.5 and hi_i - lo_i > 100:
                # log-uniform magnitude so small and large numbers both show up
                span = hi_i - lo_i
                return lo_i + min(span, int(10 ** rng.uniform(0, len(str(span)))))
            return rng.randint(lo_i, max(lo_i, hi_i))
        return round(rng.uniform(lo, hi), self.decimals)

    def boundary(self) -> list[Any]:
        if self.kind == "word" and self.choices:
            return list(self.choices)
        if self.kind == "word":
            return [self.alphabet[0] * self.min_len, self.alphabet[-1] * self.short_len]
        lo, hi = (int(self.lo), int(self.hi)) if self.kind == "int" else (self.lo, self.hi)
        vals = [lo, hi, lo + 1, hi - 1, 0, 1]  # an int's neighbours in ints: 10^18 - 1 is no float
        if self.kind == "int":
            vals += list(INT_WIDTH_EDGES)
        return [v for v in dict.fromkeys(vals) if self.lo <= v <= self.hi]

    def mutate(self, v: Any, rng: random.Random) -> Any:
        if self.kind == "word" and self.choices:
            return rng.choice(self.choices)
        if self.kind == "word":
            s = str(v)
            op = rng.randrange(4)
            if op == 0 and s:
                i = rng.randrange(len(s))
                s = s[:i] + rng.choice(self.alphabet) + s[i + 1:]
            elif op == 1 and len(s) < self.max_len:
                i = rng.randrange(len(s) + 1)
                s = s[:i] + rng.choice(self.alphabet) + s[i:]
            elif op == 2 and len(s) > self.min_len:
                i = rng.randrange(len(s))
                s = s[:i] + s[i + 1:]
            else:
                s = s[::-1]
            return s
        op = rng.randrange(5)
        if op == 0:
            x = v + 1
        elif op == 1:
            x = v - 1
        elif op == 2:
            x = v * 2
        elif op == 3:
            x = rng.choice(self.boundary() or [v])
        else:
            x = self.draw(rng)
        x = max(self.lo, min(self.hi, x))
        return int(x) if self.kind == "int" else round(x, self.decimals)


@dataclass
class StdioModel:
    shape: str  # empty | fixed | counted | list | repeat | cases | sections | tokens
    lines: list[list[Slot]] = field(default_factory=list)  # fixed lines, or the header
    count_at: Optional[int] = None  # index of N in the header line
    row: list[Slot] = field(default_factory=list)  # the repeated row (counted / repeat)
    elem: Optional[Slot] = None  # list element
    count_lo: int = 1
    count_hi: int = 10
    seeds: list[list[list[str]]] = field(default_factory=list)
    token_slots: dict[str, Slot] = field(default_factory=dict)
    count_offset: int = 0  # counted: rows = header[count_at] + count_offset (a tree: n, then n-1 edges)
    structure: Structure = field(default_factory=Structure)
    # row columns j with row[j] <= row[j+1] in every sample row (an interval [a, b], a range
    # "l r"): generated rows keep that order, as the function model's ordered records do
    ordered: list[int] = field(default_factory=list)
    cases: Optional["Cases"] = None  # shape "cases": the inner layout and the sum bound
    sections: Optional["Sections"] = None  # shape "sections": the sections and their counts
    # differences and key columns every sample row shows (``relations.py``): generated rows keep them
    relations: RowRelations = field(default_factory=RowRelations)
    # row columns (a list's elements: column 0) the statement bounds by a header value
    # ("1 <= b <= w"): generated values are mapped into [lo, that value] (``relations.py``)
    head_bounds: list[HeadBound] = field(default_factory=list)
    # fixed layouts: (word position, int position) with the word exactly that long in every sample
    length_of: list[tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    # fixed layouts: values the statement bounds by another value ("$1 \le k \le n$"): drawn
    # values are mapped under that value (``relations.py``)
    fixed_bounds: list[FixedBound] = field(default_factory=list)
    # counted / repeat: the row columns of a point that never coincides with another, or single
    # columns whose values never repeat, as the statement says and every sample agrees
    # (``distinct_rows.py``): drawn distinct
    distinct: DistinctRows = field(default_factory=DistinctRows)
    # counted / repeat: the distinct point is two integer columns (a point of the plane) and the
    # statement allows three on a line: the ``structured`` family puts the points on a few lines
    # (``lines.py``)
    planar: bool = False

    # ------------------------------------------------------------------ inference

    @classmethod
    def infer(cls, seed_inputs: list[str], statement: str = "") -> "StdioModel":
        toks = [tokenize(s) for s in seed_inputs]
        ranges = extract(statement)
        alpha = alphabet_hint(statement)
        if not seed_inputs:
            if says_no_input(statement):
                return cls(shape="empty")
            raise ValueError("no sample inputs to infer an input model from")
        if all(not any(t) for t in toks):
            return cls(shape="empty", seeds=toks)
        m = (_try_fixed(toks) or _try_counted(toks) or _try_list(toks) or infer_cases(toks, statement)
             or _try_repeat(toks) or cls(shape="tokens"))
        if m.shape in ("fixed", "repeat", "tokens"):
            # several sections: taken over fixed/repeat when the statement lists them, and where
            # nothing else fits when the samples read only one way (sections.py)
            m = infer_sections(toks, statement, ranges, alpha, fallback=m.shape == "tokens") or m
            if m.shape == "sections":
                return m
        m.seeds = toks
        if m.shape == "cases":
            fit_cases(m, ranges, alpha, statement)
            return m
        if m.shape == "counted":
            m.structure = detect([t[0] for t in toks], [t[1:] for t in toks], tuple(sl.kind for sl in m.row),
                                 statement, m.count_at)
        m._name_slots(input_lines(statement))
        m._fit(ranges, alpha)
        if m.structure.width_of is not None:
            m.structure.max_cells = m._grid_cells(statement)
        if m.shape in ("counted", "repeat") and not m.structure.labels and m.structure.width_of is None:
            m.ordered = ordered_columns(m, statement)
        for sl in m._all_slots():
            if sl.kind == "word" and not sl.choices and (pairs := balanced_pairs([str(x) for x in sl.obs], statement)):
                sl.balanced, sl.min_len = pairs, max(2, sl.min_len)
        if m.shape == "fixed":
            m._bind_fixed(toks, statement, ranges)
            m.length_of = [(w, k) for w, k in length_ties(toks, [[sl.kind for sl in ln] for ln in m.lines])
                           if not m.lines[w[0]][w[1]].choices]
            for (li, j), (lk, k) in m.length_of:  # an unnamed number that is a length: the word's lengths
                word, num = m.lines[li][j], m.lines[lk][k]
                if not num.name:
                    num.lo, num.hi = float(word.min_len), float(max(word.min_len, word.max_len))
                else:  # the statement bounds the number: the word's lengths are its range
                    word.min_len = max(1, int(num.lo))
                    word.max_len = max(word.min_len, min(int(num.hi), MAX_WORD_LEN))
        if m.shape in ("counted", "list") and m.structure.width_of is None:
            m._bind_heads(toks, statement)
        if m.shape in ("counted", "list"):
            m._bind_fixed(toks, statement, ranges, header_only=True)
        if m.shape in ("counted", "repeat") and m.structure.width_of is None:
            start = 1 if m.shape == "counted" else 0
            m.relations = infer_relations([t[start:] for t in toks], [sl.kind for sl in m.row],
                                          [sl.name for sl in m.row], statement,
                                          frozenset(m.structure.ends) if m.structure.graph else frozenset())
            ruled = ruled_columns(m.structure.labels, m.head_bounds, m.ordered, m.relations.columns(len(m.row)))
            m.distinct = distinct_columns([sl.kind for sl in m.row], ruled, [t[start:] for t in toks], statement)
            # only plain rows are put on lines (``_one``): not a tree, graph or labelled rows
            m.planar = (len(m.distinct.points) == 2 and not says_no_three_collinear(statement)
                        and not m.rows_structured)
        return m

    @property
    def rows_structured(self) -> bool:
        """Are the rows a tree, a graph, labels in 1..n or a grid, or counted off the header value
        (``count_offset``)? Such rows are drawn and mutated by their structure, not as plain rows."""
        return bool(self.structure.labels or self.structure.width_of is not None or self.count_offset)

    def _distinct(self, rows: list[list[Any]]) -> bool:
        """Make the rows distinct as ``distinct`` says, in place; False when they cannot be."""
        return apply_distinct(rows, self.distinct, self.row) if self.distinct else True

    def _on_lines(self, rows: list[list[Any]], rng: random.Random, i: int) -> bool:
        """Put the rows' points on a few lines, in the ``i``-th shape of ``lines.LINE_PLAN``."""
        x, y = (self.row[c] for c in self.distinct.points)
        box = (int(x.lo), int(x.hi), int(y.lo), int(y.hi))
        return put_on_lines(rows, self.distinct.points, box, line_plan(i), rng)

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

    def _clamp_header(self, head: list[str]) -> bool:
        """A mutated header's bounded values lowered to their bounds (the count may have changed), in place."""
        vals = [[_parse(t, sl.kind) for t, sl in zip(head, self.lines[0])]]
        if not apply_fixed_bounds(vals, self.fixed_bounds, self._fixed_span, clamp=True):
            return False
        head[:] = [sl.fmt(v) for sl, v in zip(self.lines[0], vals[0])]
        return True

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
            sl = self.elem if self.shape == "list" and self.elem is not None else self.row[b.col]
            col = [r[b.col] for r in rows]
            capped = bound_column(col, b, int(sl.lo), int(sl.hi), int(head[b.head]) - b.strict)
            if capped is None:
                return False
            for r, v in zip(rows, capped):
                r[b.col] = v
        return True

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
            _fit_slot(sl, ranges, alpha, is_count=sl is count_slot)
        if counts_obs:
            lo_c, hi_c = min(counts_obs), max(counts_obs)
            fit = _pick_count_range(ranges, lo_c, hi_c, named=count_slot is not None)
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
                        sl.obs.append(tok if k == "word" else (int(tok) if k == "int" else float(tok)))
            for sl in self.token_slots.values():
                _fit_slot(sl, ranges, alpha, is_count=False)

    # ------------------------------------------------------------------ generation

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
        cap = rows_within(self.row, kind, MAX_INPUT_TOKENS, MAX_INPUT_CHARS)
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

    def _row_bound(self, c: int, head: Optional[list[Any]] = None) -> tuple[int, int]:
        lo, hi = int(self.row[c].lo), int(self.row[c].hi)
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
            order = row_order(kind, i)
            if rows and order:
                rows.sort(reverse=order == "descending")
            body = [[sl.fmt(v) for sl, v in zip(self.row, r)] for r in rows]
        else:  # list
            assert self.elem is not None
            vals = [self._value(self.elem, kind, rng, i, j) for j in range(n)]
            if head_vals is not None:
                box = [[v] for v in vals]
                if not self._cap_rows(box, head_vals):
                    return None
                vals = [r[0] for r in box]
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
                cells = min(st.max_cells or GRID_CELLS, GRID_CELLS)
                rows_max, width = grid_size(i, cells, (int(cslot.lo), int(cslot.hi)), (int(wslot.lo), int(wslot.hi)),
                                            MAX_INPUT_TOKENS)
                n_rows = min(n_rows, rows_max)  # a count fixed by the caller (a test case's share) stays a cap
                head[self.count_at] = n_rows - self.count_offset
            width = max(int(wslot.lo), min(int(wslot.hi), width))
            if st.max_cells is not None and n_rows * width > st.max_cells:  # the stated h * w bound
                width = st.max_cells // max(1, n_rows)
                if width < wslot.lo:
                    return None
            head[st.width_of] = width
        if not apply_fixed_bounds([head], self.fixed_bounds, self._fixed_span):
            return None  # a header value bounded by another, e.g. a start node by the node count
        rows: list[list[Any]] = [[self._value(sl, kind, rng, i, j) for j, sl in enumerate(self.row)]
                                 for _ in range(n_rows)]
        if width is not None:
            cell = self.row[0]
            special = kind == "special" and i % 2 == 0
            fill = rng.choice(cell.alphabet)
            if kind == "stress":
                for r, text in zip(rows, grid_rows(grid_step(i)[1], n_rows, width, cell.alphabet, rng)):
                    r[0] = text
            else:
                for r in rows:
                    r[0] = fill * width if special else "".join(rng.choice(cell.alphabet) for _ in range(width))
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
        lines += [[sl.fmt(v) for sl, v in zip(self.row, r)] for r in rows]
        return self._render(lines)

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
                                r[j] = self.row[j].fmt(self.row[j].mutate(_parse(r[j], self.row[j].kind), rng))
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
                            r[j] = sl.fmt(sl.mutate(_parse(r[j], sl.kind), rng))
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
                        ln[j] = sl.fmt(sl.mutate(_parse(ln[j], sl.kind), rng))
            if self.length_of or self.fixed_bounds:
                vals = [[_parse(t, sl.kind) for t, sl in zip(ln, slots)] for ln, slots in zip(seed, self.lines)]
                if not apply_fixed_bounds(vals, self.fixed_bounds, self._fixed_span, clamp=True):
                    return None
                self._tie_lengths(vals)
                seed = [[sl.fmt(v) for v, sl in zip(ln, slots)] for ln, slots in zip(vals, self.lines)]
            return self._render(seed)
        if self.shape == "list" and self.elem is not None and len(seed) > 1:
            vals = [_parse(x, self.elem.kind) for x in seed[1]]
            op = rng.randrange(3)
            if op == 0 and len(vals) > self.count_lo:
                del vals[rng.randrange(len(vals))]
            elif op == 1 and len(vals) < self.count_hi:
                vals.insert(rng.randrange(len(vals) + 1), self.elem.draw(rng))
            else:
                for j in range(len(vals)):
                    if rng.random() < 0.3:
                        vals[j] = self.elem.mutate(vals[j], rng)
            for b in self.head_bounds:  # within the header value that bounds them
                cap = int(seed[0][b.head]) - b.strict
                vals = [min(v, cap) for v in vals]
            assert self.count_at is not None
            seed[0][self.count_at] = str(len(vals))
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
                    ln[j] = sl.fmt(sl.mutate(_parse(tok, k), rng))
        return self._render(seed)


ORDERED_MIN_ROWS = 4  # rows that must all show a <= b before generated rows keep it (chance: 1/16)


def ordered_columns(m: "StdioModel", statement: str) -> list[int]:
    """Adjacent numeric row columns j, j+1 with row[j] <= row[j+1] in every sample row (at least
    ``ORDERED_MIN_ROWS`` rows, one of them strict). When the statement names both columns, it
    must also say so (``a \\le b``): points (x, y) whose samples happen to have x <= y stay free."""
    start = 1 if m.shape == "counted" else 0
    rows = [r for t in m.seeds for r in t[start:]]
    out = []
    for j in range(len(m.row) - 1):
        a, b = m.row[j], m.row[j + 1]
        if a.kind not in ("int", "float") or b.kind not in ("int", "float"):
            continue
        try:
            pairs = [(float(r[j]), float(r[j + 1])) for r in rows]
        except (ValueError, IndexError):
            continue
        if not pairs or any(x > y for x, y in pairs) or not any(x < y for x, y in pairs):
            continue
        if a.name and b.name and not re.search(
                rf"(?<![A-Za-z]){re.escape(a.name)}\s*[≤<]\s*{re.escape(b.name)}(?![A-Za-z0-9_])",
                # "y_{i, 1}" is the name y_i1 (input_lines drops a subscript's comma too)
                re.sub(r"_([A-Za-z]),(\d)", r"_\1\2", re.sub(r"[{}\s]", "", normalize(statement)))
                .replace("≤", " ≤ ").replace("<", " < ").replace(" ", "")):
            continue
        if len(pairs) >= ORDERED_MIN_ROWS:
            out.append(j)
    return out


def strictly_ordered(m: "StdioModel", statement: str, j: int) -> bool:
    """Ordered columns j, j+1 that the statement names and orders strictly (``y_{i,1} < y_{i,2}``)
    and no sample row has equal: generated rows never make them equal either."""
    a, b = m.row[j], m.row[j + 1]
    if not (a.name and b.name):
        return False
    start = 1 if m.shape == "counted" else 0
    if any(r[j] == r[j + 1] for t in m.seeds for r in t[start:] if len(r) > j + 1):
        return False
    text = re.sub(r"_([A-Za-z]),(\d)", r"_\1\2", re.sub(r"[{}\s]", "", normalize(statement)))
    return bool(re.search(rf"(?<![A-Za-z]){re.escape(a.name)}<{re.escape(b.name)}(?![A-Za-z0-9_])", text))


def _parse(tok: str, kind: str) -> Any:
    try:
        if kind == "int":
            return int(tok)
        if kind == "float":
            return float(tok)
    except ValueError:
        pass
    return tok


def _kinds(line: list[str]) -> tuple[str, ...]:
    return tuple(token_kind(t) for t in line)


def _slots_from_rows(rows: list[list[str]]) -> list[Slot]:
    slots = [Slot(kind=k) for k in _kinds(rows[0])]
    for r in rows:
        for sl, tok in zip(slots, r):
            sl.obs.append(_parse(tok, sl.kind))
    return slots


def _try_fixed(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    shape = [[_kinds(ln) for ln in t] for t in toks]
    if any(s != shape[0] for s in shape):
        return None
    if len(toks) == 1 and len(toks[0]) > 2:
        return None  # one long sample: more likely a list of rows than a fixed layout
    lines = [_slots_from_rows([t[i] for t in toks]) for i in range(len(toks[0]))]
    return StdioModel(shape="fixed", lines=lines)


def _rows_uniform(rows: list[list[str]]) -> bool:
    return bool(rows) and all(_kinds(r) == _kinds(rows[0]) for r in rows)


def _try_counted(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    if any(len(t) < 1 or not t[0] for t in toks):
        return None
    width = len(toks[0][0])
    if any(len(t[0]) != width or _kinds(t[0]) != _kinds(toks[0][0]) for t in toks):
        return None
    for k in range(width):
        if token_kind(toks[0][0][k]) != "int":
            continue
        for off in (0, -1):  # N rows, or N-1 rows (the edges of a tree on N nodes)
            if all(int(t[0][k]) + off == len(t) - 1 for t in toks):
                rows = [r for t in toks for r in t[1:]]
                if rows and not _rows_uniform(rows):
                    return None
                if not rows and off:
                    continue
                m = StdioModel(shape="counted", lines=[_slots_from_rows([t[0] for t in toks])], count_at=k,
                               count_offset=off)
                m.row = _slots_from_rows(rows) if rows else [Slot(kind="int", obs=[0])]
                return m
    return None


def _try_list(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    if any(len(t) != 2 or not t[0] for t in toks):
        return None
    width = len(toks[0][0])
    if any(len(t[0]) != width for t in toks):
        return None
    for k in range(width):
        if token_kind(toks[0][0][k]) != "int":
            continue
        if all(token_kind(t[0][k]) == "int" and int(t[0][k]) == len(t[1]) for t in toks):
            elems = [x for t in toks for x in t[1]]
            kinds = {token_kind(x) for x in elems}
            if len(kinds) > 1:
                if kinds <= {"int", "float"}:
                    kinds = {"float"}
                else:
                    return None
            kind = kinds.pop() if kinds else "int"
            elem = Slot(kind=kind, obs=[_parse(x, kind) for x in elems])
            return StdioModel(shape="list", lines=[_slots_from_rows([t[0] for t in toks])], count_at=k, elem=elem)
    return None


def _try_repeat(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    rows = [r for t in toks for r in t]
    if not rows or not _rows_uniform(rows) or any(not t for t in toks):
        return None
    return StdioModel(shape="repeat", row=_slots_from_rows(rows))


def _fit_slot(sl: Slot, ranges: list[Range], alpha: Optional[str], is_count: bool) -> None:
    if sl.kind == "word":
        words = [str(x) for x in sl.obs] or ["a"]
        chars = set("".join(words))
        a = set()
        for cls in (string.ascii_lowercase, string.ascii_uppercase, string.digits):
            if len(chars & set(cls)) >= 2:
                a |= set(cls)
        a |= chars
        if alpha and chars <= set(alpha):
            a = set(alpha)
        sl.alphabet = "".join(sorted(a))
        sl.min_len = max(1, min(len(w) for w in words))
        lens = [r for r in ranges if (r.is_length or (r.bars and said_of(r.name, sl.name)))
                and r.hi is not None and r.hi >= max(len(w) for w in words)]
        sl.max_len = int(min(r.hi for r in lens)) if lens else max(max(len(w) for w in words) * 2, 10)
        if lens and all(r.lo is not None and not r.bars for r in lens):
            sl.min_len = max(1, int(max(r.lo for r in lens if r.lo is not None)))
        sl.max_len = min(sl.max_len, MAX_WORD_LEN)
        distinct = list(dict.fromkeys(words))
        if sl.obs and len(distinct) <= CATEGORY_MAX and len(words) >= 2 * len(distinct):
            sl.choices = sorted(distinct)  # few words, each seen twice on average: a category, not text
        return
    vals = [float(v) for v in sl.obs] or [0.0]
    omin, omax = min(vals), max(vals)
    if sl.kind == "float":
        decs = 0
        for v in sl.obs:
            s = str(v)
            if "." in s:
                decs = max(decs, len(s.split(".")[1]))
        sl.decimals = max(1, min(decs, 9))
    # |x| <= hi only for the value of that name: a string's |s| <= 20 is no range of an unnamed number
    # a range said of a length ("n, the length of the string") is still the range of the number named n
    fits = [r for r in ranges if (not r.is_length or said_of(r.name, sl.name)) and r.lo is not None and r.hi is not None
            and r.lo <= omin and omax <= r.hi and (not r.bars or said_of(r.name, sl.name))]
    own = [r for r in fits if said_of(r.name, sl.name)]
    if own:  # the statement names this value and bounds that name: its range, even if a wider one
        fits = own
    if is_count:
        named = [r for r in fits if r.name] or fits
        pick = min(named, key=lambda r: r.hi) if named else None  # type: ignore[arg-type,return-value]
    else:
        # the narrowest stated range that holds every sample value: when unsure which variable a
        # token is, narrow (a wider one may belong to another variable)
        pool = [r for r in fits if not r.is_count] or fits
        pick = min(pool, key=lambda r: (r.hi - r.lo)) if pool else None  # type: ignore[operator]
    if pick is not None:
        sl.lo, sl.hi = float(pick.lo), float(pick.hi)  # type: ignore[arg-type]
        sl.stated = bool(own)
    else:
        sl.lo = 0.0 if omin >= 0 else min(omin * 2, -10.0)
        sl.hi = max(omax * 2, omax + 10, 10.0)
        if is_count:
            sl.lo = max(1.0, min(omin, 1.0))
    if sl.kind == "int":
        sl.lo, sl.hi = float(int(sl.lo)), float(int(sl.hi))


def _pick_count_range(ranges: list[Range], lo_c: int, hi_c: int, named: bool) -> Optional[Range]:
    """The tightest statement bound on a row count ('at most 40 lines') that the samples respect."""
    fits = [r for r in ranges if r.hi is not None and r.hi >= hi_c and (r.lo is None or r.lo <= lo_c)
            and not r.is_length and r.is_count]
    return min(fits, key=lambda r: r.hi) if fits else None  # type: ignore[arg-type,return-value]
