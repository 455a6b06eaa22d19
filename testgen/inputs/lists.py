"""Lists of one element type: lengths from the seeds and the statement, sorted/reversed/equal/duplicate shapes."""

from __future__ import annotations

from random import Random
from dataclasses import dataclass, field
from typing import Any, Optional

from .base import MAX_REGULAR_LEN, STRESS_LEN, Spec


@dataclass
class ListSpec(Spec):
    elem: Spec
    min_len: int
    max_len: int
    obs_lens: list[int] = field(default_factory=list)
    elem_known: bool = True
    stress_len: int = STRESS_LEN  # the statement's maximum length, when it gives one
    permutation: Optional[int] = None  # every seed is a permutation of base..base+n-1: so is every value
    min_len_stated: bool = False  # min_len comes from the statement ("non-empty"): widen keeps it

    def _perm(self, rng: Random, n: int) -> list[int]:
        v = list(range(self.permutation or 0, (self.permutation or 0) + n))
        rng.shuffle(v)
        return v

    def _n(self, rng: Random, big: bool) -> int:
        if big:
            top = max(self.min_len, self.stress_len)
            return rng.randint(max(self.min_len, top // 2), top)
        return rng.randint(self.min_len, max(self.min_len, min(self.max_len, MAX_REGULAR_LEN)))

    def random(self, rng: Random, big: bool = False) -> Any:
        if self.permutation is not None:
            return self._perm(rng, self._n(rng, big))
        return [self.elem.random(rng) for _ in range(self._n(rng, big))]

    def boundary(self) -> list[Any]:
        rng = Random(0)
        out: list[Any] = []
        if self.permutation is not None:
            b = self.permutation
            out = [[] if self.min_len == 0 else [b], [b], [b, b + 1], [b + 1, b], list(range(b, b + 5)),
                   list(range(b + 4, b - 1, -1))]
            return [v for v in out if len(v) >= self.min_len]
        if self.min_len == 0:
            out.append([])
        for b in self.elem.boundary():
            out.append([b])
            out.append([b, b])
        if not self.elem.boundary():
            out.append([self.elem.random(rng)])
        return [v for v in out if len(v) >= self.min_len]

    def special(self, rng: Random) -> list[Any]:
        n = max(self.min_len, min(12, self.max_len))
        if self.permutation is not None:
            ident = list(range(self.permutation, self.permutation + n))
            rot = ident[1:] + ident[:1]
            return [ident, ident[::-1], rot, self._perm(rng, n)]
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

    def stress(self, rng: Random) -> list[Any]:
        if self.permutation is not None:
            big = self.random(rng, big=True)
            return [big, sorted(big), sorted(big, reverse=True)]
        big = self.random(rng, big=True)
        out = [big]
        try:
            out.append(sorted(big))
        except TypeError:
            pass
        if big:
            out.append([big[0]] * len(big))
        return out

    def mutate(self, value: Any, rng: Random) -> Any:
        if not isinstance(value, list):
            return self.random(rng)
        v = list(value)
        if self.permutation is not None:  # stay a permutation: swap, reverse a slice, or grow/shrink by one
            op = rng.randrange(3)
            if op == 0 and len(v) >= 2:
                i, j = rng.sample(range(len(v)), 2)
                v[i], v[j] = v[j], v[i]
                return v
            if op == 1 and len(v) >= 2:
                i, j = sorted(rng.sample(range(len(v) + 1), 2))
                return v[:i] + v[i:j][::-1] + v[j:]
            return self._perm(rng, max(self.min_len, len(v) + rng.choice((-1, 1))))
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

    def widen(self, value: Any, rng: Random) -> list[Any]:
        out: list[Any] = [] if self.empty() is None else [[]]
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

    def empty(self) -> Any:
        return [] if self.min_len >= 1 and not self.min_len_stated else None

    def accepts(self, value: Any) -> bool:
        return isinstance(value, list)


def permutation_base(values: list[Any]) -> Optional[int]:
    """0 or 1 when every value is a permutation of 0..n-1 (or 1..n) and one has 3+ elements."""
    ints = [v for v in values if isinstance(v, list) and all(type(x) is int for x in v)]
    if len(ints) != len(values) or not any(len(v) >= 3 for v in ints):
        return None
    for base in (0, 1):
        if all(sorted(v) == list(range(base, base + len(v))) for v in ints):
            return base
    return None
