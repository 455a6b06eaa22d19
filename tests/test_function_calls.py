"""Function-call tasks end to end: the return value travels on the jail's private descriptor.

Nothing the program prints on stdout is read as its result (a forged marker followed by an
immediate exit used to win), what it returns is read with bounded size and depth, and the
verdict is always the program's own (AC / WA / RE / a limit), never SE.
"""

from __future__ import annotations

import pytest

from sandbox import Limits, RunRequest, TestCase, Verdict

OLD_MARKER = "\x1e@@codetest-result@@"


def _call(sb, code: str, expected, args=(), **limits):
    res = sb.run(RunRequest(language="python", code=code, entry_point="f",
                            tests=[TestCase(args=list(args), expected=expected)], limits=Limits(**limits)))
    return res.tests[0]


def test_a_forged_result_on_stdout_then_exit_is_not_a_result(sandbox):
    code = ("import os, sys\n"
            "def f():\n"
            f"    sys.stdout.write({OLD_MARKER!r} + '42\\n'); sys.stdout.flush()\n"
            "    os._exit(0)\n")
    t = _call(sandbox, code, 42)
    assert t.verdict == Verdict.WA and "returned nothing" in (t.message or ""), t


def test_printing_does_not_disturb_the_result_and_stays_visible(sandbox):
    code = "def f(a, b):\n    print('thinking', a, b)\n    return a + b\n"
    t = _call(sandbox, code, 5, (2, 3))
    assert t.verdict == Verdict.AC and t.stdout == "5", t


def test_writing_on_the_result_descriptor_itself_is_the_programs_own_answer(sandbox):
    # The program can reach fd 3 (it is its own process); garbage there is its wrong answer.
    code = "import os\ndef f():\n    os.write(3, b'garbage ')\n    return 1\n"
    t = _call(sandbox, code, 1)
    assert t.verdict == Verdict.WA, t
    closed = _call(sandbox, "import os\ndef f():\n    os.close(3)\n    return 1\n", 1)
    assert closed.verdict in (Verdict.RE, Verdict.WA), closed


def test_a_result_over_the_output_limit_is_wa_not_se(sandbox):
    t = _call(sandbox, "def f():\n    return 'x' * (2 << 20)\n", "x", output_kb=1024, memory_mb=512)
    assert t.verdict in (Verdict.WA, Verdict.OLE), t


@pytest.mark.parametrize("ret,expected,verdict", [
    ("10**400", 10 ** 400, Verdict.AC), ("10**5000", 10 ** 5000, Verdict.AC), ("10**400", 1.5, Verdict.WA),
    ("float('nan')", 1.0, Verdict.WA), ("(1, [2, {3}])", [1, [2, [3]]], Verdict.AC), ("True", 1, Verdict.WA),
], ids=["bigint", "5000-digit-int", "bigint-for-float", "nan-for-float", "tuple-set", "bool-for-int"])
def test_values(sandbox, ret, expected, verdict):
    t = _call(sandbox, f"def f():\n    return {ret}\n", expected)
    assert t.verdict == verdict, t


def test_the_solution_is_compiled_as_its_own_module(sandbox):
    # An annotation naming an undefined name raises, as under `python3 prog.py` (no inherited futures).
    code = "def f() -> UndefinedName:\n    return 1\n"
    assert _call(sandbox, code, 1).verdict == Verdict.RE
