"""Admission by deadline: a request is taken when its work can start and finish within its
client's time, and refused (503 + Retry-After) only when it cannot.

Every client of the service has a deadline, whether it says so or not: verl's sandbox_fusion
reward gives each ``/run_code`` call ``compile_timeout + run_timeout + 10`` seconds, OpenRLHF
gives ``/get_reward`` 180 s, a reward batch names its ``deadline_s``. A count of queued
requests says nothing about whether that deadline can be met (64 quick programs are less work
than 4 infinite loops), so the queue is judged by time:

- ``wait`` = when the request's first execution would get a slot: zero while fewer executions
  are in flight than there are slots, else the executions ahead of it divided by the slots,
  times how long an execution has recently held a slot (a moving average that already
  includes the slow-down of everything running at once);
- the request is admitted when ``wait + its own expected run <= deadline - margin``.

The service runs more slots than cores (``slots_per_core``): most programs a trainer sends
finish in milliseconds or sleep (waiting on input that never comes, ``time.sleep``), and a
program's time limit is judged on its own CPU time, so sharing the cores between more
executions than there are cores changes no verdict; it only keeps a slot from idling behind
a sleeper. Waiting for a slot never counts against a program: its limits start when it runs.

A request reserves its units (executions it may have in flight) when admitted and keeps them
until its last execution has finished, even if the request returned earlier because its
deadline passed: the depth reported here is the honest amount of work the sandbox still owes.
"""

from __future__ import annotations

import math
import threading
from typing import Optional

# Seconds kept free between our estimate and the client's deadline (its own send/receive,
# JSON, the estimate's error).
MARGIN_S = 2.0
# Client deadlines the service assumes when a request does not carry one.
RUN_CODE_SLACK_S = 10.0  # verl: requests.post(timeout=compile_timeout + run_timeout + 10)
OPENRLHF_DEADLINE_S = 170.0  # OpenRLHF: aiohttp.ClientTimeout(total=180)


class Overloaded(Exception):
    """This request's work cannot be done within its client's time now."""

    def __init__(self, retry_after: int, wait_s: float, deadline_s: float, depth: int, capacity: int,
                 reason: str = "deadline"):
        if reason == "capacity":
            msg = f"server busy: {depth} of {capacity} executions admitted"
        else:
            msg = (f"server busy: this request would start in about {wait_s:.1f}s and could not finish within "
                   f"its {deadline_s:.0f}s deadline")
        super().__init__(msg)
        self.retry_after = retry_after
        self.wait_s = wait_s
        self.deadline_s = deadline_s
        self.depth = depth
        self.capacity = capacity
        self.reason = reason


# The old name, kept for importers.
QueueFull = Overloaded


def run_code_wall_s(run_s: float, compile_s: float) -> float:
    """The wall limit of a /run_code run: TLE is judged on CPU time (``run_s``); the wall limit
    only catches programs that sleep, so it is generous (2x + 1 s, room for sharing a core)
    while leaving half of verl's 10 s slack and the compile budget for waiting and compiling."""
    return float(min(120.0, max(run_s, min(2 * run_s + 1, run_s + (compile_s + RUN_CODE_SLACK_S) / 2))))


class Admission:
    """Executions in flight against slots, and a moving average of how long one holds a slot."""

    def __init__(self, capacity: int, slots: int):
        self.capacity = max(1, capacity)
        self.slots = max(1, slots)
        self._depth = 0
        self._lock = threading.Lock()
        self._avg_exec_s = 0.05  # seeds the estimate; replaced by measurements within a few jobs
        self.refused = 0

    @property
    def depth(self) -> int:
        return self._depth

    @property
    def avg_exec_s(self) -> float:
        return self._avg_exec_s

    def observe(self, exec_s: float) -> None:
        """One execution's time in its slot (compile or test)."""
        self._avg_exec_s = 0.75 * self._avg_exec_s + 0.25 * max(0.0, exec_s)

    def wait_s(self, depth: Optional[int] = None) -> float:
        """Expected time before a new execution gets a slot."""
        d = self._depth if depth is None else depth
        ahead = d - self.slots + 1
        return 0.0 if ahead <= 0 else ahead / self.slots * self._avg_exec_s

    def retry_after(self, excess_s: float = 0.0) -> int:
        return int(min(60, max(1, math.ceil(max(excess_s, self.wait_s())))))

    def lease(self, units: int, deadline_s: Optional[float] = None, own_s: Optional[float] = None,
              own_max_s: Optional[float] = None) -> "Lease":
        """Reserve ``units`` or raise Overloaded.

        ``deadline_s`` is the client's time for the whole request; ``own_s`` the request's own
        expected run once started (default: ``units`` executions at the recent average, spread
        over the slots); ``own_max_s`` the longest that run can take on its own limits, which no
        estimate exceeds: the average is other programs' (after a burst of sleepers it is their wall
        limit), and a quick job whose limits fit its client's time is not refused for it. Without a
        deadline only the capacity bounds admission. A request larger than the whole capacity is
        admitted into an empty service, so it is never refused forever.
        """
        units = max(1, units)
        with self._lock:
            if self._depth + units > self.capacity and not (self._depth == 0 and units > self.capacity):
                raise Overloaded(self.retry_after(), self.wait_s(), deadline_s or 0.0, self._depth, self.capacity,
                                 reason="capacity")
            if deadline_s is not None and self._depth > 0:
                wait = self.wait_s()
                own = own_s if own_s is not None else math.ceil(units / self.slots) * self._avg_exec_s
                if own_max_s is not None:
                    own = min(own, own_max_s)
                excess = wait + own - (deadline_s - MARGIN_S)
                if excess > 0:
                    self.refused += 1
                    raise Overloaded(self.retry_after(excess), wait, deadline_s, self._depth, self.capacity)
            self._depth += units
        return Lease(self, units)

    def _release(self, units: int) -> None:
        with self._lock:
            self._depth = max(0, self._depth - units)


class Lease:
    """A request's reservation: released once the request is closed and no job is outstanding."""

    def __init__(self, admission: Admission, units: int):
        self._admission = admission
        self.units = units
        self._outstanding = 0
        self._closed = False
        self._released = False
        self._lock = threading.Lock()

    def job_started(self) -> None:
        with self._lock:
            self._outstanding += 1

    def job_finished(self, exec_s: Optional[float] = None) -> None:
        if exec_s is not None:
            self._admission.observe(exec_s)
        with self._lock:
            self._outstanding -= 1
            release = self._closed and self._outstanding <= 0 and not self._released
            if release:
                self._released = True
        if release:
            self._admission._release(self.units)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            release = self._outstanding <= 0 and not self._released
            if release:
                self._released = True
        if release:
            self._admission._release(self.units)

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
