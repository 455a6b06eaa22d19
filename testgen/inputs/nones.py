"""``None`` as an argument value."""

from __future__ import annotations

from random import Random
from dataclasses import dataclass
from typing import Any

from .base import Spec


@dataclass
class NoneSpec(Spec):
    def random(self, rng: Random, big: bool = False) -> Any:
        return None

    def accepts(self, value: Any) -> bool:
        return value is None
