"""Dicts (JSON objects: string keys)."""

from __future__ import annotations

from random import Random
from dataclasses import dataclass
from typing import Any

from .base import Spec


@dataclass
class DictSpec(Spec):
    key: Spec
    val: Spec
    min_len: int
    max_len: int

    def random(self, rng: Random, big: bool = False) -> Any:
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

    def mutate(self, value: Any, rng: Random) -> Any:
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
