"""Rows whose first token says what the rest of the row is: queries, events, commands.

Contest inputs often end with q rows in one of a few formats the statement lists, each picked by
the row's first token (its *tag*, a number, a sign or a word):

    "1 i x" (1 <= i <= n, 1 <= x <= 10^9);  "2 l r" (1 <= l <= r <= n)
    ``- a``, ``+ a`` (1 <= a <= n);  ``? a b`` (1 <= a, b <= n and a != b)

Drawn as free values, the tag wanders outside its few values and the indices past n, and the
problem's own validator rejects nearly every input. Here the formats are read from the input
section (``read_formats``: literals in quotes or backticks, a tag and names, the constraints on
the same item, and the statement's other constraints on those names), and kept for a block of
rows only when every sample row is one of them: its tag listed, its width the format's, its
values within every bound read (``fit_queries``). A row is drawn (``QueryRows.draw``) as a tag
(every drawable tag at least once when the rows allow) and then each value within its format's
bounds: numbers, header values by name (``1 <= i <= n``) and the format's other values
(``l <= r``, ``a != b``). Stress inputs take the worst cases of query programs in turn (wide
ranges, ordered or not, a run of inserts before the queries, every other time all of them on one
side of the queries); mutations drop, add, swap or redraw rows (``QueryRows.mutate``).

When unsure, narrow: a value the statement bounds on neither side takes the samples' range for
its tag, and a format that needs that and that the samples never show is not drawn. A format
whose item states a guarantee about what came before ("It is guaranteed that segment a was open
before") cannot be kept by rows drawn one by one: two such formats that put a value into a set and
take it out are kept by walking the drawn rows (``row_state.py``); any other guarantee, and no
format of its block is read.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .constraints import _NUM, input_section, legend, normalize, parse_number
from .row_state import Toggle, read_toggle
from .shapes import stress_step

Ref = tuple[int, int]  # a header value: (section, column)

MAX_TAGS = 8  # formats in one block; more literals than this are an example, not a format list
MAX_NAMES = 6  # values after the tag
TRIES = 20  # draws of one row before its bounds are called unsatisfiable
HALVES = ("low", "high")  # a row's indexes in one half of their range (``_draw_row``)

# a format literal: ``- a'' (LaTeX), "1 i x", “2 l r”, `? a b` (markdown), '+ x'
_LITERAL = re.compile(r"``([^`'\n]{1,40}?)''|\"([^\"\n]{1,40}?)\"|“([^”\n]{1,40}?)”|`([^`\n]{1,40}?)`"
                      r"|(?<![A-Za-z])'([^'\n]{1,40}?)'")
_TAG = re.compile(r"\d{1,3}|[^\w\s~$\\{}]{1,2}|[A-Za-z]{2,12}")
_VALUE_NAME = re.compile(r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?")
_NM = r"(?<![A-Za-z0-9_])[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?(?![A-Za-z0-9_{])"
_TERM = rf"(?:{_NUM}|{_NM}(?:\s*,\s*{_NM})*)"
_OP = r"≤|<|≥|>|≠|!=|\\neq?(?![A-Za-z])"
_CHAIN = re.compile(rf"{_TERM}(?:\s*(?:{_OP})\s*{_TERM})+")
_GUARANTEE = re.compile(r"\bguarantee|\bcurrently\b|\bbefore\b|\balready\b", re.I)
# "in one of the formats described above", "each query has one of the forms given in the statement"
_POINTS_ABOVE = re.compile(r"\b(?:formats?|forms?|types?|kinds?)\b[^.\n]{0,30}?"
                           r"\b(?:above|in the statement|in the legend)\b", re.I)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
# "at least one query of the second type", "... of type 2", "... of the form ``? k''", "... `ask` event"
_AT_LEAST_ONE = re.compile(r"at\s+least\s+one\b([^.\n]{0,60})", re.I)
_ORDINAL_TYPE = re.compile(r"\bof\s+(?:the\s+)?(first|second|third|fourth|fifth|last)\s+(?:type|kind|form)", re.I)
_NUMBERED_TYPE = re.compile(r"\bof\s+(?:type|kind)\s+(\d{1,3})\b", re.I)


def _bare(name: str) -> str:
    return re.sub(r"[{}\s]", "", name)


@dataclass
class Comparison:
    """``left op right`` from a chain: each side a number or a name."""

    left: str
    op: str  # "<=", "<" or "!="
    right: str


def comparisons(text: str) -> list[Comparison]:
    """Every pairwise comparison the chains of ``text`` state: "1 <= l <= r <= n" gives 1 <= l,
    l <= r, r <= n; "1 <= a, b <= n" gives 1 <= a, 1 <= b, a <= n, b <= n; ">" turned around."""
    out: list[Comparison] = []
    for m in _CHAIN.finditer(text):
        parts = re.split(rf"\s*({_OP})\s*", m.group(0))
        terms = [re.split(r"\s*,\s*", t) for t in parts[0::2]]
        ops = [_SIGNS.get(op, "!=") for op in parts[1::2]]
        for k, (op, a, b) in enumerate(zip(ops, terms, terms[1:])):
            # a list between two signs of one direction is one ("1 <= a, b <= n"); between others it
            # is the end of one chain and the start of the next ("a != b, x > 0")
            if 0 < k and _direction(ops[k - 1]) != _direction(op):
                a = a[-1:]
            if k + 1 < len(ops) and _direction(ops[k + 1]) != _direction(op):
                b = b[:1]
            if op in (">=", ">"):
                a, b, op = b, a, "<=" if op == ">=" else "<"
            out += [Comparison(_bare(x), op, _bare(y)) for x in a for y in b]
    return out


_SIGNS = {"≤": "<=", "<": "<", "≥": ">=", ">": ">", "≠": "!=", "!=": "!="}  # else \ne, \neq


def _direction(op: str) -> str:
    return "up" if op in ("<=", "<") else "down" if op in (">=", ">") else op


@dataclass
class QueryFormat:
    """One row format: its tag, the names of the values after it, and what its item states."""

    tag: str
    names: list[str]
    said: list[Comparison] = field(default_factory=list)
    guard: Optional[str] = None  # the value a guarantee about what came before names ("a was open before")

    @property
    def width(self) -> int:
        return 1 + len(self.names)


def _literal_tokens(m: re.Match[str]) -> list[str]:
    """A format literal's tag and names (``?~$a$~b`` is ``?``, ``a``, ``b``)."""
    body = next(g for g in m.groups() if g is not None)
    return body.replace("~", " ").replace("$", " ").strip("`'\"“” ").split()


def read_formats(statement: str) -> list[QueryFormat]:
    """The row formats the input section lists, in order, or [] when it lists fewer than two
    (one literal is an example), a tag twice with other names, or a format kept by earlier rows
    other than two that put one value into a set and take it out (``QueryFormat.guard``).
    A format's item is the text after its literal up to the next literal or the line's end. A
    literal of a listed tag alone (`ask` in "at least one `ask` event") mentions it. An input
    section that lists none and points above ("a query in one of the formats described above")
    takes the formats the statement lists before it."""
    sec = normalize(input_section(statement))
    if not sec:
        return []
    listed = _formats_listed(sec)
    if not listed and _POINTS_ABOVE.search(sec):
        listed = _formats_listed(normalize(legend(statement)))
    return listed


def _formats_listed(sec: str) -> list[QueryFormat]:
    """``read_formats`` of one stretch of the statement."""
    found = list(_LITERAL.finditer(sec))
    out: dict[str, tuple[QueryFormat, str]] = {}
    found_names: dict[str, list[str]] = {}
    for k, m in enumerate(found):
        toks = _literal_tokens(m)
        if not toks or not _TAG.fullmatch(toks[0]) or len(toks) - 1 > MAX_NAMES \
                or not all(_VALUE_NAME.fullmatch(t) for t in toks[1:]):
            continue
        end = min([len(sec)] + [i for i in (sec.find("\n", m.end()), sec.find("\\item", m.end())) if i >= 0]
                  + ([found[k + 1].start()] if k + 1 < len(found) else []))
        item = sec[m.end():end]
        fmt = QueryFormat(toks[0], [_bare(t) for t in toks[1:]], comparisons(item))
        if fmt.tag in out:
            known = out[fmt.tag][0].names
            if fmt.names == known or not fmt.names:
                continue  # the format again, or its tag mentioned
            if known:
                return []  # one tag, two formats: misread
        out[fmt.tag] = (fmt, item)
        found_names[fmt.tag] = toks[1:]
    if not 2 <= len(out) <= MAX_TAGS:
        return []
    for f, item in out.values():
        if _GUARANTEE.search(item):
            named = _guarded_names(f, item, found_names[f.tag])
            f.guard = named[0] if len(named) == 1 else ""
    guarded = [f for f, _ in out.values() if f.guard is not None]
    if guarded and (len(guarded) != 2 or not all(f.guard for f in guarded)):
        return []  # a format kept by what came before, not a put and a take of one value
    return [f for f, _ in out.values()]


def _guarded_names(f: QueryFormat, item: str, written: list[str]) -> list[str]:
    """The format's values that its item's guarantee sentences name (as written in its literal)."""
    said = " ".join(s for s in re.split(r"(?<=[.;])\s+", item) if _GUARANTEE.search(s))
    return [nm for nm, w in zip(f.names, written)
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(w)}(?![A-Za-z0-9_{{])", said)]


def required_tags(statement: str, formats: list[QueryFormat]) -> list[str]:
    """The tags the statement promises at least one row of ("at least one query of the second
    type", "of type 2", "of the form ``? k''", "at least one `ask` event"), in the order of
    ``formats`` where it counts them (the second type is the second listed)."""
    out = []
    tags = [f.tag for f in formats]
    for m in _AT_LEAST_ONE.finditer(normalize(statement)):
        after = m.group(1)
        tag = None
        if (o := _ORDINAL_TYPE.search(after)):
            k = _ORDINALS[o.group(1).lower()]
            tag = tags[k - 1 if k > 0 else -1] if k <= len(tags) else None
        elif (t := _NUMBERED_TYPE.search(after)) and t.group(1) in tags:
            tag = t.group(1)
        elif (lit := _LITERAL.search(after)):
            body = _literal_tokens(lit)
            tag = body[0] if body and body[0] in tags else None
        if tag is not None and tag not in out:
            out.append(tag)
    return out


def tag_widths(statement: str) -> dict[str, int]:
    """Each listed tag's row width (tag included): what ``sections.parse`` reads a block of rows of
    several widths by."""
    return {f.tag: f.width for f in read_formats(statement)}


# ---------------------------------------------------------------------------------- fitting


@dataclass
class Bound:
    """A value's bound: a number, a header value (``Ref``), or another value of the row (its
    column), minus ``strict``."""

    number: Optional[float] = None
    head: Optional[Ref] = None
    column: Optional[int] = None
    strict: int = 0


@dataclass
class Column:
    name: str
    lower: list[Bound] = field(default_factory=list)
    upper: list[Bound] = field(default_factory=list)
    differ: list[int] = field(default_factory=list)  # columns it must not equal
    seen: list[Any] = field(default_factory=list)  # its values in the samples' rows of this tag
    words: bool = False  # a value the samples show as a word: drawn from those seen


@dataclass
class Format:
    tag: str
    columns: list[Column]
    drawable: bool = True

    @property
    def ranged(self) -> bool:
        """Does the format hold an ordered pair of values (``l <= r``)?"""
        return any(b.column is not None for c in self.columns for b in c.upper)

    @property
    def pair(self) -> Optional[tuple[int, int]]:
        """The columns of its first two values over one range of the input's size that the
        statement does not order ("1 <= u, v <= n", u > v allowed), or None."""
        def indexes(c: Column) -> bool:
            return not c.words and any(b.head is not None for b in c.upper) \
                and all(b.column is None for b in c.lower + c.upper)

        cols = self.columns
        return next(((i, j) for i in range(len(cols)) for j in range(i + 1, len(cols))
                     if indexes(cols[i]) and indexes(cols[j])
                     and cols[i].lower == cols[j].lower and cols[i].upper == cols[j].upper),
                    None)

    @property
    def walks(self) -> bool:
        """Does a row of it name a stretch of the input that a slow program walks (an ordered or
        an unordered pair of indexes)?"""
        return self.ranged or self.pair is not None


@dataclass
class QueryRows:
    """A block of rows of several formats, picked by their first token."""

    formats: list[Format]
    required: list[str] = field(default_factory=list)  # tags promised at least one row ("of the second type")
    toggle: Optional[Toggle] = None  # two formats that put a value into a set and take it out

    def heads(self) -> set[Ref]:
        """The header values a format's bounds name (they stay as seen when a sample is mutated)."""
        return {b.head for f in self.formats for c in f.columns for b in c.lower + c.upper if b.head is not None}

    def builder(self, usable: list[Format]) -> Format:
        """The format a phased stress input opens with: the one that puts into the set the rows
        keep, else the first listed (pushes, inserts, updates come first in statements)."""
        put = self.toggle.put if self.toggle is not None else None
        return next((f for f in usable if f.tag == put), usable[0])

    def draw(self, head: list[list[Any]], n: int, kind: str, rng: random.Random, i: int = 0
             ) -> Optional[list[list[str]]]:
        """``n`` rows as tokens, or None when some drawable format's bounds leave no value. Stress
        inputs take turns (``i``): formats at random; *wide*, where 90 % of the rows (every other
        time all but one of each other format) are a format with a pair (``l <= r``, or
        ``1 <= u, v <= n`` either way round) spanning nearly its whole range, the worst case of a
        program that walks each query's range; and *phased*, the ``builder`` format for the first
        half of the rows, the others after it, the worst case of a program that scans at every later
        row what the first half built. Every other phased input keeps the builder among the later
        rows (a program that tidies what was built only when asked pays at every ask); the others
        put the first half's indexes in the lower half of their range and the later rows' in the
        upper half, none of them taking out of a set what was put in (a program that scans what
        was built until an item past the ask scans all of it). Two formats that put a value into a
        set and take it out are then kept to their guarantees (``row_state.py``)."""
        usable = [f for f in self.formats if f.drawable]
        if not usable:
            return None
        wide = kind == "stress" and i % 2 == 1
        apart, first, only = False, None, False
        tags = [rng.choice(usable) for _ in range(n)]
        walking = [f for f in usable if f.walks]
        if kind == "special" or (wide and walking):
            # one format mostly: long runs of updates, then a query; a wide input's ranges, every
            # other time with no other rows between them (an update cuts short a program that
            # walks the range up to the first marked place)
            main = rng.choice(walking if wide and walking else usable)
            only = wide and walking and i % 4 == 3
            tags = [main if only or rng.random() < 0.9 else rng.choice(usable) for _ in range(n)]
        elif kind == "stress" and i % 4 == 0 and len(usable) > 1:
            # phased: the builder goes on among the later rows, or the two halves lie apart
            first, apart = self.builder(usable), i % 8 == 0
            later = usable if i % 8 == 4 else [f for f in usable if f is not first]
            taken = self.toggle.take if self.toggle is not None else None
            if apart and any(f.tag != taken for f in later):  # nothing built is taken out
                later = [f for f in later if f.tag != taken]
            tags = [first] * (n // 2) + [rng.choice(later) for _ in range(n - n // 2)]
        # the promised tags first, then every other one, each at a row of its own while rows last
        promised = [f for t in self.required for f in usable if f.tag == t]
        if len(promised) < len(self.required) or len(promised) > n:
            return None
        count = Counter(f.tag for f in tags)
        for f in [f for f in promised + [f for f in usable if f not in promised] if not count[f.tag]]:
            # a row whose format is there again elsewhere (or, for a promised one, is not promised);
            # a bare wide input's at its end, where it cuts no walk short
            places = range(n - 1, max(-1, n - 65), -1) if only else rng.sample(range(n), min(n, 64))
            spare = [k for k in places if count[tags[k].tag] > 1
                     or (f in promised and tags[k] not in promised)]
            if not spare:
                if f in promised:
                    return None
                continue
            count[tags[spare[0]].tag] -= 1
            tags[spare[0]] = f
            count[f.tag] += 1
        value_of = _header(head)
        shape = stress_step(i)[1] if kind == "stress" else ""
        how = "wide" if wide else shape if shape in ("equal-min", "equal-max") else \
            "ends" if kind in ("special", "corner") else "random"
        if apart:
            how = "low"
        rows: list[list[Any]] = []
        for f in tags:
            row = _draw_row(f, value_of, rng, "high" if apart and f is not first else how)
            if row is None:
                return None
            rows.append(row)
        if shape in ("ascending", "descending") and not (wide or apart):
            _sort_columns(tags, rows, value_of, shape == "descending")
        return self._kept([[f.tag] + [str(v) for v in row] for f, row in zip(tags, rows)], value_of, rng,
                          low=apart)

    def _kept(self, rows: list[list[str]], value_of: Callable[[Ref], int], rng: random.Random, low: bool = False
              ) -> Optional[list[list[str]]]:
        """``rows`` with the toggle's guarantees kept (``Toggle.keep``), or None when that cannot
        be done or it loses a promised format. ``low``: a value put in is taken from the lower half
        of its range."""
        t = self.toggle
        if t is None:
            return rows
        by_tag = {f.tag: f for f in self.formats}

        def draw(tag: str) -> Optional[list[str]]:
            row = _draw_row(by_tag[tag], value_of, rng, "random")
            return None if row is None else [tag] + [str(v) for v in row]

        column = by_tag[t.put].columns[t.column[t.put]]
        span = _range(column, value_of)
        kept = t.keep(rows, _half(*span, "low") if low else span, draw, rng)
        if kept is None or any(tag not in {r[0] for r in kept} for tag in self.required):
            return None
        return kept

    def mutate(self, rows: list[list[str]], head: list[list[Any]], rng: random.Random, lo: int, hi: int
               ) -> Optional[list[list[str]]]:
        """A sample's rows with one row dropped, added (drawn), swapped with another or drawn again
        in its own format; the count stays within [lo, hi] (lo == hi: it may not change). None
        when the result would lose a promised format."""
        out = [list(r) for r in rows]
        op = rng.randrange(4)
        if op == 0 and len(out) > max(lo, 1):
            del out[rng.randrange(len(out))]
        elif op == 1 and len(out) < hi:
            row = self.draw(head, 1, "regular", rng)
            if row is None:
                return None
            out.insert(rng.randrange(len(out) + 1), row[0])
        elif op == 2 and len(out) >= 2:
            a, b = rng.sample(range(len(out)), 2)
            out[a], out[b] = out[b], out[a]
        elif out:
            k = rng.randrange(len(out))
            f = next((g for g in self.formats if g.tag == out[k][0] and g.drawable), None)
            row = _draw_row(f, _header(head), rng, "ends") if f is not None else None
            if row is not None:
                out[k] = [f.tag] + [str(v) for v in row]  # type: ignore[union-attr]
        if any(t not in {r[0] for r in out} for t in self.required):
            return None
        return self._kept(out, _header(head), rng)


def _header(head: list[list[Any]]) -> Callable[[Ref], int]:
    """A header value by its place, from a drawn or a sample's header lines."""
    return lambda r: int(head[r[0]][r[1]])


def _span(c: Column, value_of: Callable[[Ref], int], row: Optional[list[Any]] = None,
          columns: Optional[list[Column]] = None, depth: int = 0) -> tuple[float, float]:
    """The numbers a value may take given the header (and, with ``row``, its earlier columns).
    With the format's ``columns``, a bound by a column not drawn yet stands for that column's own
    bound on the same side: in ``1 <= a <= b <= n`` the value ``a`` is drawn up to n, not only
    up to the samples' largest ``a``."""
    def value(b: Bound, upper: bool) -> Optional[float]:
        v = _bound_value(b, value_of, row)
        if v is None and columns is not None and b.column is not None and depth < len(columns):
            v = _span(columns[b.column], value_of, row, columns, depth + 1)[1 if upper else 0]
        return None if v is None or math.isinf(v) else v

    lows = [v + b.strict for b in c.lower if (v := value(b, False)) is not None]
    highs = [v - b.strict for b in c.upper if (v := value(b, True)) is not None]
    return max(lows, default=float("-inf")), min(highs, default=float("inf"))


def _range(c: Column, value_of: Callable[[Ref], int], row: Optional[list[Any]] = None,
           columns: Optional[list[Column]] = None) -> tuple[int, int]:
    """``_span`` as integers, a side no bound closes taken from the samples' values."""
    lo, hi = _span(c, value_of, row, columns)
    if lo == float("-inf"):
        lo = min(c.seen) if c.seen else hi
    if hi == float("inf"):
        hi = max(c.seen) if c.seen else lo
    return int(lo), int(hi)


def _half(lo: int, hi: int, side: str) -> tuple[int, int]:
    """The lower (``side`` "low") or upper half of ``lo..hi``; the upper one is ``hi`` alone when
    the range holds one value."""
    mid = (lo + hi) // 2
    return (lo, mid) if side == "low" else (min(hi, mid + 1), hi)


def _sized(c: Column, columns: list[Column], depth: int = 0) -> bool:
    """Is the value an index, bounded above by a header value, itself or through the column it
    stays below (``l <= r <= n``)?"""
    return any(b.head is not None or (b.column is not None and depth < len(columns)
                                      and _sized(columns[b.column], columns, depth + 1)) for b in c.upper)


def _bound_value(b: Bound, value_of: Callable[[Ref], int], row: Optional[list[Any]]) -> Optional[float]:
    """A bound's number, header value, or the row's value in its column (None: not drawn yet)."""
    if b.number is not None:
        return b.number
    if b.head is not None:
        return value_of(b.head)
    return row[b.column] if row is not None and b.column is not None and b.column < len(row) else None


def _draw_row(f: Format, value_of: Callable[[Ref], int], rng: random.Random, how: str) -> Optional[list[Any]]:
    """One row of format ``f``. ``how``: ``random``; ``ends`` (each value at an end of its range
    half of the time); ``wide`` (an ordered pair at the two ends of its range, an unordered one
    at its two ends either way round); ``equal-min`` / ``equal-max`` (every value at its least /
    most); ``low`` / ``high`` (each index, a value the header bounds, in the lower / upper half of
    its range, the rest at random). Where that breaks a bound between values (``a < b`` both at
    their least; ``a != b`` in a half of one value), the later tries draw at random."""
    pair = f.pair if how == "wide" else None
    for attempt in range(TRIES):
        row: list[Any] = []
        low_first = pair is not None and rng.random() < 0.5  # an unordered pair's first value low
        for k, c in enumerate(f.columns):
            if c.words:
                row.append(rng.choice(c.seen))
                continue
            lo, hi = _range(c, value_of, row, f.columns)
            if lo > hi:
                break
            near = max(1, (hi - lo) // 50)
            pick = how if attempt == 0 or how in ("wide", "ends") or (how in HALVES and attempt < TRIES // 2) \
                else "random"
            if pick == "wide" and any(b.column is not None and b.column > len(row) for b in c.upper):
                row.append(rng.randint(lo, min(hi, lo + near)))  # the left end of a pair, near its least
            elif pick == "wide" and any(b.column is not None and b.column < len(row) for b in c.lower):
                row.append(rng.randint(max(lo, hi - near), hi))  # the right end, near its most
            elif pick == "wide" and pair is not None and k in pair:
                low = (k == pair[0]) == low_first
                row.append(rng.randint(lo, min(hi, lo + near)) if low else rng.randint(max(lo, hi - near), hi))
            elif pick in HALVES and _sized(c, f.columns):
                row.append(rng.randint(*_half(lo, hi, pick)))
            elif pick in ("equal-min", "equal-max"):
                row.append(lo if pick == "equal-min" else hi)
            elif pick == "ends" and rng.random() < 0.5:
                row.append(rng.choice((lo, hi)))
            else:
                row.append(rng.randint(lo, hi))
        else:
            if _keeps(f, row, value_of):
                return row
            # a later column below an earlier one ("l <= r" drawn r first): sort each such pair
            for k, c in enumerate(f.columns):
                for b in c.upper:
                    if b.column is not None and b.column > k and row[k] > row[b.column] - b.strict:
                        row[k], row[b.column] = row[b.column], row[k]
            if _keeps(f, row, value_of):
                return row
    return None


def _sort_columns(tags: list[Format], rows: list[list[Any]], value_of: Callable[[Ref], int], descending: bool) -> None:
    """Each format's numbers rising (falling) from row to row, column by column: updates that climb
    one way. Sorting every column of a pair (``l <= r``) keeps it ordered; a format whose sorted
    rows break another bound keeps its rows as drawn."""
    for f in {id(f): f for f in tags}.values():
        at = [k for k, g in enumerate(tags) if g is f]
        mine = [list(rows[k]) for k in at]
        for j, c in enumerate(f.columns):
            if not c.words:
                col = sorted((r[j] for r in mine), reverse=descending)
                for r, v in zip(mine, col):
                    r[j] = v
        if all(_keeps(f, r, value_of) for r in mine):
            for k, r in zip(at, mine):
                rows[k] = r


def _keeps(f: Format, row: list[Any], value_of: Callable[[Ref], int]) -> bool:
    """Does a row of format ``f`` keep every bound and difference read of it?"""
    for k, c in enumerate(f.columns):
        if c.words:
            continue
        lo, hi = _span(c, value_of, row)
        if not lo <= row[k] <= hi or any(row[k] == row[d] for d in c.differ):
            return False
    return True


def fit_queries(statement: str, rows: list[list[list[str]]], heads: list[list[str]],
                head_names: list[tuple[Optional[str], Ref]]) -> Optional[QueryRows]:
    """The block's formats (``rows``: its lines per sample; ``heads``: each sample's header tokens
    in ``head_names`` order) when every sample row is one of the listed formats and keeps every
    bound read of it, else None."""
    listed = read_formats(statement)
    if not listed or not any(rows):
        return None
    by_tag = {f.tag: f for f in listed}
    if any(not r or r[0] not in by_tag or len(r) != by_tag[r[0]].width for s in rows for r in s):
        return None
    named = {_bare(nm): ref for nm, ref in head_names if nm}
    whole = comparisons(normalize(statement))
    formats = [_fit_format(f, whole, named) for f in listed]
    for f in formats:
        for s in rows:
            for r in s:
                if r[0] == f.tag:
                    for c, tok in zip(f.columns, r[1:]):
                        c.seen.append(_token_value(tok))
        for c in f.columns:
            c.words = any(isinstance(v, str) for v in c.seen)
            bounded = any(b.number is not None or b.head is not None for b in c.lower) and \
                any(b.number is not None or b.head is not None for b in c.upper)
            if not c.seen and not bounded:
                f.drawable = False
    # every sample row keeps what was read, with its own sample's header values
    for s, hv in zip(rows, heads):
        pos = {ref: k for k, (_, ref) in enumerate(head_names)}

        def value_of(ref: Ref, hv: list[str] = hv) -> int:
            return int(hv[pos[ref]])

        for r in s:
            f = next(x for x in formats if x.tag == r[0])
            vals = [_token_value(t) for t in r[1:]]
            if any(isinstance(v, str) != c.words for v, c in zip(vals, f.columns)) or not _keeps(f, vals, value_of):
                return None
    if not any(f.drawable for f in formats):
        return None
    toggle = None
    if any(f.guard for f in listed):
        toggle = _fit_toggle(listed, formats, rows)
        if toggle is None:
            return None
    return QueryRows(formats, required_tags(statement, listed), toggle)


def _fit_toggle(listed: list[QueryFormat], formats: list[Format], rows: list[list[list[str]]]) -> Optional[Toggle]:
    """The set two guarded formats keep (``row_state.py``), when their guarded values are numbers
    bounded alike by numbers and header values only, and the samples keep it one way round."""
    guarded = {f.tag: f.names.index(f.guard) for f in listed if f.guard}
    cols = [g.columns[guarded[g.tag]] for g in formats if g.tag in guarded]
    if any(not g.drawable for g in formats if g.tag in guarded):
        return None
    if any(c.words or c.differ or any(b.column is not None for b in c.lower + c.upper) for c in cols) \
            or cols[0].lower != cols[1].lower or cols[0].upper != cols[1].upper:
        return None
    return read_toggle(guarded, rows)


def _token_value(tok: str) -> Any:
    """An integer token as its number, any other as its word."""
    return int(tok) if re.fullmatch(r"-?\d+", tok) else tok


def _fit_format(f: QueryFormat, whole: list[Comparison], named: dict[str, Ref]) -> Format:
    cols = [Column(nm) for nm in f.names]
    index = {nm: k for k, nm in enumerate(f.names)}

    def side(term: str) -> Optional[Bound]:
        num = parse_number(term) if re.match(r"-?\d", term) else None
        if num is not None:
            return Bound(number=num)
        if term in index:
            return Bound(column=index[term])
        if term in named:
            return Bound(head=named[term])
        return None

    def apply(cmp: Comparison) -> None:
        a, b = side(cmp.left), side(cmp.right)
        if a is None or b is None:
            return
        if cmp.op == "!=":
            if a.column is not None and b.column is not None:
                cols[b.column].differ.append(a.column)
            return
        strict = 1 if cmp.op == "<" else 0
        if a.column is not None:
            cols[a.column].upper.append(Bound(b.number, b.head, b.column, strict))
        if b.column is not None:
            cols[b.column].lower.append(Bound(a.number, a.head, a.column, strict))

    for cmp in f.said:
        apply(cmp)
    # the statement's other constraints, for a value its item bounds on no side ("All of the
    # values $x$ will satisfy $1 \le x \le n$")
    for k, c in enumerate(cols):
        if c.lower or c.upper:
            continue
        for cmp in whole:
            if f.names[k] in (cmp.left, cmp.right):
                apply(cmp)
    return Format(f.tag, cols)
