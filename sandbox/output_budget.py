"""How much program output the sandbox keeps in memory: per job, and across all jobs at once.

Every test's output is judged in full (it is at most the test's ``output_kb``, enforced by the
jail). What a result *keeps* to return to its caller is charged here: a job keeps at most
``job_output_mb`` of stdout + stderr, and all jobs in flight together at most
``total_output_mb``. A test whose output does not fit is still judged; its result says
``output_dropped`` and carries no stdout/stderr. So the service's memory for output stays
within a small constant factor of these two numbers, whatever programs print.
"""

from __future__ import annotations

import threading


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
        self._lock = threading.Lock()
        self._released = False

    def keep(self, n: int) -> bool:
        """Charge n bytes of kept output; False when the job's or the global budget is spent."""
        with self._lock:
            if self._released or self.kept + n > self.budget.job_bytes:
                return False
            if not self.budget._take(n):
                return False
            self.kept += n
            return True

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
            n, self.kept = self.kept, 0
        self.budget._give(n)
