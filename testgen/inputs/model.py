"""The input model of a function-call problem: one spec per argument, the seeds' relations."""

from __future__ import annotations

import json
import math
from random import Random
from dataclasses import dataclass, field
from typing import Any

from .base import Hints, Spec
from .fields import FieldRules, record_fields
from .guarantees import promises_validity
from .infer import apply_bound, infer_spec
from .ints import IntSpec
from .lists import ListSpec
from .records import RecordSpec, looks_like_record
from .strings import StrSpec
from .relations import Invariants
from .size_bounds import SizeBounds


@dataclass
class FunctionModel:
    """One spec per argument position, the seeds' invariants, and the seeds to mutate."""

    arity: int
    specs: list[Spec]
    seeds: list[list[Any]]
    invariants: Invariants = field(default_factory=Invariants)
    hints: Hints = field(default_factory=Hints)
    # arguments of free text (a string, a list of strings, of no known shape) that the statement
    # promises are valid ("represents a valid arithmetic expression"): only the seeds' values are
    # admitted for them, as the model cannot tell a valid one (``guarantees.promises_validity``)
    seeded: dict[int, list[Any]] = field(default_factory=dict)

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
        names: list[str] = []
        named: dict[str, list[str]] = {}
        if entry_point:
            from ..docspec import arg_bounds, arg_params
            from ..entry import function_name

            fn = function_name(entry_point)
            params = arg_params(statement, fn) or arg_params(solution, fn)
            names = [name for name, _ in params]
            bounds = arg_bounds(statement, fn, names)
            args = names[:arity]
            for i, name in enumerate(args):
                if name in bounds:
                    apply_bound(specs[i], bounds[name], [s[i] for s in same])
            trees = [i for i, (_, note) in enumerate(params[:arity]) if "TreeNode" in note]
            stated = [i for i, name in enumerate(args) if name in bounds and bounds[name].hi is not None]
            named = record_fields(statement, args)
            _records_of_named_fields(specs, same, args, named, hints)
            _bound_record_fields(specs, same, statement, fn, args, named)
            _stated_choices(specs, same, statement, args, named)
            _stated_thresholds(specs, statement)
            fields = FieldRules.mine(statement, args, same, named)
        invariants = Invariants.mine(same, arity, statement, trees, stated,
                                     {names.index(a): fs for a, fs in named.items()})
        invariants.fields = fields
        invariants.sizes = SizeBounds.mine(statement, names[:arity], same, specs) if len(names) >= arity else SizeBounds()
        seeded = {i: [s[i] for s in same] for i, sp in enumerate(specs) if _free_text(sp)} \
            if promises_validity(statement) else {}
        return cls(arity=arity, specs=specs, seeds=[list(s) for s in seeds], invariants=invariants, hints=hints,
                   seeded=seeded)

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
        if any(args[i] not in values for i, values in self.seeded.items()):
            return False
        trees = self.invariants.trees
        if not all(self.specs[i].accepts(args[i]) for i, j in self.invariants.index_of if j in trees):
            return False  # "1 <= k <= n": an index cut to a tree's node count below its minimum
        if self.invariants.fields and not self.invariants.fields.holds(args):
            return False
        if self.invariants.sizes and not self.invariants.sizes.holds(args):
            return False
        return not g or (g.holds(args) and all(self.specs[j].accepts(args[j]) for _, j in g.one_pair_sum))


def _free_text(spec: Spec) -> bool:
    """A string or a list of strings drawn from characters alone (no values listed, no shape)."""
    spec = spec.elem if isinstance(spec, ListSpec) else spec
    return isinstance(spec, StrSpec) and not spec.choices and spec.template is None


def _records_of(spec: Spec) -> tuple[RecordSpec | None, bool]:
    """The records' spec of an argument that is a record or a list of records, and which."""
    if isinstance(spec, RecordSpec):
        return spec, False
    rec = getattr(spec, "elem", None)
    return (rec, True) if isinstance(rec, RecordSpec) else (None, False)


def _seen_records(seeds: list[list[Any]], i: int, listed: bool) -> list[list[Any]]:
    vals = [s[i] for s in seeds if isinstance(s[i], list)]
    return [r for v in vals for r in v if isinstance(r, list)] if listed else vals


def _records_of_named_fields(specs: list[Spec], seeds: list[list[Any]], names: list[str],
                             named: dict[str, list[str]], hints: Hints) -> None:
    """An argument whose fields the statement names (``(month, day) pair``) is a record of that
    many fields, or a list of them, where every seed is one: then a few seeds suffice, where
    without the statement's word a short list seen three times stays a list of any length."""
    for arg, fields in named.items():
        i, k = names.index(arg), len(fields)
        vals = [s[i] for s in seeds]
        if _records_of(specs[i])[0] is not None or not vals or not all(isinstance(v, list) for v in vals):
            continue
        if all(len(v) == k for v in vals) and looks_like_record(vals, min_observations=1):
            specs[i] = RecordSpec.infer(vals, lambda xs: infer_spec(xs, hints, 1))
        elif isinstance(specs[i], ListSpec):
            recs = [r for v in vals for r in v]
            if recs and all(isinstance(r, list) and len(r) == k for r in recs) and looks_like_record(recs, 1):
                specs[i].elem = RecordSpec.infer(recs, lambda xs: infer_spec(xs, hints, 2))


def _bound_record_fields(specs: list[Spec], seeds: list[list[Any]], statement: str, fn: str, names: list[str],
                         named: dict[str, list[str]]) -> None:
    """The statement's numeric bounds of record fields it names (``named``: ``intervals[i] = [starti,
    endi]``, ``-5 * 10^4 <= starti < endi <= 5 * 10^4``; ``(month, day) pair``, "month from 1 to
    12"), applied to each field of the records' spec."""
    from ..docspec import arg_bounds

    for arg, fields in named.items():
        i = names.index(arg)
        rec, listed = _records_of(specs[i])
        if rec is None or len(rec.fields) != len(fields):
            continue
        bounds = arg_bounds(statement, fn, fields)
        recs = _seen_records(seeds, i, listed)
        for f, name in enumerate(fields):
            apply_bound(rec.fields[f], bounds[name], [r[f] for r in recs if len(r) > f])


def _stated_choices(specs: list[Spec], seeds: list[list[Any]], statement: str, names: list[str],
                    named: dict[str, list[str]]) -> None:
    """Text the statement lists the values of ("a string gender that is 'M' or 'F'") draws only
    those, for an argument (or its elements) and for a named record field, where every seed's
    value is one of them."""
    from ..docspec import arg_choices

    fields = {name: (arg, f) for arg, fs in named.items() for f, name in enumerate(fs)}
    for name, values in arg_choices(statement, names + list(fields)).items():
        if name in names:
            i = names.index(name)
            spec, seen = specs[i], _strings([s[i] for s in seeds])
            while isinstance(spec, ListSpec):
                spec = spec.elem
        else:
            arg, f = fields[name]
            rec, listed = _records_of(specs[names.index(arg)])
            if rec is None or f >= len(rec.fields):
                continue
            spec = rec.fields[f]
            seen = _strings([r[f] for r in _seen_records(seeds, names.index(arg), listed) if len(r) > f])
        if isinstance(spec, StrSpec) and seen is not None and seen and set(seen) <= set(values):
            spec.choices = values


def _stated_thresholds(specs: list[Spec], statement: str) -> None:
    """The numbers the statement compares with ("at least 90"; "at least 8 characters long") as
    boundaries of every int (argument, element, record field) and special lengths of every text."""
    from ..docspec import stated_thresholds

    values, lengths = stated_thresholds(statement)
    if not values and not lengths:
        return
    todo = list(specs)
    while todo:
        spec = todo.pop()
        if isinstance(spec, ListSpec):
            todo.append(spec.elem)
        elif isinstance(spec, RecordSpec):
            todo += spec.fields
        elif isinstance(spec, IntSpec):
            spec.thresholds = values
        elif isinstance(spec, StrSpec):
            spec.length_thresholds = lengths


def _strings(values: list[Any]) -> list[str] | None:
    """Every string in the values, at any depth; None where a value is neither a string nor a list."""
    out: list[str] = []
    for v in values:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, list):
            inner = _strings(v)
            if inner is None:
                return None
            out += inner
        else:
            return None
    return out


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
