"""Start an execution only while the cores can carry it.

The service runs many slots per core (``slots_per_core``) so that programs which sleep (wait
on input that never comes, ``time.sleep``) do not leave the cores idle. When the programs are
CPU-bound instead, running them all at once shares the cores between all of them, and every
one is late together: 64 correct programs of 1.4 s of CPU each, sent at once by verl to a
2-core machine, all reached verl's deadline unfinished (TLE, a reward of 0), although the
machine could have finished most of them one after another in that time.

So past a floor of executions in flight (``floor_per_core``, 2 per core), a slot starts its
next one only while the cores are not crowded by our own CPU-bound programs. Crowded means both:

* the machine has more than ``runnable_per_core`` tasks per core ready to run right now (the
  kernel's count, ``/proc/loadavg``: a program is in it from the moment it is forked, so a
  burst is seen as it arrives; a sleeping program is not); and
* at least the floor of our executions are CPU-bound: their slot's cgroup account grew by at
  least ``BUSY_SHARE`` of a core in each of the last two windows (``SAMPLE_S``), so one program
  has been burning CPU that long. Sleepers do not grow it; quick programs (milliseconds each)
  pass through a slot now and then, not window after window; so neither holds the gate, nor
  does another tenant's load, which is not in our account.

Until two windows have been measured since the service was last idle (a burst from nothing),
and whenever more than ``BURST_FLOORS`` floors' worth of executions started since the last
window (a burst it has not seen yet), the machine's count alone decides.

CPU-bound programs hold the gate, and the queue drains a few at a time, each finishing in about
its own CPU time (2 per core share a core at most, which the default wall limit of 2 x time +
1 s allows for). Waiting at the gate is waiting for a slot: it never counts against a program's
limits. A count that cannot be read leaves the gate open: it only orders work, never judges it.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Optional, Sequence

LOADAVG = "/proc/loadavg"
POLL_S = 0.05  # while closed, one waiting slot asks again this often
SAMPLE_S = 0.2  # the slots' CPU use is measured over windows at least this long
BUSY_SHARE = 0.05  # a slot that used this much of a core in each of two windows runs a CPU-bound program
BURST_FLOORS = 4  # more than this many floors' worth started since the last window: a burst it has not seen


def _read(path: str, size: int) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def runnable_tasks(path: str = LOADAVG) -> Optional[int]:
    """Tasks running or waiting for a CPU on the machine right now (the reader included)."""
    try:
        return int(_read(path, 128).split()[3].split(b"/")[0])
    except (OSError, IndexError, ValueError):
        return None


class CpuGate:
    """Whether one more execution may start now, given how many are in flight.

    ``slots_cpu_s``: CPU seconds each slot's executions have used so far (each monotonic; None
    where unknown)."""

    def __init__(self, cores: int, slots_cpu_s: Callable[[], Sequence[Optional[float]]],
                 runnable_per_core: float = 2.0, floor_per_core: int = 2, loadavg: str = LOADAVG):
        self.cores = max(1, cores)
        self.slots_cpu_s = slots_cpu_s
        self.most_runnable = runnable_per_core * self.cores
        self.floor = max(1, floor_per_core * self.cores)
        self.loadavg = loadavg
        self.held = 0  # how often it said no (each time a waiting slot asked)
        self._sampled_at: Optional[float] = None
        self._sample: Sequence[Optional[float]] = ()
        self._grew: Optional[set[int]] = None  # slots that grew in the last window; None: no window yet
        self._busy: Optional[int] = None  # slots that grew in the last two windows; None: not known
        self._in_flight_at_sample = 0

    def describe(self) -> dict:
        """What /healthz shows of it."""
        return {"floor": self.floor, "most_runnable": self.most_runnable, "held": self.held}

    def _measure(self, now: float, in_flight: int) -> None:
        if self._sampled_at is not None and now - self._sampled_at < SAMPLE_S:
            return
        sample = self.slots_cpu_s()
        grew: Optional[set[int]] = None
        if self._sampled_at is not None:
            span = now - self._sampled_at
            grew = {i for i, (a, b) in enumerate(zip(self._sample, sample))
                    if a is not None and b is not None and b - a >= BUSY_SHARE * span}
        self._busy = len(grew & self._grew) if grew is not None and self._grew is not None else None
        self._grew, self._sampled_at, self._sample, self._in_flight_at_sample = grew, now, sample, in_flight

    def _forget(self) -> None:
        """The service is idle: what comes next is a new burst."""
        self._sampled_at, self._sample, self._grew, self._busy = None, (), None, None

    def admits(self, in_flight: int) -> bool:
        if in_flight == 0:
            self._forget()
        if in_flight < self.floor:
            return True
        ready = runnable_tasks(self.loadavg)
        if ready is None or ready <= self.most_runnable:
            return True
        self._measure(time.monotonic(), in_flight)
        unseen_burst = in_flight - self._in_flight_at_sample > BURST_FLOORS * self.floor
        if self._busy is not None and self._busy < self.floor and not unseen_burst:
            return True  # what crowds the cores is not our CPU-bound programs
        self.held += 1
        return False


def cpu_gate_for(runnable_per_core: float,
                 slots_cpu_s: Optional[Callable[[], Sequence[Optional[float]]]]) -> Optional[CpuGate]:
    """The gate for this machine's cores, or None: switched off (``runnable_per_core`` 0), or a
    backend that cannot say how much CPU its executions use (Docker: one slot per core anyway)."""
    if runnable_per_core <= 0 or slots_cpu_s is None:
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return CpuGate(cores, slots_cpu_s, runnable_per_core)
