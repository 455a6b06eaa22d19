"""One job, admitted within its client's time and run on the pool (``/v1/run``, ``/run_code``),
and what a request says of that time and of who sent it."""

from __future__ import annotations

from typing import Mapping, Optional

from sandbox.models import RunRequest, RunResult

from .errors import InvalidInput
from .fusion import has_compile_step
from .reward import output_budget_mb
from .runner import whole_answer_due
from .service import Service


def require_sandbox(svc: Service) -> None:
    if svc.sandbox is None or svc.admission is None or svc.runner is None:
        from sandbox import SandboxUnavailable

        raise SandboxUnavailable(svc.startup_problem or "the sandbox is not running")


async def run_one(svc: Service, job: RunRequest, deadline_s: float, lasting_s: Optional[float] = None) -> RunResult:
    """Admit one job if it can finish within ``deadline_s`` (its client's time), then run it;
    once started, it may go on for ``lasting_s`` (``whole_answer_due``)."""
    require_sandbox(svc)
    if output_budget_mb(job) > svc.settings.max_output_mb:
        raise InvalidInput(f"tests x limits.output_kb allow {output_budget_mb(job):.0f} MiB of output; this server "
                           f"takes at most {svc.settings.max_output_mb} MiB per job: lower limits.output_kb")
    deadline = whole_answer_due(deadline_s, job.limits.time_s, lasting_s)
    with svc.admission.lease(1, deadline_s, own_max_s=longest_own_run_s(job)) as lease:  # type: ignore[union-attr]
        return await svc.runner.run(job, lease, deadline=deadline)  # type: ignore[union-attr]


def longest_own_run_s(job: RunRequest) -> float:
    """How long the job can run once started, on its own limits: its compile step's wall limit
    (where the language has one) and each test's wall limit, one after another."""
    compile_s = 1.5 * job.limits.compile_time_s + 1 if has_compile_step(job.language) else 0.0
    return compile_s + max(1, len(job.tests)) * job.limits.wall_s


def api_key_of(headers: Mapping[str, str]) -> str:
    """The caller's credential as sent (runs are shared only between requests that carry the same)."""
    return headers.get("authorization") or headers.get("x-api-key") or ""


def client_deadline(headers: Mapping[str, str], default: float) -> float:
    """The client's time for this request: ``X-Codetest-Deadline`` (seconds) if sent, else ``default``."""
    raw = headers.get("x-codetest-deadline")
    try:
        value = float(raw) if raw is not None else default
    except ValueError:
        value = default
    return value if 0 < value <= 3600 else default
