"""Booleans."""

from __future__ import annotations

from random import Random
from dataclasses import dataclass
from typing import Any

from .base import Spec


@dataclass
class BoolSpec(Spec):
    def random(self, rng: Random, big: bool = False) -> Any:
        return rng.random() < 0.5

    def boundary(self) -> list[Any]:
        return [True, False]

    def mutate(self, value: Any, rng: Random) -> Any:
        return not value

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)
