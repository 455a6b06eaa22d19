"""What every input type shares: the ``Spec`` interface, the statement's hints, size constants."""

from __future__ import annotations

from random import Random
import re
import string
from dataclasses import dataclass
from typing import Any

from .templates import quoted_ranges

# Sizes the generated values stay under, so one call cannot flood the harness.
# Sizes for "max-size" inputs when the statement gives none. Kept small on purpose: a correct
# solution may be recursive (CPython's recursion limit is 1000) or polynomially slower than the
# gold one (an O(n^4) triple search was labelled correct on HumanEval and times out at n = 365).
# A length the statement states (``1 <= len(arr) <= 10^4``) replaces these.
STRESS_LEN = 100
STRESS_STR = 200
MAX_REGULAR_LEN = 40


class Spec:
    """A type with a value domain."""

    def random(self, rng: Random, big: bool = False) -> Any:
        raise NotImplementedError

    def boundary(self) -> list[Any]:
        return []

    def special(self, rng: Random) -> list[Any]:
        return []

    def stress(self, rng: Random) -> list[Any]:
        return []

    def stress_shapes(self) -> dict[str, Any]:
        """Worst-case values by the name of their shape (``{"prime": 999999937}``): each becomes a
        stress input noted ``shape:NAME-argI``, which selection keeps whatever its size."""
        return {}

    def mutate(self, value: Any, rng: Random) -> Any:
        return self.random(rng)

    def widen(self, value: Any, rng: Random) -> list[Any]:
        """Values just outside what the seeds showed (negative where all were >= 0, empty where
        none was empty), derived from a seed value. Gold agreement decides if they are fair."""
        return []

    def empty(self) -> Any:
        """The empty value of a sequence that the seeds never showed empty and whose statement
        states no minimum length ("non-empty", ``1 <= len(s)``); None where there is none."""
        return None

    def accepts(self, value: Any) -> bool:
        return True


def kind_of(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "dict"
    return "other"


@dataclass
class Hints:
    """What the statement says about the domain, in words a docstring uses."""

    positive: bool = False
    non_negative: bool = False
    negative_ok: bool = False
    non_empty: bool = False
    empty_ok: bool = False
    input_empty: bool = False  # "s may be empty", "if the list is empty": an input, not an answer or a cell
    case_stated: bool = False  # "lowercase", "uppercase", "case-insensitive", "ignoring case": case matters
    # "prime", "divisor", "factors", "divisible", "gcd": a number's divisors decide the answer, so a large
    # prime is its worst case (trial division up to n instead of its square root)
    divisibility: bool = False
    # the numbers a statement says a value may be divisible by ("divisible by 4 ... by 100 ... by 400",
    # "a multiple of 3 or 5"): their multiples are boundary values, where the answer turns
    divisors: tuple[int, ...] = ()
    # characters the statement allows that examples seldom show: "printable ASCII characters",
    # "(spaces and punctuation allowed)", "may contain spaces"
    stated_chars: str = ""
    quoted_ranges: tuple[tuple[str, str], ...] = ()  # "from '00:00' to '23:59'" (``templates.py``)

    @classmethod
    def from_text(cls, text: str) -> "Hints":
        t = text.lower()
        return cls(
            quoted_ranges=quoted_ranges(text),
            positive=bool(re.search(r"\bpositive\b", t)) and "non-positive" not in t,
            non_negative=bool(re.search(r"non-?negative", t)),
            negative_ok=bool(re.search(r"\bnegative\b", t.replace("non-negative", "").replace("nonnegative", ""))),
            non_empty=bool(re.search(r"non-?empty", t)),
            empty_ok=bool(re.search(r"(?<!non-)(?<!non)\bempty\b", t)),
            input_empty=bool(re.search(r"\b(?:is|are|be|being)\s+(?:an?\s+)?empty\b", t)),
            case_stated=bool(re.search(r"lower[- ]?case|upper[- ]?case|case-?(in)?sensitive|(ignor\w*|regardless of) "
                                       r"(the )?case|whatever (?:their|its|the) case|capital", t)),
            divisibility=bool(re.search(r"\bprimes?\b|\bdivisors?\b|\bdivisible\b|\bdivides\b|\bfactors?\b|factori[sz]"
                                        r"|\bgcd\b|co-?prime", t)),
            divisors=tuple(dict.fromkeys(int(d) for m in _DIVISIBLE_BY.finditer(t) for d in re.findall(r"\d+", m.group(1))
                                         if int(d) >= 2)),
            stated_chars=stated_chars(t),
        )


_DIVISIBLE_BY = re.compile(r"\b(?:divisible|multiples?)\s+(?:evenly\s+)?(?:by|of)\s+(\d+(?:\s*(?:,|,?\s*(?:and|or))\s*\d+)*)\b")
_ALLOWED = r"(?:allowed|permitted|included|(?:may|can|might)\s+(?:also\s+)?(?:contain|include|appear|occur|have|be))"


def stated_chars(t: str) -> str:
    """The characters a (lower-cased) statement says its text may hold beyond what examples show."""
    if re.search(r"\bprintable\b", t):
        return string.ascii_letters + string.digits + string.punctuation + " "
    out = ""
    for clause in re.split(r"[.;\n]", t):
        allowed = re.search(_ALLOWED, clause)
        if allowed and re.search(r"\bpunctuation\b", clause):
            out += string.punctuation
        if allowed and re.search(r"\bspaces?\b", clause):
            out += " "
    return out
