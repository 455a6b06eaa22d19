"""`codetest run` as a user calls it: exit statuses, --json, clear errors for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "codetest"]
SOL = "a, b = map(int, input().split())\nprint(a + b)\n"


def cli(*args, cwd, env_extra=None):
    env = {**os.environ, "CODETEST_STATE_DIR": str(cwd / "state"), "CODETEST_SLOTS": "2", **(env_extra or {})}
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=180)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "sol.py").write_text(SOL)
    (tmp_path / "tests.jsonl").write_text(
        '{"stdin": "1 2\\n", "expected_stdout": "3\\n"}\n\n{"stdin": "2 2\\n", "expected_stdout": "4\\n"}\n')
    return tmp_path


def test_ac_exit_0_and_json_shape(files):
    p = cli("run", "sol.py", "--tests", "tests.jsonl", "--json", cwd=files)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "AC" and out["passed"] == 2 and out["total"] == 2
    assert set(out["tests"][0]) >= {"verdict", "time_s", "memory_kb", "exit_code", "signal", "stdout", "stderr",
                                    "truncated"}
    assert out["compile"]["ok"] is True


def test_not_ac_exit_1(files):
    (files / "wrong.py").write_text("print(0)\n")
    p = cli("run", "wrong.py", "--tests", "tests.jsonl", cwd=files)
    assert p.returncode == 1 and "WA" in p.stdout


def test_compile_error_exit_1_with_compiler_output(files):
    (files / "bad.cpp").write_text("int main( {")
    p = cli("run", "bad.cpp", cwd=files)
    assert p.returncode == 1 and "error" in p.stderr and "CE" in p.stdout


@pytest.mark.parametrize("setup,args,message", [
    (None, ["run", "sol.py", "--language", "cobol"], "unknown language 'cobol'"),
    (("empty.py", ""), ["run", "empty.py"], "empty"),
    (("bin.py", b"\xff\xfe\x00"), ["run", "bin.py"], "not UTF-8"),
    (None, ["run", "missing.py"], "no such file"),
    (None, ["run", "sol.py", "--tests", "nope.jsonl"], "no such test file"),
    (("bad.jsonl", '{"stdin": "1"}\n{"stdin": oops}\n'), ["run", "sol.py", "--tests", "bad.jsonl"], "bad.jsonl:2"),
    (("arr.jsonl", '[1, 2]\n'), ["run", "sol.py", "--tests", "arr.jsonl"], "arr.jsonl:1"),
    (("x.unknownext", "print(1)"), ["run", "x.unknownext"], "--language"),
    (None, ["run", "sol.py", "--time-limit", "-1"], "time_s"),
    (None, ["frobnicate"], "invalid choice"),
])
def test_bad_input_exit_2_with_message(files, setup, args, message):
    if setup:
        name, content = setup
        (files / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    p = cli(*args, cwd=files)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_refuses_when_a_required_layer_is_missing(files):
    p = cli("run", "sol.py", cwd=files, env_extra={"CODETEST_DISABLE_LAYERS": "seccomp"})
    assert p.returncode == 2 and "seccomp" in p.stderr and "Traceback" not in p.stderr
    p = cli("run", "sol.py", "--tests", "tests.jsonl", "--allow-missing", "seccomp", cwd=files,
            env_extra={"CODETEST_DISABLE_LAYERS": "seccomp"})
    assert p.returncode == 0, p.stderr


def test_languages_lists_toolchains(files):
    p = cli("languages", cwd=files)
    assert p.returncode == 0 and "python" in p.stdout and "ok" in p.stdout


def test_concurrent_runs_share_a_state_dir(files):
    """Two CLI processes on one state dir (the default /var/lib/codetest) must not break each other."""
    env = {**os.environ, "CODETEST_STATE_DIR": str(files / "state"), "CODETEST_SLOTS": "1"}
    (files / "c.c").write_text('#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}\n')
    procs = [subprocess.Popen([*CLI, "run", name, "--tests", "tests.jsonl"], cwd=files, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("sol.py", "c.c", "sol.py", "c.c")]
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        assert "Traceback" not in err
