"""The function-call driver: runs in the jail as ``/prog/main.py`` beside ``/prog/solution.py``.

Shipped after the text of ``sandbox/leetcode.py`` (``lc_*`` names: ``Class.method`` entries,
``ListNode``/``TreeNode`` values, the encoding of return values), see ``sandbox/function_call.py``.

It is never imported by the host: ``sandbox.programs`` reads this file as text and ships it
with the solution. In the jail it reads the call's arguments (JSON) from stdin, loads the
solution as a module named ``solution`` (so its ``if __name__ == "__main__":`` block stays
quiet), calls the entry point named by ``argv[1]`` and writes the return value, as JSON, on
the private result descriptor (``RESULT_FD``, a pipe the jail opens and reads; see
``sandbox/jail/protocol.py``), never on stdout: whatever the program prints, it cannot forge
the result.

Standard library only: it runs on the toolchain's Python.
"""

import io
import json
import os
import stat
import sys
import types

RESULT_FD = 3  # sandbox/jail/protocol.py RESULT_FD


def _result_channel():
    """The private result descriptor (a pipe the jail reads), or None when this jail gives none.

    It stays at its number, so the program's own ``open()`` calls never land on it, and is
    not inherited by processes the program starts.
    """
    try:
        if not stat.S_ISFIFO(os.fstat(RESULT_FD).st_mode):
            return None
        os.set_inheritable(RESULT_FD, False)
    except OSError:
        return None
    return RESULT_FD


def main():
    channel = _result_channel()
    args = json.loads(sys.stdin.read())
    sys.stdin = io.StringIO("")
    module = types.ModuleType("solution")
    module.__file__ = "/prog/solution.py"
    sys.modules["solution"] = module
    with open("/prog/solution.py", encoding="utf-8") as f:
        code = compile(f.read(), "/prog/solution.py", "exec", dont_inherit=True)
    entry = sys.argv[1]
    lc_prepare(module.__dict__, entry)  # noqa: F821 (sandbox/leetcode.py, shipped in front)
    exec(code, module.__dict__)
    result = lc_resolve(module.__dict__, entry)(args)  # noqa: F821
    # Big ints are the program's right: lift the str-conversion cap only for the encoding.
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    classes = lc_node_classes(module.__dict__)  # noqa: F821
    data = json.dumps(lc_encode(result, classes)).encode("utf-8", "surrogatepass")  # noqa: F821
    sys.stdout.flush()
    if channel is None:
        raise SystemExit("codetest function driver: the jail gave no result descriptor (fd 3)")
    view = memoryview(data)
    while view:
        view = view[os.write(channel, view):]


if __name__ == "__main__":
    main()
