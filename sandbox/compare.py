"""Judging an output: exact, whitespace-insensitive, float tolerance, and values of function calls."""

from __future__ import annotations

import math
from typing import Any


def exact(out: str, expected: str) -> bool:
    return out == expected


def whitespace(out: str, expected: str) -> bool:
    """Token-wise: any run of whitespace equals any other (the Kattis default diff)."""
    return out.split() == expected.split()


def _num(tok: str) -> float | None:
    try:
        v = float(tok)
    except ValueError:
        return None
    return v


def floats_close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol or abs(a - b) <= tol * abs(b)


def float_tokens(out: str, expected: str, tol: float) -> bool:
    """Token-wise; a numeric expected token accepts any number within absolute or relative tol."""
    got, want = out.split(), expected.split()
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if g == w:
            continue
        wv, gv = _num(w), _num(g)
        if wv is None or gv is None or not floats_close(gv, wv, tol):
            return False
    return True


def compare_output(mode: str, out: str, expected: str, tol: float) -> bool:
    if mode == "exact":
        return exact(out, expected)
    if mode == "float":
        return float_tokens(out, expected, tol)
    return whitespace(out, expected)


def values_equal(got: Any, want: Any, tol: float) -> bool:
    """Equality of JSON-shaped values; floats within tolerance (EvalPlus-like: abs or 1e-7 relative)."""
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want and isinstance(got, bool) == isinstance(want, bool)
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if isinstance(want, int) and isinstance(got, int):
            return got == want
        return got == want or floats_close(float(got), float(want), tol) or (
            not math.isnan(float(want)) and math.isclose(float(got), float(want), rel_tol=1e-7, abs_tol=tol))
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(values_equal(g, w, tol) for g, w in zip(got, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(values_equal(got[k], want[k], tol) for k in want)
    return got == want
