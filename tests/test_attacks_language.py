"""Issue 11, finding 9: the jail does not change the language.

A Python program must behave exactly as under ``python3 prog.py`` with the same interpreter: the
jail server's own ``from __future__ import annotations`` (or any other compiler flag) must not
leak into user code, so an undefined name in an annotation raises NameError (RE). A probe of
module-level semantics (``__name__``, ``__file__``, ``__builtins__``, annotations, future flags,
pickling of ``__main__`` classes, dataclasses, ``inspect``) prints the same under both.
"""

from __future__ import annotations

import os
import subprocess
import textwrap

import pytest

from sandbox import Verdict
from conftest import run_one

NAME_ERROR_PROGRAMS = {
    "module_annotation": "x: UndefinedName = 1\nprint('ran')\n",
    "function_annotation": "def f(a: UndefinedName) -> None:\n    pass\nprint('ran')\n",
    "return_annotation": "def f() -> AlsoUndefined:\n    pass\nprint('ran')\n",
    "class_annotation": "class C:\n    y: Undefined3\nprint('ran')\n",
}


@pytest.mark.parametrize("kind", list(NAME_ERROR_PROGRAMS))
def test_undefined_name_in_annotation_raises(sandbox, kind):
    t = run_one(sandbox, NAME_ERROR_PROGRAMS[kind])
    assert t.verdict == Verdict.RE, (t.verdict, t.stdout, t.stderr)
    assert "NameError" in t.stderr and "ran" not in t.stdout, t.stderr


PROBE = textwrap.dedent('''
    import __future__, dataclasses, inspect, os, pickle, sys, typing
    def f(x: int) -> "str":
        return x
    class Point:
        a: int
        def __init__(self, a):
            self.a = a
    @dataclasses.dataclass
    class D:
        v: int = 3
    flags = f.__code__.co_flags
    futures = sorted(n for n in __future__.all_feature_names
                     if flags & getattr(__future__, n).compiler_flag)
    print("name", __name__)
    print("file_is_argv0", __file__ == sys.argv[0], os.path.isabs(__file__) == os.path.isabs(sys.argv[0]))
    print("file_exists", os.path.exists(__file__))
    print("builtins_is_module", type(__builtins__).__name__)
    print("annotations", f.__annotations__)
    print("module_annotations", __annotations__ if "__annotations__" in globals() else "none")
    print("futures", futures)
    print("main_is_module", sys.modules["__main__"].__dict__ is globals())
    print("spec", __spec__)
    print("loader", type(__loader__).__name__)
    print("package", __package__)
    print("doc", __doc__)
    print("globals", sorted(k for k in globals() if k.startswith("__")))
    print("pickle", pickle.loads(pickle.dumps(Point(5))).a, pickle.loads(pickle.dumps(D())).v)
    print("source", inspect.getsource(f).splitlines()[0])
    print("qualname", Point.__module__, D.__module__, f.__module__)
    print("hints", typing.get_type_hints(f))
    print("argv_len", len(sys.argv))
    print("path0_is_dir_of_file", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
    print("optimize", sys.flags.optimize)
    print("stdin_tty", sys.stdin.isatty())
    print("threading_loaded", "threading" in sys.modules)
    z: int = 5
    print("module_annotations_after", __annotations__)
''')


def test_probe_matches_plain_python(sandbox, tmp_path):
    tc = sandbox.toolchains.get("python")
    if tc is None:
        pytest.skip("no python toolchain")
    jailed = run_one(sandbox, PROBE)
    assert jailed.verdict == Verdict.AC, jailed.stderr
    prog = tmp_path / "prog.py"
    prog.write_text(PROBE)
    binary = tc.binary if os.path.exists(tc.binary) else "python3"
    plain = subprocess.run([binary, str(prog)], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           cwd=str(tmp_path), timeout=60,
                           env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert plain.returncode == 0, plain.stderr
    want = dict(line.split(" ", 1) for line in plain.stdout.splitlines())
    got = dict(line.split(" ", 1) for line in jailed.stdout.splitlines())
    diff = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
    assert not diff, f"jailed vs python3 prog.py: {diff}"


def test_non_daemon_threads_finish_before_exit(sandbox):
    """The warm interpreter does not import ``threading`` (``python3`` does not); a program that
    does still has its non-daemon threads joined, and their output kept, before it exits."""
    code = ("import threading, time\n"
            "def late():\n    time.sleep(0.2)\n    print('late', flush=True)\n"
            "threading.Thread(target=late).start()\nprint('main', flush=True)\n")
    t = run_one(sandbox, code)
    assert t.verdict == Verdict.AC and t.stdout == "main\nlate\n", (t.verdict, t.stdout, t.stderr)


def test_main_guard_and_exit_codes_match(sandbox):
    t = run_one(sandbox, "import sys\nif __name__ == '__main__':\n    print('main')\n    sys.exit(3)\n")
    assert t.stdout == "main\n" and t.exit_code == 3 and t.verdict == Verdict.RE
