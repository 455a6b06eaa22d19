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

import _signal
import os
import sys

JAIL_MODULE_PREFIXES = ("sandbox", "codetest_boot")

# Set by ``preload`` in the zygote, so a forked program's process does the least work (every
# object it touches costs a copied page): the environment the zygote runs with, the jail's
# modules then imported, and how many modules there were.
_preloaded_env: dict = {}
_preloaded_jail_modules: tuple = ()
_preloaded_module_count = -1


def preload() -> None:
    """Import once what every execution needs; freeze the heap so the collector does not
    dirty (copy) its pages in each child. Not ``threading``, as ``python3`` does not import it
    at start either: once imported, every fork runs its after-fork hook, which touched (copied)
    about 140 pages of the zygote's memory in each program's process."""
    global _preloaded_env, _preloaded_jail_modules, _preloaded_module_count
    import atexit, gc, io, traceback, types  # noqa: F401,E401
    import importlib.machinery  # noqa: F401

    _preloaded_env = dict(os.environ)
    _preloaded_jail_modules = _jail_modules()
    _preloaded_module_count = len(sys.modules)
    gc.collect()
    gc.freeze()


def _jail_modules() -> tuple:
    return tuple(n for n in sys.modules if n.split(".")[0] in JAIL_MODULE_PREFIXES)


def _forget_jail() -> None:
    """Nothing of the jail server stays importable or visible to the program. (The list made at
    preload serves unless a module was imported since.)"""
    fresh = len(sys.modules) != _preloaded_module_count
    for name in _jail_modules() if fresh else _preloaded_jail_modules:
        sys.modules.pop(name, None)
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "codetest_jail", False)]


def run(source: str, argv, env) -> None:
    """Run a Python program in this (freshly forked, fully jailed) interpreter, then exit."""
    import atexit
    import builtins
    import io
    import traceback
    import types

    # _signal: the C module under ``signal``, whose enum wrapping touches (copies) many pages here
    for s in (_signal.SIGCHLD, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGALRM, _signal.SIGINT):
        try:
            _signal.signal(s, _signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    _signal.signal(_signal.SIGPIPE, _signal.SIG_IGN)  # as CPython sets it at start-up
    if env != _preloaded_env:  # a program of the jail's own environment keeps it as it is
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
