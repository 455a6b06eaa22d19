"""How much program output the sandbox keeps in memory: per job, and across all jobs at once.

Every test's output is judged in full (it is at most the test's ``output_kb``, enforced by the
jail). What a result *keeps* to return to its caller is charged here, at what it will cost in
the JSON response: a byte costs 1, a control byte 6 (``\\u0001``), a non-ASCII byte up to 3
(invalid UTF-8 becomes U+FFFD). A job keeps at most ``job_output_mb`` (past it the test is
OLE: the service will not hold that much for one job), and all jobs in flight together at most
``total_output_mb`` (past it the job is refused with :class:`~sandbox.errors.Saturated`, which
the service answers with 429 and the reward endpoint with ``reward: null``). The service's
memory for output is so within a small constant factor of these two numbers, whatever
programs print.
"""

from __future__ import annotations

import threading
from typing import Optional

_CONTROL = bytes(range(32)) + b'"\\'
_HIGH = bytes(range(128, 256))

JOB, GLOBAL = "job", "global"


def json_cost(data: bytes) -> int:
    """An upper bound of the bytes ``data`` takes as a JSON string (UTF-8, control bytes escaped)."""
    if not data:
        return 0
    n = len(data)
    if data.isascii():
        control = n - len(data.translate(None, _CONTROL))
        return n + 5 * control
    control = n - len(data.translate(None, _CONTROL))
    high = n - len(data.translate(None, _HIGH))
    return n + 5 * control + 2 * high


class OutputBudget:
    def __init__(self, total_bytes: int, job_bytes: int):
        self.total_bytes = total_bytes
        self.job_bytes = job_bytes
        self._used = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        return self._used

    def job(self) -> "JobOutput":
        return JobOutput(self)

    def _take(self, n: int) -> bool:
        with self._lock:
            if self._used + n > self.total_bytes:
                return False
            self._used += n
            return True

    def _give(self, n: int) -> None:
        with self._lock:
            self._used -= n


class JobOutput:
    """One job's share; released once, when its result has been handed over (or encoded)."""

    def __init__(self, budget: OutputBudget):
        self.budget = budget
        self.kept = 0
        self.refused: Optional[str] = None  # GLOBAL once the server's budget refused this job
        self._lock = threading.Lock()
        self._released = False

    def keep(self, cost: int) -> Optional[str]:
        """Charge ``cost``; None when kept, else which budget is spent (``job`` or ``global``)."""
        with self._lock:
            if self._released or self.kept + cost > self.budget.job_bytes:
                return JOB
            if not self.budget._take(cost):
                self.refused = GLOBAL
                return GLOBAL
            self.kept += cost
            return None

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
            n, self.kept = self.kept, 0
        self.budget._give(n)
