"""Running sandbox jobs from the event loop without blocking it, within a lease and a deadline.

Jobs go to one thread pool in arrival order; each reward request keeps at most a small
window of its jobs in that pool, so a batch of hundreds interleaves with everyone else's
work instead of queueing ahead of it. A deadline stops waiting: jobs not started are
cancelled, jobs already running finish in the background (bounded by their own limits)
and keep their lease until then.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import threading
import time
from typing import Any, Callable, Optional, Sequence

from sandbox.backends.base import Deadline
from sandbox.cpu_gate import FLOOR_PER_CORE
from sandbox.models import RunRequest, RunResult

from .admission import MARGIN_S, Lease
from .metrics import Metrics

log = logging.getLogger("codetest.api")


class JobRunner:
    def __init__(self, sandbox: Any, metrics: Metrics, max_workers: int):
        self.sandbox = sandbox
        self.metrics = metrics
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(2, max_workers),
                                                          thread_name_prefix="codetest-job")
        self._in_flight = 0
        self._lock = threading.Lock()
        self._ids = itertools.count()

    def new_caller(self, kind: str) -> tuple[str, int]:
        """A key under which the sandbox's fair scheduler groups one request's executions."""
        return (kind, next(self._ids))

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _blocking(self, job: RunRequest, lease: Lease, outer: object, deadline: Optional[Deadline]) -> RunResult:
        with self._lock:
            self._in_flight += 1
        start = time.perf_counter()
        verdict = "error"
        exec_s: Optional[float] = None
        try:
            result: RunResult = self.sandbox.run(job, outer=outer, hold_output=True, deadline=deadline)
            verdict = result.verdict.value if hasattr(result.verdict, "value") else str(result.verdict)
            exec_s = slot_time_per_execution(result)
            return result
        finally:
            elapsed = time.perf_counter() - start
            with self._lock:
                self._in_flight -= 1
            self.metrics.executions.labels(job.language, verdict).inc()
            self.metrics.execution_latency.labels(job.language).observe(elapsed)
            lease.job_finished(exec_s)

    async def run(self, job: RunRequest, lease: Lease, outer: object = None,
                  deadline: Optional[Deadline] = None) -> RunResult:
        """One job on the pool. Cancelling the await cancels the job if it has not started.

        ``deadline``: when the client needs the answer (``whole_answer_due`` or
        ``batch_due``). The result's output stays charged to the sandbox's output
        budget until the caller calls ``result.release_output()`` (after encoding it)."""
        lease.job_started()
        try:
            fut = self.pool.submit(self._blocking, job, lease, outer if outer is not None else self.new_caller("run"),
                                   deadline)
        except RuntimeError:  # pool shut down: the service is stopping
            lease.job_finished()
            raise
        fut.add_done_callback(lambda f: lease.job_finished() if f.cancelled() else None)
        return await asyncio.wrap_future(fut)

    async def run_batch(self, jobs: Sequence[Optional[RunRequest]], lease: Lease, window: int,
                        deadline_s: float, keep: Callable[[RunResult], Any] = lambda r: r) -> list[object]:
        """Outcome per job: ``keep(result)``, the exception it raised, or None if the deadline came
        first (and None for the positions whose job is None)."""
        outcomes: list[object] = [None] * len(jobs)
        gate = asyncio.Semaphore(max(1, window))
        outer = self.new_caller("batch")
        deadline = batch_due(deadline_s)

        async def one(i: int, job: RunRequest) -> None:
            async with gate:
                try:
                    result = await self.run(job, lease, outer, deadline)
                    try:
                        outcomes[i] = keep(result)
                    finally:
                        result.release_output()
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # noqa: BLE001 - every failure becomes this item's error
                    if not _expected(e):
                        log.exception("job failed inside the sandbox")
                    outcomes[i] = e

        tasks = [asyncio.ensure_future(one(i, j)) for i, j in enumerate(jobs) if j is not None]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=deadline_s)
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.wait(pending, timeout=5)
        return outcomes

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def whole_answer_due(seconds: float, cpu_s: float, lasting_s: Optional[float] = None) -> Deadline:
    """A request whose client waits for its whole answer for ``seconds`` (``/v1/run``, ``/run_code``).

    The answer is due by then less the admission's margin (the client's own send and receive,
    encoding). A program is started only while it can still use its whole CPU limit sharing a
    core with one other (as many as the CPU gate lets share one): with ``FLOOR_PER_CORE`` x its
    limit left; a client whose whole time is shorter than that allows: half of it, and never
    less than the limit. One whose turn comes later is not started: the client gets 503 (504 on
    /run_code) at once and retries, instead of a verdict cut short or an answer after it stopped
    listening.

    ``lasting_s``: how long a run that did start may go on, when that is longer than the request
    (a ``/run_code`` run outlives its request: ``api/rejoin.py``); its start is still due within
    the request's own time, as above."""
    now = time.monotonic()
    reply_by = now + max(0.0, seconds - MARGIN_S)
    needs = max(cpu_s, min(FLOOR_PER_CORE * cpu_s, (reply_by - now) / 2))
    ends_by = max(reply_by, now + (lasting_s or 0.0) - MARGIN_S)
    return Deadline(reply_by=ends_by, start_by=reply_by - needs)


def batch_due(seconds: float) -> Deadline:
    """A batch (``/v1/reward``) answers at its deadline with what is done: an execution starts
    while any time is left, and what is unfinished then is reported as such."""
    at = time.monotonic() + seconds
    return Deadline(reply_by=at, start_by=at)


def slot_time_per_execution(result: RunResult) -> Optional[float]:
    """How long each execution of this job held a slot (the jail's set-up, the program, the
    reply: the judge times it, ``TestResult._slot_s``; the program's own wall time where it did
    not): time spent waiting for a slot is not in it, so the admission estimate does not count
    waiting twice."""
    times = [t._slot_s if t._slot_s is not None else (t.wall_time_s or t.time_s or 0.0)
             for t in result.tests if t.verdict.value != "SKIPPED"]
    if result.compile is not None and not getattr(result.compile, "cached", False) and result.compile.time_s:
        times.append(result.compile.time_s)
    if not times:
        return None
    return sum(times) / len(times)


def _expected(e: BaseException) -> bool:
    from sandbox import BadRequest, SandboxUnavailable
    from sandbox.errors import DeadlinePassed, Saturated

    return isinstance(e, (BadRequest, SandboxUnavailable, Saturated, DeadlinePassed))
