"""Numeric constraints read from a problem statement (LaTeX or plain text).

Statements state their limits in a handful of ways: ``$1 \\le N \\le 10^5$``,
``between $0$ and $10^{15}$``, ``at most $40$ lines``, ``at most 100 letters long``.
We read those into ``Range`` records; the input model decides which slot each one fits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

_NUM = r"-?(?:\d+(?:\.\d+)?\s*\*\s*10\^-?\d+|10\^-?\d+|\d+(?:\.\d+)?e-?\d+|\d+(?:\.\d+)?)(?!\d|\.\d)"
_NAME = r"[A-Za-z](?:_\{?[A-Za-z0-9,]+\}?|[A-Za-z0-9]*)?(?:\s*,\s*[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)*"


@dataclass
class Range:
    name: Optional[str]
    lo: Optional[float]
    hi: Optional[float]
    context: str = ""  # words around it ("letters long", "test cases")

    @property
    def is_length(self) -> bool:
        # the words right after the bound ("at most 100 letters long"), not a later sentence's
        near = " ".join(self.context.split()[:3])
        return bool(re.search(r"\b(letters?|characters?|chars?|long|length)\b", near))

    @property
    def is_count(self) -> bool:
        return bool(re.search(r"\b(lines?|test ?cases?|cases|queries|pairs|words|numbers|integers|elements)\b",
                              self.context)) and not self.is_length


def parse_number(s: str) -> Optional[float]:
    s = s.replace(" ", "")
    try:
        if "*10^" in s:
            a, b = s.split("*10^")
            return float(a) * 10 ** int(b)
        if s.lstrip("-").startswith("10^"):
            sign = -1 if s.startswith("-") else 1
            return sign * 10 ** int(s.lstrip("-")[3:])
        return float(s)
    except (ValueError, OverflowError):
        return None


def normalize(text: str) -> str:
    t = text
    # a LaTeX command name ends at the first non-letter: "\\leq2\\cdot10^5" is "≤ 2 * 10^5"
    # (a word boundary would need a space before the digit)
    t = re.sub(r"\\(?:leqslant|leq|le)(?![A-Za-z])", " ≤ ", t)
    t = re.sub(r"\\(?:geqslant|geq|ge)(?![A-Za-z])", " ≥ ", t)
    t = re.sub(r"\\lt(?![A-Za-z])", " < ", t)
    t = re.sub(r"\\gt(?![A-Za-z])", " > ", t)
    t = t.replace("<=", " ≤ ").replace(">=", " ≥ ")
    t = re.sub(r"\\(?:cdot|times)(?![A-Za-z])|×", "*", t)
    t = re.sub(r"(\d)\\,(?=\d{3})", r"\1", t)  # 1\,000\,000
    t = re.sub(r"(\d),(?=\d{3}\b)", r"\1", t)  # 1,000,000
    t = t.replace("\\(", " ").replace("\\)", " ").replace("$", " ")
    t = re.sub(r"\^\{(-?\d+)\}", r"^\1", t)
    t = re.sub(r"\\texttt\{([^}]*)\}|\\text\{([^}]*)\}", lambda m: m.group(1) or m.group(2) or "", t)
    t = re.sub(r"[ \t]+", " ", t)
    return t


def _ctx(t: str, end: int) -> str:
    return " ".join(t[end:end + 60].split()[:5]).lower()


def extract(text: str) -> list[Range]:
    """Every range the statement states, in order of appearance."""
    t = normalize(text)
    out: list[Range] = []
    chain = re.compile(rf"({_NUM})\s*(≤|<)\s*({_NAME})\s*(≤|<)\s*({_NUM})")
    for m in chain.finditer(t):
        lo, hi = parse_number(m.group(1)), parse_number(m.group(5))
        if lo is None or hi is None:
            continue
        if m.group(2) == "<":
            lo = lo + 1 if float(lo).is_integer() else lo
        if m.group(4) == "<":
            hi = hi - 1 if float(hi).is_integer() else hi
        for name in re.split(r"\s*,\s*", m.group(3)):
            out.append(Range(name.strip(), lo, hi, _ctx(t, m.end())))
    for m in re.finditer(rf"(?<![≤<\d])\s({_NAME})\s*(≤|<)\s*({_NUM})", t):
        if any(r.name == m.group(1).strip() for r in out):
            continue
        hi = parse_number(m.group(3))
        if hi is not None:
            out.append(Range(m.group(1).strip(), None, hi - (1 if m.group(2) == "<" else 0), _ctx(t, m.end())))
    for m in re.finditer(rf"between\s+({_NUM})\s+and\s+({_NUM})", t, re.I):
        lo, hi = parse_number(m.group(1)), parse_number(m.group(2))
        if lo is not None and hi is not None:
            out.append(Range(None, lo, hi, _ctx(t, m.end())))
    for m in re.finditer(rf"at\s+most\s+({_NUM})", t, re.I):
        hi = parse_number(m.group(1))
        if hi is not None:
            out.append(Range(None, None, hi, _ctx(t, m.end())))
    for m in re.finditer(rf"at\s+least\s+({_NUM})", t, re.I):
        lo = parse_number(m.group(1))
        if lo is not None:
            out.append(Range(None, lo, None, _ctx(t, m.end())))
    return out


_SUM = re.compile(
    rf"(?:sum|total)(?: length| size| number)? of (?:all |the )*(?:values of |lengths? of )?({_NAME})[^.]{{0,60}}?"
    rf"(?:over|across|in|for|of) all (?:the )?(?:test ?cases|cases|tests|queries|scenarios|inputs)[^.]{{0,40}}?"
    rf"(?:does not exceed|doesn't exceed|will not exceed|not exceed|is at most|is not greater than|"
    rf"is less than or equal to|≤|<)\s*({_NUM})", re.I)


def sum_bound(text: str) -> Optional[float]:
    """The bound on a quantity summed over all test cases of a file ("the sum of n over all
    test cases does not exceed 2*10^5", "\\sum n \\le 10^6"), or None."""
    t = re.sub(r"\\sum\b", " sum of ", normalize(text))
    m = _SUM.search(t)
    if m:
        return parse_number(m.group(2))
    m = re.search(rf"sum of\s+({_NAME})\s*(?:over all [a-z ]+)?\s*(≤|<)\s*({_NUM})", t, re.I)
    if m and re.search(r"test ?cases?|\bcases\b", t, re.I):
        hi = parse_number(m.group(3))
        return None if hi is None else hi - (1 if m.group(2) == "<" else 0)
    return None


def alphabet_hint(text: str) -> Optional[str]:
    """'only letters a-z' / 'lowercase letters' / 'uppercase' / 'digits' → an alphabet."""
    t = normalize(text).lower()
    if re.search(r"\ba\s*-\s*z\b|lower-?case", t):
        return "abcdefghijklmnopqrstuvwxyz"
    if re.search(r"\bA\s*-\s*Z\b", normalize(text)) or "upper-case" in t or "uppercase" in t:
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return None


def says_no_input(text: str) -> bool:
    return bool(re.search(r"(there is|there's)\s+no\s+input|no input\b|input is empty", normalize(text).lower()))


_TOL = re.compile(r"(absolute|relative)\s+(or|and|/)?\s*(relative|absolute)?\s*(error|difference|precision)"
                  r"[^.]{0,80}?(10\s*\^\s*\{?\s*-\s*(\d+)\s*\}?|1e-(\d+))", re.I | re.S)


_POW = r"(?:10\s*\^\s*\{?\s*-\s*(\d+)\s*\}?|1e-(\d+))"
# "an error of at most 10^-6", "precision of 1e-9", "accurate to within 10^{-4}", "within 10^-6 of the answer"
_TOL_WORDS = re.compile(rf"\b(?:error|precision|accuracy|tolerance|accurate|differ\w*)\b[^.]{{0,40}}?"
                        rf"(?:at most|up to|less than|not exceed\w*|within|smaller than|no more than|≤|<=|of)\s*{_POW}"
                        rf"|\bwithin\s+{_POW}\s+(?:of|from)\b", re.I | re.S)


def stated_tolerance(text: str) -> Optional[float]:
    """The output tolerance a statement grants ("an absolute or relative error of at most
    $10^{-6}$", "within 1e-4 absolute error", "a precision of 10^{-9}"), or None when it states none."""
    t = text.replace("$", " ").replace("\\", " ")
    m = _TOL.search(t)
    if not m:
        w = _TOL_WORDS.search(t)
        exp = next((g for g in (w.groups() if w else ()) if g), None)
        try:
            return 10.0 ** -int(exp) if exp is not None else None
        except ValueError:
            return None
    exp = m.group(6) or m.group(7)
    try:
        return 10.0 ** -int(exp)
    except (TypeError, ValueError):
        return None
