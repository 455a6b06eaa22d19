"""The narrowest spec that covers the seeds' values, narrowed by the docstring's stated bounds."""

from __future__ import annotations

from typing import Any

from .base import Hints, Spec, kind_of
from .bools import BoolSpec
from .dicts import DictSpec
from .floats import FloatSpec
from .ints import IntSpec
from .lists import ListSpec
from .lists import permutation_base
from .nones import NoneSpec
from .records import RecordSpec, looks_like_record
from .strings import StrSpec
from .unions import UnionSpec


def infer_spec(values: list[Any], hints: Hints, depth: int = 0) -> Spec:
    """The narrowest spec that covers the observed values."""
    by_kind: dict[str, list[Any]] = {}
    for v in values:
        by_kind.setdefault(kind_of(v), []).append(v)
    if not by_kind:
        return IntSpec(lo=0 if not hints.negative_ok else -10, hi=20, obs=[])
    if "int" in by_kind and "float" in by_kind:
        # mixed numbers: floats, with ints kept as an option so both shapes appear
        n_int, n_float = len(by_kind["int"]), len(by_kind["float"])
        floats = FloatSpec.infer([float(x) for x in by_kind["int"] + by_kind["float"]], hints)
        ints = IntSpec.infer(by_kind.pop("int"), hints)
        by_kind.pop("float")
        opts: list[tuple[Spec, float]] = [(floats, float(max(n_float, 1))), (ints, float(max(n_int, 1)))]
    else:
        opts = []
    for kind, vals in by_kind.items():
        w = float(len(vals))
        if kind == "none":
            opts.append((NoneSpec(), w))
        elif kind == "bool":
            opts.append((BoolSpec(), w))
        elif kind == "int":
            opts.append((IntSpec.infer(vals, hints), w))
        elif kind == "float":
            opts.append((FloatSpec.infer([float(x) for x in vals], hints), w))
        elif kind == "str":
            spec = StrSpec.infer(vals, hints)
            if len(vals) >= 3 * len(set(vals)):  # few values, each seen three times or more: a category
                spec.make_categorical(vals, max_distinct=4)
            opts.append((spec, w))
        elif kind == "list" and looks_like_record(vals, min_observations=3 if depth else 5):
            opts.append((RecordSpec.infer(vals, lambda xs: infer_spec(xs, hints, depth + 1)), w))
        elif kind == "list":
            elems = [e for v in vals for e in v]
            lens = [len(v) for v in vals]
            elem = infer_spec(elems, Hints(positive=hints.positive, non_negative=hints.non_negative,
                                            negative_ok=hints.negative_ok), depth + 1) if depth < 4 else NoneSpec()
            if isinstance(elem, UnionSpec) and len(elem.options) >= 3:
                # a list that mixes three or more kinds takes "any value": bool and None are values too
                for extra in (BoolSpec(), NoneSpec()):
                    if not any(type(o) is type(extra) for o in elem.options):
                        elem.options.append(extra)
                        elem.weights.append(1.0)
            min_len = 0 if (min(lens) == 0 or (hints.empty_ok and not hints.non_empty)) else 1
            opts.append((ListSpec(elem=elem, min_len=min_len, max_len=max(max(lens) * 2, 10), obs_lens=lens,
                                  elem_known=bool(elems), permutation=permutation_base(vals),
                                  min_len_stated=hints.non_empty), w))
        elif kind == "dict":
            keys = [k for v in vals for k in v.keys()]
            vs = [x for v in vals for x in v.values()]
            lens = [len(v) for v in vals]
            opts.append((DictSpec(key=infer_spec(keys, Hints(), depth + 1), val=infer_spec(vs, Hints(), depth + 1),
                                  min_len=min(lens), max_len=max(max(lens) * 2, 4)), w))
    if len(opts) == 1:
        return opts[0][0]
    return UnionSpec(options=[o for o, _ in opts], weights=[w for _, w in opts])


def _numbers(values: list[Any]) -> list[float]:
    out: list[float] = []
    for v in values:
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            out.append(float(v))
        elif isinstance(v, list):
            out += _numbers(v)
    return out


def apply_bound(spec: Spec, b: Any, seen: list[Any]) -> None:
    """Narrow (or, up to what the statement allows, widen) a spec by a docstring bound, but only
    when every seed value already satisfies the bound: a bound the examples break was misread."""
    if b.lo is not None and b.hi is not None and b.lo > b.hi:
        return
    nums = _numbers(seen)
    if (b.lo is not None or b.hi is not None or b.hi_unread) and nums:
        if all((b.lo is None or x >= b.lo) and (b.hi is None or x <= b.hi) for x in nums):
            target = spec
            while isinstance(target, ListSpec):  # every element's, at any depth ("grid[i][j]")
                target = target.elem
            if isinstance(target, IntSpec):
                if b.lo is not None:
                    target.lo, target.lo_stated = int(b.lo), True
                if b.hi is not None:
                    target.hi, target.stated = int(b.hi), True
                elif b.hi_unread:  # an upper end stated in words: no further than the seeds
                    target.hi, target.stated = int(max(nums)), True
                target.hi = max(target.hi, target.lo)
            elif isinstance(target, FloatSpec):
                if b.positive:
                    target.lo = max(target.lo, 10.0 ** -target.decimals)  # positive: zero is outside
                elif b.lo is not None:
                    target.lo = float(b.lo)
                target.lo_stated = target.lo_stated or b.positive or b.lo is not None
                if b.hi is not None:
                    target.hi = float(b.hi)
                elif b.hi_unread:
                    target.hi = max(nums)
    if (b.length_lo is not None or b.length_hi is not None) and isinstance(spec, (ListSpec, StrSpec)):
        lens = [len(v) for v in seen if isinstance(v, (list, str))]
        if lens and all((b.length_lo is None or n >= b.length_lo) and (b.length_hi is None or n <= b.length_hi)
                        for n in lens):
            if b.length_lo is not None:
                spec.min_len, spec.min_len_stated = int(b.length_lo), True
            if b.length_hi is not None:
                spec.max_len = max(spec.min_len, int(b.length_hi))
                if isinstance(spec, ListSpec):
                    spec.stress_len = min(spec.max_len, 10_000)
