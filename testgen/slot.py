"""One token position of a stdin layout and its domain: drawn, mutated, bounded, and fitted to
the statement's ranges where they hold what the samples show."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from typing import Any, Optional

from .brackets import make_balanced
from .constraints import Range, said_of
from .input_caps import MAX_WORD_LEN, WORD_LEN
from .tokens import line_kinds, parse_token

CATEGORY_MAX = 8  # at most this many distinct words in a column that repeat them: a category
# where a fixed-width integer ends (int32, uint32): a value stated to reach past one is tried at it,
# since reading or adding there is where a program with too narrow a type breaks
INT_WIDTH_EDGES = (2**31 - 1, 2**31, 2**32 - 1, 2**32)


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


def slots_from_rows(rows: list[list[str]]) -> list[Slot]:
    slots = [Slot(kind=k) for k in line_kinds(rows[0])]
    for r in rows:
        for sl, tok in zip(slots, r):
            sl.obs.append(parse_token(tok, sl.kind))
    return slots


def fit_slot(sl: Slot, ranges: list[Range], alpha: Optional[str], is_count: bool) -> None:
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


def pick_count_range(ranges: list[Range], lo_c: int, hi_c: int, named: bool) -> Optional[Range]:
    """The tightest statement bound on a row count ('at most 40 lines') that the samples respect."""
    fits = [r for r in ranges if r.hi is not None and r.hi >= hi_c and (r.lo is None or r.lo <= lo_c)
            and not r.is_length and r.is_count]
    return min(fits, key=lambda r: r.hi) if fits else None  # type: ignore[arg-type,return-value]
