"""An argument whose seeds show several kinds of value."""

from __future__ import annotations

from random import Random
from dataclasses import dataclass
from typing import Any

from .base import Spec


@dataclass
class UnionSpec(Spec):
    options: list[Spec]
    weights: list[float]

    def _pick(self, rng: Random) -> Spec:
        return rng.choices(self.options, weights=self.weights)[0]

    def random(self, rng: Random, big: bool = False) -> Any:
        return self._pick(rng).random(rng, big)

    def boundary(self) -> list[Any]:
        return [b for o in self.options for b in o.boundary()[:4]]

    def special(self, rng: Random) -> list[Any]:
        return [b for o in self.options for b in o.special(rng)[:4]]

    def stress(self, rng: Random) -> list[Any]:
        return self._pick(rng).stress(rng)

    def mutate(self, value: Any, rng: Random) -> Any:
        for o in self.options:
            if o.accepts(value):
                return o.mutate(value, rng)
        return self.random(rng)

    def widen(self, value: Any, rng: Random) -> list[Any]:
        for o in self.options:
            if o.accepts(value):
                return o.widen(value, rng)
        return []
