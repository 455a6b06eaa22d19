"""Issue 11, finding 3: the compile cache cannot be poisoned, and a compile cannot block on a device.

A request with a tiny compile limit on a known source (a gold solution, a public checker) must
not make that source CE, or its checker "failed to compile" (SE), for everyone after it: only
successful compiles and deterministic compiler rejections may be cached. A C/C++ compile of
``#include "/dev/stdout"`` (or stdin, zero, a /proc fd) must come back as CE (or an empty include) well before
the compile wall, never as a timeout, and it must not leave a cached failure behind for good code.
"""

from __future__ import annotations

import time
import uuid

import pytest

from sandbox import Checker, CheckerCompare, Limits, RunRequest, TestCase, Verdict

CPP_SUM = """#include <iostream>
// {tag}
int main() {{ long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }}
"""

CPP_CHECKER = """#include <fstream>
// {tag}
int main(int argc, char **argv) {{
    std::ifstream out(argv[2]), ans(argv[3]);
    long a = 0, b = 1; out >> a; ans >> b; return a == b ? 0 : 1;
}}
"""


def _sum_request(code: str, **limits) -> RunRequest:
    return RunRequest(language="cpp", code=code, tests=[TestCase(stdin="2 3\n", expected_stdout="5\n")],
                      limits=Limits(**limits))


def test_a_compile_timeout_is_not_cached(sandbox):
    if "cpp" not in sandbox.toolchains:
        pytest.skip("no C++ toolchain")
    code = CPP_SUM.format(tag=uuid.uuid4().hex)
    poisoned = sandbox.run(_sum_request(code, compile_time_s=0.01))
    assert poisoned.verdict != Verdict.SE, poisoned
    normal = sandbox.run(_sum_request(code))
    assert normal.verdict == Verdict.AC, (normal.verdict, normal.compile)
    assert normal.passed == 1


def test_a_checker_cannot_be_poisoned_through_a_program_request(sandbox):
    if "cpp" not in sandbox.toolchains:
        pytest.skip("no C++ toolchain")
    checker = CPP_CHECKER.format(tag=uuid.uuid4().hex)
    # The attacker submits the public checker's source as its own program with a tiny compile limit.
    sandbox.run(RunRequest(language="cpp", code=checker, tests=[TestCase(stdin="")],
                           limits=Limits(compile_time_s=0.01)))
    req = RunRequest(language="python", code="print(int(input()) * 2)",
                     tests=[TestCase(stdin="21\n", expected_stdout="42\n"), TestCase(stdin="2\n", expected_stdout="5\n")],
                     compare=CheckerCompare(checker=Checker(language="cpp", code=checker)))
    res = sandbox.run(req)
    assert res.verdict == Verdict.WA and [t.verdict for t in res.tests] == [Verdict.AC, Verdict.WA], res


DEVICES = ["/dev/stdout", "/dev/stdin", "/dev/zero", "/proc/self/fd/0"]


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("device", DEVICES)
def test_including_a_device_is_a_quick_ce(sandbox, language, device):
    if language not in sandbox.toolchains:
        pytest.skip(f"no {language} toolchain")
    code = f'#include "{device}"\n/* {uuid.uuid4().hex} */\nint main(void) {{ return 0; }}\n'
    for attempt in range(2):  # the second is served by the cache or compiled again: either way quick
        t0 = time.monotonic()
        res = sandbox.run(RunRequest(language=language, code=code, tests=[TestCase(stdin="")],
                                     limits=Limits(compile_time_s=10)))
        took = time.monotonic() - t0
        # Reading a device as a source is refused (CE) or finds nothing to block on (an empty include
        # compiles): either way at once, never a wait for the wall.
        assert res.verdict in (Verdict.CE, Verdict.AC), res
        assert took < 12, f"{device}: the compile blocked for {took:.1f}s (compile wall 16 s)"
        assert "timed out" not in (res.compile.stderr if res.compile else ""), res.compile
    # Good code right after: unaffected.
    ok = sandbox.run(RunRequest(language=language, code="int main(void) { return 0; }\n", tests=[TestCase(stdin="")]))
    assert ok.verdict == Verdict.AC, ok
