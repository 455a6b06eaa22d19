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

This module holds the model's fields and the choice of layout; the rest is in one module each:

* ``tokens.py``          - a sample as lines of tokens, and each token's kind;
* ``slot.py``            - one token position and its domain (draw, boundary, mutate), fitted to
  the statement's ranges;
* ``input_caps.py``      - how large a generated input may grow;
* ``ordered_columns.py`` - row columns kept in order (``a <= b``);
* ``smodel_fit.py``      - names, ranges and bounds between values, read from the statement, and
  ``admits``: does an input from elsewhere keep to those ranges;
* ``smodel_draw.py``     - an input of each family, drawn within all of that;
* ``smodel_mutate.py``   - the ``mutation`` family: a sample changed within its layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .brackets import balanced_pairs
from .cases import Cases, fit_cases, infer_cases
from .constraints import InputLine, alphabet_hint, extract, input_lines, once_chars, says_no_input, text_total
from .distinct_rows import DistinctRows, distinct_columns, distinct_list, ruled_columns
from .input_caps import MAX_WORD_LEN
from .lines import says_no_three_collinear
from .ordered_columns import ordered_columns
from .query_rows import tag_widths
from .relations import FixedBound, HeadBound, RowRelations, infer_relations, length_ties
from .sections import Sections, infer_sections
from .slot import Slot, slots_from_rows
from .smodel_draw import Drawing
from .smodel_fit import StatementFit
from .smodel_mutate import SampleMutation
from .structures import Structure, detect
from .tokens import line_kinds, parse_token, token_kind, tokenize


@dataclass
class StdioModel(StatementFit, Drawing, SampleMutation):
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
    # columns whose values never repeat, as the statement says and every sample agrees; list: its
    # values (column 0), the same way (``distinct_rows.py``): drawn distinct
    distinct: DistinctRows = field(default_factory=DistinctRows)
    # counted / repeat: the distinct point is two integer columns (a point of the plane) and the
    # statement allows three on a line: the ``structured`` family puts the points on a few lines
    # (``lines.py``)
    planar: bool = False
    # counted: the words of all rows together at most this long, as the statement says ("the total
    # length of all strings does not exceed 2·10^5"): one word may be that long, the rows drawn
    # are cut where they pass it
    text_total: Optional[int] = None

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
        desc = input_lines(statement)
        m = (try_matrix(toks, desc) or try_fixed(toks) or try_counted(toks) or try_list(toks)
             or infer_cases(toks, statement) or try_repeat(toks) or cls(shape="tokens"))
        if m.shape in ("fixed", "repeat", "tokens"):
            # several sections: taken over fixed/repeat when the statement lists them, and where
            # nothing else fits when the samples read only one way (sections.py)
            m = infer_sections(toks, statement, ranges, alpha, fallback=m.shape == "tokens") or m
            if m.shape == "sections":
                return m
        elif m.shape == "counted" and tag_widths(statement):
            # rows of the formats the statement lists ("+ x", "? k"): a block of the sections layout,
            # where each row is drawn by its format (query_rows.py)
            queried = infer_sections(toks, statement, ranges, alpha, fallback=True)
            if queried is not None and queried.sections is not None \
                    and any(p.queries is not None for p in queried.sections.parts):
                return queried
        m.seeds = toks
        if m.shape == "cases":
            fit_cases(m, ranges, alpha, statement)
            return m
        if m.shape == "counted" and not m.structure.matrix:
            m.count_at = stated_count_at(m, toks, desc)
            m.structure = detect([t[0] for t in toks], [t[1:] for t in toks], tuple(sl.kind for sl in m.row),
                                 statement, m.count_at)
        m._name_slots(desc)
        m._fit(ranges, alpha)
        if m.shape == "counted" and (total := text_total(statement)) is not None \
                and any(sl.kind == "word" and not sl.choices for sl in m.row):
            m.text_total = total
            for sl in m.row:
                if sl.kind == "word" and not sl.choices and sl.max_len < total:
                    sl.max_len = min(total, MAX_WORD_LEN)
        if m.structure.width_of is not None:
            m.structure.max_cells = m._grid_cells(statement)
            if not m.structure.matrix:
                m.structure.once = grid_once(toks, m.row[0].alphabet, once_chars(statement))
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
        if m.shape == "list" and m.elem is not None and m.elem.kind == "int":
            m.distinct = distinct_list([t[1] for t in toks if len(t) > 1], statement)
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


# The layouts ``infer`` tries in turn (``cases.py`` tries them for one test case): each returns a
# model of its shape with the samples' slots when every sample reads that way, else None.


def try_matrix(toks: list[list[list[str]]], desc: list[InputLine]) -> Optional[StdioModel]:
    """A header line, then as many rows as one header value of as many numbers as another, as the
    statement says ("Each of the next $n$ lines contains $m$ integers") and every sample shows: a
    matrix. Read as rows of a fixed width, a one-sample matrix kept its sample's width whatever
    its drawn m said."""
    head = desc[0] if desc and not desc[0].rows and not desc[0].listed else None
    blocks = [d for d in desc if d.rows]
    if head is None or len(blocks) != 1 or len(desc) != 2 or blocks[0].offset:
        return None
    block = blocks[0]
    if block.count not in head.names or block.width not in head.names \
            or any(len(t[0]) != len(head.names) or len(t) < 2 for t in toks):
        return None
    k, j = head.names.index(block.count), head.names.index(block.width)
    if not counts_rows(toks, k, 0) or any(token_kind(t[0][j]) != "int" or any(len(r) != int(t[0][j]) for r in t[1:])
                                          for t in toks):
        return None
    cells = [[c] for t in toks for r in t[1:] for c in r]
    if len({token_kind(c[0]) for c in cells}) != 1 or token_kind(cells[0][0]) not in ("int", "float"):
        return None
    m = StdioModel(shape="counted", lines=[slots_from_rows([t[0] for t in toks])], count_at=k,
                   row=slots_from_rows(cells))
    m.structure = Structure(width_of=j, matrix=True)
    return m


def try_fixed(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    shape = [[line_kinds(ln) for ln in t] for t in toks]
    if any(s != shape[0] for s in shape):
        return None
    if len(toks) == 1 and len(toks[0]) > 2:
        return None  # one long sample: more likely a list of rows than a fixed layout
    lines = [slots_from_rows([t[i] for t in toks]) for i in range(len(toks[0]))]
    return StdioModel(shape="fixed", lines=lines)


def rows_uniform(rows: list[list[str]]) -> bool:
    return bool(rows) and all(line_kinds(r) == line_kinds(rows[0]) for r in rows)


def try_counted(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    if any(len(t) < 1 or not t[0] for t in toks):
        return None
    width = len(toks[0][0])
    if any(len(t[0]) != width or line_kinds(t[0]) != line_kinds(toks[0][0]) for t in toks):
        return None
    for k in range(width):
        if token_kind(toks[0][0][k]) != "int":
            continue
        for off in (0, -1):  # N rows, or N-1 rows (the edges of a tree on N nodes)
            if counts_rows(toks, k, off):
                rows = [r for t in toks for r in t[1:]]
                if rows and not rows_uniform(rows):
                    return None
                if not rows and off:
                    continue
                m = StdioModel(shape="counted", lines=[slots_from_rows([t[0] for t in toks])], count_at=k,
                               count_offset=off)
                m.row = slots_from_rows(rows) if rows else [Slot(kind="int", obs=[0])]
                return m
    return None


def grid_once(toks: list[list[list[str]]], alphabet: str, once: str) -> str:
    """The cells said to appear exactly once that do so in every sample's grid and are not all its
    alphabet (else unsure: none)."""
    kept = "".join(c for c in once if all(sum(r[0].count(c) for r in t[1:] if r) == 1 for t in toks))
    return kept if set(alphabet) - set(kept) else ""


def stated_count_at(m: StdioModel, toks: list[list[list[str]]], desc: list[InputLine]) -> Optional[int]:
    """The header value that counts the rows: the one the statement names ("Each of the next m
    lines") where the samples cannot tell (every sample's n equals its m), else the first that fits.
    Counting the rows by n where m counts them drew "18 182532" with 18 rows."""
    k, off = m.count_at, m.count_offset
    head = desc[0] if desc and not desc[0].rows and not desc[0].listed else None
    block = next((d for d in desc if d.rows), None)
    if k is None or head is None or block is None or not block.count or len(head.names) != len(toks[0][0]) \
            or block.count not in head.names:
        return k
    j = head.names.index(block.count)
    return j if counts_rows(toks, j, off) else k


def counts_rows(toks: list[list[list[str]]], k: int, off: int) -> bool:
    """Does header value ``k``, plus ``off``, count every sample's rows?"""
    return all(token_kind(t[0][k]) == "int" and int(t[0][k]) + off == len(t) - 1 for t in toks)


def try_list(toks: list[list[list[str]]]) -> Optional[StdioModel]:
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
            elem = Slot(kind=kind, obs=[parse_token(x, kind) for x in elems])
            return StdioModel(shape="list", lines=[slots_from_rows([t[0] for t in toks])], count_at=k, elem=elem)
    return None


def try_repeat(toks: list[list[list[str]]]) -> Optional[StdioModel]:
    rows = [r for t in toks for r in t]
    if not rows or not rows_uniform(rows) or any(not t for t in toks):
        return None
    return StdioModel(shape="repeat", row=slots_from_rows(rows))
