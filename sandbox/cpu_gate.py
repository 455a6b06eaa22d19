"""Start an execution only while the cores can carry it.

The service runs many slots per core (``slots_per_core``) so that programs which sleep (wait
on input that never comes, ``time.sleep``) do not leave the cores idle. When the programs are
CPU-bound instead, running them all at once shares the cores between all of them, and every
one is late together: 64 correct programs of 1.4 s of CPU each, sent at once by verl to a
2-core machine, all reached verl's deadline unfinished (TLE, a reward of 0), although the
machine could have finished most of them one after another in that time.

So past a floor of executions in flight (``floor_per_core``, 2 per core), a slot starts its
next one only while the cores are not crowded by our own CPU-bound programs. It holds when both:

* the machine has more than ``runnable_per_core`` tasks per core ready to run right now (the
  kernel's count, ``/proc/loadavg``: a program is in it from the moment it is forked, so a
  burst is seen as it arrives; a sleeping program is not); and
* at least the floor of our executions are, or may be, CPU-bound. One is CPU-bound when its
  slot's cgroup account grew by at least ``BUSY_SHARE`` of a core in each of the last two
  windows (``SAMPLE_S``). Sleepers do not grow it, nor does another tenant's load, which is
  not in our account; so neither holds the gate.

An execution still running that started less than two windows ago has not been measured
yet: it may be CPU-bound, so it counts as such (``busy + unmeasured`` must stay below the
floor). Quick programs (milliseconds each) are always this young while they run, so on a
crowded machine they too run at most the floor at a time: what this costs quick workloads is in
docs/api.md. One that has ended no longer counts: counting every recent start instead capped
a crowded service at the floor per two windows (10 executions a second on 2 cores, whatever
they were), which made verl's mixed load of quick programs, sleepers and loops time out.
Admitting on the slots' measure alone let a flood in: when a few CPU-bound programs ended and
others had just taken their slots, the measure read "fewer than the floor are busy" and 17
more started at once, all to be killed together by the clock. Until two windows have been
measured since the service was last idle (a burst from nothing), the gate holds past the floor.

CPU-bound programs hold the gate, and the queue drains a few at a time, each finishing in about
its own CPU time (2 per core share a core at most, which the default wall limit of 2 x time +
1 s allows for). Waiting at the gate is waiting for a slot: it never counts against a program's
limits. A count that cannot be read leaves the gate open: it only orders work, never judges it.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Callable, Optional, Sequence

LOADAVG = "/proc/loadavg"
POLL_S = 0.05  # while closed, one waiting slot asks again this often
SAMPLE_S = 0.2  # the slots' CPU use is measured over windows at least this long
FLOOR_PER_CORE = 2  # executions per core it always lets run: at most this many share a core
BUSY_SHARE = 0.05  # a slot that used this much of a core in each of two windows runs a CPU-bound program


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
                 runnable_per_core: float = 2.0, floor_per_core: int = FLOOR_PER_CORE, loadavg: str = LOADAVG):
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
        self._grew_from: Optional[float] = None  # when the window of _grew began
        self._windows_from: Optional[float] = None  # when the older of those two windows began
        # When it admitted each execution still running, by its ticket (``admits``, ``ended``).
        self._running_since: dict[int, float] = {}
        self._tickets = itertools.count(1)

    def describe(self) -> dict:
        """What /healthz shows of it."""
        return {"floor": self.floor, "most_runnable": self.most_runnable, "held": self.held}

    def _measure(self, now: float) -> None:
        if self._sampled_at is not None and now - self._sampled_at < SAMPLE_S:
            return
        sample = self.slots_cpu_s()
        grew: Optional[set[int]] = None
        if self._sampled_at is not None:
            span = now - self._sampled_at
            grew = {i for i, (a, b) in enumerate(zip(self._sample, sample))
                    if a is not None and b is not None and b - a >= BUSY_SHARE * span}
        if grew is not None and self._grew is not None:
            self._busy = len(grew & self._grew)
            self._windows_from = self._grew_from
        self._grew_from = self._sampled_at
        self._grew, self._sampled_at, self._sample = grew, now, sample

    def _forget(self) -> None:
        """The service is idle: what comes next is a new burst."""
        self._sampled_at, self._sample, self._grew, self._busy = None, (), None, None
        self._grew_from = self._windows_from = None
        self._running_since.clear()

    def _unmeasured(self) -> int:
        """Executions still running that started too late to be in both windows measured."""
        since = self._windows_from
        if since is None:
            return len(self._running_since)
        return sum(1 for t in self._running_since.values() if t >= since)

    def _admit(self, now: float) -> int:
        ticket = next(self._tickets)
        self._running_since[ticket] = now
        return ticket

    def ended(self, ticket: int) -> None:
        """The execution ``admits`` gave this ticket to has ended."""
        self._running_since.pop(ticket, None)

    def admits(self, in_flight: int) -> Optional[int]:
        """A ticket if one more may start now (taken as that execution starting: hand it back
        to ``ended`` when it ends), or None."""
        now = time.monotonic()
        if in_flight == 0:
            self._forget()
        if in_flight < self.floor:
            return self._admit(now)
        ready = runnable_tasks(self.loadavg)
        if ready is None or ready <= self.most_runnable:
            return self._admit(now)
        self._measure(now)
        if self._busy is not None and self._busy + self._unmeasured() < self.floor:
            return self._admit(now)  # what crowds the cores is not our CPU-bound programs
        self.held += 1
        return None


def cpu_gate_for(runnable_per_core: float,
                 slots_cpu_s: Optional[Callable[[], Sequence[Optional[float]]]]) -> Optional[CpuGate]:
    """The gate for this machine's cores, or None: switched off (``runnable_per_core`` 0), or a
    backend that cannot say how much CPU its executions use (Docker: one slot per core anyway)."""
    if runnable_per_core <= 0 or slots_cpu_s is None:
        return None
    return CpuGate(usable_cores(), slots_cpu_s, runnable_per_core)


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
