"""Judging an output, defined precisely (the rules are written out in docs/api.md, "Comparison").

Outputs are compared as **bytes**: invalid UTF-8 is never decoded (no U+FFFD), so two
different byte strings never compare equal because both failed to decode.

- ``exact``: the bytes are identical.
- ``whitespace`` (the default, as Kattis' default validator and testlib's ``wcmp``): both
  outputs split into tokens on runs of ASCII whitespace only (space, ``\\t``, ``\\n``,
  ``\\v``, ``\\f``, ``\\r``); the token lists must be identical byte for byte. Unicode
  separators (U+00A0, U+2028, ...) and ``\\x1c``-``\\x1f`` are part of tokens.
- ``float``: tokens as above. A token pair where both are **integers** (``[+-]?[0-9]+``)
  compares exactly as integers (``007`` equals ``7``, ``-0`` equals ``0``) unless the job asks
  for ``integer_tolerance``. A pair where both are **decimal numbers** by the strict grammar
  ``[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?`` (no ``_``, no hex, no ``inf``/``nan``,
  no surrounding text) compares within ``tol``: absolute ``|a-b| <= tol`` or relative
  ``|a-b| <= tol*|b|`` where ``b`` is the expected value. Every other pair (``nan``, ``inf``,
  words) must be identical bytes: an expected ``inf`` is accepted only by the token ``inf``.

- ``unordered`` (answers that may come in any order): the output's non-empty lines as a
  multiset, each line compared as ``whitespace`` compares a whole output.

Function-call values (``values_equal``): bools only equal bools, ints equal ints exactly, a
float on either side compares within ``tol`` (absolute, or relative 1e-7 or ``tol``); NaN equals
NaN, infinities equal only themselves; an int too large for a float never equals a float.
Lists, tuples (as lists) and dicts compare element-wise. With ``unordered`` the top-level list
is a multiset (``values_equal_unordered``): the same elements, each matched once, in any order;
nested lists keep their order.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Union

Text = Union[str, bytes]

_INTEGER = re.compile(rb"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def as_bytes(text: Text) -> bytes:
    """Outputs travel as bytes; a str (a test file's expected output) is encoded as UTF-8, its
    lone surrogates (bytes that were not UTF-8 when read with surrogateescape) restored."""
    return text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")


def exact(out: Text, expected: Text) -> bool:
    return as_bytes(out) == as_bytes(expected)


def tokens(text: Text) -> list[bytes]:
    """Tokens between runs of ASCII whitespace (``bytes.split()`` splits on exactly those six)."""
    return as_bytes(text).split()


_TOKEN = re.compile(rb"[^ \t\n\r\x0b\x0c]+")
# Above this size tokens are compared one at a time: a list of millions of one-byte tokens
# would take ~40 bytes of memory per byte of output.
STREAM_ABOVE = 1 << 20


def _token_pairs(out: bytes, expected: bytes):
    """(got, want) token pairs; a None on one side when the other has more tokens."""
    if len(out) <= STREAM_ABOVE and len(expected) <= STREAM_ABOVE:
        got, want = out.split(), expected.split()
        if len(got) != len(want):
            yield None, b""
            return
        yield from zip(got, want)
        return
    a, b = _TOKEN.finditer(out), _TOKEN.finditer(expected)
    while True:
        ga, wb = next(a, None), next(b, None)
        if ga is None and wb is None:
            return
        if ga is None or wb is None:
            yield None, b""
            return
        yield ga.group(), wb.group()


def whitespace(out: Text, expected: Text) -> bool:
    o, e = as_bytes(out), as_bytes(expected)
    if len(o) <= STREAM_ABOVE and len(e) <= STREAM_ABOVE:
        return o.split() == e.split()
    return all(g == w for g, w in _token_pairs(o, e))


def _integer_digits(tok: bytes) -> bytes:
    """A canonical form of an integer token: sign only when non-zero, no leading zeros."""
    neg = tok[:1] == b"-"
    digits = tok.lstrip(b"+-").lstrip(b"0") or b"0"
    return (b"-" if neg and digits != b"0" else b"") + digits


def floats_close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol or abs(a - b) <= tol * abs(b)


def _decimals_close(got: bytes, want: bytes, tol: float) -> bool:
    a, b = float(got), float(want)
    if not (math.isinf(a) or math.isinf(b)):
        return abs(a - b) <= tol or abs(a - b) <= tol * abs(b)
    # A finite token beyond float range: compare exactly in decimal arithmetic.
    try:
        da, db = Decimal(got.decode()), Decimal(want.decode())
        diff = abs(da - db)
        return diff <= Decimal(tol) or diff <= Decimal(tol) * abs(db)
    except (InvalidOperation, ArithmeticError):
        return False


def token_equal(got: bytes, want: bytes, tol: float, integer_tolerance: bool = False) -> bool:
    if got == want:
        return True
    if _INTEGER.match(want) and _INTEGER.match(got) and not integer_tolerance:
        return _integer_digits(got) == _integer_digits(want)
    if _DECIMAL.match(want) and _DECIMAL.match(got):
        return _decimals_close(got, want, tol)
    return False


def float_tokens(out: Text, expected: Text, tol: float, integer_tolerance: bool = False) -> bool:
    return all(g is not None and token_equal(g, w, tol, integer_tolerance)
               for g, w in _token_pairs(as_bytes(out), as_bytes(expected)))


def compare_output(mode: str, out: Text, expected: Text, tol: float, integer_tolerance: bool = False,
                   case_sensitive: bool = True) -> bool:
    """Whether ``out`` is accepted against ``expected`` under ``mode``. ``case_sensitive`` False:
    the token modes compare ASCII letters regardless of case (Kattis' default validator unless
    its problem says ``case_sensitive``); ``exact`` stays byte for byte."""
    if mode == "exact":
        return exact(out, expected)
    if not case_sensitive:
        out, expected = as_bytes(out).lower(), as_bytes(expected).lower()
    if mode == "float":
        return float_tokens(out, expected, tol, integer_tolerance)
    if mode == "unordered":
        return lines_unordered(out, expected)
    return whitespace(out, expected)


def _line_tokens(text: Text) -> list[tuple[bytes, ...]]:
    return sorted(t for t in (tuple(tokens(line)) for line in as_bytes(text).split(b"\n")) if t)


def lines_unordered(out: Text, expected: Text) -> bool:
    """The non-empty lines of both outputs, each as its tokens, are the same multiset."""
    return _line_tokens(out) == _line_tokens(expected)


def values_equal(got: Any, want: Any, tol: float) -> bool:
    """Equality of JSON-shaped values (see the module docstring); never raises on odd values."""
    try:
        return _values_equal(got, want, tol)
    except (RecursionError, OverflowError, ValueError, TypeError):
        return False


def _canonical(v: Any) -> str:
    import json

    return json.dumps(v, sort_keys=True, default=repr)


UNORDERED_MATCHING_MAX = 300  # elements: a pairwise matching (tolerance-aware) below this size


def values_equal_unordered(got: Any, want: Any, tol: float) -> bool:
    """``values_equal`` with the top-level list taken as a multiset (answers "in any order")."""
    if not (isinstance(got, list) and isinstance(want, list)):
        return values_equal(got, want, tol)
    if len(got) != len(want):
        return False
    try:
        g, w = sorted(got, key=_canonical), sorted(want, key=_canonical)
    except (RecursionError, ValueError, TypeError):
        return False
    if values_equal(g, w, tol):
        return True
    if len(want) > UNORDERED_MATCHING_MAX:
        return False
    # floats within tolerance may sort differently: match each expected element once
    free = list(range(len(got)))
    for x in want:
        k = next((j for j in free if values_equal(got[j], x, tol)), None)
        if k is None:
            return False
        free.remove(k)
    return True


def _values_equal(got: Any, want: Any, tol: float) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want and isinstance(got, bool) == isinstance(want, bool)
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if isinstance(want, int) and isinstance(got, int):
            return got == want
        try:
            g, w = float(got), float(want)
        except OverflowError:  # an int beyond float range is no float's equal
            return False
        return g == w or floats_close(g, w, tol) or (
            not math.isnan(w) and math.isclose(g, w, rel_tol=1e-7, abs_tol=tol))
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_values_equal(g, w, tol) for g, w in zip(got, want))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(_values_equal(got[k], want[k], tol) for k in want)
    return got == want
