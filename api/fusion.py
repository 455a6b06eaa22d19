"""SandboxFusion's /run_code on top of our sandbox: same request, same response, same meanings.

What its clients (verl's sandbox_fusion reward, the sandbox-fusion SDK) rely on:
- ``status`` is ``Success`` only when every step finished with return code 0, ``Failed``
  when the program failed (compile error, timeout, non-zero exit), and ``SandboxError``
  only when the sandbox itself failed.
- a compile failure is a ``compile_result`` with status Finished and a non-zero
  return code, and no ``run_result``; interpreted languages have no ``compile_result``.
- a timeout is a step with status TimeLimitExceeded and no return code.
- a step that Finished always carries an integer return code.
So our MLE, OLE and RE become Finished with a non-zero return code (the exit code, or
minus the signal that killed it), and only SE becomes Error.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional

from sandbox.models import CompileResult, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict

from sandbox.languages import canonical_name
from .models import FusionCommandResult, FusionRunRequest, FusionRunResponse

_LIMIT_NOTES = {
    Verdict.MLE: "memory limit exceeded",
    Verdict.OLE: "output limit exceeded",
    Verdict.TLE: "time limit exceeded",
    Verdict.RE: "runtime error",
}


def _seconds(value: float, default: float, lo: float, hi: float) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        value = default
    return float(min(hi, max(lo, value)))


def to_run_request(req: FusionRunRequest, available: Iterable[str], default_memory_mb: int) -> RunRequest:
    """One program, one test on ``stdin``, no expected output: the exit status judges, as in SandboxFusion."""
    run_s = _seconds(req.run_timeout, 10.0, 0.05, 60.0)
    compile_s = _seconds(req.compile_timeout, 10.0, 0.5, 300.0)
    mem = req.memory_limit_MB if req.memory_limit_MB > 0 else default_memory_mb
    limits = Limits(
        time_s=run_s, wall_time_s=run_s, memory_mb=int(min(16384, max(16, mem))), compile_time_s=compile_s,
    )
    return RunRequest(
        language=canonical_name(req.language), code=req.code,
        tests=[TestCase(stdin=req.stdin or "")], limits=limits,
    )


def _compile_step(c: CompileResult) -> FusionCommandResult:
    timed_out = (not c.ok) and (c.stderr or "").rstrip().endswith("compilation timed out")
    if timed_out:
        return FusionCommandResult(status="TimeLimitExceeded", execution_time=c.time_s, return_code=None,
                                   stdout=c.stdout, stderr=c.stderr)
    return FusionCommandResult(status="Finished", execution_time=c.time_s, return_code=0 if c.ok else 1,
                               stdout=c.stdout, stderr=c.stderr)


def _nonzero_code(t: TestResult) -> int:
    if t.exit_code not in (None, 0):
        return int(t.exit_code)  # type: ignore[arg-type]
    if t.signal:
        return -int(t.signal)
    return 1  # stopped by a limit without an exit status of its own


def _run_step(t: TestResult) -> FusionCommandResult:
    elapsed = t.wall_time_s or t.time_s
    if t.verdict in (Verdict.AC, Verdict.WA):
        code = t.exit_code if t.exit_code is not None else 0
        return FusionCommandResult(status="Finished", execution_time=elapsed, return_code=code,
                                   stdout=t.stdout, stderr=t.stderr)
    if t.verdict == Verdict.TLE:
        return FusionCommandResult(status="TimeLimitExceeded", execution_time=elapsed, return_code=None,
                                   stdout=t.stdout, stderr=t.stderr)
    if t.verdict == Verdict.SE:
        return FusionCommandResult(status="Error", execution_time=elapsed, return_code=None,
                                   stdout=t.stdout, stderr=t.stderr or t.message or "sandbox error")
    return FusionCommandResult(status="Finished", execution_time=elapsed, return_code=_nonzero_code(t),
                               stdout=t.stdout, stderr=t.stderr)


def has_compile_step(language: str) -> bool:
    """SandboxFusion reports no compile_result for interpreted languages; neither do we."""
    from sandbox.languages import get_language

    try:
        return get_language(language).compile is not None
    except Exception:  # noqa: BLE001 - unknown here: the run itself will say so
        return True


def to_response(res: RunResult, compiled: bool = True, fetched: Optional[dict[str, str]] = None) -> FusionRunResponse:
    files = fetched or {}
    show_compile = res.compile is not None and (compiled or not res.compile.ok)
    compile_step = _compile_step(res.compile) if show_compile else None
    if res.verdict == Verdict.CE:
        if compile_step is None or compile_step.return_code == 0:
            compile_step = FusionCommandResult(status="Finished", execution_time=0.0, return_code=1, stdout="",
                                               stderr=res.message or "compilation failed")
        return FusionRunResponse(status="Failed", message="", compile_result=compile_step, run_result=None, files=files)
    if not res.tests:
        return FusionRunResponse(status="SandboxError", message=res.message or "the sandbox returned no run",
                                 compile_result=compile_step, files=files)
    t = res.tests[0]
    run_step = _run_step(t)
    if run_step.status == "Error":
        return FusionRunResponse(status="SandboxError", message=t.message or res.message or "sandbox error",
                                 compile_result=compile_step, run_result=run_step, files=files)
    ok = run_step.status == "Finished" and run_step.return_code == 0
    note = "" if ok else _LIMIT_NOTES.get(t.verdict, "")
    return FusionRunResponse(status="Success" if ok else "Failed", message=note,
                             compile_result=compile_step, run_result=run_step, files=files)


def sandbox_error(message: str) -> FusionRunResponse:
    return FusionRunResponse(status="SandboxError", message=message,
                             run_result=FusionCommandResult(status="Error", stderr=message))
