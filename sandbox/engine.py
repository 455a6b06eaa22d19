"""The job: compile once, run every test in a fresh jail on a free slot, compare, one result.

Everything here is backend-independent; the backend only executes ``ExecSpec``s.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import itertools
import json
import logging
import os
import shutil
import signal as _signal
import sys
import tempfile
import threading
import time
from concurrent.futures import CancelledError, Future
from typing import Any, Optional

from . import compare as cmp
from .backends.base import ExecLimits, ExecResult, ExecSpec
from .cache import CompileCache
from .config import SandboxConfig
from .errors import BadRequest, SandboxUnavailable, ToolchainMissing
from .languages import Toolchain, detect_toolchains, get_language
from .models import (
    Checker, CheckerCompare, CompileResult, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict,
    overall_verdict,
)
from .scheduler import FairScheduler

log = logging.getLogger("codetest.engine")

RESULT_SENTINEL = "\x1e@@codetest-result@@"
# Runs the entry point of a function-call task. The solution is loaded as a module named
# "solution" (so its `if __name__ == "__main__":` block stays quiet) and the return value is
# printed as JSON after a sentinel, below anything the solution printed itself.
FUNCTION_DRIVER = r'''
import io, json, sys, types
def _enc(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_enc(x) for x in v]
    if isinstance(v, (set, frozenset)):
        items = [_enc(x) for x in v]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else json.dumps(_enc(k))): _enc(x) for k, x in v.items()}
    return repr(v)
_args = json.loads(sys.stdin.read())
sys.stdin = io.StringIO("")
_mod = types.ModuleType("solution")
_mod.__file__ = "/prog/solution.py"
sys.modules["solution"] = _mod
with open("/prog/solution.py", encoding="utf-8") as _f:
    exec(compile(_f.read(), "/prog/solution.py", "exec"), _mod.__dict__)
_res = getattr(_mod, sys.argv[1])(*_args)
_out = json.dumps(_enc(_res))
sys.stdout.flush()
sys.stdout.write("\n" + "\x1e@@codetest-result@@" + _out + "\n")
'''

CHECKER_LIMITS = Limits(time_s=10, wall_time_s=20, memory_mb=1024, output_kb=1024)
MEMORY_MESSAGES = ("MemoryError", "java.lang.OutOfMemoryError", "std::bad_alloc",
                   "JavaScript heap out of memory", "memory allocation of")


class Program:
    """A compiled (or stored) program ready to run: where its files are and how to start it."""

    def __init__(self, toolchain: Toolchain, folder: str, source_name: str, entry_point: Optional[str] = None,
                 key: str = ""):
        self.key = key
        self.toolchain = toolchain
        self.folder = folder
        self.source_name = source_name
        self.entry_point = entry_point
        self._source: Optional[str] = None

    @property
    def is_python(self) -> bool:
        return self.toolchain.language.name == "python"

    def spec(self, limits: Limits, stdin: bytes, extra_args: tuple[str, ...] = (), files=None) -> ExecSpec:
        tc = self.toolchain
        inline = None
        if self.is_python:
            # The fork-server fast path: the slot's warm interpreter runs the file after fork.
            argv = [tc.binary, "/prog/main.py", *extra_args]
            inline = self._python_source()
        else:
            argv = tc.fmt(tc.language.run, self.source_name, limits.memory_mb) + list(extra_args)
        return ExecSpec(argv=argv, limits=exec_limits(limits, tc), stdin=stdin, program_dir=self.folder,
                        files=files or {}, python_inline=inline, env=dict(tc.language.env))

    def _python_source(self) -> str:
        if self._source is None:
            with open(os.path.join(self.folder, "main.py"), encoding="utf-8", errors="surrogatepass") as f:
                self._source = f.read()
        return self._source


def exec_limits(limits: Limits, tc: Optional[Toolchain] = None) -> ExecLimits:
    procs = max(limits.processes, tc.language.min_processes if tc else 1)
    return ExecLimits(cpu_s=limits.time_s, wall_s=limits.wall_s, memory_bytes=limits.memory_mb << 20,
                      output_bytes=limits.output_kb << 10, processes=procs,
                      file_size_bytes=limits.file_size_kb << 10)


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


def classify(res: ExecResult, limits: Limits) -> Optional[Verdict]:
    """The verdict an execution earned on its own, before its output is judged (None: judge it)."""
    if res.error:
        return Verdict.SE
    if res.output_exceeded:
        return Verdict.OLE
    crashed = res.signal is not None or (res.exit_code or 0) != 0
    if res.memory_exceeded:
        return Verdict.MLE
    if crashed and any(m in _text(res.stderr[-4096:]) for m in MEMORY_MESSAGES):
        return Verdict.MLE
    if res.cpu_exceeded or res.wall_exceeded or res.cpu_s > limits.time_s:
        return Verdict.TLE
    if crashed:
        if res.signal == _signal.SIGKILL and res.memory_kb * 1024 >= 0.97 * (limits.memory_mb << 20):
            return Verdict.MLE
        return Verdict.RE
    return None


class Sandbox:
    """A backend, a compile cache and a fair scheduler; thread-safe. Close it when done."""

    def __init__(self, config: Optional[SandboxConfig] = None, backend: Any = None):
        self.config = config or SandboxConfig()
        os.makedirs(self.config.state_dir, mode=0o755, exist_ok=True)
        self.toolchains: dict[str, Toolchain] = detect_toolchains()
        self.cache = CompileCache(os.path.join(self.config.state_dir, "cache"), self.config.cache_max_mb << 20)
        # Scratch is per instance: several processes (CLI runs, a service) share a state dir,
        # and each removes only its own on close. Folders of dead instances go at start.
        scratch_root = os.path.join(self.config.state_dir, "scratch")
        os.makedirs(scratch_root, mode=0o700, exist_ok=True)
        _remove_dead_instances(scratch_root)
        self.scratch = os.path.join(scratch_root, f"{os.getpid()}-{id(self):x}")
        os.makedirs(self.scratch, mode=0o700, exist_ok=True)
        self.backend = backend or self._make_backend()
        if hasattr(self.backend, "toolchains"):
            # A backend with toolchains of its own (the Docker image) judges with those: their
            # versions are what /healthz reports and what compiled programs are cached under.
            self.toolchains = self.backend.toolchains()
        self.scheduler = FairScheduler(self.backend.slots)
        self._ids = itertools.count()
        self._closed = False
        self._stats_lock = threading.Lock()
        self.stats = {"executions": 0, "compiles": 0, "cache_hits": 0}

    def count(self, name: str, n: int = 1) -> None:
        with self._stats_lock:
            self.stats[name] += n

    def _make_backend(self):
        name = self.config.backend
        binds = sorted({b for tc in self.toolchains.values() for b in tc.binds})
        if name == "native":
            from .backends.native.host import NativeBackend

            py = self.toolchains.get("python")
            return NativeBackend(self.config, py.binary if py else sys.executable, binds)
        if name == "docker":
            from .backends.docker import DockerBackend

            return DockerBackend(self.config)
        raise BadRequest(f"unknown backend {name!r}; choose native or docker")

    # -- health and refusal

    def health(self) -> dict:
        h = self.backend.health()
        layers = h.get("layers", {})
        missing = sorted(l for l in self.config.effective_required() if not layers.get(l, {}).get("active"))
        problems = list(h.get("problems", []))
        if missing:
            problems.append("isolation below the configured minimum, missing: " + ", ".join(missing))
        return {
            "ok": not missing and not h.get("problems"),
            "backend": self.backend.name,
            "layers": layers,
            "required_layers": sorted(self.config.effective_required()),
            "missing_layers": missing,
            "languages": {name: tc.version for name, tc in sorted(self.toolchains.items())},
            "libraries": self.libraries(),
            # A backend with toolchains of its own (the Docker image): the host's beside them, so a
            # difference between the two (a security update one of them lacks) is visible.
            **({"host_languages": {n: tc.version for n, tc in sorted(detect_toolchains().items())}}
               if hasattr(self.backend, "toolchains") else {}),
            "slots": self.backend.slots,
            "queue_depth": self.scheduler.depth,
            "running": self.scheduler.running,
            "problems": problems,
            **{k: v for k, v in h.items() if k not in ("layers", "problems", "slots")},
        }

    def libraries(self) -> dict:
        """The libraries LLM-written code imports and their versions, as this backend's programs see them."""
        if hasattr(self.backend, "libraries"):
            return self.backend.libraries()
        from .libraries import detect_libraries

        return detect_libraries()

    def check_isolation(self) -> None:
        h = self.health()
        if h["missing_layers"] or not h["ok"]:
            raise SandboxUnavailable("; ".join(h["problems"]) + ". Refusing to run code. An operator can lower the "
                                     "bar with CODETEST_ALLOW_MISSING=<layer,...> (or --allow-missing).")

    # -- running

    def run(self, req: RunRequest, *, outer: Any = None) -> RunResult:
        """Judge one program on its tests. Raises BadRequest for a bad job, SandboxUnavailable to refuse."""
        if self._closed:
            raise SandboxUnavailable("sandbox is closed")
        self.check_isolation()
        outer = outer if outer is not None else ("run", next(self._ids))
        return _Job(self, req, outer).run()

    def run_many(self, reqs: list[RunRequest]) -> list[RunResult | BaseException]:
        """Judge many programs, sharing slots fairly between them; errors are returned in place."""
        outer = ("batch", next(self._ids))
        results: list[Any] = [None] * len(reqs)
        threads = []

        def one(i: int) -> None:
            try:
                results[i] = self.run(reqs[i], outer=outer)
            except BaseException as e:
                results[i] = e

        # One waiting thread per program is cheap; execution concurrency is the slots'.
        for i in range(len(reqs)):
            t = threading.Thread(target=one, args=(i,), daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
        return results

    async def arun(self, req: RunRequest, *, outer: Any = None) -> RunResult:
        import asyncio

        return await asyncio.to_thread(self.run, req, outer=outer)

    def execute(self, spec: ExecSpec, outer: Any, inner: Any = None) -> Future:
        """Queue one execution on the fair scheduler."""
        def go() -> ExecResult:
            self.count("executions")
            return self.backend.execute(spec)
        return self.scheduler.submit(go, outer, inner)

    # -- programs

    def prepare(self, language: str, code: str, limits: Limits, outer: Any, entry_point: Optional[str] = None,
                extra_files: Optional[dict[str, bytes]] = None) -> tuple[Optional[Program], CompileResult]:
        tc = self.toolchain(language)
        lang = tc.language
        src = lang.source_name(code)
        if entry_point is not None and lang.name != "python":
            raise BadRequest("function-call tests (args/expected) are supported for python only")
        files = {src: code} if entry_point is None else {"solution.py": code, "main.py": FUNCTION_DRIVER}
        # RunRequest.files sit next to the source (a header, a module, a jar); the program's own files win.
        extra = {k: v for k, v in (extra_files or {}).items() if k not in files}
        key = self.cache.key(lang.name, tc.version, " ".join(lang.compile or ()), src,
                             json.dumps(files, sort_keys=True),
                             *(f"{k}\0{hashlib.sha256(v).hexdigest()}" for k, v in sorted(extra.items())))
        with self.cache.key_lock(key):
            hit = self.cache.get(key)
            if hit is not None:
                self.count("cache_hits")
                cr = CompileResult(ok=hit["ok"], stdout=hit.get("stdout", ""), stderr=hit.get("stderr", ""),
                                   time_s=hit.get("time_s", 0.0), cached=True)
                return (self._program(tc, key, src, entry_point, files) if hit["ok"] else None), cr
            folder = tempfile.mkdtemp(prefix="c", dir=self.scratch)
            os.chmod(folder, 0o777)
            try:
                for name, data in extra.items():
                    os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
                    with open(os.path.join(folder, name), "wb") as f:
                        f.write(data)
                for name, text in files.items():
                    with open(os.path.join(folder, name), "w", encoding="utf-8", errors="surrogatepass") as f:
                        f.write(text)
                cr, sandbox_failed = self._compile(tc, src, folder, limits, outer)
                if sandbox_failed:  # not the program's fault: nothing to cache
                    return None, cr
                if cr.stderr.endswith("compilation timed out"):
                    # A timeout depends on the limit and the machine, neither in the key: judge it, keep nothing.
                    return None, cr
                if not cr.ok:
                    for name in os.listdir(folder):
                        p = os.path.join(folder, name)
                        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
                self.cache.put(key, folder, {"ok": cr.ok, "stdout": cr.stdout, "stderr": cr.stderr,
                                             "time_s": cr.time_s})
                folder = None
            finally:
                if folder:
                    shutil.rmtree(folder, ignore_errors=True)
        return (self._program(tc, key, src, entry_point, files) if cr.ok else None), cr

    def _program(self, tc: Toolchain, key: str, src: str, entry_point: Optional[str], files: dict) -> Program:
        prog = Program(tc, self.cache.path(key), src, entry_point, key)
        prog._source = files.get("main.py")  # the Python fast path needs no disk read
        return prog

    def _compile(self, tc: Toolchain, src: str, folder: str, limits: Limits, outer: Any
                 ) -> tuple[CompileResult, bool]:
        """The compile step's result, and whether the sandbox (not the program) failed."""
        lang = tc.language
        if lang.compile is None:
            return CompileResult(ok=True), False
        self.count("compiles")
        cl = ExecLimits(cpu_s=limits.compile_time_s, wall_s=limits.compile_time_s * 1.5 + 1,
                        memory_bytes=max(lang.compile_memory_mb, limits.memory_mb) << 20, output_bytes=1 << 20,
                        processes=128, file_size_bytes=512 << 20)
        spec = ExecSpec(argv=tc.fmt(lang.compile, src, limits.memory_mb), limits=cl, work_dir=folder,
                        env=dict(lang.env))
        t0 = time.monotonic()
        res: ExecResult = self.execute(spec, outer, "compile").result()
        took = time.monotonic() - t0
        out, err = _text(res.stdout), _text(res.stderr)
        if res.error:
            log.error("compile step failed in the sandbox: %s", res.error)
            return CompileResult(ok=False, stderr=f"sandbox error: {res.error}", time_s=took), True
        if res.wall_exceeded or res.cpu_exceeded:
            return CompileResult(ok=False, stdout=out, stderr=err + "\ncompilation timed out", time_s=took), False
        if res.memory_exceeded:
            return CompileResult(ok=False, stdout=out, stderr=err + "\ncompilation ran out of memory",
                                 time_s=took), False
        ok = res.exit_code == 0 and res.signal is None
        return CompileResult(ok=ok, stdout=out, stderr=err, time_s=took), False

    def toolchain(self, language: str) -> Toolchain:
        """The toolchain this sandbox runs ``language`` with; BadRequest when it has none."""
        lang = get_language(language)
        tc = self.toolchains.get(lang.name)
        if tc is None:
            raise ToolchainMissing(f"language {lang.name!r} is known but its toolchain ({lang.binary}) is not "
                                   f"available on the {self.backend.name} backend")
        return tc

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.scheduler.close()
        self.backend.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Job:
    """One RunRequest in flight."""

    def __init__(self, sb: Sandbox, req: RunRequest, outer: Any):
        self.sb, self.req, self.outer = sb, req, outer
        self.inner = ("job", next(sb._ids))
        self.checker: Optional[Program] = None
        self.files: dict[str, bytes] = {}

    def run(self) -> RunResult:
        req = self.req
        entry = req.entry_point if any(t.is_function for t in req.tests) else None
        self.files = req.decoded_files() if req.files else {}
        program, cr = self.sb.prepare(req.language, req.code, req.limits, self.outer, entry, self.files)
        tests = req.tests or [TestCase()]
        if not cr.ok and cr.stderr.startswith("sandbox error:"):
            return RunResult(verdict=Verdict.SE, passed=0, total=len(tests), compile=cr, message=cr.stderr)
        if program is None:
            return RunResult(verdict=Verdict.CE, passed=0, total=len(tests), compile=cr)
        if isinstance(req.compare, CheckerCompare):
            self.checker, ccr = self.sb.prepare(req.compare.checker.language, req.compare.checker.code,
                                                CHECKER_LIMITS, self.outer)
            if self.checker is None:
                msg = "checker failed to compile: " + ccr.stderr[-2000:]
                return RunResult(verdict=Verdict.SE, passed=0, total=len(tests), compile=cr, message=msg)
        pins = [program.key] + ([self.checker.key] if self.checker else [])
        with self.sb.cache.pinned(*pins):
            return self._run_tests(program, cr, tests)

    def _run_tests(self, program: Program, cr: CompileResult, tests: list[TestCase]) -> RunResult:
        req = self.req
        futures = [self.sb.scheduler.submit(lambda t=t: self._one(program, t), self.outer, self.inner)
                   for t in tests]
        results: list[Optional[TestResult]] = [None] * len(tests)
        stopped = False
        for i, fut in enumerate(futures):
            try:
                results[i] = fut.result()
            except CancelledError:
                results[i] = TestResult(verdict=Verdict.SKIPPED)
                continue
            except Exception as e:  # a bug of ours: SE, never the program's fault
                log.exception("test execution failed")
                results[i] = TestResult(verdict=Verdict.SE, message=f"{type(e).__name__}: {e}")
            if req.stop_on_first_failure and not stopped and results[i].verdict != Verdict.AC:
                stopped = True
                self.sb.scheduler.cancel(self.outer, self.inner)
        if req.stop_on_first_failure:
            first = next((i for i, r in enumerate(results) if r.verdict != Verdict.AC), None)
            if first is not None:
                for i in range(first + 1, len(results)):
                    results[i] = TestResult(verdict=Verdict.SKIPPED)
        final = [r for r in results if r is not None]
        passed = sum(1 for r in final if r.verdict == Verdict.AC)
        return RunResult(verdict=overall_verdict(True, final), passed=passed, total=len(final), compile=cr,
                         tests=final)

    # -- one test

    def _one(self, program: Program, test: TestCase) -> TestResult:
        req = self.req
        if test.is_function:
            stdin = json.dumps(test.args).encode()
            spec = program.spec(req.limits, stdin, (program.entry_point or "",))
        else:
            spec = program.spec(req.limits, test.stdin.encode("utf-8", "surrogateescape"), tuple(req.args))
        if self.files:
            spec.files = {**self.files, **spec.files}
        if req.fetch_files:
            spec.fetch = list(req.fetch_files)
        self.sb.count("executions")
        res = self.sb.backend.execute(spec)
        out = _text(res.stdout)
        tr = TestResult(verdict=Verdict.AC, time_s=round(res.cpu_s, 4), wall_time_s=round(res.wall_s, 4),
                        run_delay_s=round(min(res.run_delay_s, res.wall_s), 4),
                        memory_kb=res.memory_kb, exit_code=res.exit_code, signal=res.signal, stdout=out,
                        stderr=_text(res.stderr), truncated=res.output_exceeded, message=res.error)
        if req.fetch_files:
            tr.files = {k: base64.b64encode(v).decode() for k, v in res.files.items()}
        v = classify(res, req.limits)
        if v is not None:
            tr.verdict = v
            return tr
        if test.is_function:
            return self._judge_value(tr, test)
        if test.expected_stdout is None:
            return tr
        if self.checker is not None:
            return self._judge_with_checker(tr, test)
        mode = req.compare if isinstance(req.compare, str) else "whitespace"
        if not cmp.compare_output(mode, out, test.expected_stdout, req.float_tol):
            tr.verdict = Verdict.WA
        return tr

    def _judge_value(self, tr: TestResult, test: TestCase) -> TestResult:
        head, sep, tail = tr.stdout.rpartition(RESULT_SENTINEL)
        if not sep:
            tr.verdict = Verdict.WA
            tr.message = "the function returned nothing (the program exited before returning)"
            return tr
        try:
            got = json.loads(tail.strip().splitlines()[0])
        except (ValueError, IndexError):
            tr.verdict = Verdict.WA
            tr.message = "the return value could not be read"
            return tr
        tr.stdout = json.dumps(got)
        if "expected" in test.model_fields_set or test.expected is not None:
            if not cmp.values_equal(got, test.expected, self.req.float_tol):
                tr.verdict = Verdict.WA
        return tr

    def _judge_with_checker(self, tr: TestResult, test: TestCase) -> TestResult:
        assert self.checker is not None and isinstance(self.req.compare, CheckerCompare)
        ch: Checker = self.req.compare.checker
        inp = test.stdin.encode("utf-8", "surrogateescape")
        ans = (test.expected_stdout or "").encode("utf-8", "surrogateescape")
        out = tr.stdout.encode("utf-8", "surrogateescape")
        if ch.protocol == "kattis":
            files = {"input.txt": inp, "answer.txt": ans, "feedback/": b""}
            spec = self.checker.spec(CHECKER_LIMITS, out, ("input.txt", "answer.txt", "feedback/"), files)
            accept, reject = {42}, {43}
        else:
            files = {"input.txt": inp, "output.txt": out, "answer.txt": ans}
            spec = self.checker.spec(CHECKER_LIMITS, b"", ("input.txt", "output.txt", "answer.txt"), files)
            accept, reject = {0}, {1, 2}
        self.sb.count("executions")
        res = self.sb.backend.execute(spec)
        msg = (_text(res.stderr) or _text(res.stdout)).strip()[-1000:]
        if res.error or res.signal is not None or res.exit_code not in accept | reject:
            tr.verdict = Verdict.SE
            tr.message = f"checker failed (exit {res.exit_code}, signal {res.signal}): {res.error or msg}"
        elif res.exit_code in reject:
            tr.verdict = Verdict.WA
            tr.message = msg or None
        return tr


def _remove_dead_instances(root: str) -> None:
    for name in os.listdir(root):
        pid = name.split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


_default: Optional[Sandbox] = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    """The process-wide sandbox used by :func:`run`, created on first use and closed at exit."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Sandbox()
            atexit.register(_default.close)
        return _default


def run(req: RunRequest | None = None, **fields: Any) -> RunResult:
    """Judge one program with the default sandbox: ``run(RunRequest(...))`` or ``run(language=..., code=...)``."""
    if req is None:
        req = RunRequest(**fields)
    return default_sandbox().run(req)
