"""Issue 11, finding 6: a function-call program cannot choose SE.

Whatever the function returns or prints (10**400 where a float is expected, a forged result
marker followed by 200,000 ``[``, deep nesting, huge strings, NaN, objects that fail to encode),
the verdict is the program's own (AC, WA, RE, or a limit: TLE/MLE/OLE), never SE: the reward
endpoint turns SE into ``reward: null``, which a trainer treats as the service's failure. Also
through the HTTP reward endpoint: the reward is a number, never null.
"""

from __future__ import annotations

import math

import httpx
import pytest

from sandbox import Limits, RunRequest, TestCase, Verdict
from api.app import create_app
from api.testing import serve_in_thread

SENTINEL = "\x1e@@codetest-result@@"
PROGRAM_VERDICTS = {Verdict.AC, Verdict.WA, Verdict.RE, Verdict.TLE, Verdict.MLE, Verdict.OLE}

CASES = {
    # name: (solution code, expected value, the verdicts that are right)
    "bigint_for_float": ("def f():\n    return 10**400\n", 1.5, {Verdict.WA}),
    "bigint_for_bigint": ("def f():\n    return 10**400\n", 10**400, {Verdict.AC}),
    "huge_negative_for_float": ("def f():\n    return -10**400\n", -1e308, {Verdict.WA}),
    "float_for_bigint": ("def f():\n    return 1e308\n", 10**400, {Verdict.WA}),
    "forged_marker_atexit": (
        "import atexit, sys\n"
        f"atexit.register(lambda: sys.stdout.write({SENTINEL!r} + '[' * 200000 + '\\n'))\n"
        "def f():\n    return 1\n", 1, {Verdict.AC, Verdict.WA}),
    "forged_marker_printed_after_return": (
        "import os, sys, threading, time\n"
        "def late():\n"
        f"    time.sleep(0.2); sys.stdout.write({SENTINEL!r} + '[' * 200000 + '\\n'); sys.stdout.flush()\n"
        "def f():\n    threading.Thread(target=late).start()\n    return 1\n", 1, {Verdict.AC, Verdict.WA}),
    "forged_marker_with_answer": (
        "import atexit, sys\n"
        f"atexit.register(lambda: sys.stdout.write({SENTINEL!r} + '42\\n'))\n"
        "def f():\n    return 0\n", 42, {Verdict.WA}),
    "deep_nesting": ("def f():\n    x = []\n    for _ in range(200000):\n        x = [x]\n    return x\n", [],
                     {Verdict.WA, Verdict.RE}),
    "deep_dict_nesting": ("def f():\n    x = {}\n    for _ in range(100000):\n        x = {'a': x}\n    return x\n",
                          {}, {Verdict.WA, Verdict.RE}),
    "huge_string": ("def f():\n    return 'x' * (64 << 20)\n", "x", {Verdict.WA, Verdict.RE, Verdict.OLE, Verdict.MLE}),
    "nan_for_float": ("def f():\n    return float('nan')\n", 1.0, {Verdict.WA}),
    "inf_for_float": ("def f():\n    return float('inf')\n", 1.0, {Verdict.WA}),
    "bad_repr": ("class X:\n    def __repr__(self):\n        raise ValueError('no')\n"
                 "def f():\n    return X()\n", 1, {Verdict.WA, Verdict.RE}),
    "huge_int_digits": ("def f():\n    return 10**100000\n", 1, {Verdict.WA, Verdict.RE}),
    "closes_stdout": ("import os\ndef f():\n    os.close(1)\n    return 1\n", 1, {Verdict.AC, Verdict.RE, Verdict.WA}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_function_call_result_is_never_se(sandbox, case):
    code, expected, right = CASES[case]
    res = sandbox.run(RunRequest(language="python", code=code, entry_point="f",
                                 tests=[TestCase(args=[], expected=expected)],
                                 limits=Limits(time_s=5, wall_time_s=20, memory_mb=512)))
    t = res.tests[0]
    assert t.verdict != Verdict.SE, f"{case}: SE ({t.message})"
    assert t.verdict in right, (case, t.verdict, t.message, t.stderr[-1000:])


def test_nan_equals_nan_and_returns_are_exact(sandbox):
    res = sandbox.run(RunRequest(language="python", code="def f(x):\n    return x\n", entry_point="f",
                                 tests=[TestCase(args=[3], expected=3), TestCase(args=[3], expected=4),
                                        TestCase(args=[1000001], expected=1000000)]))
    assert [t.verdict for t in res.tests] == [Verdict.AC, Verdict.WA, Verdict.WA]
    nan = sandbox.run(RunRequest(language="python", code="def f():\n    return float('nan')\n", entry_point="f",
                                 tests=[TestCase(args=[], expected=math.nan)]))
    assert nan.tests[0].verdict in (Verdict.AC, Verdict.WA)  # a policy choice, but never SE


def test_reward_endpoint_never_null_for_what_a_program_returns(sandbox):
    with serve_in_thread(create_app(sandbox)) as url:
        items = []
        for name in ("bigint_for_float", "forged_marker_atexit", "deep_nesting", "nan_for_float"):
            code, expected, _ = CASES[name]
            items.append({"code": code, "language": "python", "entry_point": "f",
                          "limits": {"time_s": 5, "wall_time_s": 20, "memory_mb": 512},
                          "tests": [{"args": [], "expected": expected}]})
        r = httpx.post(url + "/v1/reward", json={"items": items}, timeout=300)
        assert r.status_code == 200, r.text[:2000]
        results = r.json()["results"]
        assert [x["reward"] for x in results] == [0.0, 1.0, 0.0, 0.0], results
