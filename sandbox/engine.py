"""The sandbox: a backend, a compile cache, a fair scheduler and an output budget; thread-safe.

The pieces live beside this file, one idea each: ``backend_factory`` (which backend),
``isolation_gate`` (refuse to run below the required layers), ``programs`` (compile once,
cached), ``judge`` (the test loop and the checker protocols), ``function_call`` and
``function_driver`` (function-call tasks), ``verdict`` (facts -> verdict, the one place).
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import threading
import time
from concurrent.futures import Future
from typing import Any, Optional

from .backend_factory import make_backend
from .backends.base import Deadline, ExecResult, ExecSpec
from .cache import CompileCache
from .config import SandboxConfig
from .cpu_gate import cpu_gate_for, usable_cores
from .errors import DeadlinePassed, SandboxUnavailable, Saturated, ToolchainMissing
from .isolation_gate import health_report, refuse_unless_isolated
from .judge import Job
from .languages import Toolchain, detect_toolchains, get_language
from .models import CompileResult, Limits, RunRequest, RunResult
from .output_budget import OutputBudget
from .ownership import claim, remove_unowned
from .programs import Compiler, Program
from .scheduler import FairScheduler
from .young_cap import young_cap_for


class Sandbox:
    """A backend, a compile cache and a fair scheduler; thread-safe. Close it when done."""

    def __init__(self, config: Optional[SandboxConfig] = None, backend: Any = None):
        self.config = config or SandboxConfig()
        os.makedirs(self.config.state_dir, mode=0o755, exist_ok=True)
        self.toolchains: dict[str, Toolchain] = detect_toolchains()
        # The instance's own compile cache, or one shared with other instances (replicas).
        shared = self.config.shared_cache_dir
        self.cache = CompileCache(shared or os.path.join(self.config.state_dir, "cache"),
                                  self.config.cache_max_mb << 20, shared=bool(shared))
        # Scratch is per instance: several processes (CLI runs, a service) share a state dir,
        # and each removes only its own on close. Folders of dead instances go at start.
        scratch_root = os.path.join(self.config.state_dir, "scratch")
        os.makedirs(scratch_root, mode=0o700, exist_ok=True)
        # Scratch folders of instances that are gone, in whatever PID namespace they lived.
        remove_unowned(scratch_root, lambda path: shutil.rmtree(path, ignore_errors=True))
        self.scratch = os.path.join(scratch_root, f"{os.getpid()}-{id(self):x}")
        self._scratch_lock = claim(self.scratch)
        self.backend = backend or make_backend(self.config, self.toolchains)
        if hasattr(self.backend, "toolchains"):
            # A backend with toolchains of its own (the Docker image) judges with those: their
            # versions are what /healthz reports and what compiled programs are cached under.
            self.toolchains = self.backend.toolchains()
        self.scheduler = FairScheduler(self.backend.slots, gate=cpu_gate_for(
            self.config.runnable_per_core, getattr(self.backend, "slots_cpu_s", None)),
            young_cap=young_cap_for(self.config.young_per_core, self.config.young_ms, usable_cores()))
        self.output_budget = OutputBudget(self.config.total_output_mb << 20, self.config.job_output_mb << 20)
        self._ids = itertools.count()
        self._closed = False
        self._stats_lock = threading.Lock()
        self.stats = {"executions": 0, "compiles": 0, "cache_hits": 0}
        self.compiler = Compiler(self.cache, self.scratch, self.execute, self.config.compile_wall_max_s, self.count,
                                 inline_programs=getattr(self.backend, "inline_programs", False))

    def count(self, name: str, n: int = 1) -> None:
        with self._stats_lock:
            self.stats[name] += n

    # -- health and refusal

    def health(self) -> dict:
        """/healthz's sandbox part: the gate's report, the libraries programs see, and (a backend
        with toolchains of its own, the Docker image) the host's toolchains beside them, so a
        difference between the two (a security update one of them lacks) is visible."""
        report = self._gate_report()
        report["libraries"] = self.libraries()
        gate = self.scheduler.gate
        report["cpu_gate"] = gate.describe() if gate is not None else None
        cap = self.scheduler.young_cap
        report["young_cap"] = cap.describe() if cap is not None else None
        if hasattr(self.backend, "toolchains"):
            report["host_languages"] = {n: tc.version for n, tc in sorted(detect_toolchains().items())}
        return report

    def _gate_report(self) -> dict:
        return health_report(self.config, self.backend, {n: tc.version for n, tc in self.toolchains.items()},
                             self.scheduler.depth, self.scheduler.running)

    def libraries(self) -> dict:
        """The libraries LLM-written code imports and their versions, as this backend's programs see them."""
        if hasattr(self.backend, "libraries"):
            return self.backend.libraries()
        from .libraries import detect_libraries

        return detect_libraries()

    def check_isolation(self) -> None:
        refuse_unless_isolated(self.config, self.backend.gate())

    # -- running

    def run(self, req: RunRequest, *, outer: Any = None, hold_output: bool = False,
            deadline: Optional[Deadline] = None) -> RunResult:
        """Judge one program on its tests. Raises BadRequest for a bad job, SandboxUnavailable to refuse.

        ``hold_output``: the result's output stays charged to the output budget until the
        caller calls ``result.release_output()`` (the service does, once the response is encoded).
        ``deadline``: when the client needs the answer; a program's wait for a CPU is forgiven
        (``Limits.cpu_wait_allowance``) only until then."""
        if self._closed:
            raise SandboxUnavailable("sandbox is closed")
        self.check_isolation()
        outer = outer if outer is not None else ("run", next(self._ids))
        output = self.output_budget.job()
        try:
            result = Job(self, req, outer, output, deadline).run()
        except BaseException:
            output.release()
            raise
        if output.refused:
            output.release()
            raise Saturated("the service holds as much program output as it may (CODETEST_OUTPUT_BUDGET_MB); "
                            "retry later")
        if hold_output:
            result._output = output
        else:
            output.release()
        return result

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
        return self.scheduler.submit(lambda: self.dispatch(spec), outer, inner)

    def dispatch(self, spec: ExecSpec) -> ExecResult:
        """Run one execution now, on the calling scheduler worker. Its clock budget is fitted to
        the time its client has left (``spec.deadline``), measured when it starts: time spent
        waiting for a slot or compiling is gone from it, never from the program's own limits.
        One whose turn comes after ``deadline.start_by`` is not started (``DeadlinePassed``)."""
        if spec.deadline is not None:
            now = time.monotonic()
            if now > spec.deadline.start_by:
                raise DeadlinePassed(f"not started: its turn came {now - spec.deadline.start_by:.1f}s too late to "
                                     f"give it its limits within its client's time; retry later")
            spec.limits = spec.limits.within(spec.deadline.reply_by - now)
        self.count("executions")
        return self.backend.execute(spec)

    # -- programs

    def prepare(self, language: str, code: str, limits: Limits, outer: Any, entry_point: Optional[str] = None,
                extra_files: Optional[dict[str, bytes]] = None, deadline: Optional[Deadline] = None
                ) -> tuple[Optional[Program], CompileResult, bool]:
        """(program, compile result, whether the sandbox itself failed); the program is None on CE/SE.
        ``extra_files``: RunRequest.files, placed next to the source (see ``Compiler.prepare``)."""
        return self.compiler.prepare(self.toolchain(language), code, limits, outer, entry_point, extra_files,
                                     deadline)

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
        os.close(self._scratch_lock)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()



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
