"""Stdin layouts of several sections, each a fixed line or a block counted by a value read earlier.

Contest inputs are often more than one header and one block: "n m / m rows / q / q rows",
"a fixed line / n / n rows", "n m q / n rows / m rows / q rows", "n / n integers / q / q rows".
A ``sections`` layout is a sequence of

* ``line``: one line of a fixed number of tokens, each its own slot (a header: counts, sizes);
* ``list``: one line of v + offset tokens of one kind, v an int of an earlier ``line`` (its *ref*;
  offset -1 only where the statement says so: "n − 1 integers p_2, …, p_n", a tree's parents);
* ``rows``: v + offset lines of the same token kinds (offset -1: the n-1 edges of a tree on n).

It is inferred by parsing every sample at once (``parse``): a layout is kept only when it
consumes every line of every sample exactly, each count equal to its ref's value in each
sample. The statement's input description (``constraints.input_lines``) confirms a layout when
it lists the same sequence of lines and blocks; then the slots take its names (and so their
own stated ranges), and the count of each block its named count. Without confirmation a
layout is taken only where no other layout fits the samples (the model would otherwise mutate
samples only), and only when it is the one parse of the samples: when unsure, narrow.

Generation: header values first (``StdioModel._head``: the stated maximum in the non-random
stress shapes), then each count from its ref's stated range (the stress ladder from the
stated maximum down, small counts for the other families), all counts scaled together to stay
within the input caps (``input_caps.caps()``); rows and lists in the stress shapes (``shapes.py``); label columns
(values in 1..n of a header n), trees and graphs as in ``structures.py``. Mutations reorder,
drop or add rows of a block whose count is its own, and change free values.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from .constraints import InputLine, Range, indexed_name, input_lines
from .distinct_rows import DistinctRows, distinct_columns, ruled_columns
from .distinct_rows import apply as apply_distinct
from .input_caps import caps
from .ordered_columns import ordered_columns, strictly_ordered
from .parent_lists import IndexBound, RootedParents, index_bound, rooted_parents
from .query_rows import QueryRows, fit_queries, tag_widths
from .relations import HeadBound, bound_column, infer_head_bounds
from .section_relations import (
    HeaderBound, chain_between, chain_fits, chained, cap_of, covers, head_bounds, head_equations, joint_permutation,
    keep_equations, keep_head_bounds, rise, rising,
)
from .shapes import draw_count, row_chars, row_order, rows_within, stress_step
from .slot import Slot, fit_slot, slots_from_rows
from .structures import Structure, detect, edge_shape, graph_edges, stress_graph_nodes, tree_edges
from .tokens import line_kinds, parse_token

if TYPE_CHECKING:
    from .smodel import StdioModel

Ref = tuple[int, int]  # (index of a ``line`` section, column): the int that counts a block
MAX_PARSES = 16  # parses collected before the samples are called ambiguous
MAX_STEPS = 20_000  # search nodes per inference
MAX_SECTIONS = 6  # contest inputs rarely have more; longer readings of small samples are coincidences


@dataclass
class Section:
    kind: str  # "line" | "list" | "rows"
    slots: list["Slot"] = field(default_factory=list)  # line: its values; rows: one row; list: [element]
    ref: Optional[Ref] = None
    offset: int = 0  # rows: count = value of ref + offset
    structure: Structure = field(default_factory=Structure)  # rows: labels / tree / graph / grid
    ordered: list[int] = field(default_factory=list)  # rows: columns j with row[j] <= row[j+1]
    strict: list[int] = field(default_factory=list)  # those of them the statement orders strictly (a < b)
    # columns (a list: 0) whose values rise from row to row in every sample, as the statement says
    # ("x_1 < x_2 < \\dots < x_n", "strictly increasing", "sorted"): "strict" or "sorted"; a list
    # the statement calls distinct and whose samples repeat no value: "distinct"
    rising: dict[int, str] = field(default_factory=dict)
    # rows: columns the statement bounds by a header value ("1 <= i < n"), every sample agreeing;
    # ``HeadBound.head`` indexes the flat header (``Sections.flat``)
    head_bounds: list[HeadBound] = field(default_factory=list)
    # rows: label columns that take every label of their range in every sample ("at least one
    # connection from city i to i+1 for each i"): generated blocks do too
    covers: list[int] = field(default_factory=list)
    # columns (a list: 0) that rise strictly between two header values, as a chain the statement
    # states says ("x_s < x_1 < \\dots < x_n < x_t"): column -> (the lower one, the upper one)
    between: dict[int, tuple[Ref, Ref]] = field(default_factory=dict)
    # rows: the columns of a point the statement says never coincides with another ("the n
    # planets are in distinct locations"), or single columns whose values never repeat, every
    # sample agreeing (``distinct_rows.py``): drawn distinct
    distinct: DistinctRows = field(default_factory=DistinctRows)
    # rows: the formats their first token picks ("1 i x" / "2 l r"), read from the statement and
    # kept by every sample row (``query_rows.py``): the rows are drawn by them, not by ``slots``
    queries: Optional[QueryRows] = None
    # list: a rooted tree's parents, each bounded by its own index ("1 <= p_i < i") or labels of
    # a tree the statement speaks of, every sample keeping it (``parent_lists.py``): drawn as a tree
    parents: Optional[IndexBound | RootedParents] = None


@dataclass
class Sections:
    parts: list[Section]
    seeds: list[list[list[list[str]]]] = field(default_factory=list)  # per sample, per section: its lines
    confirmed: bool = False  # the statement's input description lists the same lines and blocks
    # header values the statement bounds by another header value ("2 <= k <= n", "1 <= |b_i| <= d_i"),
    # every sample agreeing; generated headers keep them
    head_le: list[HeaderBound] = field(default_factory=list)
    # header values an equation the statement states determines ("s_1 + s_2 = n + 1"), true in
    # every sample: (the value it sets, {other value: coefficient}, constant), value = sum + constant
    head_eq: list[tuple[Ref, dict[Ref, int], int]] = field(default_factory=list)
    # the lists' values together are a permutation of perm..perm+T-1 (T: all their values) in
    # every sample (two stacks of crates numbered 0..n; one list of 1..n): None when not
    perm: Optional[int] = None
    flat: list[Ref] = field(default_factory=list)  # the header values of every line, in order

    def signature(self) -> str:
        return "".join({"line": "L", "list": "V", "rows": "R"}[s.kind] for s in self.parts)


# ---------------------------------------------------------------------------------- inference

Spec = tuple[Any, ...]  # ("line", kinds) | ("list", ref, offset, kind) | ("rows", ref, offset, kinds)
QUERY_KINDS = ("query",)  # the kinds of a block of rows of several widths, each its tag's (``query_rows.py``)


def parse(toks: list[list[list[str]]], desc: Optional[list[InputLine]] = None,
          tagged: Optional[dict[str, int]] = None) -> list[list[Spec]]:
    """Every layout of sections that reads every sample exactly (at most ``MAX_PARSES``). With
    ``desc`` (the statement's input description), only the layouts whose k-th section is of the
    kind its k-th line says: the search no longer spends its parses on readings the statement
    rules out ("One line with seven integers $d_1, \\ldots, d_7$", then $n$ lines of seven).
    With ``tagged`` (the widths of the row formats the statement lists, by their first token), a
    block of rows may be of several widths, each row's its tag's (kinds ``QUERY_KINDS``)."""
    out: list[list[Spec]] = []
    steps = 0

    def value(specs: list[Spec], starts: list[list[int]], ref: Ref, s: int) -> Optional[int]:
        si, j = ref
        tok = toks[s][starts[s][si]][j]
        return int(tok) if tok.lstrip("-").isdigit() else None

    def dfs(specs: list[Spec], starts: list[list[int]], pos: list[int]) -> None:
        nonlocal steps
        steps += 1
        if len(out) >= MAX_PARSES or steps > MAX_STEPS:
            return
        if all(p == len(t) for p, t in zip(pos, toks)):
            if any(sp[0] != "line" for sp in specs) and (desc is None or len(specs) == len(desc)):
                out.append(list(specs))
            return
        if len(specs) >= MAX_SECTIONS or any(p >= len(t) for p, t in zip(pos, toks)):
            return
        wanted = {"line", "list", "rows"} if desc is None else (
            _section_kinds(desc[len(specs)]) if len(specs) < len(desc) else set())
        if not wanted:
            return
        nxt = [t[p] for p, t in zip(pos, toks)]
        refs = [(si, j) for si, sp in enumerate(specs) if sp[0] == "line"
                for j, k in enumerate(sp[1]) if k == "int"]
        for ref in refs:
            vals = [value(specs, starts, ref, s) for s in range(len(toks))]
            if any(v is None or v < 0 for v in vals):
                continue
            # rows: v + offset lines of one shape, in every sample
            for off in ((0, -1) if "rows" in wanted else ()):
                counts = [v + off for v in vals]  # type: ignore[operator]
                if any(c < 0 or p + c > len(t) for c, p, t in zip(counts, pos, toks)) or not any(counts):
                    continue
                block = [r for c, p, t in zip(counts, pos, toks) for r in t[p:p + c]]
                shapes = {line_kinds(r) for r in block}
                if tagged and len(shapes) > 1 and all(r and tagged.get(r[0]) == len(r) for r in block):
                    shapes = {QUERY_KINDS}
                if len(shapes) != 1 or () in shapes:
                    continue
                spec = ("rows", ref, off, shapes.pop())
                if specs and specs[-1][0] == "rows" and specs[-1][1] == ref and specs[-1][3] == spec[3]:
                    continue  # two blocks of one count and shape read as well as one of twice the count
                dfs(specs + [spec], [st + [p] for st, p in zip(starts, pos)],
                    [p + c for p, c in zip(pos, counts)])
            # list: one line of v + offset tokens of one kind (-1 where the description says so)
            stated = 0 if desc is None else desc[len(specs)].offset
            for off in ({0, stated} if "list" in wanted else ()):
                if not all(len(ln) == v + off for ln, v in zip(nxt, vals)):  # type: ignore[operator]
                    continue
                kinds = {k for ln in nxt for k in line_kinds(ln)}
                if kinds <= {"int", "float"} and len(kinds) == 2:
                    kinds = {"float"}
                if len(kinds) <= 1 and any(len(ln) for ln in nxt):
                    spec = ("list", ref, off, kinds.pop() if kinds else "int")
                    dfs(specs + [spec], [st + [p] for st, p in zip(starts, pos)], [p + 1 for p in pos])
        # line: the same kinds in every sample
        if "line" in wanted and nxt[0] and all(line_kinds(ln) == line_kinds(nxt[0]) for ln in nxt):
            dfs(specs + [("line", line_kinds(nxt[0]))], [st + [p] for st, p in zip(starts, pos)], [p + 1 for p in pos])

    dfs([], [[] for _ in toks], [0] * len(toks))
    return out


def _split(toks: list[list[str]], specs: list[Spec]) -> list[list[list[str]]]:
    """One sample's lines, per section."""
    out: list[list[list[str]]] = []
    p = 0
    for sp in specs:
        if sp[0] == "rows":
            si, j = sp[1]
            c = int(out[si][0][j]) + sp[2]
            out.append(toks[p:p + c])
            p += c
        else:
            out.append(toks[p:p + 1])
            p += 1
    return out


def _evidence(specs: list[Spec], toks: list[list[list[str]]]) -> int:
    """How many blocks the samples show to be counted: a list or rows section of more than one
    line or token in some sample (a count of 1 everywhere is as well a fixed line)."""
    n = 0
    splits = [_split(t, specs) for t in toks]
    for k, sp in enumerate(specs):
        if sp[0] == "rows" and any(len(s[k]) >= 2 for s in splits):
            n += 1
        elif sp[0] == "list" and any(len(s[k][0]) >= 2 for s in splits):
            n += 1
    return n


def _varies(specs: list[Spec], toks: list[list[list[str]]]) -> bool:
    """Does some block's count differ between samples (a count equal in every sample may be a
    constant of the format, as "m^3 lines" with m = 2 in every sample is)?"""
    splits = [_split(t, specs) for t in toks]
    return any(len({len(s[k]) if sp[0] == "rows" else len(s[k][0]) for s in splits}) > 1
               for k, sp in enumerate(specs) if sp[0] != "line")


def _section_kinds(d: InputLine) -> set[str]:
    """The sections a line of the input description may be: a block of rows is ``rows``; a
    list with a count ("$n$ integers $a_1, \\dots, a_n$") a ``list``; one of a literal length
    ("seven integers $d_1, \\ldots, d_7$") a fixed ``line``; a list without either ("$k$ integers"
    whose $k$ is no value) a ``list`` or a ``line``; named values a ``line``."""
    if d.rows:
        return {"rows"}
    if d.listed and d.count:
        return {"list"}
    if d.listed and d.size:
        return {"line"}
    if d.listed or d.count:
        return {"list", "line"}
    return {"line"}


def _confirms(specs: list[Spec], desc: list[InputLine]) -> bool:
    """Does the input description list these sections (lines, lists, blocks, in order), and
    name each block's count as the layout's ref where it names one?"""
    if len(desc) != len(specs):
        return False
    for sp, d in zip(specs, desc):
        if sp[0] not in _section_kinds(d) or (sp[0] == "line" and d.size and len(sp[1]) != d.size):
            return False
        if sp[0] in ("list", "rows") and d.count and sp[2] != d.offset:
            return False  # "n - 1 lines" read as n, or n lines as n - 1
        if sp[0] in ("list", "rows") and d.count:
            # the value that counts the block, where a line names it: the layout's ref must be it
            owner = [(si, j) for si, (sq, dq) in enumerate(zip(specs, desc))
                     if sq[0] == "line" and len(dq.names) == len(sq[1]) for j, nm in enumerate(dq.names)
                     if nm == d.count]
            if owner and sp[1] not in owner:
                return False
            si, j = sp[1]
            if len(desc[si].names) == len(specs[si][1]) and desc[si].names[j] != d.count:
                return False
    return True


def choose(toks: list[list[list[str]]], statement: str, fallback: bool) -> Optional[tuple[list[Spec], bool]]:
    """The layout to use and whether the statement confirms it, or None. ``fallback``: no
    simpler layout fits, so an unconfirmed layout may be taken when it is the only one."""
    tagged = tag_widths(statement)
    parses = parse(toks, tagged=tagged)
    desc = input_lines(statement)
    confirmed = [p for p in parse(toks, desc, tagged) if _confirms(p, desc)] if desc else []
    if len(confirmed) == 1:  # (an offset list is parsed only as the description states it)
        return confirmed[0], True
    if not parses:
        return None
    if not fallback:
        return None
    if len(toks) < 2:
        return None  # one sample: every count may be a coincidence
    pool = [p for p in (confirmed or parses) if _varies(p, toks)]
    if not pool:
        return None
    # the shortest reading (more sections explain any samples: a trailing line left over by an
    # n-1 count is a worse explanation than n rows), then the most blocks the samples show
    # counted (a list over a line of as many values), then the fewest n-1 counts
    pool = [p for p in pool if _evidence(p, toks) > 0]
    if not pool:
        return None
    score = {id(p): (len(p), -_evidence(p, toks), sum(1 for sp in p if sp[0] != "line" and sp[2])) for p in pool}
    best = min(score.values())
    top = [p for p in pool if score[id(p)] == best]
    if len(top) != 1:
        return None  # several readings of the samples: narrow
    return top[0], bool(confirmed)


def infer_sections(toks: list[list[list[str]]], statement: str, ranges: list[Range], alpha: Optional[str],
                   fallback: bool) -> Optional["StdioModel"]:
    """A ``sections`` model when the samples read as one (see ``choose``), else None."""
    from .smodel import StdioModel

    pick = choose(toks, statement, fallback)
    if pick is None:
        return None
    specs, confirmed = pick
    splits = [_split(t, specs) for t in toks]
    parts: list[Section] = []
    for k, sp in enumerate(specs):
        if sp[0] == "line":  # every sample's line has the spec's kinds (``parse``)
            parts.append(Section("line", slots_from_rows([s[k][0] for s in splits])))
        elif sp[0] == "list":
            el = Slot(kind=sp[3], obs=[parse_token(x, sp[3]) for s in splits for x in s[k][0]])
            parts.append(Section("list", [el], ref=sp[1], offset=sp[2]))
        elif sp[3] == QUERY_KINDS:  # rows of several widths: slots of the widest, for the budgets
            block = [r for s in splits for r in s[k]]
            widest = max(len(r) for r in block)
            parts.append(Section("rows", slots_from_rows([r for r in block if len(r) == widest]), ref=sp[1],
                                 offset=sp[2]))
        else:  # every row of every sample has the spec's kinds, and some sample has a row (``parse``)
            parts.append(Section("rows", slots_from_rows([r for s in splits for r in s[k]]), ref=sp[1],
                                 offset=sp[2]))
    if confirmed:
        _name(parts, input_lines(statement))
    else:
        _name_blocks(parts, input_lines(statement))
    refs = {p.ref for p in parts if p.ref is not None}
    for si, p in enumerate(parts):
        for j, sl in enumerate(p.slots):
            fit_slot(sl, ranges, alpha, is_count=p.kind == "line" and (si, j) in refs)
    for si, j in refs:
        sl = parts[si].slots[j]
        sl.lo = max(sl.lo, 0.0)
    flat = [(si, j) for si, p in enumerate(parts) if p.kind == "line" for j in range(len(p.slots))]
    # rows picked by their first token: drawn by their formats, nothing else read of them
    for k, (p, sp) in enumerate(zip(parts, specs)):
        if p.kind == "rows":
            p.queries = fit_queries(statement, [s[k] for s in splits],
                                    [[s[si][0][j] for si, j in flat] for s in splits],
                                    [(parts[si].slots[j].name, (si, j)) for si, j in flat])
            if p.queries is None and sp[3] == QUERY_KINDS:
                return None
    # structures of each block of rows: labels bounded by a header value, trees, graphs, grids
    for k, p in enumerate(parts):
        if p.kind == "list" and p.ref is not None and p.slots[0].kind == "int":
            # a list of labels ("k distinct integers, the planets ..."): values in 1..n of a header n
            headers = [[s[si][0][j] for si, j in flat] for s in splits]
            try:
                st = detect(headers, [[[x] for x in s[k][0]] for s in splits], ("int",), "", None)
            except (IndexError, ValueError):
                st = Structure()
            if st.labels:
                p.structure = Structure(labels={0: flat[st.labels[0]]}, base=st.base)  # type: ignore[dict-item]
            listed = [[int(x) for x in s[k][0]] for s in splits]
            p.parents = index_bound(statement, p.slots[0].name, listed) or (
                rooted_parents(statement, p.slots[0].name, p.structure.base, listed) if p.structure.labels else None)
            if p.parents is not None:
                p.structure = Structure()  # a tree's shape bounds it, not its size
        if p.kind != "rows" or p.ref is None or p.queries is not None:
            continue
        headers = [[s[si][0][j] for si, j in flat] for s in splits]
        try:
            p.structure = detect(headers, [s[k] for s in splits], tuple(sl.kind for sl in p.slots), statement,
                                 flat.index(p.ref))
        except (IndexError, ValueError):  # labels the samples contradict: no structure (narrow)
            p.structure = Structure()
        # label and width columns name a flat header position; keep them as (section, column)
        p.structure.labels = {c: flat[h] for c, h in p.structure.labels.items()}  # type: ignore[misc]
        if p.structure.width_of is not None:
            p.structure.width_of = flat[p.structure.width_of]  # type: ignore[assignment]
        if p.structure.width_of is None and not p.structure.graph:  # l <= r also among labels
            tmp = StdioModel(shape="repeat", row=p.slots, seeds=[s[k] for s in splits])
            p.ordered = ordered_columns(tmp, statement)
            p.strict = [j for j in p.ordered if strictly_ordered(tmp, statement, j)]
        if p.structure.width_of is None:
            from .constraints import said_of

            p.head_bounds = infer_head_bounds(
                statement, [parts[si].slots[j].name for si, j in flat],
                [sl.name if sl.kind == "int" else None for sl in p.slots], list(zip(headers, [s[k] for s in splits])),
                said_of)
            p.covers = covers(p, headers, [s[k] for s in splits], flat)
    for k, p in enumerate(parts):
        if p.kind in ("list", "rows") and p.queries is None:
            p.between = chain_between(p, [s[k] for s in splits], [s for s in splits], flat, parts, statement)
            for c in p.between:
                p.structure.labels.pop(c, None)  # the chain bounds it, not a label range
            p.rising = rising(p, [s[k] for s in splits], statement)
            for c in p.between:
                p.rising[c] = "strict"
        if p.kind == "rows" and p.structure.width_of is None and p.queries is None:
            p.distinct = distinct_columns([sl.kind for sl in p.slots],
                                          ruled_columns(p.structure.labels, p.head_bounds, p.ordered, p.rising, p.between),
                                          [s[k] for s in splits], statement)
    m = StdioModel(shape="sections", seeds=toks)
    m.sections = Sections(parts=parts, seeds=splits, confirmed=confirmed,
                          head_le=head_bounds(parts, splits, flat, statement),
                          head_eq=head_equations(parts, splits, flat, statement),
                          perm=joint_permutation(parts, splits), flat=flat)
    return m


def _name(parts: list[Section], desc: list[InputLine]) -> None:
    """The description's names for the values of each section (it lists the same sections). A
    line or row listed from its first value ("seven integers $d_1, \\ldots, d_7$", "$n$ lines,
    each with seven integers $b_1, \\ldots, b_7$") names its values by their place: d_1 .. d_7."""
    for p, d in zip(parts, desc):
        if p.kind == "list":
            if d.listed and len(d.names) == 1:
                p.slots[0].name = d.names[0]
        elif len(d.names) == len(p.slots):
            for sl, nm in zip(p.slots, d.names):
                sl.name = nm
        elif d.listed and len(d.names) == 1 and (first := indexed_name(d.names[0])) and first[1] == "1":
            for k, sl in enumerate(p.slots, 1):
                sl.name = f"{first[0]}_{k}"


def _name_blocks(parts: list[Section], desc: list[InputLine]) -> None:
    """An unconfirmed layout: where the description's blocks of rows ("$q$ lines, each ...") are
    as many as the layout's, in order, name their rows' values and their counts."""
    blocks = [d for d in desc if d.rows]
    mine = [p for p in parts if p.kind == "rows"]
    if not blocks or len(blocks) != len(mine):
        return
    for p, d in zip(mine, blocks):
        if len(d.names) == len(p.slots):
            for sl, nm in zip(p.slots, d.names):
                sl.name = nm
        if d.count and p.ref is not None:
            ref = parts[p.ref[0]].slots[p.ref[1]]
            ref.name = ref.name or d.count


# ---------------------------------------------------------------------------------- generation


def _users(parts: list[Section], ref: Ref) -> list[Section]:
    return [p for p in parts if p.ref == ref]


def _bounds(parts: list[Section]) -> set[Ref]:
    """Header values other sections depend on: counts, label bounds, grid widths."""
    return {p.ref for p in parts if p.ref is not None} | _value_bounds(parts)


def _value_bounds(parts: list[Section]) -> set[Ref]:
    """Header values that bound the values of other sections: labels, grid widths, query values."""
    out: set[Ref] = set()
    for p in parts:
        out |= set(p.structure.labels.values())  # type: ignore[arg-type]
        if p.structure.width_of is not None:
            out.add(p.structure.width_of)  # type: ignore[arg-type]
        if p.queries is not None:
            out |= p.queries.heads()
    return out


def _count(sl: "Slot", kind: str, rng: random.Random, i: int, cap: int, least: int) -> int:
    """A count drawn like the one-block layouts' counts."""
    lo = max(int(sl.lo), least)
    return draw_count(kind, lo, min(int(sl.hi), cap), rng, i)


def _tokens(parts: list[Section], head: list[list[Any]]) -> int:
    n = sum(len(p.slots) for p in parts if p.kind == "line")
    for p in parts:
        if p.ref is not None:
            si, j = p.ref
            n += max(0, int(head[si][j]) + p.offset) * len(p.slots)
    return n


def draw_sections(m: "StdioModel", kind: str, rng: random.Random, i: int) -> Optional[str]:
    """One input of family ``kind``."""
    assert m.sections is not None
    parts = m.sections.parts
    head: list[list[Any]] = [[m._head(sl, kind, rng, i, j) for j, sl in enumerate(p.slots)] if p.kind == "line"
                             else [] for p in parts]
    refs = sorted({p.ref for p in parts if p.ref is not None})
    limit = caps()
    rows = {r: [sl for p in _users(parts, r) for sl in p.slots] for r in refs}
    for r in refs:
        least = max(-p.offset for p in _users(parts, r))
        cap = rows_within(rows[r], kind, limit.tokens, limit.chars)
        head[r[0]][r[1]] = _count(parts[r[0]].slots[r[1]], kind, rng, i, cap, least)
    # all blocks together within the token and character budgets: scale the counts down alike
    total = _tokens(parts, head)
    chars = sum(int(head[r[0]][r[1]]) * row_chars(rows[r], kind) for r in refs)
    if total > limit.tokens or chars > limit.chars:
        f = min(limit.tokens / max(1, total), limit.chars / max(1, chars))
        for r in refs:
            sl = parts[r[0]].slots[r[1]]
            least = max(int(sl.lo), max(-p.offset for p in _users(parts, r)))
            head[r[0]][r[1]] = max(least, int(head[r[0]][r[1]] * f))
    if not _cover_fits(m, head) or not chain_fits(m, head) or not keep_head_bounds(m, head) \
            or not _graphs_fit(parts, head, stress_step(i)[1] if kind == "stress" else None) or not keep_head_bounds(m, head) \
            or not keep_equations(m, head):
        return None
    perm = _permuted(m, head, rng)
    lines: list[list[str]] = []
    for k, p in enumerate(parts):
        if p.kind == "line":
            lines.append([sl.fmt(v) for sl, v in zip(p.slots, head[k])])
            continue
        assert p.ref is not None
        n = int(head[p.ref[0]][p.ref[1]]) + p.offset
        if p.kind == "list" and p.parents is not None:
            shape = edge_shape(kind, i, rng, "tree", stress_step(i)[1])
            lines.append([str(v) for v in p.parents.draw(n, shape, rng)])
            continue
        if p.kind == "list":
            el = p.slots[0]
            vals = [m._value(el, kind, rng, i, j) for j in range(n)]
            order = row_order(kind, i)
            if 0 in p.between:
                (a, b) = p.between[0]
                vals = chained(n, int(head[a[0]][a[1]]), int(head[b[0]][b[1]]), rng,
                                stress_step(i)[1] if kind == "stress" else None)
            elif perm is not None:
                vals = [perm.pop() for _ in range(n)]
            elif p.structure.labels:  # labels: in base..base+n-1 of their header n, distinct if so read
                si, j = p.structure.labels[0]  # type: ignore[misc]
                span = range(p.structure.base, int(head[si][j]) + p.structure.base)
                if p.rising.get(0) in ("distinct", "strict"):
                    if len(span) < n:
                        return None
                    vals = rng.sample(span, n)
                else:
                    vals = [rng.choice(span) for _ in range(n)] if span else []
            if 0 in p.between:
                pass
            elif 0 in p.rising and (p.structure.labels or perm is not None):
                if p.rising[0] != "distinct":
                    vals.sort()
            elif 0 in p.rising:
                risen = rise(vals, p.rising[0], el, rng, stress_step(i)[1] if kind == "stress" else None)
                if risen is None:
                    return None
                vals = risen
            elif order:
                vals.sort(reverse=order == "descending")
            lines.append([el.fmt(v) for v in vals])
            continue
        if p.queries is not None:
            queries = p.queries.draw(head, n, kind, rng, i)
            if queries is None:
                return None
            lines += queries
            continue
        rows = _rows(m, p, head, n, kind, rng, i)
        if rows is None:
            return None
        lines += [[sl.fmt(v) for sl, v in zip(p.slots, r)] for r in rows]
    return "".join(" ".join(ln) + "\n" for ln in lines)


def _cover_fits(m: "StdioModel", head: list[list[Any]]) -> bool:
    """A block whose labels cover their range needs as many rows as labels: the header value that
    bounds the labels comes down to the row count (the token budget holds), within its range."""
    assert m.sections is not None
    for p in m.sections.parts:
        if p.ref is None:
            continue
        for c in p.covers:
            si, j = p.structure.labels[c]  # type: ignore[misc]
            rows = int(head[p.ref[0]][p.ref[1]]) + p.offset
            strict = next((b.strict for b in p.head_bounds if b.col == c), 0)
            need = int(head[si][j]) - strict if any(b.col == c for b in p.head_bounds) else int(head[si][j])
            if need > rows:
                head[si][j] = int(head[si][j]) - (need - rows)
                if head[si][j] < m.sections.parts[si].slots[j].lo:
                    return False
    return True


def _permuted(m: "StdioModel", head: list[list[Any]], rng: random.Random) -> Optional[list[int]]:
    """The values of the lists, when they are one permutation (``Sections.perm``), shuffled; the
    lists take them from the end in order."""
    assert m.sections is not None
    if m.sections.perm is None:
        return None
    total = sum(int(head[p.ref[0]][p.ref[1]]) + p.offset for p in m.sections.parts
                if p.kind == "list" and p.ref is not None and p.slots[0].kind == "int")
    vals = list(range(m.sections.perm, m.sections.perm + total))
    rng.shuffle(vals)
    return vals


def _graphs_fit(parts: list[Section], head: list[list[Any]], stress_shape: Optional[str] = None) -> bool:
    """Make the header agree with each tree or graph block: a tree has nodes-1 edges; a connected
    graph at least nodes-1 edges; a simple one at most nodes*(nodes-1)/2. A stress input's graph
    takes the density its shape gives (``GRAPH_DENSITY``) where nodes and edges are separate header
    values. False if it cannot."""
    for p in parts:
        st = p.structure
        if not st.graph or p.ref is None:
            continue
        nref = st.labels[st.ends[0]]  # type: ignore[index]
        nsl = parts[nref[0]].slots[nref[1]]  # type: ignore[index]
        csl = parts[p.ref[0]].slots[p.ref[1]]
        nodes = int(head[nref[0]][nref[1]])  # type: ignore[index]
        edges = int(head[p.ref[0]][p.ref[1]]) + p.offset
        if st.graph == "tree" or (st.connected and edges < nodes - 1):
            if p.ref == nref:
                continue  # n, then n-1 edges: a tree by construction
            if st.graph == "tree" or edges < nodes - 1:
                nodes = edges + 1  # fewer nodes rather than more edges (the budget holds)
        dense = stress_graph_nodes(edges, st, stress_shape, int(nsl.lo), nodes) if stress_shape else None
        if st.graph == "graph" and p.ref != nref and dense is not None:
            nodes = dense
        if st.simple and edges > nodes * (nodes - 1) // 2:
            edges = nodes * (nodes - 1) // 2
        if p.ref != nref:
            if not (nsl.lo <= nodes <= nsl.hi and csl.lo <= edges - p.offset <= csl.hi) or nodes < 1:
                return False
            head[nref[0]][nref[1]] = nodes  # type: ignore[index]
            head[p.ref[0]][p.ref[1]] = edges - p.offset
    return True


def _rows(m: "StdioModel", p: Section, head: list[list[Any]], n: int, kind: str, rng: random.Random, i: int
          ) -> Optional[list[list[Any]]]:
    st = p.structure
    rows = [[m._value(sl, kind, rng, i, j) for j, sl in enumerate(p.slots)] for _ in range(n)]
    if st.width_of is not None:
        w = int(head[st.width_of[0]][st.width_of[1]])  # type: ignore[index]
        cell = p.slots[0]
        fill = rng.choice(cell.alphabet)
        for r in rows:
            r[0] = fill * w if kind == "special" and i % 2 == 0 else "".join(rng.choice(cell.alphabet)
                                                                             for _ in range(w))
        return rows
    if st.graph:
        nref = st.labels[st.ends[0]]  # type: ignore[index]
        nodes = int(head[nref[0]][nref[1]])  # type: ignore[index]
        shape = edge_shape(kind, i, rng, st.graph, stress_step(i)[1])
        edges = tree_edges(nodes, shape, rng)[:n] if st.graph == "tree" else graph_edges(nodes, n, st, rng, shape)
        if edges is None or len(edges) != n:
            return None
        a, b = st.ends
        for r, (u, v) in zip(rows, edges):
            r[a], r[b] = u - 1 + st.base, v - 1 + st.base
    flat = m.sections.flat if m.sections is not None else []
    for c, (si, j) in st.labels.items():  # type: ignore[misc]
        if st.graph and c in st.ends:
            continue
        top = int(head[si][j]) - 1 + st.base
        cap = cap_of(p, c, flat, head)
        top = top if cap is None else min(top, cap)
        low = max([st.base] + [b.lo for b in p.head_bounds if b.col == c and b.lo is not None])  # "2 <= c <= n"
        if top < low:
            return None
        for r in rows:
            r[c] = rng.randint(low, top)
        if c in p.covers:  # every label once, at random rows, the rest as drawn
            if len(rows) < top - low + 1:
                return None
            for r, v in zip(rng.sample(rows, top - low + 1), range(low, top + 1)):
                r[c] = v
    for b in p.head_bounds:
        if b.col in st.labels:
            continue
        sl = p.slots[b.col]
        capped = bound_column([r[b.col] for r in rows], b, int(sl.lo), int(sl.hi), cap_of(p, b.col, flat, head) or 0)
        if capped is None:
            return None
        for r, v in zip(rows, capped):
            r[b.col] = v
    for r in rows:
        for j in p.ordered:
            if r[j] > r[j + 1]:
                r[j], r[j + 1] = r[j + 1], r[j]
            if j in p.strict and r[j] == r[j + 1]:  # a < b: apart by one, inside both ranges
                if r[j + 1] + 1 <= p.slots[j + 1].hi:
                    r[j + 1] += 1
                elif r[j] - 1 >= p.slots[j].lo:
                    r[j] -= 1
                else:
                    return None
    if p.distinct and not apply_distinct(rows, p.distinct, p.slots):
        return None
    order = row_order(kind, i)
    if rows and order and not st.labels and not p.rising:
        rows.sort(reverse=order == "descending")
    for c, how in p.rising.items():
        if c in p.between:
            (a, b) = p.between[c]
            col = chained(len(rows), int(head[a[0]][a[1]]), int(head[b[0]][b[1]]), rng,
                           stress_step(i)[1] if kind == "stress" else None)
            for r, v in zip(rows, col):
                r[c] = v
            continue
        col = rise([r[c] for r in rows], how, p.slots[c], rng, stress_step(i)[1] if kind == "stress" else None)
        if col is None:
            return None
        for r, v in zip(rows, col):
            r[c] = v
    return rows


# ---------------------------------------------------------------------------------- mutation


def mutate_sections(m: "StdioModel", rng: random.Random) -> Optional[str]:
    """A sample with one block's rows dropped, added or swapped (its count follows), or some free
    values changed: never a count, a label bound, a label or an edge."""
    assert m.sections is not None
    parts = m.sections.parts
    if not m.sections.seeds:
        return None
    seed = [[list(ln) for ln in sec] for sec in rng.choice(m.sections.seeds)]
    fixed = _bounds(parts) | _related(m)  # related header values stay as seen
    own = [k for k, p in enumerate(parts) if p.ref is not None and len(_users(parts, p.ref)) == 1
           and p.ref not in {r for q in parts for r in q.structure.labels.values()}  # type: ignore[misc]
           and not p.structure.labels and p.structure.width_of is None and p.queries is None
           and not any(q.queries is not None and p.ref in q.queries.heads() for q in parts)
           and not (p.kind == "list" and (m.sections.perm is not None or p.parents is not None))
           and not any(p.ref in e[1] or p.ref == e[0] for e in m.sections.head_eq)
           and not any(p.ref in (hb.value, hb.bound) for hb in m.sections.head_le)]
    queried = [k for k, p in enumerate(parts) if p.queries is not None and p.ref is not None]
    if queried and rng.random() < 0.5:
        return _mutate_queries(m, seed, rng.choice(queried), rng)
    if own and rng.random() < 0.5:
        k = rng.choice(own)
        p = parts[k]
        assert p.ref is not None
        csl = parts[p.ref[0]].slots[p.ref[1]]
        body = seed[k] if p.kind == "rows" else [[x] for x in seed[k][0]]
        unit = p.slots
        op = 0 if p.rising else rng.randrange(3)  # a rising block stays rising: rows only go
        if op == 0 and len(body) - p.offset > csl.lo and body:
            del body[rng.randrange(len(body))]
        elif op == 1 and len(body) - p.offset < csl.hi:
            body.insert(rng.randrange(len(body) + 1), [sl.fmt(sl.draw(rng)) for sl in unit])
        elif len(body) >= 2:
            a, b = rng.sample(range(len(body)), 2)
            body[a], body[b] = body[b], body[a]
        seed[k] = body if p.kind == "rows" else [[x[0] for x in body]]
        seed[p.ref[0]][0][p.ref[1]] = str(len(body) - p.offset)
    else:
        for k, p in enumerate(parts):
            if p.queries is not None:
                continue  # a row's values are its format's: none changed alone
            skip = set(p.structure.labels) | ({0} if p.structure.width_of is not None else set())
            for ln in seed[k]:
                for j, tok in enumerate(ln):
                    sl = p.slots[0] if p.kind == "list" else p.slots[j]
                    if (p.kind == "line" and (k, j) in fixed) or (p.kind == "rows" and j in skip) \
                            or (p.kind == "list" and (0 in p.rising or p.structure.labels or p.parents
                                                      or m.sections.perm is not None)) \
                            or (p.kind == "rows" and j in p.rising):
                        continue
                    if rng.random() < 0.3:
                        ln[j] = sl.fmt(sl.mutate(parse_token(tok, sl.kind), rng))
    return "".join(" ".join(ln) + "\n" for sec in seed for ln in sec)


def _related(m: "StdioModel") -> set[Ref]:
    """Header values an equation, a bound between header values or a chain ties to others."""
    assert m.sections is not None
    return {r for t, others, _ in m.sections.head_eq for r in (t, *others)} \
        | {r for hb in m.sections.head_le for r in (hb.value, hb.bound)} \
        | {r for p in m.sections.parts for ab in p.between.values() for r in ab}


def _mutate_queries(m: "StdioModel", seed: list[list[list[str]]], k: int, rng: random.Random) -> Optional[str]:
    """A sample with its query block ``k`` changed by ``QueryRows.mutate``: its count follows where
    it counts that block alone and bounds nothing else (``1 <= k <= n`` with n the row count keeps n)."""
    assert m.sections is not None
    parts = m.sections.parts
    p = parts[k]
    assert p.queries is not None and p.ref is not None
    csl = parts[p.ref[0]].slots[p.ref[1]]
    bounding = _value_bounds(parts) | _related(m)
    resizable = len(_users(parts, p.ref)) == 1 and p.ref not in bounding
    n = len(seed[k])
    head = [sec[0] if q.kind == "line" else [] for q, sec in zip(parts, seed)]
    body = p.queries.mutate(seed[k], head, rng, int(csl.lo) + p.offset if resizable else n,
                            int(csl.hi) + p.offset if resizable else n)
    if body is None:
        return None
    seed[k] = body
    seed[p.ref[0]][0][p.ref[1]] = str(len(body) - p.offset)
    return "".join(" ".join(ln) + "\n" for sec in seed for ln in sec)
