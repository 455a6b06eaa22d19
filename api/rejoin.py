"""A ``/run_code`` request sent again joins the run the first one started.

verl's reward client gives each request ``compile_timeout + run_timeout + 10`` seconds and
retries a 504 (three attempts, 1 s and 2 s apart); any other failure scores the test -1. When
more CPU-bound work arrives at once than the cores finish in one attempt's time, each program
shares a core with many others and is still running when its client's time is nearly up.
Killing it then would judge it by how busy the service was, and starting it anew on the retry
would repeat the same race. Instead:

- the run is not cut at its first client's deadline: it goes on within its own limits (the
  wall limit stretched by the time it waited for a CPU, ``Limits.wait_allowance``, up to the
  client's whole retry budget, ``RUN_CODE_ATTEMPTS`` attempts);
- its client gets 504 with ``Retry-After: 1`` just before its time is up (``StillRunning``);
- the same request again (the same body, with the same API key) waits on that run rather than
  starting another; concurrent identical requests share one run as well;
- once a run's answer is delivered, it is forgotten. A run that failed before it was judged
  (not admitted, not started in time) is forgotten at once, so the next attempt starts afresh.
  A run whose every client gave up is kept for ``keep_s`` after it ends, then dropped.

The run's verdict is the one it would have had alone: TLE is judged on its own CPU time.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Awaitable, Callable, Optional

from sandbox.models import RunResult

# verl's MAX_RETRIES: the attempts a /run_code client makes before it scores the test -1.
RUN_CODE_ATTEMPTS = 3


class StillRunning(Exception):
    """The client's time is nearly up and its run goes on: 504, and the same request again
    gets the run's answer."""

    retry_after_s = 1


class _Run:
    def __init__(self, task: "asyncio.Task[RunResult]"):
        self.task = task
        self.waiting = 0
        self.ended_at: Optional[float] = None


class SharedRuns:
    """The runs that a request sent again may join, by ``request_key``."""

    def __init__(self, keep_s: float = 60.0):
        self.keep_s = keep_s
        self._runs: dict[str, _Run] = {}
        self._next_sweep = 0.0

    @staticmethod
    def request_key(body: bytes, api_key: str) -> str:
        return hashlib.sha256(api_key.encode() + b"\0" + body).hexdigest()

    async def answer(self, key: str, start: Callable[[], Awaitable[RunResult]], within_s: float
                     ) -> tuple[RunResult, bool]:
        """(the run's result, whether this request joined a run already there). Starts the run
        (``start()``) if none is there; raises ``StillRunning`` when ``within_s`` passes first,
        and whatever the run raised if it failed."""
        self._drop_abandoned()
        run = self._runs.get(key)
        joined = run is not None
        if run is None:
            run = _Run(asyncio.ensure_future(start()))
            self._runs[key] = run
            run.task.add_done_callback(lambda task, r=run: self._ended(r))
        run.waiting += 1
        try:
            # Waiting never cancels the run (a client that went away leaves it for its retry);
            # asyncio.wait does that with one future, where wait_for(shield(...)) makes three.
            await asyncio.wait((run.task,), timeout=max(0.0, within_s))
        finally:
            run.waiting -= 1
        if not run.task.done():
            raise StillRunning("the run goes on past this request's time; send the same request again "
                               "for its answer")
        try:
            result = run.task.result()
        except BaseException:
            self._forget(key, run)  # not judged: the next attempt starts afresh
            raise
        self._forget(key, run)
        return result, joined

    def _ended(self, run: _Run) -> None:
        run.ended_at = time.monotonic()
        if not run.task.cancelled():
            run.task.exception()  # retrieved here, raised to the requests that wait on it

    def _forget(self, key: str, run: _Run) -> None:
        if self._runs.get(key) is run:
            del self._runs[key]

    def _drop_abandoned(self) -> None:
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + 1.0
        for key, run in list(self._runs.items()):
            if run.waiting == 0 and run.ended_at is not None and now - run.ended_at > self.keep_s:
                del self._runs[key]
                if not run.task.cancelled() and run.task.exception() is None:
                    run.task.result().release_output()
