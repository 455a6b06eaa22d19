"""Admission control: a bounded number of executions in flight, refused early rather than piled up.

A request reserves a *window* of units when it arrives (1 for a single run, a few per
slot for a reward batch) and keeps it until its last execution has really finished,
even if the request itself returned earlier because its deadline passed. So the depth
reported here is the honest amount of work the sandbox still owes.
"""

from __future__ import annotations

import math
import threading
from typing import Optional


class QueueFull(Exception):
    """No room for this request now; ``retry_after`` is a hint in whole seconds."""

    def __init__(self, retry_after: int, depth: int, capacity: int):
        super().__init__(f"server busy: {depth} of {capacity} executions in flight")
        self.retry_after = retry_after
        self.depth = depth
        self.capacity = capacity


class Admission:
    """Counts reserved units; thread-safe because executions finish on worker threads."""

    def __init__(self, capacity: int, slots: int):
        self.capacity = max(1, capacity)
        self.slots = max(1, slots)
        self._depth = 0
        self._lock = threading.Lock()
        self._avg_job_s = 0.5  # moving average of one execution, seeds the Retry-After hint

    @property
    def depth(self) -> int:
        return self._depth

    def retry_after(self) -> int:
        backlog_s = self._depth / self.slots * self._avg_job_s
        return int(min(60, max(1, math.ceil(backlog_s))))

    def observe(self, job_s: float) -> None:
        self._avg_job_s = 0.8 * self._avg_job_s + 0.2 * max(0.0, job_s)

    def lease(self, units: int) -> "Lease":
        """Reserve ``units`` or raise QueueFull. A request larger than the whole queue is
        admitted only into an empty queue, so it can neither starve nor be refused forever."""
        units = max(1, units)
        with self._lock:
            fits = self._depth + units <= self.capacity or (self._depth == 0 and units > self.capacity)
            if not fits:
                raise QueueFull(self.retry_after(), self._depth, self.capacity)
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

    def job_finished(self, elapsed_s: Optional[float] = None) -> None:
        if elapsed_s is not None:
            self._admission.observe(elapsed_s)
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
