"""Per-argument bounds read from a function's docstring.

Docstrings state contracts in prose and in formulas: "base numbers are less than 10",
"1 <= n <= 10^3", "-10^4 <= nums[i] <= 10^4" (every element), "1 <= k <= len(arr)", "The
length of the array will be in the range of [1, 1000]", "Given a positive integer n".
``arg_bounds`` maps each argument name to the bounds such sentences give it (on its values, or
on its length). The input model applies a bound only where every seed already satisfies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .constraints import _NUM, normalize, parse_number


@dataclass
class Bound:
    lo: Optional[float] = None
    hi: Optional[float] = None
    length_lo: Optional[float] = None
    length_hi: Optional[float] = None
    positive: bool = False  # said in words: for floats that means > 0, not >= 1
    # the statement states an upper end in words the reader cannot evaluate ("day from 1 to the
    # number of days in that month"): the value stays within what the seeds show
    hi_unread: bool = False

    def merge(self, other: "Bound") -> "Bound":
        def mx(a: Optional[float], b: Optional[float]) -> Optional[float]:
            return b if a is None else a if b is None else max(a, b)

        def mn(a: Optional[float], b: Optional[float]) -> Optional[float]:
            return b if a is None else a if b is None else min(a, b)

        return Bound(mx(self.lo, other.lo), mn(self.hi, other.hi), mx(self.length_lo, other.length_lo),
                     mn(self.length_hi, other.length_hi), self.positive or other.positive,
                     self.hi_unread or other.hi_unread)


def arg_names(statement: str, entry_point: str) -> list[str]:
    """Parameter names of ``def entry_point(...)`` in the statement (types and defaults dropped)."""
    return [name for name, _ in arg_params(statement, entry_point)]


def arg_params(statement: str, entry_point: str) -> list[tuple[str, str]]:
    """(name, annotation) of each parameter of ``def entry_point(...)`` in the statement."""
    m = re.search(rf"def\s+{re.escape(entry_point)}\s*\((.*?)\)\s*(?:->[^:]*)?:", statement, re.S)
    if not m:
        return []
    depth, cur, parts = 0, "", []
    for ch in m.group(1):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    params = []
    for p in parts:
        name = p.split(":")[0].split("=")[0].strip().lstrip("*")
        if re.fullmatch(r"[A-Za-z_]\w*", name) and name != "self":
            params.append((name, p.split(":", 1)[1].split("=")[0].strip() if ":" in p else ""))
    return params


def _sentences(doc: str) -> list[str]:
    """The docstring's sentences, its lines joined. A line holding a formula ends its sentence
    (a LeetCode "Constraints:" section puts one per line, with no full stop; a ";", since "9."
    would read as a numbered item), and `` * `` between digits is a product ("3 * 10^4"), not a
    bullet."""
    lines = [ln.strip() for ln in doc.split("\n") if not ln.strip().startswith(">>>")]
    lines = [ln + ";" if re.search(r"<=|≤|>=|≥|==", ln) and not re.search(r"[.;:,]$", ln) else ln for ln in lines]
    text = " ".join(lines)
    return [s for s in re.split(r"(?<=[.;])\s+|\s+\d\.\s+|(?<!\d)\s\*\s(?!\d)", text) if s.strip()]


def _inclusive(lo_text: str, lo_op: str, hi_op: str, hi_text: str) -> tuple[Optional[float], Optional[float]]:
    """The inclusive ends of ``lo_text lo_op x hi_op hi_text``: ``1 < x < 10`` is 2..9."""
    lo, hi = parse_number(lo_text), parse_number(hi_text)
    return (lo if lo_op == "≤" or lo is None else lo + 1), (hi if hi_op == "≤" or hi is None else hi - 1)


# a range in words right after the name (or its plural): "an integer score between 0 and 100
# inclusive", "the scores are integers between 0 and 100", "month from 1 to 12", "day from 1 to
# the number of days in that month" (an upper end not a number)
_PROSE_RANGE = (r"\b{n}s?\b(?:\s+(?:is|are|will be|must be|lies|lie))?(?:\s+(?:an?|the|always))?"
                r"(?:\s+(?:integer|number|value|whole number)s?)?\s+(between|from)\s+({num})\s+(and|(?:up\s+)?to)\s+"
                r"(?:({num})(?![\w.]*\w)|(?!{num}))(\s*\(?\s*(?:inclusive|exclusive))?")


# or in parentheses a few words after it: "a person's age in whole years (an integer from 0 to 120)"
_PAREN_RANGE = (r"\b{n}s?\b(?:\s+[\w']+){{0,4}}?\s*\(\s*(?:an?\s+)?(?:integer|number|value|whole number)s?"
                r"\s+(between|from)\s+({num})\s+(and|to)\s+(?:({num})(?![\w.]*\w)|(?!{num}))"
                r"(\s*,?\s*(?:inclusive|exclusive))?")
# or the parentheses hold only the ends, each perhaps with what it stands for: "a month number (1
# for January up to 12 for December)", "a weekday (0 to 6)"
_PAREN_ENDS = (r"\b{n}s?\b(?:\s+[\w']+){{0,4}}?\s*\(\s*(from)?\s*({num})(?:\s+for\s+[\w']+)?\s+((?:up\s+)?to|through)\s+"
               r"({num})(?:\s+for\s+[\w']+)?()\s*\)")


def _prose_range(t: str, n: str) -> Optional[Bound]:
    """``n``'s range where a sentence gives it in words right after the name (``_PROSE_RANGE``,
    ``_PAREN_RANGE``); "between" is inclusive unless the sentence says "exclusive"."""
    m = (re.search(_PROSE_RANGE.format(n=re.escape(n), num=_NUM), t, re.I)
         or re.search(_PAREN_RANGE.format(n=re.escape(n), num=_NUM), t, re.I)
         or re.search(_PAREN_ENDS.format(n=re.escape(n), num=_NUM), t, re.I))
    if not m:
        return None
    lo = parse_number(m.group(2))
    exclusive = bool(m.group(5)) and "exclusive" in m.group(5).lower()
    if m.group(4) is None:
        return Bound(lo=lo, hi_unread=True)
    hi = parse_number(m.group(4))
    if exclusive and lo is not None and hi is not None:
        return Bound(lo=lo + 1, hi=hi - 1)
    return Bound(lo=lo, hi=hi)


_LEN = r"(?:len\(\s*{n}\s*\)|{n}\.length|length of (?:the )?(?:{n}|array|list|string))"


def length_aliases(statement: str, names: list[str]) -> dict[str, str]:
    """Names the statement makes another argument's length, LeetCode's way: "n == height.length"
    (or "height.length == n"): {n: height}, so that "2 <= n <= 10^5" bounds that length. A name
    that is itself an argument is no alias; nor is a length of a length ("n == grid[i].length")."""
    t = normalize(statement)
    out: dict[str, str] = {}
    pairs = [(m.group(1), m.group(2)) for m in re.finditer(r"\b([A-Za-z_]\w*)\s*==\s*([A-Za-z_]\w*)\.length\b", t)]
    pairs += [(m.group(2), m.group(1)) for m in
              re.finditer(r"\b([A-Za-z_]\w*)\.length\s*==\s*([A-Za-z_]\w*)\b(?![\[.(])", t)]
    for alias, arg in pairs:
        if arg in names and alias not in names and alias not in out:
            out[alias] = arg
    return out


def arg_bounds(statement: str, entry_point: str, names: Optional[list[str]] = None) -> dict[str, Bound]:
    """Each parameter's bounds from the statement's sentences. ``names``: the parameters, where the
    statement does not show the signature (they come from a solution's)."""
    names = names if names is not None else arg_names(statement, entry_point)
    out: dict[str, Bound] = {n: Bound() for n in names}
    if not names:
        return out
    aliases = length_aliases(statement, names)
    for sent in _sentences(statement):
        t = normalize(sent).replace("**", "^")  # Python's power: "0 <= n < 10**18"
        if "==" not in t and re.search(r"[≤<]", t):  # "2 <= n <= 10^5" after "n == height.length"
            for alias, arg in aliases.items():
                t = re.sub(rf"\b{re.escape(alias)}\b(?![\[.(\w])", f"{arg}.length", t)
        low = t.lower()
        mentioned = [n for n in names if re.search(rf"\b{re.escape(n)}\b", t)]
        single = names[0] if len(names) == 1 else None
        for n in names:
            ln = _LEN.format(n=re.escape(n))
            # formulas: 1 <= n <= 10^3, 1 <= len(arr) <= 100; a sentence may hold both a length
            # and an element bound of one name, and both are read
            m = re.search(rf"({_NUM})\s*(≤|<)\s*{ln}\s*(≤|<)\s*({_NUM})", t, re.I)
            if m:
                lo, hi = _inclusive(*m.group(1, 2, 3, 4))
                out[n] = out[n].merge(Bound(length_lo=lo, length_hi=hi))
            m = re.search(rf"\b{re.escape(n)}\.length\s*==\s*(\d+)\b", t)  # "newInterval.length == 2"
            if m:
                out[n] = out[n].merge(Bound(length_lo=int(m.group(1)), length_hi=int(m.group(1))))
            # a value's bound, or every element's (LeetCode's ``-10^4 <= nums[i] <= 10^4``)
            m = re.search(rf"({_NUM})\s*(≤|<)\s*{re.escape(n)}(?:\[\s*\w+\s*\])*\s*(≤|<)\s*({_NUM})", t)
            if m:
                lo, hi = _inclusive(*m.group(1, 2, 3, 4))
                out[n] = out[n].merge(Bound(lo=lo, hi=hi))
            prose = _prose_range(t, n)
            if prose is not None:
                out[n] = out[n].merge(prose)
            # an upper bound in a chain whose term before is a name: "starti < endi <= 5 * 10^4"
            m = re.search(rf"[A-Za-z_\]]\s*(?:≤|<)\s*{re.escape(n)}(?:\[\s*\w+\s*\])*\s*(≤|<)\s*({_NUM})", t)
            if m and parse_number(m.group(2)) is not None:
                hi = parse_number(m.group(2))
                out[n] = out[n].merge(Bound(hi=hi if m.group(1) == "≤" else hi - 1))
            # a lower bound in a chain whose next term is a name: "1 <= k <= n <= 10^4"
            m = re.search(rf"({_NUM})\s*(≤|<)\s*{re.escape(n)}\s*(?:≤|<)\s*[A-Za-z_]", t)
            if m and parse_number(m.group(1)) is not None:
                lo = parse_number(m.group(1))
                out[n] = out[n].merge(Bound(lo=lo if m.group(2) == "≤" else lo + 1))
        # several names under one bound: "1 <= s.length, t.length <= 5 * 10^4"; "0 <= ai, bi < n"
        # (a name above them: their lower bound only)
        for m in re.finditer(rf"({_NUM})\s*(≤|<)\s*((?:[\w.\[\]]+\s*,\s*)+[\w.\[\]]+)\s*(≤|<)\s*({_NUM}|[A-Za-z_]\w*)", t):
            lo, hi = _inclusive(*m.group(1, 2, 4, 5))
            for item in re.split(r"\s*,\s*", m.group(3)):
                name = re.match(r"\w+", item)
                if name and name.group(0) in out:
                    length = item.endswith(".length")
                    out[name.group(0)] = out[name.group(0)].merge(
                        Bound(length_lo=lo, length_hi=hi) if length else Bound(lo=lo, hi=hi))
        # prose about one argument: "base numbers are less than 10", "positive integer n"
        target = mentioned[0] if len(mentioned) == 1 else single
        if target is None:
            continue
        about_len = bool(re.search(r"\blength\b|\bsize\b|number of elements", low))
        rng = re.search(rf"range of \[\s*({_NUM})\s*,\s*({_NUM})\s*\]", t)
        b = Bound()
        if rng:
            lo, hi = parse_number(rng.group(1)), parse_number(rng.group(2))
            b = Bound(length_lo=lo, length_hi=hi) if about_len else Bound(lo=lo, hi=hi)
        else:
            for m in re.finditer(rf"\b(not\s+)?(less|greater|higher|more) than\s+({_NUM})", low):
                v = parse_number(m.group(3))
                if v is None or about_len:
                    continue
                below = m.group(2) == "less"
                if m.group(1):  # "not less than 1": at least 1
                    b = b.merge(Bound(lo=v) if below else Bound(hi=v))
                else:
                    b = b.merge(Bound(hi=v - 1) if below else Bound(lo=v + 1))
        if re.search(r"\bpositive\b", low) and "non-positive" not in low and not about_len:
            b = b.merge(Bound(lo=1, positive=True))
        elif re.search(r"non-?negative", low) and not about_len:
            b = b.merge(Bound(lo=0))
        out[target] = out[target].merge(b)
    for line in statement.splitlines():  # a line, not a sentence: "or 2." would end a numbered item
        for n in names:
            # a few values, consecutive: "nums[i] is either 0, 1, or 2", "bits[i] is 0 or 1"
            m = re.search(rf"\b{re.escape(n)}(?:\[\s*\w+\s*\])*\s+is\s+(?:either\s+)?((?:-?\d+\s*,\s*)*-?\d+),?"
                          rf"\s+or\s+(-?\d+)\b", line)
            if m:
                vals = sorted({int(x) for x in re.findall(r"-?\d+", m.group(1))} | {int(m.group(2))})
                if vals == list(range(vals[0], vals[-1] + 1)):
                    out[n] = out[n].merge(Bound(lo=vals[0], hi=vals[-1]))
    return out


_QUOTED = r"(?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\")"
# the name, a few words, then quoted values joined by "or": "a string gender that is 'M' or 'F'",
# "each op is one of 'push', 'pop' or 'top'"
_CHOICES = rf"\bNAME\b(?:\s+[\w-]+){{0,5}}?\s+({_QUOTED}(?:\s*,\s*{_QUOTED})*\s*,?\s+or\s+{_QUOTED})"


def arg_choices(statement: str, names: list[str]) -> dict[str, list[str]]:
    """The quoted values a sentence says a name takes ("gender that is 'M' or 'F'"): a category
    the statement lists. The input model draws only these where every seed is one of them."""
    out: dict[str, list[str]] = {}
    for sent in _sentences(statement):
        for n in names:
            m = re.search(_CHOICES.replace("NAME", re.escape(n)), sent)
            if m and n not in out:
                out[n] = list(dict.fromkeys(q[1:-1] for q in re.findall(_QUOTED, m.group(1))))
    return out


_THRESHOLD = re.compile(rf"(?:\bat\s+least|\bat\s+most|\bbelow|\babove|\bless\s+than|\bgreater\s+than|\bmore\s+than"
                        rf"|\bfewer\s+than|\bunder|\bover|\bexceeds?|\bequal\s+to|\bexactly|≥|≤|<|>)\s*({_NUM})"
                        rf"(\s+(?:characters?|letters?|chars?|symbols?)\b|\s+long\b)?")


# the number before its comparison ("aged 65 or older", "10 or more items"), and a span's ends
# ("aged 3 to 12 (inclusive)", "from 1 to 12")
_THRESHOLD_AFTER = re.compile(rf"({_NUM})\s+(?:or|and)\s+(?:older|more|above|over|higher|greater|larger|less|fewer"
                              rf"|younger|below|under|lower|smaller)\b")
_THRESHOLD_SPAN = re.compile(rf"\b(?:aged|from|between)\s+({_NUM})\s+(?:to|and)\s+({_NUM})(?![\w.]*\w)")


def stated_thresholds(statement: str) -> tuple[list[int], list[int]]:
    """The whole numbers a statement compares with, outside its examples: "'A' if score is at least
    90", "below 60" (values), "at least 8 characters long" (lengths). An answer changes at each,
    so a value or a length on both sides of it and on it is a boundary the seeds may not show."""
    values: set[int] = set()
    lengths: set[int] = set()
    for sent in _sentences(statement):
        t = normalize(sent)
        for m in _THRESHOLD.finditer(t.replace("**", "^")):
            v = parse_number(m.group(1))
            if v is None or v != int(v) or abs(v) > 10**18:
                continue
            (lengths if m.group(2) else values).add(int(v))
        for v in [m.group(1) for m in _THRESHOLD_AFTER.finditer(t)] + \
                [g for m in _THRESHOLD_SPAN.finditer(t) for g in m.groups()]:
            x = parse_number(v)
            if x is not None and x == int(x) and abs(x) <= 10**18:
                values.add(int(x))
    return sorted(values), sorted(lengths)
