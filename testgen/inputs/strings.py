"""Strings: the seeds' characters (classes opened up when three members appear), separators, case."""

from __future__ import annotations

from random import Random
import string
from dataclasses import dataclass, field
from typing import Any, Optional

from .base import STRESS_STR, Hints, Spec
from .templates import Template

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
    # A category ("M"/"F", "add"/"remove"): the values seen repeat, so only they are drawn.
    choices: Optional[list[str]] = None
    min_len_stated: bool = False  # min_len comes from the statement ("non-empty"): widen keeps it
    length_thresholds: list[int] = field(default_factory=list)  # "at least 8 characters long"
    # every seed has one shape of digit groups and separators ("09:15"): so has every value drawn
    template: Optional[Template] = None

    def make_categorical(self, values: list[str], max_distinct: int) -> None:
        """Draw only the values seen when they are few and repeat (a category, not free text)."""
        distinct = list(dict.fromkeys(values))
        if 1 <= len(distinct) <= max_distinct and len(values) > len(distinct):
            self.choices = distinct

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
        alpha |= set(hints.stated_chars)
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
                   case_flip=bool(letters) and hints.case_stated, min_len_stated=hints.non_empty,
                   template=Template.infer(values, hints.quoted_ranges))

    def _word(self, rng: Random, n: int) -> str:
        return "".join(rng.choice(self.token_alphabet) for _ in range(n))

    def random(self, rng: Random, big: bool = False) -> Any:
        if self.choices:
            return rng.choice(self.choices)
        if self.template:
            return self.template.random(rng)
        n = rng.randint(self.min_len, self.max_len if not big else max(self.max_len, STRESS_STR // 4))
        if self.sep and rng.random() < 0.8:
            words: list[str] = []
            while sum(len(w) + len(self.sep) for w in words) < n or not words:
                words.append(self._word(rng, rng.randint(1, 8)))
            s = self.sep.join(words)
            return s if self.min_len <= len(s) else s + self._word(rng, self.min_len)
        return "".join(rng.choice(self.alphabet) for _ in range(n))

    def boundary(self) -> list[Any]:
        if self.choices:
            return list(self.choices)
        if self.template:
            return self.template.boundary()
        out: list[str] = []
        if self.min_len == 0:
            out.append("")
        a = self.token_alphabet
        out += [a[0], a[-1], a[0] * 2, a[0] + a[-1]]
        return [s for s in dict.fromkeys(out) if len(s) >= self.min_len]

    def special(self, rng: Random) -> list[Any]:
        if self.choices or self.template:
            return []
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
        for t in self.length_thresholds:  # a word on each side of a stated length, and one on it
            out += ["".join(rng.choice(self.alphabet) for _ in range(n)) for n in (t - 1, t, t + 1) if n >= 0]
        return [s for s in dict.fromkeys(out) if len(s) >= self.min_len]

    def stress(self, rng: Random) -> list[Any]:
        if self.choices or self.template:
            return []
        s = self.random(rng, big=True)
        base = self.obs[-1] if self.obs and self.obs[-1] else self.token_alphabet[:5]
        rep = (base + (self.sep or "")) * max(1, STRESS_STR // max(1, len(base) + 1))
        return [s, rep.rstrip(self.sep or "") if self.sep else rep]

    def mutate(self, value: Any, rng: Random) -> Any:
        if not isinstance(value, str) or self.choices:
            return self.random(rng)
        if self.template:
            return self.template.mutate(value, rng)
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

    def widen(self, value: Any, rng: Random) -> list[Any]:
        if self.choices or self.template:
            return []
        out: list[Any] = [] if self.empty() is None else [""]
        if isinstance(value, str) and not self.case_flip and any(c.isalpha() for c in value):
            out.append(value.swapcase())  # the other case, which the seeds never showed
            if len(value) > 1:
                out.append(value[0].swapcase() + value[1:])
        return out

    def empty(self) -> Any:
        return "" if not self.choices and not self.template and self.min_len >= 1 and not self.min_len_stated else None

    def accepts(self, value: Any) -> bool:
        return isinstance(value, str) and (not self.choices or value in self.choices) \
            and (self.template is None or self.template.accepts(value))
