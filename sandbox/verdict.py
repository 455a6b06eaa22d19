"""The one place a verdict is decided: the jail's facts + the limits + the comparison outcome.

The jail reports facts (how the program ended, CPU, wall, peak memory, output sizes, which
limit fired, or that the sandbox itself failed); the comparison reports whether the output
was accepted. :func:`decide` turns those into one verdict, in this order:

1. ``SE``  the sandbox itself failed (``facts.error``). Nothing the program does gets here.
2. ``OLE`` the output limit fired, or the job's outputs together are over the service's
   per-job output budget (``SE`` when the budget across all jobs is spent: not the program's doing).
3. ``MLE`` the memory limit fired, or the program crashed saying it ran out of memory
   (``MemoryError``, ``std::bad_alloc``, ...), or it died with its peak over the memory limit,
   or (after the time checks) it was SIGKILLed at 97% of its memory limit.
4. ``TLE`` the CPU or wall limit fired, or the CPU time is over the limit.
5. ``RE``  a non-zero exit or a signal.
6. ``WA`` / ``AC`` what the comparison (exact, whitespace, float, value or checker) said;
   ``SE`` when the checker itself failed (the problem's fault, never the program's).

:func:`decide_compile` does the same for the compile step, and says whether its outcome may
be cached: only successes and deterministic compiler rejections are; a timeout, memory kill
or sandbox failure never is. :func:`overall_verdict` folds test verdicts into one.
"""

from __future__ import annotations

import signal as _signal
from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Optional

from .models import CompileResult, Verdict

MEMORY_MESSAGES = ("MemoryError", "java.lang.OutOfMemoryError", "std::bad_alloc",
                   "JavaScript heap out of memory", "memory allocation of")


class Outcome(str, Enum):
    """What judging the output said (only consulted when the run itself ended well)."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CHECKER_FAILED = "checker_failed"  # the checker crashed or answered outside its protocol


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    message: Optional[str] = None


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


def crashed(facts: Any) -> bool:
    return facts.signal is not None or (facts.exit_code or 0) != 0


def run_verdict(facts: Any, cpu_limit_s: float, memory_limit_bytes: int) -> Optional[Decision]:
    """The verdict the run earned on its own, before its output is judged (None: judge the output)."""
    if facts.error:
        return Decision(Verdict.SE, f"sandbox error: {facts.error}")
    if facts.output_exceeded:
        return Decision(Verdict.OLE)
    died = crashed(facts)
    if facts.memory_exceeded:
        return Decision(Verdict.MLE)
    if died and any(m in _text(facts.stderr[-4096:]) for m in MEMORY_MESSAGES):
        return Decision(Verdict.MLE)
    if died and facts.memory_bytes > memory_limit_bytes:
        # Killed (by whichever limit the jail saw first) with its peak already over the memory
        # limit: a meter that polls (a container under gVisor) can see the CPU limit first.
        return Decision(Verdict.MLE)
    if facts.cpu_exceeded or facts.wall_exceeded or facts.cpu_s > cpu_limit_s:
        return Decision(Verdict.TLE)
    if died:
        if facts.signal == _signal.SIGKILL and facts.memory_kb * 1024 >= 0.97 * memory_limit_bytes:
            return Decision(Verdict.MLE)
        return Decision(Verdict.RE)
    return None


def decide(facts: Any, cpu_limit_s: float, memory_limit_bytes: int, outcome: Optional[Outcome] = None,
           message: Optional[str] = None, *, over_job_output_budget: bool = False,
           over_server_output_budget: bool = False) -> Decision:
    """One test's verdict. ``outcome`` None means nothing was compared (no expected output): AC.

    ``over_job_output_budget``: the job's outputs together are more than the service keeps for
    one job (``CODETEST_JOB_OUTPUT_MB``): OLE. ``over_server_output_budget``: the service's
    output budget across jobs is spent: SE here, and the whole job is refused (429) above."""
    if facts.error is None and over_server_output_budget:
        return Decision(Verdict.SE, "the service's output budget across jobs is spent; retry later")
    if facts.error is None and over_job_output_budget:
        return Decision(Verdict.OLE, "the job's outputs together are over the service's per-job output budget")
    ran = run_verdict(facts, cpu_limit_s, memory_limit_bytes)
    if ran is not None:
        return ran
    if outcome is None or outcome == Outcome.ACCEPTED:
        return Decision(Verdict.AC, message)
    if outcome == Outcome.REJECTED:
        return Decision(Verdict.WA, message)
    return Decision(Verdict.SE, message or "checker failed")


@dataclass(frozen=True)
class CompileDecision:
    result: CompileResult
    # Whether this outcome is a property of (toolchain, source, limits) alone and may be cached.
    cacheable: bool
    # The sandbox failed: the job's verdict is SE, not CE.
    sandbox_failed: bool = False


COMPILER_MEMORY_MESSAGES = ("out of memory", "virtual memory exhausted", "std::bad_alloc", "OutOfMemoryError",
                            "memory allocation of", "Cannot allocate memory")


def decide_compile(facts: Any, took_s: float, cpu_limit_s: float = float("inf")) -> CompileDecision:
    """The compile step's outcome. Cacheable only when it is the source's own: a success, or a
    rejection that is not a limit (time, memory, output, a signal) and not the sandbox failing."""
    out, err = _text(facts.stdout), _text(facts.stderr)
    if facts.error:
        return CompileDecision(CompileResult(ok=False, stderr=f"sandbox error: {facts.error}", time_s=took_s),
                               cacheable=False, sandbox_failed=True)
    if facts.wall_exceeded or facts.cpu_exceeded or facts.cpu_s > cpu_limit_s:
        return CompileDecision(CompileResult(ok=False, stdout=out, stderr=err + "\ncompilation timed out",
                                             time_s=took_s), cacheable=False)
    if facts.memory_exceeded:
        return CompileDecision(CompileResult(ok=False, stdout=out, stderr=err + "\ncompilation ran out of memory",
                                             time_s=took_s), cacheable=False)
    if facts.output_exceeded:
        return CompileDecision(CompileResult(ok=False, stdout=out, stderr=err + "\ncompiler output over its limit",
                                             time_s=took_s), cacheable=False)
    if facts.signal is not None:
        # A compiler killed by a signal (OOM killer, a limit) did not reject the source.
        return CompileDecision(CompileResult(ok=False, stdout=out, stderr=err + f"\ncompiler killed by signal "
                                             f"{facts.signal}", time_s=took_s), cacheable=False)
    ok = facts.exit_code == 0
    # A compiler that caught its own allocation failure exits 1: a limit, not the source's fault.
    starved = not ok and any(m in err for m in COMPILER_MEMORY_MESSAGES)
    return CompileDecision(CompileResult(ok=ok, stdout=out, stderr=err, time_s=took_s), cacheable=not starved)


def overall_verdict(compile_ok: bool, tests: Iterable[Any]) -> Verdict:
    """CE if the compile failed, else the first verdict other than AC/SKIPPED in test order, else AC."""
    if not compile_ok:
        return Verdict.CE
    for t in tests:
        if t.verdict not in (Verdict.AC, Verdict.SKIPPED):
            return t.verdict
    return Verdict.AC
