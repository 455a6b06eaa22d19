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
minus the signal that killed it: a program killed for memory is -9, as SandboxFusion's
subprocess reports a SIGKILL), and only SE becomes Error.
- ``message`` is empty unless the status is ``SandboxError``; then it says what failed. A job
  SandboxFusion would take but we cannot run (a language whose toolchain is not installed, a
  bad file name) is such an answer: HTTP 200 with ``SandboxError``, never a 4xx.
- ``files`` (path -> base64) are written next to the program (so a compile step sees them)
  and into the working directory; ``fetch_files`` that exist after the run come back base64
  in ``files``, as SandboxFusion does.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional

from sandbox.languages import canonical_name
from sandbox.models import CompileResult, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict

from .models import FusionCommandResult, FusionRunRequest, FusionRunResponse


def _seconds(value: float, default: float, lo: float, hi: float) -> float:
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        value = default
    return float(min(hi, max(lo, value)))


# `dotnet new console` (SandboxFusion's C#) has implicit usings; mcs does not. A repeated using
# is only a warning, so they go first, on one line (compiler messages stay one line off).
_CSHARP_IMPLICIT_USINGS = ("using System; using System.IO; using System.Collections.Generic; using System.Linq; "
                           "using System.Threading; using System.Threading.Tasks;\n")


def _source(language: str, code: str) -> str:
    if language == "php" and "<?php" not in code:
        return "<?php\n" + code  # SandboxFusion adds the tag the same way (ensure_php_tag_in_string)
    if language == "csharp":
        return _CSHARP_IMPLICIT_USINGS + code
    return code


def to_run_request(req: FusionRunRequest, available: Iterable[str], default_memory_mb: int) -> RunRequest:
    """One program, one test on ``stdin``, no expected output: the exit status judges, as in SandboxFusion.

    Raises pydantic's ValidationError for what our RunRequest refuses (a bad file name or base64)."""
    run_s = _seconds(req.run_timeout, 10.0, 0.05, 60.0)
    compile_s = _seconds(req.compile_timeout, 10.0, 0.5, 300.0)
    mem = req.memory_limit_MB if req.memory_limit_MB > 0 else default_memory_mb
    limits = Limits(
        time_s=run_s, wall_time_s=run_s, memory_mb=int(min(16384, max(16, mem))), compile_time_s=compile_s,
    )
    language = canonical_name(req.language)
    code = _source(language, req.code)
    job = RunRequest(
        language=language, code=code if code.strip() else "#", tests=[TestCase(stdin=req.stdin or "")], limits=limits,
        files={k: v for k, v in req.files.items() if v is not None}, fetch_files=list(req.fetch_files),
        args=list(req.args),
    )
    # SandboxFusion runs an empty program (Python and Bash succeed, a compiler says why it fails);
    # our RunRequest refuses blank code for everyone else, so the blank source is set after the check.
    job.code = code
    return job


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


def _run_step(t: TestResult, run_timeout: Optional[float] = None) -> FusionCommandResult:
    elapsed = t.wall_time_s or t.time_s
    # SandboxFusion's run_timeout is the run's elapsed time. Ours is the program's own: wall time
    # less the time it waited for a CPU, so a program that sleeps past run_timeout is TLE (as
    # there) while one slowed down by a busy machine is not. CPU time over the limit is TLE anyway.
    own = max(0.0, (t.wall_time_s or 0.0) - (t.run_delay_s or 0.0))
    if run_timeout is not None and t.verdict not in (Verdict.SE, Verdict.TLE) and own > run_timeout:
        return FusionCommandResult(status="TimeLimitExceeded", execution_time=elapsed, return_code=None,
                                   stdout=t.stdout, stderr=t.stderr)
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


def judged_on_own_time(language: str) -> bool:
    """Whether the run's first process is the program (not a launcher of it, see Language.launcher)."""
    from sandbox.languages import get_language

    try:
        return not get_language(language).launcher
    except Exception:  # noqa: BLE001
        return True


def has_compile_step(language: str) -> bool:
    """SandboxFusion reports no compile_result for interpreted languages; neither do we."""
    from sandbox.languages import get_language

    try:
        return get_language(language).compile is not None
    except Exception:  # noqa: BLE001 - unknown here: the run itself will say so
        return True


def to_response(res: RunResult, compiled: bool = True, fetched: Optional[dict[str, str]] = None,
                run_timeout: Optional[float] = None) -> FusionRunResponse:
    files = dict(fetched or (res.tests[0].files if res.tests and res.tests[0].files else {}))
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
    run_step = _run_step(t, run_timeout)
    if run_step.status == "Error":
        return FusionRunResponse(status="SandboxError", message=t.message or res.message or "sandbox error",
                                 compile_result=compile_step, run_result=run_step, files=files)
    ok = run_step.status == "Finished" and run_step.return_code == 0
    # SandboxFusion's message is empty for Success and Failed; the verdict's name travels in the
    # X-Codetest-Verdict header the route sets, for those who want to tell MLE from RE.
    return FusionRunResponse(status="Success" if ok else "Failed", message="",
                             compile_result=compile_step, run_result=run_step, files=files)


def sandbox_error(message: str) -> FusionRunResponse:
    return FusionRunResponse(status="SandboxError", message=message,
                             run_result=FusionCommandResult(status="Error", stderr=message))


def validation_message(e: Exception) -> str:
    """pydantic's first complaint, as one line (without the offending input: it may be megabytes)."""
    errs = e.errors() if hasattr(e, "errors") else []  # type: ignore[union-attr]
    first = errs[0] if errs else {}
    where = ".".join(str(x) for x in first.get("loc", ())) or "request"
    return f"{where}: {first.get('msg', str(e))}"
