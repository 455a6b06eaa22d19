"""Programs: compile once (cached), then start in a jail with the job's limits.

The compile cache keeps only outcomes that are a property of the program: successful compiles
and deterministic compiler rejections. A timeout, a memory kill, a compiler killed by a signal
or a sandbox failure is never cached. The key holds everything that can change the outcome:
the toolchain's version, the compile command as run, the environment, the source files, and
the compile's memory, process and file-size limits. The compile's wall clock has a hard
server-side cap (``SandboxConfig.compile_wall_max_s``), whatever a request asks.

A compiler never reads a device as a source: it runs with stdin from ``/dev/null`` and its
stdout and stderr going to files in its work folder, so ``#include "/dev/stdout"`` (or
``/dev/stdin``, ``/proc/self/fd/0``, ``/dev/fd/2``) names an empty file, not a pipe that
blocks until the compile wall.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from typing import Any, Callable, Optional

from .backends.base import Deadline, ExecLimits, ExecResult, ExecSpec
from .cache import CompileCache
from .errors import BadRequest
from .function_call import DRIVER_NAME, program_files
from .languages import Toolchain
from .models import CompileResult, Limits
from .verdict import decide_compile

log = logging.getLogger("codetest.programs")

COMPILE_PROCESSES = 128
COMPILE_FILE_SIZE = 512 << 20
COMPILE_OUTPUT_KEEP = 1 << 20  # compiler messages kept, bytes
COMPILE_STDOUT, COMPILE_STDERR = ".compile.out", ".compile.err"
# The compiler's stdio: files in its own work folder, stdin empty. "$@" is the compile argv.
COMPILE_SHELL = f'exec "$@" </dev/null >{COMPILE_STDOUT} 2>{COMPILE_STDERR}'


def exec_limits(limits: Limits, tc: Optional[Toolchain] = None) -> ExecLimits:
    procs = max(limits.processes, tc.language.min_processes if tc else 1)
    stack = {"stack_bytes": tc.language.stack_mb << 20} if tc and tc.language.stack_mb else {}
    return ExecLimits(cpu_s=limits.time_s, wall_s=limits.wall_s, memory_bytes=limits.memory_mb << 20,
                      output_bytes=limits.output_kb << 10, processes=procs,
                      file_size_bytes=limits.file_size_kb << 10, wait_allowance=limits.cpu_wait_allowance, **stack)


class Program:
    """A compiled (or stored) program ready to run: where its files are and how to start it."""

    def __init__(self, toolchain: Toolchain, folder: Optional[str], source_name: str, entry_point: Optional[str] = None,
                 key: str = "", python_source: Optional[str] = None, files: Optional[dict[str, str]] = None):
        """``folder``: the compile cache's folder of the program; or None and ``files``, the
        program's files in memory (a language with no compile step, on a backend that takes them
        inline)."""
        self.key = key
        self.toolchain = toolchain
        self.folder = folder
        self.source_name = source_name
        self.entry_point = entry_point
        self._source = python_source
        self._files = {name: text.encode("utf-8", "surrogatepass") for name, text in (files or {}).items()}

    @property
    def is_python(self) -> bool:
        return self.toolchain.language.name == "python"

    def spec(self, limits: Limits, stdin: bytes, extra_args: tuple[str, ...] = (), files=None) -> ExecSpec:
        tc = self.toolchain
        inline = None
        if self.is_python:
            # The warm-interpreter fast path: the slot's interpreter runs the file after fork.
            argv = [tc.binary, "/prog/main.py", *extra_args]
            inline = self._python_source()
        else:
            argv = tc.fmt(tc.language.run, self.source_name, limits.memory_mb) + list(extra_args)
        return ExecSpec(argv=argv, limits=exec_limits(limits, tc), stdin=stdin, program_dir=self.folder,
                        program_files=self._files, files=files or {}, python_inline=inline, env=dict(tc.language.env))

    def _python_source(self) -> str:
        if self._source is None:
            with open(os.path.join(self.folder, "main.py"), encoding="utf-8", errors="surrogatepass") as f:
                self._source = f.read()
        return self._source


def _read_tail(path: str, keep: int) -> str:
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - keep))
            data = f.read(keep)
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def _write_extra(folder: str, extra: dict[str, bytes]) -> None:
    """RunRequest.files into the compile folder (names already checked by ``safe_relpath``)."""
    for name, data in extra.items():
        path = os.path.join(folder, name)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        except OSError as e:  # "a" and "a/b" both named: the request's fault
            raise BadRequest(f"files: cannot place {name!r}: {e.strerror or e}") from None


class Compiler:
    """Turns (language, code, limits) into a cached Program, compiling at most once per key."""

    def __init__(self, cache: CompileCache, scratch: str, execute: Callable[[ExecSpec, Any, Any], Any],
                 compile_wall_max_s: float, count: Callable[[str], None], inline_programs: bool = False):
        self.cache = cache
        self.inline_programs = inline_programs  # the backend takes a program's files in memory
        self.scratch = scratch
        self._execute = execute
        self.compile_wall_max_s = compile_wall_max_s
        self._count = count

    def compile_limits(self, tc: Toolchain, limits: Limits) -> ExecLimits:
        cpu = min(limits.compile_time_s, self.compile_wall_max_s)
        return ExecLimits(cpu_s=cpu, wall_s=min(cpu * 1.5 + 1, self.compile_wall_max_s),
                          memory_bytes=max(tc.language.compile_memory_mb, limits.memory_mb) << 20,
                          output_bytes=1 << 20, processes=COMPILE_PROCESSES, file_size_bytes=COMPILE_FILE_SIZE)

    def compile_argv(self, tc: Toolchain, src: str, limits: Limits) -> list[str]:
        return tc.fmt(tc.language.compile, src, limits.memory_mb) if tc.language.compile else []

    def key(self, tc: Toolchain, src: str, files: dict[str, str], limits: Limits,
            extra: Optional[dict[str, bytes]] = None) -> str:
        lang = tc.language
        outcome_limits = ""
        if lang.compile is not None:
            cl = self.compile_limits(tc, limits)
            outcome_limits = f"mem={cl.memory_bytes} procs={cl.processes} fsize={cl.file_size_bytes}"
        extra_files = [f"{k}\0{hashlib.sha256(v).hexdigest()}" for k, v in sorted((extra or {}).items())]
        return self.cache.key(lang.name, tc.version, json.dumps(self.compile_argv(tc, src, limits)),
                              json.dumps(sorted(lang.env)), outcome_limits, src, json.dumps(files, sort_keys=True),
                              *extra_files)

    def prepare(self, tc: Toolchain, code: str, limits: Limits, outer: Any, entry_point: Optional[str] = None,
                extra_files: Optional[dict[str, bytes]] = None, deadline: Optional[Deadline] = None
                ) -> tuple[Optional[Program], CompileResult, bool]:
        """(program or None, compile result, sandbox failed). ``extra_files`` (RunRequest.files:
        a header, a module, a jar) sit next to the source, so the compile step sees them and the
        program finds them in /prog; the program's own files win a name clash."""
        lang = tc.language
        src = lang.source_name(code)
        if entry_point is not None and lang.name != "python":
            raise BadRequest("function-call tests (args/expected) are supported for python only")
        files = {src: code} if entry_point is None else program_files(code)
        extra = {k: v for k, v in (extra_files or {}).items() if k not in files}
        key = self.key(tc, src, files, limits, extra)
        if lang.compile is None and not extra and self.inline_programs:
            # Nothing to compile, nothing to keep: the files travel with each execution.
            return Program(tc, None, src, entry_point, key, python_source=files.get(DRIVER_NAME, files.get(src)),
                           files=files), CompileResult(ok=True), False
        with self.cache.key_lock(key):
            hit = self.cache.get(key)
            if hit is not None:
                self._count("cache_hits")
                cr = CompileResult(ok=hit["ok"], stdout=hit.get("stdout", ""), stderr=hit.get("stderr", ""),
                                   time_s=hit.get("time_s", 0.0), cached=True)
                return (self._program(tc, key, src, entry_point, files) if hit["ok"] else None), cr, False
            folder = tempfile.mkdtemp(prefix="c", dir=self.scratch)
            os.chmod(folder, 0o777)
            try:
                _write_extra(folder, extra)
                for name, text in files.items():
                    with open(os.path.join(folder, name), "w", encoding="utf-8", errors="surrogatepass") as f:
                        f.write(text)
                cr, cacheable, sandbox_failed = self._compile(tc, src, folder, limits, outer, deadline)
                if sandbox_failed or not cacheable:
                    return None, cr, sandbox_failed
                if not cr.ok:
                    for name in os.listdir(folder):
                        p = os.path.join(folder, name)
                        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
                try:
                    self.cache.put(key, folder, {"ok": cr.ok, "stdout": cr.stdout, "stderr": cr.stderr,
                                                 "time_s": cr.time_s})
                except OSError as e:  # cannot make it root-owned and read-only (no CAP_CHOWN): fail closed
                    log.error("compiled program could not be stored safely: %s", e)
                    return None, cr, True
                folder = None
            finally:
                if folder:
                    shutil.rmtree(folder, ignore_errors=True)
        return (self._program(tc, key, src, entry_point, files) if cr.ok else None), cr, False

    def _program(self, tc: Toolchain, key: str, src: str, entry_point: Optional[str], files: dict) -> Program:
        # The Python fast path needs no disk read: the file it runs (the program, or the
        # function-call driver beside the solution) is at hand.
        return Program(tc, self.cache.path(key), src, entry_point, key, python_source=files.get(DRIVER_NAME))

    def _compile(self, tc: Toolchain, src: str, folder: str, limits: Limits, outer: Any,
                 deadline: Optional[Deadline] = None) -> tuple[CompileResult, bool, bool]:
        """The compile step's result, whether it may be cached, and whether the sandbox failed."""
        lang = tc.language
        if lang.compile is None:
            return CompileResult(ok=True), True, False
        self._count("compiles")
        argv = ["/bin/sh", "-c", COMPILE_SHELL, "sh", *self.compile_argv(tc, src, limits)]
        cl = self.compile_limits(tc, limits)
        spec = ExecSpec(argv=argv, limits=cl, work_dir=folder, env=dict(lang.env), deadline=deadline)
        t0 = time.monotonic()
        res: ExecResult = self._execute(spec, outer, "compile").result()
        took = time.monotonic() - t0
        # The compiler's own messages are in its work folder; they do not go into the cache.
        res.stdout = (res.stdout or b"") + _read_tail(os.path.join(folder, COMPILE_STDOUT),
                                                       COMPILE_OUTPUT_KEEP).encode()
        res.stderr = (res.stderr or b"") + _read_tail(os.path.join(folder, COMPILE_STDERR),
                                                       COMPILE_OUTPUT_KEEP).encode()
        for name in (COMPILE_STDOUT, COMPILE_STDERR):
            try:
                os.remove(os.path.join(folder, name))
            except OSError:
                pass
        d = decide_compile(res, took, cl.cpu_s)
        if d.sandbox_failed:
            log.error("compile step failed in the sandbox: %s", res.error)
        return d.result, d.cacheable, d.sandbox_failed
