"""Values of function-call tests: canonical keys for dedupe, comparison with float tolerance.

Comparison follows EvalPlus (what labelled the HumanEval data): exact equality, else for
floats (and lists of them) closeness within ``atol`` plus a tiny relative slack.
"""

from __future__ import annotations

import json
import math
from typing import Any


def canonical_key(value: Any) -> str:
    """A string that is equal for equal JSON values (bool and int kept apart)."""
    return json.dumps(_tag(value), sort_keys=True, separators=(",", ":"), allow_nan=True)


def _tag(v: Any) -> Any:
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, float):
        return ["f", repr(v)]
    if isinstance(v, dict):
        return {str(k): _tag(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_tag(x) for x in v]
    return v


def values_equal(a: Any, b: Any, atol: float = 1e-6, rtol: float = 1e-7) -> bool:
    """Equal by value; floats within tolerance; bool is not a number here (True != 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        if math.isinf(fa) or math.isinf(fb):
            return fa == fb
        return abs(fa - fb) <= atol + rtol * abs(fb)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(values_equal(x, y, atol, rtol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k], atol, rtol) for k in a)
    return type(a) is type(b) and a == b


def json_size(value: Any) -> int:
    """Rough size of a value once written as JSON (used to bound test sizes)."""
    try:
        return len(json.dumps(value))
    except (TypeError, ValueError):
        return 1 << 30
