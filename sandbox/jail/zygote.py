"""The warm Python interpreter a Python program is forked from.

The zygote is a Python process with what every Python program needs already imported; a
Python test costs a fork of it, not an interpreter start. The zygote never reads a byte of any
job (see ``server`` and ``spawner``): the supervisor, its long-lived sibling, reads each job and
hands it to the program's process over that process's own socket, after the fork. So the fork
holds nothing of anyone.

``run`` makes the forked interpreter behave as ``python3 prog.py``: the source compiled with
``dont_inherit=True`` (no ``from __future__`` of ours leaks in), a fresh ``__main__``, the
jail's own modules gone from ``sys.modules`` and the import system, fresh stdio on fds 0-2,
tracebacks on stderr with exit status 1, SystemExit honoured, atexit and non-daemon threads
run before exit.
"""

import os
import signal
import sys

JAIL_MODULE_PREFIXES = ("sandbox", "codetest_boot")


def preload() -> None:
    """Import once what every execution needs; freeze the heap so the collector does not
    dirty (copy) its pages in each child. Not ``threading``, as ``python3`` does not import it
    at start either: once imported, every fork runs its after-fork hook, which touched (copied)
    about 140 pages of the zygote's memory in each program's process."""
    import atexit, gc, io, traceback, types  # noqa: F401,E401
    import importlib.machinery  # noqa: F401

    gc.collect()
    gc.freeze()


def _forget_jail() -> None:
    """Nothing of the jail server stays importable or visible to the program."""
    for name in [n for n in sys.modules if n.split(".")[0] in JAIL_MODULE_PREFIXES]:
        del sys.modules[name]
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "codetest_jail", False)]


def run(source: str, argv, env) -> None:
    """Run a Python program in this (freshly forked, fully jailed) interpreter, then exit."""
    import atexit
    import builtins
    import io
    import traceback
    import types

    for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM, signal.SIGINT):
        try:
            signal.signal(s, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as CPython sets it at start-up
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(argv[1:]) or [""]
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                 encoding="utf-8", errors="surrogateescape")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                                   encoding="utf-8", errors="surrogateescape")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                                   encoding="utf-8", errors="backslashreplace", line_buffering=True)
    filename = sys.argv[0] or "<string>"
    _forget_jail()
    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__builtins__ = builtins
    main.__cached__ = None
    if filename.startswith("/"):
        from importlib.machinery import SourceFileLoader

        main.__loader__ = SourceFileLoader("__main__", filename)
    sys.modules["__main__"] = main
    sys.path[0:0] = [os.path.dirname(filename)] if filename.startswith("/") else []
    code = 0
    try:
        compiled = compile(source, filename, "exec", dont_inherit=True)
        del source
        exec(compiled, main.__dict__)
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException as e:
        # As the interpreter prints it: from the program's frame, none of ours.
        traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
        code = 1
    try:
        threading = sys.modules.get("threading")  # imported by the program, if it uses threads
        if threading is not None:
            threading._shutdown()  # type: ignore[attr-defined]  # what interpreter exit does
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
        code = code or 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 120  # what CPython exits with when stdout cannot be flushed
    os._exit(code)


def _exit_code(value) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        sys.stderr.write(f"{value}\n")
    except BaseException:
        pass
    return 1
