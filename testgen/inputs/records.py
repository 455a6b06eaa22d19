"""Fixed-shape records: lists whose every observed value has the same length and a type per
position, e.g. ``["M", 25]`` (gender, age), ``[3, 14]`` (month, day), ``[u, v]`` edges.

Generated records keep the length and each position's type and domain; a record whose
numeric fields are ordered in every observation (``[start, end]``) stays ordered. Turning
such a value into "a list of anything of any length" is what made suites fail correct
programs: the gold tolerates the odd shape, correct programs that unpack ``a, b = pair`` do not.
"""

from __future__ import annotations

from random import Random
from dataclasses import dataclass, field
from typing import Any, Callable

from .base import Spec, kind_of
from .strings import StrSpec

# How much evidence a fixed length needs: a length seen this often, with nothing else seen.
MIN_OBSERVATIONS = 3
MAX_RECORD_LEN = 4


def looks_like_record(values: list[list[Any]], min_observations: int = MIN_OBSERVATIONS) -> bool:
    """Every value has the same length k, and either the positions hold different kinds of value
    (``["M", 25]``: a record for sure) or k <= 4 and it was seen at least three times."""
    if not values or any(not isinstance(v, list) for v in values):
        return False
    k = len(values[0])
    if k == 0 or any(len(v) != k for v in values):
        return False
    kinds = [{kind_of(v[i]) for v in values} for i in range(k)]
    if any(len(ks) != 1 for ks in kinds):
        return False  # a position that changes kind is not a typed field
    if len({next(iter(ks)) for ks in kinds}) > 1:
        return True
    return k <= MAX_RECORD_LEN and len(values) >= min_observations


@dataclass
class RecordSpec(Spec):
    fields: list[Spec]
    ordered: bool = False  # numeric fields non-decreasing in every observation
    obs: list[list[Any]] = field(default_factory=list)

    @classmethod
    def infer(cls, values: list[list[Any]], infer_field: Callable[[list[Any]], Spec]) -> "RecordSpec":
        k = len(values[0])
        fields = [infer_field([v[i] for v in values]) for i in range(k)]
        for i, f in enumerate(fields):
            if isinstance(f, StrSpec):  # a text field of a record is a category when its values repeat
                f.make_categorical([v[i] for v in values], max_distinct=8)
        numeric = all(kind_of(x) in ("int", "float") for v in values for x in v)
        ordered = (numeric and k >= 2 and len(values) >= MIN_OBSERVATIONS
                   and all(list(v) == sorted(v) for v in values) and any(len(set(v)) > 1 for v in values))
        return cls(fields=fields, ordered=ordered, obs=[list(v) for v in values[:50]])

    def _fix(self, rec: list[Any]) -> list[Any]:
        return sorted(rec) if self.ordered else rec

    def random(self, rng: Random, big: bool = False) -> Any:
        return self._fix([f.random(rng, big) for f in self.fields])

    def boundary(self) -> list[Any]:
        rng = Random(0)
        base = self.obs[0] if self.obs else [f.random(rng) for f in self.fields]
        out = []
        for i, f in enumerate(self.fields):
            for b in f.boundary()[:4]:
                r = list(base)
                r[i] = b
                out.append(self._fix(r))
        return out

    def special(self, rng: Random) -> list[Any]:
        out = []
        if self.ordered and self.obs:
            v = self.obs[rng.randrange(len(self.obs))]
            out.append([v[0]] * len(v))  # a degenerate interval [a, a]
        return out

    def stress(self, rng: Random) -> list[Any]:
        return [self.random(rng, big=True)]

    def mutate(self, value: Any, rng: Random) -> Any:
        if not self.accepts(value):
            return self.random(rng)
        r = list(value)
        i = rng.randrange(len(r))
        r[i] = self.fields[i].mutate(r[i], rng)
        return self._fix(r)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) == len(self.fields)
