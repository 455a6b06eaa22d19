"""Issue 11, finding 7: comparison is defined precisely (as testlib and Kattis define it).

Whitespace mode: only ASCII whitespace separates tokens (not NBSP, the Unicode separators or the
\\x1c-\\x1f "separators" Python's str.split() honours). Invalid UTF-8 is compared as bytes, never
decoded to U+FFFD first. Float mode: a strict decimal grammar (no ``1_000_000``, no ``inFinity``
spelling games), integers compared exactly (``1000001`` is not ``1000000`` whatever the tolerance).
Each case is a real program's output judged end to end.
"""

from __future__ import annotations

import pytest

from sandbox import RunRequest, TestCase, Verdict


def _judge(sb, out: bytes, expected: str, mode: str, tol: float = 1e-6) -> Verdict:
    code = f"import sys\nsys.stdout.buffer.write({out!r})\n"
    res = sb.run(RunRequest(language="python", code=code, compare=mode, float_tol=tol,
                            tests=[TestCase(stdin="", expected_stdout=expected)]))
    return res.tests[0].verdict


WHITESPACE_CASES = [
    # (program output, expected, verdict)
    (b"1 2\n", "1 2\n", Verdict.AC),
    (b"1\t2\r\n", "1 2\n", Verdict.AC),
    (b"  1   2  \n\n\n", "1 2", Verdict.AC),
    (b"1\xc2\xa02\n", "1 2\n", Verdict.WA),          # NBSP
    (b"1\xe2\x80\x83" + b"2\n", "1 2\n", Verdict.WA),  # EM SPACE
    (b"1\xe3\x80\x80" + b"2\n", "1 2\n", Verdict.WA),  # IDEOGRAPHIC SPACE
    (b"1\xe2\x80\xa8" + b"2\n", "1 2\n", Verdict.WA),  # LINE SEPARATOR
    (b"1\xc2\x85" + b"2\n", "1 2\n", Verdict.WA),      # NEL
    (b"1\x1c2\n", "1 2\n", Verdict.WA),
    (b"1\x1d2\n", "1 2\n", Verdict.WA),
    (b"1\x1e2\n", "1 2\n", Verdict.WA),
    (b"1\x1f2\n", "1 2\n", Verdict.WA),
    (b"\xff\n", "\ufffd\n", Verdict.WA),              # invalid UTF-8 is not U+FFFD
    (b"a\xfe\xffb\n", "a\ufffd\ufffdb\n", Verdict.WA),
    (b"\xc3\xa9\n", "\u00e9\n", Verdict.AC),          # valid UTF-8 is text
]


@pytest.mark.parametrize("out,expected,verdict", WHITESPACE_CASES)
def test_whitespace_mode_is_ascii_only(sandbox, out, expected, verdict):
    assert _judge(sandbox, out, expected, "whitespace") == verdict


@pytest.mark.parametrize("out,expected", [(b"\xff\n", "\ufffd\n"), (b"x\x80y", "x\ufffdy")])
def test_exact_mode_compares_bytes(sandbox, out, expected):
    assert _judge(sandbox, out, expected, "exact") == Verdict.WA


FLOAT_CASES = [
    (b"1_000_000\n", "1000000\n", Verdict.WA),
    (b"1_0.5\n", "10.5\n", Verdict.WA),
    (b"inFinity\n", "inf\n", Verdict.WA),
    (b"Infinity\n", "inf\n", Verdict.WA),
    (b"nan\n", "NaN\n", Verdict.WA),
    (b"1000001\n", "1000000\n", Verdict.WA),          # integers are exact
    (b"100000000000000000001\n", "100000000000000000000\n", Verdict.WA),
    (b"0x10\n", "16\n", Verdict.WA),
    (b"\xd9\xa1\n", "1\n", Verdict.WA),               # ARABIC-INDIC DIGIT ONE is not a decimal digit here
    (b"\xef\xbc\x91\n", "1\n", Verdict.WA),           # FULLWIDTH DIGIT ONE
    (b"0.3333334\n", "0.3333333\n", Verdict.AC),      # within 1e-6
    (b"0.334\n", "0.3333333\n", Verdict.WA),
    (b"2.5 abc\n", "2.5000001 abc\n", Verdict.AC),
    (b"2.5 abd\n", "2.5 abc\n", Verdict.WA),
]


@pytest.mark.parametrize("out,expected,verdict", FLOAT_CASES)
def test_float_mode_grammar_is_strict(sandbox, out, expected, verdict):
    assert _judge(sandbox, out, expected, "float") == verdict
