"""The generating library: what the rewritten script (``script.translate``) calls.

Where checktestdata's own library reads a value and checks it, this one chooses one under a
``Plan`` and writes it. One ``Library`` is one attempt at one input.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterator, Optional

from ..input_caps import caps
from .script import GrammarError
from .words import Pattern

LOOP_TRIES = 12  # a loop body whose assertion fails is drawn again this often, then the input is
SMALL_COUNT = (1, 2, 3, 5, 10)  # how far above its minimum a count goes in the small family
MEDIUM_COUNT = 200
CROWDED_SPAN = 10
PROBE = 16  # a loop's first iterations: how much the rest of it will write is judged from them
WORD_PERIOD = (2, 6)  # a skewed stress input's words repeat a block of this many letters
STRESS_WORD = 2000  # a stress word whose length nothing bounds: this long (scaled like the counts)
LABEL_SHAPES = ("path", "star")  # the stress shapes that place the values numbering things (``Plan``)


class _Reject(Exception):
    """An assertion failed or no value fits: draw again."""


class _Stop(Exception):
    """Over the token, step or time budget: this attempt ends (never retried within it)."""


class _Break(Exception):
    """The script's own ``break`` out of a loop whose body the retry wraps."""


class _Continue(Exception):
    """The script's own ``continue``, likewise."""


@dataclass(frozen=True)
class Plan:
    """How one input is drawn.

    * ``kind``: small, medium, boundary or stress;
    * a stress input's ``shape``: random (values anywhere in range), skewed (the first count at
      the maximum, each other at its maximum or its minimum; every word a block of 2 to 6
      letters repeated, ``WORD_PERIOD``), equal-min / equal-max (every
      non-count value at its bound, every word of one letter, the first or last its pattern
      allows), path (the values that number things, ``_label``, go along a path: in a loop's
      k-th iteration its j-th one is the (k + j)-th label, so an edge list is 1-2, 2-3, ...,
      a tree is a path and the distance across it the longest; how many there are is drawn
      like a count, a count inside a loop at its minimum, every other value at its maximum: the
      longest and heaviest path), star (the same, but each iteration's first label is the first:
      an edge list is 1-2, 1-3, ..., every edge at one vertex);
    * ``crowded``: values in a narrow window at the bottom of their range (ties, equal neighbours);
    * ``distinct``: the values one call of the script writes within one run of its loop differ (a
      list of distinct colours, the neighbours of a node), as validators often ask beyond what the
      grammar says;
    * ``corner``: a boundary input of a script with no loop, one point of the grid of its integers'
      ends (``Grammar.corner_plans``): the script's k-th integer takes the k-th digit of ``corner`` in base
      ``len(CORNER_ENDS[ends])``, an index into its range's ends (lo, lo + 1, hi - 1, hi; or lo, hi)."""

    kind: str
    shape: str = "random"
    crowded: bool = False
    distinct: bool = False
    corner: Optional[int] = None
    ends: int = 4

    @property
    def note(self) -> str:
        return f"grammar:{self.kind}" + (f":{self.shape}" if self.kind == "stress" else "") + \
            (":crowded" if self.crowded else "") + (":distinct" if self.distinct else "") + \
            (":corner" if self.corner is not None else "")


# The ends of a range a corner input takes each integer to (``Plan.corner``), by how many.
CORNER_ENDS = {4: lambda lo, hi: (lo, lo + 1, hi - 1, hi), 2: lambda lo, hi: (lo, hi)}


def spread(lo: int, hi: int, rng: random.Random) -> int:
    """An integer in [lo, hi], every order of magnitude about as likely (on each side of 0)."""
    if lo == hi:
        return lo
    if lo < 0 < hi:
        return -spread(0, -lo, rng) if rng.random() < 0.5 else spread(0, hi, rng)
    span = hi - lo
    return lo + min(span, int(math.exp(rng.uniform(0, math.log(span + 1)))) - 1 + (rng.random() < 0.5))


class Library:
    """One attempt at one input: the generating library the rewritten script calls."""

    def __init__(self, plan: Plan, rng: random.Random, counts: set[str], scale: float, seen: str,
                 patterns: dict, deadline: float, labels: frozenset = frozenset()):
        self.plan, self.rng, self.counts, self.scale, self.seen = plan, rng, counts, scale, seen
        self.labels = labels  # the variables that number things (``LABEL_SHAPES``: drawn like counts)
        self.patterns, self.deadline = patterns, deadline
        self.out: list[str] = []
        self.tokens = 0
        self.steps = 0
        self.skew: dict[str, bool] = {}
        self.factor = 1  # the product of the running loops' counts
        # by how much the next attempt scales its counts when this one is too big: at least half,
        # the square root of how much too big where that is less (nested counts multiply)
        self.shrink = 0.5
        self.left = 1  # iterations left in the innermost running loop, this one included
        self.word_len: dict = {}  # per pattern: one length for every word of this input, or None
        self.loops_run = 0
        self.loop_id = 0  # which run of a loop the values now written belong to
        self.used: dict = {}  # (call site, loop run): the values written there (``Plan.distinct``)
        self.iteration = 0  # the innermost running loop's iteration (``LABEL_SHAPES``)
        self.ordinal = 0  # labels written in it so far (``LABEL_SHAPES``)
        self.redraw = False  # the loop body failed once: its labels are drawn at random (``LABEL_SHAPES``)
        self.integers = 0  # integers written so far (``Plan.corner``: which digit of the corner is next)
        self.cap = caps().tokens  # the input's token budget (``testgen/input_caps.py``)
        from checktestdata.lib import Boolean, Number, String

        self.Boolean, self.Number, self.String = Boolean, Number, String

    # -- budget and retries

    def _step(self) -> None:
        self.steps += 1
        if self.tokens > self.cap or self.steps > 8 * self.cap:
            raise _Stop()
        if self.steps % 2048 == 0 and time.monotonic() > self.deadline:
            raise _Stop()

    def _emit(self, text: str, token: bool = True) -> None:
        self.out.append(text)
        if token:
            self.tokens += 1
        self._step()

    def loop(self, count) -> Iterator[int]:
        """``range(count)``, refused at once when this loop inside the running ones would write
        more than the budget allows (a stress input that is too big is found before it is drawn)."""
        n = int(count)
        outer, outer_left, outer_id = self.factor, self.left, self.loop_id
        outer_at = self.iteration, self.ordinal
        self.factor = outer * max(1, n)
        self.loops_run += 1
        self.loop_id = self.loops_run
        start = self.tokens
        try:
            if self.tokens + self.factor > 2 * self.cap:
                self.shrink = min(self.shrink, math.sqrt(2 * self.cap / (self.tokens + self.factor)))
                raise _Stop()
            for i in range(n):
                self.iteration, self.ordinal, self.redraw = i, 0, False
                if i == PROBE:  # what the first iterations wrote, times the rest, must fit too
                    projected = self.tokens + (self.tokens - start) / PROBE * (n - PROBE)
                    if projected > self.cap:
                        self.shrink = min(self.shrink, math.sqrt(self.cap / projected))
                        raise _Stop()
                self.left = n - i
                yield i
        finally:
            self.factor, self.left, self.loop_id = outer, outer_left, outer_id
            self.iteration, self.ordinal = outer_at

    def attempts(self) -> Iterator[int]:
        return iter(range(LOOP_TRIES))

    def save(self) -> tuple[int, int]:
        self._step()  # every loop iteration is a step: a loop that writes nothing still ends
        return len(self.out), self.tokens

    def restore(self, mark: tuple[int, int]) -> None:
        del self.out[mark[0]:]
        self.tokens = mark[1]
        self.redraw = True
        self._step()

    # -- value choices

    def _count(self, var: str, lo: int, hi: int) -> int:
        kind, rng = self.plan.kind, self.rng
        if kind == "stress":
            # skewed: the first count at the maximum, each other one at its maximum or its minimum
            if self.plan.shape == "skewed" and self.skew.setdefault(var, bool(self.skew) and rng.random() < 0.5):
                return lo
            if self.plan.shape in LABEL_SHAPES and self.factor > 1:  # a list within an item: the least
                return lo
            return lo + int((hi - lo) * self.scale)
        if kind == "boundary":
            return rng.choice((lo, min(hi, lo + 1), min(hi, lo + 2)))
        top = lo + (MEDIUM_COUNT if kind == "medium" else rng.choice(SMALL_COUNT))
        return rng.randint(lo, min(hi, top))

    def _int(self, var: Optional[str], lo: int, hi: int, site: Optional[int] = None) -> int:
        if var in self.counts or (self.plan.shape in LABEL_SHAPES and var in self.labels):
            return self._count(var, lo, hi)
        if not self.plan.distinct or site is None:
            return self._value(lo, hi)
        used = self.used.setdefault((site, self.loop_id), set())
        for _ in range(8):
            v = self._value(lo, hi)
            if v not in used:
                break
        else:  # a narrow range nearly used up: one of the values left, if any
            left = [x for x in range(lo, hi + 1) if x not in used] if hi - lo <= 4096 else []
            if left:
                v = self.rng.choice(left)
        used.add(v)
        return v

    def _value(self, lo: int, hi: int) -> int:
        rng, plan = self.rng, self.plan
        self.integers += 1
        if plan.corner is not None:
            ends = CORNER_ENDS[plan.ends](lo, hi)
            digit = (plan.corner // plan.ends ** (self.integers - 1)) % plan.ends
            return min(hi, max(lo, ends[digit]))
        if plan.kind == "boundary":
            return rng.choice((lo, hi, min(hi, lo + 1), max(lo, hi - 1)))
        if plan.kind == "stress":
            if plan.shape == "equal-min":
                return lo
            if plan.shape == "equal-max" or plan.shape in LABEL_SHAPES:
                return hi
            return rng.randint(lo, hi)
        if plan.crowded:
            return rng.randint(lo, min(hi, lo + CROWDED_SPAN))
        return spread(lo, hi, rng)

    # -- the library's functions

    def _narrow(self, lo, hi, bounds, integral: bool = True):
        """[lo, hi] narrowed by the assertions right after the value (``bound_hints``), and
        whether a lower bound came from one (a rising chain: ``ASSERT(prev < x)``)."""
        rising = False
        for op, bound in bounds or ():
            try:
                b = Fraction(bound().value)
            except Exception:  # noqa: BLE001 - the bound names a value not drawn yet
                continue
            if op == "==":
                if integral and b.denominator != 1:
                    raise _Reject()
                lo, hi = max(lo, b), min(hi, b)
            elif op in (">", ">="):
                lo = max(lo, (math.floor(b) + 1 if op == ">" else math.ceil(b)) if integral else b)
                rising = True
            else:
                hi = min(hi, (math.ceil(b) - 1 if op == "<" else math.floor(b)) if integral else b)
        if lo > hi:
            raise _Reject()
        return (int(lo), int(hi), rising) if integral else (lo, hi, rising)

    def INT(self, lo, hi, constraint=None, _to=None, _bounds=None, _site=None, _label=False):  # noqa: N802
        placed = _label and self.plan.shape in LABEL_SHAPES and _to not in self.counts
        if placed and not self.redraw:  # along the path or star; a body that fails is drawn again, at random
            first, last = int(lo.value), int(hi.value)
            hub = self.plan.shape == "star" and self.ordinal == 0
            v = first if hub else first + (self.iteration + self.ordinal) % max(1, last - first + 1)
            self.ordinal += 1
            self._emit(str(v))
            return self.Number(v)
        a, b, rising = self._narrow(int(lo.value), int(hi.value), _bounds)
        if placed:
            v = self.rng.randint(a, b)
        elif rising and _to not in self.counts and self.plan.kind != "boundary":
            # a rising chain: a step that leaves room for the rest of its loop, and the chain ends
            # about half way to the bound (a later ASSERT(last < end) often ties it to a value
            # drawn before it)
            v = a + self.rng.randint(0, max(0, (b - a) // max(1, 2 * self.left)))
        else:
            v = self._int(_to, a, b, _site)
        self._emit(str(v))
        return self.Number(v)

    def _float(self, a: Fraction, b: Fraction, decimals: int, var: Optional[str], bounds) -> str:
        a, b, _ = self._narrow(a, b, bounds, integral=False)
        unit = Fraction(1, 10 ** decimals)
        lo_u, hi_u = math.ceil(a / unit), math.floor(b / unit)
        if lo_u > hi_u:
            raise _Reject()
        # chosen on the grid of this many decimals, then printed exactly so
        units = lo_u + self._int(var, 0, hi_u - lo_u)
        text = str(units) if not decimals else f"{Decimal(units).scaleb(-decimals):.{decimals}f}"
        if text.startswith("-") and Fraction(Decimal(text)) == 0:
            text = text[1:]
        return text

    def FLOAT(self, lo, hi, constraint=None, option=None, _to=None, _bounds=None, _site=None):  # noqa: N802
        text = self._float(Fraction(lo.value), Fraction(hi.value), self.rng.choice((0, 1, 2, 3, 6)), _to, _bounds)
        self._emit(text)
        return self.Number(Fraction(Decimal(text)))

    def FLOATP(self, lo, hi, mindecimals, maxdecimals, constraint=None, option=None, _to=None,  # noqa: N802
               _bounds=None, _site=None):
        d = self.rng.randint(int(mindecimals.value), int(maxdecimals.value))
        text = self._float(Fraction(lo.value), Fraction(hi.value), d, _to, _bounds)
        self._emit(text)
        return self.Number(Fraction(Decimal(text)))

    def _pattern(self, raw: bytes) -> Pattern:
        gen = self.patterns.get(raw)
        if gen is None:
            try:
                from checktestdata.lib import _compile_regex

                gen = Pattern(_compile_regex(raw).pattern, self.seen)
            except Exception as e:  # noqa: BLE001 - a pattern we cannot draw from (Unsupported, re.error)
                gen = GrammarError(f"REGEX {raw!r}: {e}")
            self.patterns[raw] = gen
        if isinstance(gen, GrammarError):
            raise gen
        return gen

    def REGEX(self, pattern, _to=None, _bounds=None, _site=None):  # noqa: N802
        raw = pattern.value
        gen = self._pattern(raw)
        lo, hi, _ = self._narrow(gen.shortest, gen.longest, _bounds)
        length: Optional[int] = None
        if lo == hi:
            length = lo
        elif self.plan.kind == "stress":  # the bound an assertion set, else STRESS_WORD; scaled
            length = max(lo, int((hi if hi < gen.longest else min(hi, STRESS_WORD)) * self.scale))
        # the words of one pattern share a length in every other input (the rows of a grid)
        same = self.word_len.setdefault(raw, [self.rng.random() < 0.5, None])
        if length is None and same[0] and same[1] is not None and lo <= same[1] <= hi:
            length = same[1]
        shape = self.plan.shape if self.plan.kind == "stress" else ""
        letter = {"equal-min": "first", "equal-max": "last"}.get(shape)  # "aaaa...": naive matching's worst case
        period = self.rng.randint(*WORD_PERIOD) if shape == "skewed" else None  # "abcabc...": a periodic word
        s = gen.draw(self.rng, length=length, longest=hi, shortest=lo, letter=letter, period=period)
        if s is None:
            raise _Reject()
        if same[1] is None:
            same[1] = len(s)
        self._emit(s)
        self.tokens += len(s) // 8  # a long word costs a reader about as much as a few tokens
        return self.String(s.encode("latin-1"))

    def STRING(self, text):  # noqa: N802
        self._emit(text.value.decode("latin-1"), token=False)

    def SPACE(self):  # noqa: N802
        self._emit(" ", token=False)

    def NEWLINE(self):  # noqa: N802
        self._emit("\n", token=False)

    def EOF(self):  # noqa: N802
        pass

    def ASSERT(self, cond):  # noqa: N802
        if not cond.value:
            raise _Reject()

    def ISEOF(self):  # noqa: N802
        soft = self.cap * self.scale if self.plan.kind == "stress" else 40
        return self.Boolean(self.tokens >= soft or (self.plan.kind != "stress" and self.rng.random() < 0.2))

    def MATCH(self, chars):  # noqa: N802
        return self.Boolean(self.rng.random() < 0.5)

    def power(self, base, exponent):
        """``base ** exponent`` when the result has at most 4096 bits, else a failed draw."""
        b, e = base.value, exponent.value
        if abs(e) > 4096 or (abs(b) > 1 and abs(e) * math.log2(abs(b)) > 4096):
            raise _Reject()
        return base ** exponent

    def functions(self) -> dict[str, Any]:
        names = ("INT", "FLOAT", "FLOATP", "REGEX", "STRING", "SPACE", "NEWLINE", "EOF", "ASSERT", "ISEOF", "MATCH")
        fns: dict[str, Any] = {n: getattr(self, n) for n in names}
        fns.update(init_lib=lambda: None, finalize_lib=lambda: None, _attempts=self.attempts, _save=self.save,
                   _restore=self.restore, _Reject=_Reject, _Break=_Break, _Continue=_Continue, _loop=self.loop,
                   _pow=self.power)
        return fns
