"""The input model of a function-call problem, inferred from its seed arguments.

Each argument position gets a type spec (int, float, bool, str, list, dict, None or a union
of them) with value ranges taken from the seeds, widened a little, and narrowed by what the
statement says ("positive", "non-negative", "non-empty"). The specs know how to draw a
random value, their boundary values, special structures, a stress-sized value, and how
to mutate a seed value without leaving the type (EvalPlus-style type-aware mutation).
"""

from __future__ import annotations

import math
import random
import re
import string
from dataclasses import dataclass, field
from typing import Any, Optional

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

    def random(self, rng: random.Random, big: bool = False) -> Any:
        raise NotImplementedError

    def boundary(self) -> list[Any]:
        return []

    def special(self, rng: random.Random) -> list[Any]:
        return []

    def stress(self, rng: random.Random) -> list[Any]:
        return []

    def mutate(self, value: Any, rng: random.Random) -> Any:
        return self.random(rng)

    def widen(self, value: Any, rng: random.Random) -> list[Any]:
        """Values just outside what the seeds showed (negative where all were >= 0, empty where
        none was empty), derived from a seed value. Gold agreement decides if they are fair."""
        return []

    def accepts(self, value: Any) -> bool:
        return True


def _kind(v: Any) -> str:
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
    case_stated: bool = False  # "lowercase", "uppercase", "case-insensitive", "ignoring case": case matters

    @classmethod
    def from_text(cls, text: str) -> "Hints":
        t = text.lower()
        return cls(
            positive=bool(re.search(r"\bpositive\b", t)) and "non-positive" not in t,
            non_negative=bool(re.search(r"non-?negative", t)),
            negative_ok=bool(re.search(r"\bnegative\b", t.replace("non-negative", "").replace("nonnegative", ""))),
            non_empty=bool(re.search(r"non-?empty", t)),
            empty_ok=bool(re.search(r"(?<!non-)(?<!non)\bempty\b", t)),
            case_stated=bool(re.search(r"lower-?case|upper-?case|case-?(in)?sensitive|(ignor\w*|regardless of) "
                                       r"(the )?case|capital", t)),
        )


@dataclass
class NoneSpec(Spec):
    def random(self, rng: random.Random, big: bool = False) -> Any:
        return None

    def accepts(self, value: Any) -> bool:
        return value is None


@dataclass
class BoolSpec(Spec):
    def random(self, rng: random.Random, big: bool = False) -> Any:
        return rng.random() < 0.5

    def boundary(self) -> list[Any]:
        return [True, False]

    def mutate(self, value: Any, rng: random.Random) -> Any:
        return not value

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)


@dataclass
class IntSpec(Spec):
    lo: int
    hi: int
    obs: list[int] = field(default_factory=list)
    stated: bool = False  # hi comes from the statement: stress stays within it

    @classmethod
    def infer(cls, values: list[int], hints: Hints) -> "IntSpec":
        omin, omax = min(values), max(values)
        # Never below what the seeds show unless the statement says so: on HumanEval, n = 1 or 0
        # where the examples start higher is as often outside the contract as inside it.
        if omin < 0:
            lo = min(omin * 2, -abs(omax), -10)
        elif omin == 0 or hints.non_negative:
            lo = 0
        elif hints.positive:
            lo = 1
        else:
            lo = omin
        if hints.negative_ok and lo >= 0 and not hints.positive and not hints.non_negative:
            lo = -max(10, omax)
        mag = max(abs(omax), abs(omin))
        hi = max(omax * 2, omax + 10, 10) if mag < 10**6 else omax * 2
        if omax < 0:
            hi = 0 if omin < 0 else hi
        return cls(lo=lo, hi=max(hi, lo + 1), obs=sorted(set(values)))

    def clamp(self, v: int) -> int:
        return max(self.lo, min(self.hi, v))

    def random(self, rng: random.Random, big: bool = False) -> Any:
        if big:
            top = self.hi if self.stated else (self.hi * 4 if self.hi > 0 else self.hi)
            return rng.randint(self.lo, max(self.lo, top))
        r = rng.random()
        if r < 0.5 and self.obs:
            # near the seeds' scale
            top = max(abs(self.obs[-1]), abs(self.obs[0]), 10)
            return self.clamp(rng.randint(max(self.lo, -top), min(self.hi, top)))
        if r < 0.7:
            return rng.randint(max(self.lo, -10), max(min(self.hi, 10), max(self.lo, -10)))
        return rng.randint(self.lo, self.hi)

    def boundary(self) -> list[Any]:
        out = [self.lo, self.lo + 1, self.hi, self.hi - 1, 0, 1, -1, 2]
        return [v for v in dict.fromkeys(out) if self.lo <= v <= self.hi]

    def special(self, rng: random.Random) -> list[Any]:
        out = [1 << k for k in range(0, 31, 3)] + [(1 << k) - 1 for k in (4, 8, 16)]
        out += [p for p in (7, 11, 13, 97, 101, 997)] + [k * k for k in (3, 10, 31)]
        out += [-v for v in out]
        return [v for v in dict.fromkeys(out) if self.lo <= v <= self.hi]

    def stress(self, rng: random.Random) -> list[Any]:
        if self.stated:
            return [self.hi, rng.randint(max(self.lo, self.hi // 2), self.hi)]
        top = max(self.hi * 10, 1000)
        # A large prime exposes linear-time loops where a square root is needed. Not larger: a
        # correct but linear solution must still pass (is_prime(999999937) fails those).
        out = (top, rng.randint(top // 2, top), 10**6 + 3)
        return [v for v in out if v >= self.lo]

    def mutate(self, value: Any, rng: random.Random) -> Any:
        if not isinstance(value, int) or isinstance(value, bool):
            return self.random(rng)
        op = rng.randrange(7)
        if op == 0:
            v = value + 1
        elif op == 1:
            v = value - 1
        elif op == 2:
            v = value * 2
        elif op == 3:
            v = value // 2
        elif op == 4:
            v = -value
        elif op == 5:
            v = value + rng.randint(-10, 10)
        else:
            v = self.random(rng)
        return self.clamp(v)

    def widen(self, value: Any, rng: random.Random) -> list[Any]:
        out: list[Any] = []
        if self.lo >= 0 and isinstance(value, int) and not isinstance(value, bool):
            out += [-value if value else -1, -1]
        if self.lo >= 1:
            out.append(0)
        if not self.stated:
            # far beyond the seeds: a large prime and a random large number expose linear loops
            # where a square root is needed (and fail correct-but-linear programs)
            out += [999_999_937, rng.randint(10**8, 10**9)]
        return out

    def accepts(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi


@dataclass
class FloatSpec(Spec):
    lo: float
    hi: float
    decimals: int = 2
    obs: list[float] = field(default_factory=list)

    @classmethod
    def infer(cls, values: list[float], hints: Hints) -> "FloatSpec":
        omin, omax = min(values), max(values)
        decs = 0
        for v in values:
            s = repr(float(v))
            if "e" not in s and "." in s:
                decs = max(decs, len(s.split(".")[1].rstrip("0")))
        decs = min(max(decs, 1), 6)
        lo = omin * 2 if omin < 0 else 0.0
        if omin > 0 and hints.positive:
            lo = min(omin, 10.0 ** -decs)
        hi = max(omax * 2, omax + 10.0, 10.0)
        return cls(lo=float(lo), hi=float(hi), decimals=decs, obs=sorted(set(float(v) for v in values)))

    def _r(self, v: float) -> float:
        return round(max(self.lo, min(self.hi, v)), self.decimals)

    def random(self, rng: random.Random, big: bool = False) -> Any:
        if big:
            return self._r(rng.uniform(self.lo, self.hi * 10))
        if self.obs and rng.random() < 0.5:
            a, b = self.obs[0], self.obs[-1]
            return self._r(rng.uniform(min(a, b, 0.0) if self.lo < 0 else max(self.lo, min(a, 0.0)), max(b, 1.0)))
        return self._r(rng.uniform(self.lo, self.hi))

    def boundary(self) -> list[Any]:
        out = [self.lo, self.hi, 0.0, 1.0, -1.0, 0.5, -0.5]
        return [v for v in dict.fromkeys(out) if self.lo <= v <= self.hi]

    def special(self, rng: random.Random) -> list[Any]:
        out = [0.1, 0.25, 1e-3, 2.0, 1024.0, 3.5, -2.5]
        return [v for v in out if self.lo <= v <= self.hi]

    def stress(self, rng: random.Random) -> list[Any]:
        return [self._r(self.hi * 100), 1e6]

    def mutate(self, value: Any, rng: random.Random) -> Any:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return self.random(rng)
        op = rng.randrange(5)
        if op == 0:
            v = value * rng.uniform(0.5, 2.0)
        elif op == 1:
            v = value + rng.uniform(-1, 1)
        elif op == 2:
            v = -value
        elif op == 3:
            v = float(round(value))
        else:
            v = self.random(rng)
        return self._r(v)

    def widen(self, value: Any, rng: random.Random) -> list[Any]:
        if self.lo >= 0 and isinstance(value, (int, float)) and not isinstance(value, bool):
            return [-value if value else -1.0]
        return []

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)


_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)


def _char_class(c: str) -> str:
    for cls in _CLASSES:
        if c in cls:
            return cls
    return c  # punctuation and spaces are their own class: '(' never turns into ')'


@dataclass
class StrSpec(Spec):
    alphabet: str
    min_len: int
    max_len: int
    sep: Optional[str] = None  # a separator between tokens ("a b c", "1,2,3")
    token_alphabet: str = ""
    obs: list[str] = field(default_factory=list)
    case_flip: bool = False  # the statement makes case part of the problem: flip letters' case

    @classmethod
    def infer(cls, values: list[str], hints: Hints) -> "StrSpec":
        chars = set("".join(values))
        alpha = set()
        for c in chars:
            cls_ = _char_class(c)
            seen_in_class = sum(1 for x in chars if _char_class(x) == cls_)
            if len(cls_) > 1 and seen_in_class >= 3:
                alpha |= set(cls_)
            else:
                alpha.add(c)
        if not alpha:
            alpha = set(string.ascii_lowercase)
        lens = [len(v) for v in values]
        min_len = 0 if (min(lens) == 0 or (hints.empty_ok and not hints.non_empty)) else 1
        max_len = max(max(lens) * 2, 10)
        sep = None
        for cand in (" ", ",", ", ", ";", "-", "/"):
            hits = [v for v in values if cand in v.strip()]
            if cand.strip() == "" or len(hits) >= max(1, len(values) // 2):
                if hits and all(tok for v in hits for tok in v.strip().split(cand)):
                    sep = cand
                    break
        tok_alpha = "".join(sorted(alpha - set(sep or "")))
        letters = {c for c in chars if c.isalpha()}
        return cls(alphabet="".join(sorted(alpha)), min_len=min_len, max_len=max_len, sep=sep,
                   token_alphabet=tok_alpha or string.ascii_lowercase, obs=list(dict.fromkeys(values)),
                   case_flip=bool(letters) and hints.case_stated)

    def _word(self, rng: random.Random, n: int) -> str:
        return "".join(rng.choice(self.token_alphabet) for _ in range(n))

    def random(self, rng: random.Random, big: bool = False) -> Any:
        n = rng.randint(self.min_len, self.max_len if not big else max(self.max_len, STRESS_STR // 4))
        if self.sep and rng.random() < 0.8:
            words: list[str] = []
            while sum(len(w) + len(self.sep) for w in words) < n or not words:
                words.append(self._word(rng, rng.randint(1, 8)))
            s = self.sep.join(words)
            return s if self.min_len <= len(s) else s + self._word(rng, self.min_len)
        return "".join(rng.choice(self.alphabet) for _ in range(n))

    def boundary(self) -> list[Any]:
        out: list[str] = []
        if self.min_len == 0:
            out.append("")
        a = self.token_alphabet
        out += [a[0], a[-1], a[0] * 2, a[0] + a[-1]]
        return [s for s in dict.fromkeys(out) if len(s) >= self.min_len]

    def special(self, rng: random.Random) -> list[Any]:
        a = self.token_alphabet
        w = "".join(rng.choice(a) for _ in range(6))
        out = [a[0] * 10, w + w[::-1], (a[:3] if len(a) >= 3 else a) * 4, "".join(sorted(w)),
               "".join(sorted(w, reverse=True))]
        if self.sep:
            out += [self.sep.join([w[:3]] * 4), self.sep.join(list(w)), self.sep.join(reversed(list(w)))]
        if any(c.isupper() for c in self.alphabet) and any(c.islower() for c in self.alphabet):
            out += [w.upper(), w.swapcase(), w.capitalize()]
        for s in self.obs[:3]:
            out += [s[::-1], s + s]
        return [s for s in dict.fromkeys(out) if len(s) >= self.min_len]

    def stress(self, rng: random.Random) -> list[Any]:
        s = self.random(rng, big=True)
        base = self.obs[-1] if self.obs and self.obs[-1] else self.token_alphabet[:5]
        rep = (base + (self.sep or "")) * max(1, STRESS_STR // max(1, len(base) + 1))
        return [s, rep.rstrip(self.sep or "") if self.sep else rep]

    def mutate(self, value: Any, rng: random.Random) -> Any:
        if not isinstance(value, str):
            return self.random(rng)
        s = value
        op = rng.randrange(9 if self.case_flip else 8)
        if op == 0 and s:  # keep the character class: digits stay digits, '(' stays '('
            i = rng.randrange(len(s))
            cls_ = _char_class(s[i])
            choices = [c for c in cls_ if c in self.alphabet] or [s[i]]
            s = s[:i] + rng.choice(choices) + s[i + 1:]
        elif op == 1:
            i = rng.randrange(len(s) + 1)
            s = s[:i] + rng.choice(self.token_alphabet) + s[i:]
        elif op == 2 and len(s) > self.min_len:
            i = rng.randrange(len(s))
            s = s[:i] + s[i + 1:]
        elif op == 3 and len(s) >= 2:
            i, j = sorted(rng.sample(range(len(s)), 2))
            s = s[:i] + s[j] + s[i + 1:j] + s[i] + s[j + 1:]
        elif op == 4 and self.sep and self.sep in s:
            toks = s.split(self.sep)
            rng.shuffle(toks)
            s = self.sep.join(toks)
        elif op == 5 and self.sep and self.sep in s:
            toks = s.split(self.sep)
            i = rng.randrange(len(toks))
            if rng.random() < 0.5 and len(toks) > 1:
                del toks[i]
            else:
                toks.insert(i, toks[rng.randrange(len(toks))])
            s = self.sep.join(toks)
        elif op == 6 and s:
            i, j = sorted((rng.randrange(len(s) + 1), rng.randrange(len(s) + 1)))
            s = s[:j] + s[i:j] + s[j:]  # duplicate a slice
        elif op == 7 and self.case_flip and any(c.isalpha() for c in s):
            i = rng.choice([k for k, c in enumerate(s) if c.isalpha()])
            s = s[:i] + s[i].swapcase() + s[i + 1:]
        else:
            o = rng.choice(self.obs) if self.obs else ""
            s = s + (self.sep or "") + o if o and rng.random() < 0.5 else self.random(rng)
        return s

    def widen(self, value: Any, rng: random.Random) -> list[Any]:
        out: list[Any] = [""] if self.min_len >= 1 else []
        if isinstance(value, str) and not self.case_flip and any(c.isalpha() for c in value):
            out.append(value.swapcase())  # the other case, which the seeds never showed
            if len(value) > 1:
                out.append(value[0].swapcase() + value[1:])
        return out

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str)


@dataclass
class ListSpec(Spec):
    elem: Spec
    min_len: int
    max_len: int
    obs_lens: list[int] = field(default_factory=list)
    elem_known: bool = True
    stress_len: int = STRESS_LEN  # the statement's maximum length, when it gives one

    def _n(self, rng: random.Random, big: bool) -> int:
        if big:
            top = max(self.min_len, self.stress_len)
            return rng.randint(max(self.min_len, top // 2), top)
        return rng.randint(self.min_len, max(self.min_len, min(self.max_len, MAX_REGULAR_LEN)))

    def random(self, rng: random.Random, big: bool = False) -> Any:
        return [self.elem.random(rng) for _ in range(self._n(rng, big))]

    def boundary(self) -> list[Any]:
        rng = random.Random(0)
        out: list[Any] = []
        if self.min_len == 0:
            out.append([])
        for b in self.elem.boundary()[:4]:
            out.append([b])
            out.append([b, b])
        if not self.elem.boundary():
            out.append([self.elem.random(rng)])
        return [v for v in out if len(v) >= self.min_len]

    def special(self, rng: random.Random) -> list[Any]:
        n = max(self.min_len, min(12, self.max_len))
        base = [self.elem.random(rng) for _ in range(n)]
        out: list[Any] = []
        try:
            out.append(sorted(base))
            out.append(sorted(base, reverse=True))
        except TypeError:
            pass
        out.append([base[0]] * n if base else [])
        if base:
            out.append(base + base[: max(1, n // 2)])  # duplicates
            out.append(base[::-1])
            half = base[: max(1, n // 2)]
            out.append(half + half[::-1])  # palindrome
        for extra in self.elem.special(rng)[:6]:
            out.append([extra] * max(self.min_len, 3))
        specials = self.elem.special(rng)
        if specials:
            out.append([rng.choice(specials) for _ in range(n)])
        try:
            out.append(sorted(set(base)) if base and not isinstance(base[0], (list, dict)) else base)
        except TypeError:
            pass
        return [v for v in out if len(v) >= self.min_len]

    def stress(self, rng: random.Random) -> list[Any]:
        big = self.random(rng, big=True)
        out = [big]
        try:
            out.append(sorted(big))
        except TypeError:
            pass
        if big:
            out.append([big[0]] * len(big))
        return out

    def mutate(self, value: Any, rng: random.Random) -> Any:
        if not isinstance(value, list):
            return self.random(rng)
        v = list(value)
        op = rng.randrange(8)
        if op == 0 or not v:
            v.insert(rng.randrange(len(v) + 1), self.elem.random(rng) if self.elem_known or not v else rng.choice(v))
        elif op == 1 and len(v) > self.min_len:
            del v[rng.randrange(len(v))]
        elif op == 2 and len(v) >= 2:
            i, j = rng.sample(range(len(v)), 2)
            v[i], v[j] = v[j], v[i]
        elif op == 3:
            i = rng.randrange(len(v))
            v[i] = self.elem.mutate(v[i], rng)
        elif op == 4:
            i = rng.randrange(len(v))
            v.insert(i, v[i])
        elif op == 5:
            try:
                v = sorted(v, reverse=rng.random() < 0.5)
            except TypeError:
                v.reverse()
        elif op == 6:
            rng.shuffle(v)
        else:
            for i in range(len(v)):
                if rng.random() < 0.3:
                    v[i] = self.elem.mutate(v[i], rng)
        return v

    def widen(self, value: Any, rng: random.Random) -> list[Any]:
        out: list[Any] = [[]] if self.min_len >= 1 else []
        if isinstance(value, list) and value:
            widened = [self.elem.widen(x, rng) for x in value]
            if all(widened):
                out.append([w[0] for w in widened])  # every element pushed out (e.g. all negative)
            if any(widened):
                v = list(value)
                i = rng.choice([k for k, w in enumerate(widened) if w])
                v[i] = widened[i][0]
                out.append(v)
        return out

    def accepts(self, value: Any) -> bool:
        return isinstance(value, list)


@dataclass
class DictSpec(Spec):
    key: Spec
    val: Spec
    min_len: int
    max_len: int

    def random(self, rng: random.Random, big: bool = False) -> Any:
        n = rng.randint(self.min_len, max(self.min_len, min(self.max_len, 8 if not big else 500)))
        out: dict[Any, Any] = {}
        for _ in range(n * 2):
            if len(out) >= n:
                break
            k = self.key.random(rng)
            out[k if isinstance(k, str) else str(k)] = self.val.random(rng)
        return out

    def boundary(self) -> list[Any]:
        out: list[Any] = [{}] if self.min_len == 0 else []
        return out

    def mutate(self, value: Any, rng: random.Random) -> Any:
        if not isinstance(value, dict):
            return self.random(rng)
        d = dict(value)
        op = rng.randrange(4)
        keys = list(d)
        if op == 0 or not keys:
            k = self.key.random(rng)
            d[k if isinstance(k, str) else str(k)] = self.val.random(rng)
        elif op == 1 and len(d) > self.min_len:
            del d[rng.choice(keys)]
        elif op == 2:
            k = rng.choice(keys)
            d[k] = self.val.mutate(d[k], rng)
        else:
            k = rng.choice(keys)
            nk = self.key.mutate(k, rng)
            d[nk if isinstance(nk, str) else str(nk)] = d.pop(k)
        return d

    def accepts(self, value: Any) -> bool:
        return isinstance(value, dict)


@dataclass
class UnionSpec(Spec):
    options: list[Spec]
    weights: list[float]

    def _pick(self, rng: random.Random) -> Spec:
        return rng.choices(self.options, weights=self.weights)[0]

    def random(self, rng: random.Random, big: bool = False) -> Any:
        return self._pick(rng).random(rng, big)

    def boundary(self) -> list[Any]:
        return [b for o in self.options for b in o.boundary()[:4]]

    def special(self, rng: random.Random) -> list[Any]:
        return [b for o in self.options for b in o.special(rng)[:4]]

    def stress(self, rng: random.Random) -> list[Any]:
        return self._pick(rng).stress(rng)

    def mutate(self, value: Any, rng: random.Random) -> Any:
        for o in self.options:
            if o.accepts(value):
                return o.mutate(value, rng)
        return self.random(rng)

    def widen(self, value: Any, rng: random.Random) -> list[Any]:
        for o in self.options:
            if o.accepts(value):
                return o.widen(value, rng)
        return []


def infer_spec(values: list[Any], hints: Hints, depth: int = 0) -> Spec:
    """The narrowest spec that covers the observed values."""
    by_kind: dict[str, list[Any]] = {}
    for v in values:
        by_kind.setdefault(_kind(v), []).append(v)
    if not by_kind:
        return IntSpec(lo=0 if not hints.negative_ok else -10, hi=20, obs=[])
    if "int" in by_kind and "float" in by_kind:
        # mixed numbers: floats, with ints kept as an option so both shapes appear
        n_int, n_float = len(by_kind["int"]), len(by_kind["float"])
        floats = FloatSpec.infer([float(x) for x in by_kind["int"] + by_kind["float"]], hints)
        ints = IntSpec.infer(by_kind.pop("int"), hints)
        by_kind.pop("float")
        opts: list[tuple[Spec, float]] = [(floats, float(max(n_float, 1))), (ints, float(max(n_int, 1)))]
    else:
        opts = []
    for kind, vals in by_kind.items():
        w = float(len(vals))
        if kind == "none":
            opts.append((NoneSpec(), w))
        elif kind == "bool":
            opts.append((BoolSpec(), w))
        elif kind == "int":
            opts.append((IntSpec.infer(vals, hints), w))
        elif kind == "float":
            opts.append((FloatSpec.infer([float(x) for x in vals], hints), w))
        elif kind == "str":
            opts.append((StrSpec.infer(vals, hints), w))
        elif kind == "list":
            elems = [e for v in vals for e in v]
            lens = [len(v) for v in vals]
            elem = infer_spec(elems, Hints(positive=hints.positive, non_negative=hints.non_negative,
                                            negative_ok=hints.negative_ok), depth + 1) if depth < 4 else NoneSpec()
            if isinstance(elem, UnionSpec) and len(elem.options) >= 3:
                # a list that mixes three or more kinds takes "any value": bool and None are values too
                for extra in (BoolSpec(), NoneSpec()):
                    if not any(type(o) is type(extra) for o in elem.options):
                        elem.options.append(extra)
                        elem.weights.append(1.0)
            min_len = 0 if (min(lens) == 0 or (hints.empty_ok and not hints.non_empty)) else 1
            opts.append((ListSpec(elem=elem, min_len=min_len, max_len=max(max(lens) * 2, 10), obs_lens=lens,
                                  elem_known=bool(elems)), w))
        elif kind == "dict":
            keys = [k for v in vals for k in v.keys()]
            vs = [x for v in vals for x in v.values()]
            lens = [len(v) for v in vals]
            opts.append((DictSpec(key=infer_spec(keys, Hints(), depth + 1), val=infer_spec(vs, Hints(), depth + 1),
                                  min_len=min(lens), max_len=max(max(lens) * 2, 4)), w))
    if len(opts) == 1:
        return opts[0][0]
    return UnionSpec(options=[o for o, _ in opts], weights=[w for _, w in opts])


@dataclass
class Invariants:
    """Relations every seed satisfies, kept in generated inputs (Daikon-style, checked on >= 2 seeds).

    * ``same_len``: groups of sequence arguments that always have equal length;
    * ``index_of``: (int arg, sequence arg) with 0 <= int <= len(sequence) in every seed;
    * ``sorted_args`` / ``distinct_args``: list arguments that are always sorted / duplicate-free
      (only when seeds show it on lists long enough for it to mean something)."""

    same_len: list[list[int]] = field(default_factory=list)
    index_of: list[tuple[int, int]] = field(default_factory=list)
    sorted_args: list[int] = field(default_factory=list)
    distinct_args: list[int] = field(default_factory=list)

    @classmethod
    def mine(cls, seeds: list[list[Any]], arity: int, statement: str = "") -> "Invariants":
        """Sortedness needs the statement's word for it (people write examples in order);
        distinctness needs the statement's word or odds below 1% of it happening by chance."""
        inv = cls()
        words = statement.lower()
        says_sorted = bool(re.search(r"\bsorted\b|ascending|increasing order|non-?decreasing", words))
        says_unique = bool(re.search(r"\bunique\b|\bdistinct\b|duplicate", words))
        if len(seeds) < 2:
            return inv
        seqs = [i for i in range(arity) if all(isinstance(s[i], (str, list)) for s in seeds)]
        groups: list[list[int]] = []
        for i in seqs:
            for g in groups:
                j = g[0]
                if type(seeds[0][i]) is type(seeds[0][j]) and all(len(s[i]) == len(s[j]) for s in seeds) \
                        and any(len(s[i]) > 1 for s in seeds):
                    g.append(i)
                    break
            else:
                groups.append([i])
        inv.same_len = [g for g in groups if len(g) > 1]
        ints = [i for i in range(arity) if all(isinstance(s[i], int) and not isinstance(s[i], bool) for s in seeds)]
        for i in ints:
            for j in seqs:
                if all(0 <= s[i] <= len(s[j]) for s in seeds) and len({s[i] for s in seeds}) > 1:
                    inv.index_of.append((i, j))
                    break
        for i in range(arity):
            lists = [s[i] for s in seeds if isinstance(s[i], list)]
            if len(lists) != len(seeds):
                continue
            longish = [v for v in lists if len(v) >= 3]
            if len(longish) >= 2:
                try:
                    if says_sorted and all(v == sorted(v) for v in longish):
                        inv.sorted_args.append(i)
                except TypeError:
                    pass
                if all(len(set(map(_hashable, v))) == len(v) for v in longish):
                    values = {_hashable(x) for v in lists for x in v}
                    r = max(len(values), 1)
                    chance = math.exp(-sum(len(v) * (len(v) - 1) / (2 * r) for v in longish))
                    if says_unique or chance < 0.01:
                        inv.distinct_args.append(i)
        return inv

    def enforce(self, args: list[Any], rng: random.Random) -> list[Any]:
        args = list(args)
        for g in self.same_len:
            if not all(isinstance(args[i], (str, list)) for i in g):
                continue
            n = min(len(args[i]) for i in g)
            if rng.random() < 0.5:
                n = max(len(args[i]) for i in g)
            for i in g:
                v = args[i]
                if len(v) > n:
                    args[i] = v[:n]
                elif len(v) < n:
                    pad = v if v else (args[g[0]] if args[g[0]] else v)
                    while len(v) < n and pad:
                        v = v + pad[: n - len(v)]
                    args[i] = v if len(v) == n else v
        for i in self.distinct_args:
            if isinstance(args[i], list):
                seen, out = set(), []
                for x in args[i]:
                    h = _hashable(x)
                    if h not in seen:
                        seen.add(h)
                        out.append(x)
                args[i] = out
        for i in self.sorted_args:
            if isinstance(args[i], list):
                try:
                    args[i] = sorted(args[i])
                except TypeError:
                    pass
        for i, j in self.index_of:
            if isinstance(args[i], int) and isinstance(args[j], (str, list)):
                args[i] = max(0, min(args[i], len(args[j])))
        return args


def _hashable(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_hashable(y) for y in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in x.items()))
    return (type(x).__name__, x)


@dataclass
class FunctionModel:
    """One spec per argument position, the seeds' invariants, and the seeds to mutate."""

    arity: int
    specs: list[Spec]
    seeds: list[list[Any]]
    invariants: Invariants = field(default_factory=Invariants)

    @classmethod
    def infer(cls, seeds: list[list[Any]], statement: str = "", entry_point: str = "") -> "FunctionModel":
        if not seeds:
            raise ValueError("no seed arguments to infer an input model from")
        arities: dict[int, int] = {}
        for s in seeds:
            arities[len(s)] = arities.get(len(s), 0) + 1
        arity = max(arities, key=lambda a: (arities[a], a))
        hints = Hints.from_text(statement)
        same = [list(s) for s in seeds if len(s) == arity]
        specs = [infer_spec([s[i] for s in same], hints) for i in range(arity)]
        if entry_point:
            from .docspec import arg_bounds, arg_names

            names = arg_names(statement, entry_point)
            bounds = arg_bounds(statement, entry_point)
            for i, name in enumerate(names[:arity]):
                if name in bounds:
                    _apply_bound(specs[i], bounds[name], [s[i] for s in same])
        return cls(arity=arity, specs=specs, seeds=[list(s) for s in seeds],
                   invariants=Invariants.mine(same, arity, statement))

    def base(self, rng: random.Random) -> list[Any]:
        pool = [s for s in self.seeds if len(s) == self.arity]
        return list(rng.choice(pool)) if pool else [sp.random(rng) for sp in self.specs]

    def fix(self, args: list[Any], rng: random.Random) -> list[Any]:
        """Bring generated arguments back inside the relations the seeds all satisfy."""
        return self.invariants.enforce(args, rng)


def size_ok(value: Any, limit: int = 200_000) -> bool:
    """Cheap guard against absurd values (deep nesting, huge strings)."""
    try:
        import json

        return len(json.dumps(value)) <= limit and not _has_bad_float(value)
    except (TypeError, ValueError, RecursionError):
        return False


def _has_bad_float(v: Any) -> bool:
    if isinstance(v, float):
        return math.isnan(v) or math.isinf(v)
    if isinstance(v, list):
        return any(_has_bad_float(x) for x in v)
    if isinstance(v, dict):
        return any(_has_bad_float(x) for x in v.values())
    return False


def _numbers(values: list[Any]) -> list[float]:
    out: list[float] = []
    for v in values:
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            out.append(float(v))
        elif isinstance(v, list):
            out += _numbers(v)
    return out


def _apply_bound(spec: Spec, b: Any, seen: list[Any]) -> None:
    """Narrow (or, up to what the statement allows, widen) a spec by a docstring bound, but only
    when every seed value already satisfies the bound: a bound the examples break was misread."""
    if b.lo is not None and b.hi is not None and b.lo > b.hi:
        return
    nums = _numbers(seen)
    if (b.lo is not None or b.hi is not None) and nums:
        if all((b.lo is None or x >= b.lo) and (b.hi is None or x <= b.hi) for x in nums):
            target = spec.elem if isinstance(spec, ListSpec) else spec
            if isinstance(target, IntSpec):
                if b.lo is not None:
                    target.lo = int(b.lo)
                if b.hi is not None:
                    target.hi, target.stated = int(b.hi), True
                target.hi = max(target.hi, target.lo)
            elif isinstance(target, FloatSpec):
                if b.positive:
                    target.lo = max(target.lo, 10.0 ** -target.decimals)  # positive: zero is outside
                elif b.lo is not None:
                    target.lo = float(b.lo)
                if b.hi is not None:
                    target.hi = float(b.hi)
    if (b.length_lo is not None or b.length_hi is not None) and isinstance(spec, (ListSpec, StrSpec)):
        lens = [len(v) for v in seen if isinstance(v, (list, str))]
        if lens and all((b.length_lo is None or n >= b.length_lo) and (b.length_hi is None or n <= b.length_hi)
                        for n in lens):
            if b.length_lo is not None:
                spec.min_len = int(b.length_lo)
            if b.length_hi is not None:
                spec.max_len = max(spec.min_len, int(b.length_hi))
                if isinstance(spec, ListSpec):
                    spec.stress_len = min(spec.max_len, 10_000)
