"""The input model of a function-call problem: one spec per argument, the seeds' relations."""

from __future__ import annotations

import json
import math
from random import Random
from dataclasses import dataclass, field
from typing import Any

from .base import Hints, Spec
from .fields import FieldRules, record_fields
from .infer import apply_bound, infer_spec
from .records import RecordSpec
from .relations import Invariants


@dataclass
class FunctionModel:
    """One spec per argument position, the seeds' invariants, and the seeds to mutate."""

    arity: int
    specs: list[Spec]
    seeds: list[list[Any]]
    invariants: Invariants = field(default_factory=Invariants)
    hints: Hints = field(default_factory=Hints)

    @classmethod
    def infer(cls, seeds: list[list[Any]], statement: str = "", entry_point: str = "", solution: str = ""
              ) -> "FunctionModel":
        """``solution``: a gold's code, whose signature names the parameters when the statement
        does not show one (its bounds still come from the statement alone)."""
        if not seeds:
            raise ValueError("no seed arguments to infer an input model from")
        arities: dict[int, int] = {}
        for s in seeds:
            arities[len(s)] = arities.get(len(s), 0) + 1
        arity = max(arities, key=lambda a: (arities[a], a))
        hints = Hints.from_text(statement)
        same = [list(s) for s in seeds if len(s) == arity]
        specs = [infer_spec([s[i] for s in same], hints) for i in range(arity)]
        trees: list[int] = []
        stated: list[int] = []
        fields = FieldRules()
        if entry_point:
            from ..docspec import arg_bounds, arg_params
            from ..entry import function_name

            fn = function_name(entry_point)
            params = arg_params(statement, fn) or arg_params(solution, fn)
            names = [name for name, _ in params]
            bounds = arg_bounds(statement, fn, names)
            for i, name in enumerate(names[:arity]):
                if name in bounds:
                    apply_bound(specs[i], bounds[name], [s[i] for s in same])
            trees = [i for i, (_, note) in enumerate(params[:arity]) if "TreeNode" in note]
            stated = [i for i, name in enumerate(names[:arity]) if name in bounds and bounds[name].hi is not None]
            named = record_fields(statement, names[:arity])
            _bound_record_fields(specs, same, statement, fn, names[:arity], named)
            fields = FieldRules.mine(statement, names[:arity], same, named)
        invariants = Invariants.mine(same, arity, statement, trees, stated)
        invariants.fields = fields
        return cls(arity=arity, specs=specs, seeds=[list(s) for s in seeds], invariants=invariants, hints=hints)

    def base(self, rng: Random) -> list[Any]:
        pool = [s for s in self.seeds if len(s) == self.arity]
        return list(rng.choice(pool)) if pool else [sp.random(rng) for sp in self.specs]

    def fix(self, args: list[Any], rng: Random) -> list[Any]:
        """Bring generated arguments back inside the relations the seeds all satisfy."""
        return self.invariants.enforce(args, rng)

    def admits(self, args: list[Any]) -> bool:
        """Do (fixed) arguments keep what the seeds show the statement guarantees? The int a
        pair of values is made to sum to must also stay within its own argument's domain."""
        g, promised = self.invariants.guarantees, self.invariants.promised
        if promised and not promised.holds(args):
            return False
        trees = self.invariants.trees
        if not all(self.specs[i].accepts(args[i]) for i, j in self.invariants.index_of if j in trees):
            return False  # "1 <= k <= n": an index cut to a tree's node count below its minimum
        if self.invariants.fields and not self.invariants.fields.holds(args):
            return False
        return not g or (g.holds(args) and all(self.specs[j].accepts(args[j]) for _, j in g.one_pair_sum))


def _bound_record_fields(specs: list[Spec], seeds: list[list[Any]], statement: str, fn: str, names: list[str],
                         named: dict[str, list[str]]) -> None:
    """The statement's numeric bounds of record fields it names (``named``: ``intervals[i] = [starti,
    endi]``, ``-5 * 10^4 <= starti < endi <= 5 * 10^4``), applied to each field of the records' spec."""
    from ..docspec import arg_bounds

    for arg, fields in named.items():
        i = names.index(arg)
        rec = getattr(specs[i], "elem", None)
        if not isinstance(rec, RecordSpec) or len(rec.fields) != len(fields):
            continue
        bounds = arg_bounds(statement, fn, fields)
        for f, name in enumerate(fields):
            seen = [r[f] for s in seeds if isinstance(s[i], list) for r in s[i] if isinstance(r, list) and len(r) > f]
            apply_bound(rec.fields[f], bounds[name], seen)


def size_ok(value: Any, limit: int = 200_000) -> bool:
    """Cheap guard against absurd values (deep nesting, huge strings)."""
    try:
        return len(json.dumps(value)) <= limit and not _has_bad_float(value)
    except (TypeError, ValueError, RecursionError):
        return False


def _has_bad_float(v: Any) -> bool:
    if isinstance(v, float):
        return math.isnan(v) or math.isinf(v)
    if isinstance(v, list):
        return any(_has_bad_float(x) for x in v)
    if isinstance(v, dict):
        return any(_has_bad_float(x) for x in v.values())
    return False
