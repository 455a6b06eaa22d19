"""Numeric constraints read from a problem statement (LaTeX or plain text).

Statements state their limits in a handful of ways: ``$1 \\le N \\le 10^5$``,
``between $0$ and $10^{15}$``, ``at most $40$ lines``, ``at most 100 letters long``.
We read those into ``Range`` records; the input model decides which slot each one fits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

# a power (of ten, or "2^31") may carry an offset: "$0 \\le n < 10^9+7$", "$n \\le 10^5 - 1$", "2^31 - 1"
_NUM = (r"-?(?:(?:\d+(?:\.\d+)?\s*\*\s*10\^-?\d+|10\^-?\d+|\d+\^\d+)(?:\s*[-+]\s*\d+(?![\d^.]))?"
        r"|\d+(?:\.\d+)?e-?\d+|\d+(?:\.\d+)?)(?!\d|\.\d)")
_NAME = r"[A-Za-z](?:_\{?[A-Za-z0-9,]+\}?|[A-Za-z0-9]*)?(?:\s*,\s*[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)*"


@dataclass
class Range:
    name: Optional[str]
    lo: Optional[float]
    hi: Optional[float]
    context: str = ""  # words around it ("letters long", "test cases")
    bars: bool = False  # written |x| <= hi: an absolute value for a number, a length for a string

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
    offset = re.fullmatch(r"(.*\d\^-?\d+)([-+]\d+)", s)
    if offset:
        base = parse_number(offset.group(1))
        return None if base is None else base + int(offset.group(2))
    try:
        if "*10^" in s:
            a, b = s.split("*10^")
            return float(a) * 10 ** int(b)
        power = re.fullmatch(r"(-?)(\d+)\^(-?\d+)", s)  # 10^5, 2^31
        if power:
            return (-1 if power.group(1) else 1) * int(power.group(2)) ** int(power.group(3))
        return float(s)
    except (ValueError, OverflowError):
        return None


_MACRO = re.compile(r"\\(?:re)?newcommand\*?\s*\{?\\([A-Za-z]+)\}?\s*(?:\[0\])?\s*\{|\\def\s*\\([A-Za-z]+)\s*\{")


def expand_macros(text: str) -> str:
    """Argument-less LaTeX macros the statement defines (``\\newcommand{\\maxn}{10^5}``, ``\\def``)
    replaced by their bodies, so ``$1 \\le n \\le \\maxn$`` reads as a bound (NWERC writes its
    limits this way). Macros with arguments are left alone."""
    defs: dict[str, str] = {}
    for m in _MACRO.finditer(text):
        depth, k = 1, m.end()
        while k < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        if depth == 0:
            defs[m.group(1) or m.group(2)] = text[m.end():k - 1]
    for _ in range(3):  # a body may use another macro
        for name, body in defs.items():
            text = re.sub(rf"\\{name}(?![A-Za-z])", lambda _m, b=body: " " + b + " ", text)
    return text


_SUPERSCRIPTS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def unicode_math(t: str) -> str:
    """The signs of a statement copied from a web page as ASCII: 2·10⁵ is 2*10^5, −10⁻⁶ is -10^-6."""
    t = re.sub(r"[×·⋅∙]", "*", t.replace("−", "-"))
    return re.sub(r"(\d)(⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)", lambda m: m.group(1) + "^" + m.group(2).translate(_SUPERSCRIPTS), t)


def normalize(text: str) -> str:
    t = expand_macros(text)
    # a LaTeX command name ends at the first non-letter: "\\leq2\\cdot10^5" is "≤ 2 * 10^5"
    # (a word boundary would need a space before the digit)
    t = re.sub(r"\\(?:leqslant|leq|le)(?![A-Za-z])", " ≤ ", t)
    t = re.sub(r"\\(?:geqslant|geq|ge)(?![A-Za-z])", " ≥ ", t)
    t = re.sub(r"\\lt(?![A-Za-z])", " < ", t)
    t = re.sub(r"\\gt(?![A-Za-z])", " > ", t)
    t = t.replace("<=", " ≤ ").replace(">=", " ≥ ")
    t = re.sub(r"\\(?:cdot|times)(?![A-Za-z])", "*", unicode_math(t))
    t = re.sub(r"\\ell(?![A-Za-z])", "ell", t).replace("ℓ", "ell")  # the script l: a name (a length, often)
    t = re.sub(r"\\(?:left|right|big|Big)(?![A-Za-z])|\\[lr]?vert(?![A-Za-z])", lambda m: "|" if "vert" in m.group(0) else "", t)
    t = re.sub(r"(\d)\\,(?=\d{3})", r"\1", t)  # 1\,000\,000
    t = re.sub(r"(\d),(?=\d{3}\b)", r"\1", t)  # 1,000,000
    # an upper bound with spaces between its thousands: "≤ 2 000", "≤ 1 000 000" (thin spaces too)
    t = re.sub(r"([≤<]\s*)(\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+)(?![\d.])",
               lambda m: m.group(1) + re.sub(r"\D", "", m.group(2)), t)
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
    # "0 <= a <= b <= 10^9": both names within the outer bounds (their order is the validator's)
    pair = re.compile(rf"({_NUM})\s*(≤|<)\s*({_NAME})\s*(?:≤|<)\s*({_NAME})\s*(≤|<)\s*({_NUM})")
    for m in pair.finditer(t):
        lo, hi = parse_number(m.group(1)), parse_number(m.group(6))
        if lo is None or hi is None:
            continue
        lo += 1 if m.group(2) == "<" and float(lo).is_integer() else 0
        hi -= 1 if m.group(5) == "<" and float(hi).is_integer() else 0
        for name in re.split(r"\s*,\s*", m.group(3)) + re.split(r"\s*,\s*", m.group(4)):
            if not any(r.name == name.strip() for r in out):
                out.append(Range(name.strip(), lo, hi, _ctx(t, m.end())))
    for m in re.finditer(rf"(?<![≤<\d])\s({_NAME})\s*(≤|<)\s*({_NUM})", t):
        if any(r.name == m.group(1).strip() for r in out):
            continue
        hi = parse_number(m.group(3))
        if hi is not None:
            out.append(Range(m.group(1).strip(), None, hi - (1 if m.group(2) == "<" else 0), _ctx(t, m.end())))
    # "|x|, |y| <= 10^9": -10^9 <= x, y <= 10^9 for numbers; for a string, its length (``bars``)
    bar = rf"\|\s*({_NAME})\s*\|"
    for m in re.finditer(rf"({bar}(?:\s*,\s*{bar})*)\s*(≤|<)\s*({_NUM})", t):
        hi = parse_number(m.group(m.lastindex or 0))
        if hi is None:
            continue
        hi -= 1 if m.group((m.lastindex or 1) - 1) == "<" else 0
        for name in re.findall(bar, m.group(1)):
            if not any(r.name == name.strip() for r in out):
                out.append(Range(name.strip(), -hi, hi, _ctx(t, m.end()), bars=True))
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


_TEXT_TOTAL = re.compile(
    rf"(?:sum|total)\s+(?:of\s+(?:the\s+)?)?lengths?\s+of\s+(?:all\s+)?(?:the\s+)?(?:given\s+|input\s+)?"
    rf"(?:strings|words|lines|names)\b[^.]{{0,40}}?(?:does not exceed|doesn't exceed|will not exceed|not exceed"
    rf"|is at most|is not greater than|≤|<)\s*({_NUM})", re.I)


def text_total(text: str) -> Optional[int]:
    """The bound on the strings' lengths added up ("the total length of all strings does not exceed
    2·10^5"), or None."""
    m = _TEXT_TOTAL.search(normalize(text))
    v = parse_number(m.group(1)) if m else None
    return None if v is None else int(v)


_PRODUCT = re.compile(
    r"(?<![A-Za-z_\\])([A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)\s*\*\s*(?:\{\}\s*)?([A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)"
    rf"\s*(≤|<)\s*({_NUM})")


def product_bounds(text: str) -> list[tuple[str, str, float]]:
    """Bounds on the product of two values ("$h \\cdot w \\le 10^5$", "n * m < 10^6"): a grid's
    cells, a matrix's entries. Each as ``(a, b, largest product)``."""
    out: list[tuple[str, str, float]] = []
    for m in _PRODUCT.finditer(normalize(text)):
        hi = parse_number(m.group(4))
        if hi is not None:
            out.append((m.group(1), m.group(2), hi - (1 if m.group(3) == "<" else 0)))
    return out


_LISTED_CHARS = re.compile(
    r"(?:consist(?:s|ing)?|composed|made up)\s+(?:only\s+)?of\s+(?:the\s+)?(?:characters?|letters?|symbols?)\s+"
    r"((?:[^\s,]\s*,\s*)*[^\s,]\s*,?\s*(?:and|or)\s+[^\s,])(?![^\s,.;:)])", re.I)


# characters quoted one by one: "each of them is '.', '#', 'S' or 'T'", "every cell is either '.' or '#'"
_QUOTED_CHARS = re.compile(r"\b(?:characters?|symbols?|letters?|each of them|cells?)\b[^.;]{0,40}?\b(?:is|are|be|from|of)"
                           r"\s+(?:either\s+|one of\s+|only\s+)?((?:'[^'\s]'\s*,\s*)*'[^'\s]'\s*,?\s*(?:or|and)\s+'[^'\s]')",
                           re.I)


def alphabet_hint(text: str) -> Optional[str]:
    """'consisting of characters L and R' / 'each of them is '.', '#' or 'S'' / 'only letters a-z' /
    'lowercase letters' / 'uppercase' / 'digits' → an alphabet."""
    quoted = _QUOTED_CHARS.search(normalize(text))
    if quoted:
        return "".join(sorted(set(re.findall(r"'([^'\s])'", quoted.group(1)))))
    listed = _LISTED_CHARS.search(normalize(text))
    if listed:  # the characters named one by one: exactly those
        return "".join(sorted(set(re.findall(r"(?<![^\s,])[^\s,](?![^\s,])", listed.group(1)))))
    t = normalize(text).lower()
    if re.search(r"\ba\s*-\s*z\b|lower-?case", t):
        return "abcdefghijklmnopqrstuvwxyz"
    if re.search(r"\bA\s*-\s*Z\b", normalize(text)) or "upper-case" in t or "uppercase" in t:
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return None


_ONCE = re.compile(r"'([^'\s])'\s+(?:appears|occurs|is present|is found)\b[^.;']{0,30}?\bexactly once\b"
                   r"|\bexactly one\s+(?:character\s+|cell\s+|symbol\s+)?'([^'\s])'", re.I)


def once_chars(text: str) -> str:
    """The characters a statement says appear exactly once ("the character 'S' appears in the grid
    exactly once", "exactly one 'T'")."""
    return "".join(dict.fromkeys(a or b for a, b in _ONCE.findall(normalize(text))))


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
    t = unicode_math(text).replace("$", " ").replace("\\", " ")
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


# ---------------------------------------------------------------- which variable is which token

# The input section: a Kattis statement's LaTeX, or a heading on a line of its own as plain-text and
# Markdown statements write it ("Input", "## Input Format", "**Input:**", "-----Input-----").
_HEADING = r"^[ \t#*_=-]*{0}(?:[ \t]+(?:format|specification|description|data))?[ \t:*_=-]*$"
_SECTION = re.compile(r"\\begin\{Input\}|\\(?:sub)?section\*?\{Input\}|" + _HEADING.format("input"), re.I | re.M)
_SECTION_END = re.compile(r"\\end\{Input\}|\\begin\{Output\}|\\(?:sub)?section\*?\{Output\}|" + _HEADING.format("output"),
                          re.I | re.M)
# "a (balanced) sequence $s$" (or "sequence s") names its value; "a sequence of $n$ integers" leaves it to "integers"
_KIND_WORD = re.compile(r"\b(?:integers?|numbers?|reals?|values?|strings?|words?|characters?|floats?"
                        r"|sequences?(?=\s*(?:\$|[A-Za-z](?![A-Za-z]))))\b", re.I)
_DOTS = re.compile(r"\\[lc]?dots|\\ldots|\.\.\.|…")
# a block of rows: "$q$ lines, each with ...", "Then $m$ lines follow", "Each of the next m lines contains"
# a count one off its name, as tree inputs have it: "n - 1 lines", "n − 1 integers" (plain text)
_OFF_BY = r"(?:\s*[-−+]\s*[12](?![\w.]))?"
_ROWS_HEAD = re.compile(r"^\W*(?:(?:each|every|any) of the\s+|then\s+|the\s+)?(?:next\s+|following\s+|remaining\s+)?"
                        rf"(\$[^$]+\$|\w+{_OFF_BY})\s+(?:more\s+|further\s+|following\s+)?lines\b", re.I)
_ROWS_COUNT = re.compile(rf"\$([^$]+)\$|(?!(?:one|two|three|four|five|six|ten)\b)([A-Za-z][A-Za-z0-9]{{0,2}}{_OFF_BY})",
                         re.I)
# the name of a block's values per row, just before their kind: "lines, each with $m$ integers",
# "lines contains m integers" (plain text), "each containing $w$ characters"
_ROW_WIDTH = re.compile(r"\b(?:contains?|containing|with|has|of)\s+(?:exactly\s+)?(?:\$([A-Za-z][A-Za-z0-9_]?)\$"
                        r"|(?!(?:an?|one|two|three|four|five|six)\b)([A-Za-z][A-Za-z0-9]?))\s+(?:\w+\s+)?$", re.I)
_COUNT_OFFSET = re.compile(r"([A-Za-z][A-Za-z0-9_]*)([-−+])([12])")
_NUMBER_WORDS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_RANGE_START = re.compile(r"\\?\s*\(|\\l[te]|\\g[te]|[<>=≤≥]")


@dataclass
class InputLine:
    """One line (``rows=False``) or a block of rows (``rows=True``) of the input description,
    with the names of its values in order ("One line with two integers $w$ and $h$")."""

    names: list[str]
    rows: bool
    listed: bool = False  # "$h_1, \\dots, h_n$": a list of one variable, not fixed values
    # the name that counts it: "$q$ lines, each ..." (rows), "One line with $n$ integers" (a list)
    count: Optional[str] = None
    offset: int = 0  # "$n-1$ lines", "n − 1 integers": count n, offset -1
    # a list's literal length: "$d_1, \\ldots, d_7$" has 7 values, as a fixed line has
    size: Optional[int] = None
    # a block's values per row, by name: "Each of the next $n$ lines contains $m$ integers" (a matrix)
    width: Optional[str] = None


def bare_name(name: str) -> str:
    return re.sub(r"[{}\s\\]", "", name)


_INDEXED = re.compile(r"([A-Za-z]+)_\{?([a-z]|\d+)\}?")


def indexed_name(name: str) -> Optional[tuple[str, str]]:
    """A name indexed by one letter or by a number, as (stem, index): ``b_3`` is ("b", "3"),
    ``d_i`` and ``d_{i}`` are ("d", "i"); None for any other name. ``name`` comes bare."""
    m = _INDEXED.fullmatch(name)
    return (m.group(1), m.group(2)) if m else None


def name_stem(name: str) -> str:
    """``h_i``, ``h_1``, ``h_{i}`` → ``h``: an indexed name stands for every element."""
    n = bare_name(name)
    m = re.fullmatch(r"([A-Za-z]+)_(?:[ijkn1]|[ijk],?[0-9]?)", n) or re.fullmatch(r"([A-Za-z])[ijkn1]", n)
    return m.group(1) if m else n  # plain text writes a_i as ai, a_1 as a1 (x1 and x2 stay two names)


def said_of(a: Optional[str], b: Optional[str]) -> bool:
    """Do the names ``a`` and ``b`` stand for the same variable (``h_i`` and ``h_1`` do)?"""
    return bool(a) and bool(b) and (bare_name(a or "") == bare_name(b or "")
                                    or name_stem(a or "") == name_stem(b or ""))


_PLAIN_NAME = r"[A-Za-z][A-Za-z0-9]{0,2}(?:_[A-Za-z0-9]{1,2}|_\{[A-Za-z0-9+\-−]{1,5}\})?"  # p_2, p_{n-1}
_PLAIN_NAMES = re.compile(rf"\s*({_PLAIN_NAME}(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?:{_PLAIN_NAME}|\\[lc]?dots|\.\.\.|…))*)\s*")


def _plain_names(rest: str) -> list[str]:
    """Names written without math delimiters, where the words after "integers" are a list of
    short names and nothing else ("a single integer t", "n integers a1, a2, …, an", "two integers
    n and m"): as one span, as the math spans are read."""
    m = _PLAIN_NAMES.fullmatch(rest)
    return [m.group(1)] if m else []


def _description_items(sec: str, items: bool) -> list[tuple[str, bool]]:
    """The input section cut into what may each describe a line, and whether each opens an item:
    LaTeX's ``\\item``s; in plain text (a web page's list, copied) the sentences, where the first
    sentence of a paragraph opens one ("One string s of length n consisting of ..." on a line of its
    own is a line of input, as "\\item One string $s$" is; a sentence inside a paragraph is not)."""
    if items:
        # the sentences before the list too, where they open paragraphs ("The first line contains
        # an integer $n$. Each of the next $n$ lines ...", then the formats as a list)
        first, *listed = re.split(r"\\item\b", sec)
        lines = re.sub(r"\n", "\n\n", first)  # a sentence that opens a line opens an item
        return [s for s in _description_items(lines, False) if s[1]] + [(seg, True) for seg in listed]
    return [(sentence, k == 0) for para in re.split(r"\n\s*\n", sec)
            for k, sentence in enumerate(re.split(r"(?<=\.)\s+", para.strip()))]


def input_section(text: str) -> str:
    """The statement's input section ("Input", "Input format", ``\\begin{Input}``), up to the
    output's; empty when it has none."""
    m = _SECTION.search(text)
    if not m:
        return ""
    end = _SECTION_END.search(text, m.end())
    return text[m.end(): end.start() if end else len(text)]


def legend(text: str) -> str:
    """The statement's text before its input section (all of it when it has none)."""
    m = _SECTION.search(text)
    return text[:m.start()] if m else text


# a parenthesised range with more names after it: "(2 <= n <= 10^5)" before ", $m$" or "and $q$"
_RANGE_BETWEEN_NAMES = re.compile(r"\((?=[^()]*(?:\\le|\\ge|\\lt|\\gt|[≤≥<>]))[^()]*\)(?=\s*(?:,|\band\b)\s*\$)")


def input_lines(text: str) -> list[InputLine]:
    """The input section's lines with the names of their values, in order. Read from the usual
    contest phrasing: "One line with three integers $w, h$ and $q$ (...)", "$q$ lines, each
    containing three integers $y, x_1$ and $x_2$", "One line with $n$ integers $a_1, \\dots, a_n$".
    A line whose names cannot be read is returned without names (it still holds its place)."""
    sec = input_section(text).replace("ℓ", "ell")  # as ``normalize`` names it
    if not sec:
        return []
    out: list[InputLine] = []
    items = "\\item" in sec
    for seg, starts_item in _description_items(sec, items):
        # a range between two names ("$n$ ($2 \le n \le 10^5$) and $q$ (...)") does not end the names
        seg = _RANGE_BETWEEN_NAMES.sub(" ", seg)
        head = re.split(r"(?<![$\\])\(|\bwhere\b|\bsuch that\b", seg)[0]
        single = re.search(r"^\W*(?:one|a|an|another|the (?:first|second|third|next|last))\s+(?:more\s+)?line\b",
                           head, re.I)
        implicit = 0  # an item that is one line without saying so: "Two integers $n$ and $m$": its values
        if not single and starts_item:
            single = re.search(r"^\W*(one|a|an|two|three|four|five|six)\s+(?:\w+\s+)?" + _KIND_WORD.pattern,
                               head, re.I)
            if single:
                implicit = _NUMBER_WORDS[single.group(1).lower()]
        many = _ROWS_HEAD.search(head)
        if not single and not many:
            continue
        kw = _KIND_WORD.search(head)
        names: list[str] = []
        listed = False
        if kw:
            # a math span the range's "(" cut open ("$n\ (0 \le n \le 10^6)$") still names its value
            # "one string of length $n$": what follows "of length" sizes the values, it does not name them
            named = re.split(r"\b(?:of|with)\s+(?:length|size)\b", head[kw.end():])[0]
            maths = re.findall(r"\$([^$]+)(?:\$|$)", named) or _plain_names(named)
            joined = ",".join(re.sub(r"\{[^{}]*\}", lambda b: b.group(0).replace(",", ""), x) for x in maths)
            if _DOTS.search(joined):
                listed = True
            for part in re.split(r",|\band\b", _DOTS.sub(",", joined)):
                # the names end where a range begins: "$i$, $d$ and $c$ $(1 \le i < n, ...)$",
                # "$n\ (0 \le n \le 10^6)$" (the name before it still counts)
                ranged = _RANGE_START.search(part)
                p = bare_name(part[:ranged.start()] if ranged else part)
                if p and re.fullmatch(r"[A-Za-z][A-Za-z0-9_,]*", p):
                    names.append(p)
                if ranged:
                    break
        size = None
        if listed and names:
            first, last = indexed_name(names[0]), indexed_name(names[-1])
            if first and last and first == (last[0], "1") and last[1].isdigit() and len(names) == 2:
                size = int(last[1])
            names = [names[0]]
        if implicit:  # as many names as it says it has values ("One string $s$ of length $n$": s)
            names = names[:implicit]
        rows = bool(many) and not single
        cm = _ROWS_COUNT.fullmatch(many.group(1)) if rows and many else (
            re.search(r"\$([^$]+)\$\s+(?:\w+\s+)?$", head[:kw.start()]) if kw else None)
        if not cm and kw and not rows:  # plain text: "contains n integers" (not "a single integer")
            cm = re.search(r"\b(?!(?:an?|of|is|in|to|by|on|at|or|as|be|no)\b)([A-Za-z][A-Za-z0-9]?"
                           rf"{_OFF_BY})\s+(?:\w+\s+)?$",
                           head[:kw.start()])  # (one word between, as in LaTeX: "k distinct integers")
        count = bare_name(next(g for g in cm.groups() if g)) if cm else None
        offset = 0
        if count and (off := _COUNT_OFFSET.fullmatch(count)):
            count, offset = off.group(1), int(off.group(3)) * (1 if off.group(2) == "+" else -1)
        width = None
        if rows and kw and (wm := _ROW_WIDTH.search(head[:kw.start()])):
            width = bare_name(next(g for g in wm.groups() if g))
        fixed = _NUMBER_WORDS.get(many.group(1).lower()) if rows and many else None
        if fixed:  # "Two lines, each with one string": that many single lines, each with those names
            out += [InputLine(names=list(names), rows=False, listed=listed, count=None, size=size) for _ in range(fixed)]
            continue
        out.append(InputLine(names=names, rows=rows, listed=listed, count=count, size=size, offset=offset,
                             width=width))
    return out
