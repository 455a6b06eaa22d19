"""The comparison rules of docs/api.md ("Comparison"), one test per rule, on sandbox.compare directly."""

from __future__ import annotations

import math

import pytest

from sandbox import compare as cmp


# -- bytes, not decoded text

def test_outputs_are_bytes_invalid_utf8_is_never_u_fffd():
    assert not cmp.exact(b"\xff", "\ufffd")
    assert not cmp.whitespace(b"a\xfe\xffb", "a\ufffd\ufffdb")
    assert cmp.exact(b"\xc3\xa9", "\u00e9")  # valid UTF-8 is the same text
    # A test file read with surrogateescape keeps its invalid bytes: they match themselves.
    assert cmp.exact(b"\xff\n", b"\xff\n".decode("utf-8", "surrogateescape"))


# -- whitespace mode

@pytest.mark.parametrize("sep", [b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b" \r\n\t "])
def test_whitespace_splits_on_the_six_ascii_whitespace_bytes(sep):
    assert cmp.whitespace(b"1" + sep + b"2", "1 2")


@pytest.mark.parametrize("sep", ["\u00a0", "\u2003", "\u3000", "\u2028", "\u0085", "\x1c", "\x1d", "\x1e", "\x1f"])
def test_whitespace_does_not_split_on_unicode_separators_or_x1c_x1f(sep):
    assert not cmp.whitespace(("1" + sep + "2").encode(), "1 2")


def test_whitespace_ignores_leading_trailing_and_repeated_whitespace():
    assert cmp.whitespace(b"  1   2  \n\n\n", "1 2")
    assert not cmp.whitespace(b"1 2 3", "1 2")
    assert not cmp.whitespace(b"12", "1 2")


def test_whitespace_streams_large_outputs_with_the_same_rules():
    big = b"7 " * (cmp.STREAM_ABOVE)  # 2 MiB: compared token by token
    assert cmp.whitespace(big, big.replace(b" ", b"\n"))
    assert not cmp.whitespace(big + b"8", big)
    assert not cmp.whitespace(big, big + b"8")
    assert not cmp.whitespace(big.replace(b" ", b"\xc2\xa0"), big)


# -- exact mode

def test_exact_is_byte_identity():
    assert cmp.exact(b"1 2\n", "1 2\n")
    assert not cmp.exact(b"1 2", "1 2\n")
    assert not cmp.exact(b"1  2\n", "1 2\n")


# -- float mode

@pytest.mark.parametrize("tok", ["1_000_000", "1_0.5", "inFinity", "Infinity", "inf", "nan", "NaN", "0x10",
                                 "1e", "e5", ".", "+", "1.0f", "\u0661", "\uff11", " 1"])
def test_float_grammar_rejects_everything_but_plain_decimals(tok):
    assert not cmp._DECIMAL.match(tok.encode())


@pytest.mark.parametrize("tok", ["1", "-1", "+1", "1.", ".5", "1.5", "1e5", "1E-5", "-0.0", "007"])
def test_float_grammar_accepts_plain_decimals(tok):
    assert cmp._DECIMAL.match(tok.encode())


def test_integers_are_exact_unless_asked():
    assert not cmp.float_tokens(b"1000001", "1000000", 1e-6)
    assert cmp.float_tokens(b"1000001", "1000000", 1e-6, integer_tolerance=True)
    assert not cmp.float_tokens(b"100000000000000000001", "100000000000000000000", 1e-6)
    assert cmp.float_tokens(b"007 -0 +5", "7 0 5", 1e-6)  # the same integers


def test_a_decimal_on_either_side_compares_within_tolerance():
    assert cmp.float_tokens(b"0.3333334", "0.3333333", 1e-6)
    assert not cmp.float_tokens(b"0.334", "0.3333333", 1e-6)
    assert cmp.float_tokens(b"1000000.0", "1000000", 1e-6)  # '.' on one side: a float pair
    assert cmp.float_tokens(b"2000000.5", "2000000", 1e-6)  # relative to the expected value
    assert not cmp.float_tokens(b"2000003", "2000000.0", 1e-6)


def test_non_numbers_must_match_exactly_including_nan_and_inf():
    assert cmp.float_tokens(b"inf nan abc", "inf nan abc", 1e-6)
    assert not cmp.float_tokens(b"Infinity", "inf", 1e-6)
    assert not cmp.float_tokens(b"nan", "NaN", 1e-6)
    assert not cmp.float_tokens(b"2.5 abd", "2.5 abc", 1e-6)


def test_decimals_beyond_float_range_compare_exactly_not_as_infinity():
    assert not cmp.float_tokens(b"1e400", "1e401", 1e-6)
    assert cmp.float_tokens(b"1.0000000001e400", "1e400", 1e-6)


# -- function-call values

def test_values_equal_rules():
    assert cmp.values_equal(3, 3, 1e-6) and not cmp.values_equal(1000001, 1000000, 1e-6)
    assert not cmp.values_equal(True, 1, 1e-6) and not cmp.values_equal(1, True, 1e-6)
    assert cmp.values_equal(0.1 + 0.2, 0.3, 1e-6)
    assert cmp.values_equal(math.nan, math.nan, 1e-6)
    assert not cmp.values_equal(math.inf, 1.0, 1e-6) and cmp.values_equal(math.inf, math.inf, 1e-6)
    assert not cmp.values_equal(10 ** 400, 1.5, 1e-6)  # no OverflowError
    assert cmp.values_equal(10 ** 400, 10 ** 400, 1e-6)
    assert cmp.values_equal([1, {"a": 2.0}], [1, {"a": 2}], 1e-6)
    assert not cmp.values_equal({"a": 1}, {"b": 1}, 1e-6)


def test_values_equal_never_raises_on_deep_values():
    deep = []
    for _ in range(100000):
        deep = [deep]
    assert cmp.values_equal(deep, [], 1e-6) is False


# -- case: Kattis' default validator ignores it unless the problem says case_sensitive

@pytest.mark.parametrize("mode", ["whitespace", "float", "unordered"])
def test_case_insensitive_token_modes_ignore_the_case_of_letters_only(mode):
    assert not cmp.compare_output(mode, b"YES\n", b"yes\n", 1e-6)
    assert cmp.compare_output(mode, b"YES\n", b"yes\n", 1e-6, case_sensitive=False)
    assert cmp.compare_output(mode, b"Impossible 1E3\n", b"impossible 1e3\n", 1e-6, case_sensitive=False)
    assert not cmp.compare_output(mode, b"yes 2\n", b"yes 3\n", 1e-6, case_sensitive=False)
    # only ASCII letters fold: other bytes stay themselves
    assert not cmp.compare_output(mode, "\u00c9\n".encode(), "\u00e9\n".encode(), 1e-6, case_sensitive=False)


def test_exact_stays_byte_for_byte_whatever_the_case_flag():
    assert not cmp.compare_output("exact", b"YES\n", b"yes\n", 1e-6, case_sensitive=False)
