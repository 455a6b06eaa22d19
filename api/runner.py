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

from sandbox.models import RunRequest, RunResult

from .admission import Lease
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

    def _blocking(self, job: RunRequest, lease: Lease, outer: object) -> RunResult:
        with self._lock:
            self._in_flight += 1
        start = time.perf_counter()
        verdict = "error"
        try:
            result: RunResult = self.sandbox.run(job, outer=outer, hold_output=True)
            verdict = result.verdict.value if hasattr(result.verdict, "value") else str(result.verdict)
            return result
        finally:
            elapsed = time.perf_counter() - start
            with self._lock:
                self._in_flight -= 1
            self.metrics.executions.labels(job.language, verdict).inc()
            self.metrics.execution_latency.labels(job.language).observe(elapsed)
            lease.job_finished(elapsed)

    async def run(self, job: RunRequest, lease: Lease, outer: object = None) -> RunResult:
        """One job on the pool. Cancelling the await cancels the job if it has not started.

        The result's output stays charged to the sandbox's output budget until the caller
        calls ``result.release_output()`` (after encoding it)."""
        lease.job_started()
        try:
            fut = self.pool.submit(self._blocking, job, lease, outer if outer is not None else self.new_caller("run"))
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

        async def one(i: int, job: RunRequest) -> None:
            async with gate:
                try:
                    result = await self.run(job, lease, outer)
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


def _expected(e: BaseException) -> bool:
    from sandbox import BadRequest, SandboxUnavailable
    from sandbox.errors import Saturated

    return isinstance(e, (BadRequest, SandboxUnavailable, Saturated))
