"""SandboxFusion's files / fetch_files on every backend under test (CODETEST_TEST_BACKENDS), through
the library: files reach the compile step and the run, fetched files come back, and what the
program plants to read the host (links, FIFOs, '..') is never followed."""

from __future__ import annotations

import base64

from sandbox import Limits, RunRequest, TestCase, Verdict


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_files_in_and_fetch_files_out(sandbox):
    code = ("import helper, os\ndata = open('data/in.bin', 'rb').read()\nopen('out.bin', 'wb').write(data[::-1])\n"
            "os.makedirs('deep/er', exist_ok=True)\nopen('deep/er/x.txt', 'w').write('x')\nprint(helper.X)\n")
    res = sandbox.run(RunRequest(language="python", code=code, tests=[TestCase(expected_stdout="7\n")],
                                 files={"data/in.bin": _b64(bytes(range(256))), "helper.py": _b64(b"X = 7\n")},
                                 fetch_files=["out.bin", "deep/er/x.txt", "missing"], limits=Limits(time_s=5)))
    t = res.tests[0]
    assert res.verdict == Verdict.AC, t
    assert t.files == {"out.bin": _b64(bytes(range(256))[::-1]), "deep/er/x.txt": _b64(b"x")}


def test_files_reach_the_compile_step(sandbox):
    code = '#include "consts.h"\n#include <cstdio>\nint main(){ std::printf("%d\\n", ANSWER); }'
    res = sandbox.run(RunRequest(language="cpp", code=code, files={"consts.h": _b64(b"#define ANSWER 42\n")},
                                 tests=[TestCase(expected_stdout="42\n")]))
    assert res.verdict == Verdict.AC, (res.compile, res.tests)


def test_fetch_never_follows_what_the_program_planted(sandbox):
    code = ("import os\nos.symlink('/etc/passwd', 'leak')\nos.mkdir('d')\nos.symlink('/etc', 'd/e')\n"
            "os.symlink('/etc', 'dirlink')\nos.mkfifo('fifo')\nopen('ok.txt', 'w').write('ok')\n")
    res = sandbox.run(RunRequest(language="python", code=code, limits=Limits(time_s=5),
                                 fetch_files=["leak", "d/e/passwd", "dirlink/passwd", "fifo", "ok.txt", "d"]))
    assert res.verdict == Verdict.AC, res.tests[0]
    assert res.tests[0].files == {"ok.txt": _b64(b"ok")}


def test_each_test_gets_fresh_files(sandbox):
    code = "import os\nprint(open('state.txt').read())\nopen('state.txt', 'w').write('dirty')\n"
    tests = [TestCase(expected_stdout="clean\n")] * 3
    res = sandbox.run(RunRequest(language="python", code=code, tests=tests, files={"state.txt": _b64(b"clean")},
                                 fetch_files=["state.txt"]))
    assert [t.verdict for t in res.tests] == [Verdict.AC] * 3
    assert all(t.files == {"state.txt": _b64(b"dirty")} for t in res.tests)


def test_mnt_is_writable_fetchable_and_fresh_for_every_run(sandbox):
    # SandboxFusion's contract: a program may write /mnt and fetch it by its absolute path; an
    # absolute path anywhere else is never read, and /mnt starts empty in every run.
    code = ("import os\nprint(sorted(os.listdir('/mnt')))\nopen('/mnt/b', 'w').write('sauce')\n"
            "open('a.txt', 'w').write('secret')\nos.symlink('/etc/passwd', '/mnt/leak')\n")
    tests = [TestCase(expected_stdout="[]\n")] * 2
    res = sandbox.run(RunRequest(language="python", code=code, tests=tests, limits=Limits(time_s=5),
                                 fetch_files=["a.txt", "/mnt/b", "/work/a.txt", "/mnt/leak", "/etc/passwd"]))
    assert [t.verdict for t in res.tests] == [Verdict.AC] * 2, res.tests
    for t in res.tests:
        assert t.files == {"a.txt": _b64(b"secret"), "/work/a.txt": _b64(b"secret"), "/mnt/b": _b64(b"sauce")}
