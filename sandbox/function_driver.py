"""The function-call driver: runs in the jail as ``/prog/main.py`` beside ``/prog/solution.py``.

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


def _encode(value):
    """The return value as JSON-shaped data: tuples as lists, sets sorted, other objects by repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_encode(x) for x in value]
    if isinstance(value, (set, frozenset)):
        items = [_encode(x) for x in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else json.dumps(_encode(k))): _encode(x) for k, x in value.items()}
    return repr(value)


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
    exec(code, module.__dict__)
    result = getattr(module, sys.argv[1])(*args)
    # Big ints are the program's right: lift the str-conversion cap only for the encoding.
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    data = json.dumps(_encode(result)).encode("utf-8", "surrogatepass")
    sys.stdout.flush()
    if channel is None:
        raise SystemExit("codetest function driver: the jail gave no result descriptor (fd 3)")
    view = memoryview(data)
    while view:
        view = view[os.write(channel, view):]


if __name__ == "__main__":
    main()
