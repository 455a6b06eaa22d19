"""Floats, rounded to the number of decimals the seeds use."""

from __future__ import annotations

from random import Random
from dataclasses import dataclass, field
from typing import Any

from .base import Hints, Spec


@dataclass
class FloatSpec(Spec):
    lo: float
    hi: float
    decimals: int = 2
    obs: list[float] = field(default_factory=list)
    lo_stated: bool = False  # lo comes from the statement: widen stays above it

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
        return cls(lo=float(lo), hi=float(hi), decimals=decs, obs=sorted(set(float(v) for v in values)),
                   lo_stated=hints.positive or hints.non_negative)

    def _r(self, v: float) -> float:
        return round(max(self.lo, min(self.hi, v)), self.decimals)

    def random(self, rng: Random, big: bool = False) -> Any:
        if big:
            return self._r(rng.uniform(self.lo, self.hi * 10))
        if self.obs and rng.random() < 0.5:
            a, b = self.obs[0], self.obs[-1]
            return self._r(rng.uniform(min(a, b, 0.0) if self.lo < 0 else max(self.lo, min(a, 0.0)), max(b, 1.0)))
        return self._r(rng.uniform(self.lo, self.hi))

    def boundary(self) -> list[Any]:
        out = [self.lo, self.hi, 0.0, 1.0, -1.0, 0.5, -0.5]
        return [v for v in dict.fromkeys(out) if self.lo <= v <= self.hi]

    def special(self, rng: Random) -> list[Any]:
        out = [0.1, 0.25, 1e-3, 2.0, 1024.0, 3.5, -2.5]
        return [v for v in out if self.lo <= v <= self.hi]

    def stress(self, rng: Random) -> list[Any]:
        return [self._r(self.hi * 100), 1e6]

    def mutate(self, value: Any, rng: Random) -> Any:
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

    def widen(self, value: Any, rng: Random) -> list[Any]:
        if self.lo >= 0 and not self.lo_stated and isinstance(value, (int, float)) and not isinstance(value, bool):
            return [-value if value else -1.0]
        return []

    def accepts(self, value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
