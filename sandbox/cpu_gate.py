"""Start an execution only while the cores can carry it.

The service runs many slots per core (``slots_per_core``) so that programs which sleep (wait
on input that never comes, ``time.sleep``) do not leave the cores idle. When the programs are
CPU-bound instead, running them all at once shares the cores between all of them, and every
one is late together: 64 correct programs of 1.4 s of CPU each, sent at once by verl to a
2-core machine, all reached verl's deadline unfinished (TLE, a reward of 0), although the
machine could have finished most of them one after another in that time.

So past a floor of executions in flight (``floor_per_core``), a slot starts its next one only
while the cores are not crowded by our own work. Crowded means:

* the machine has more than ``runnable_per_core`` tasks per core ready to run right now (the
  kernel's count, ``/proc/loadavg``: a program is in it from the moment it is forked, so a
  burst is seen as it arrives; a sleeping program is not, so sleepers never hold the gate);
* unless, over the last window (``SAMPLE_S``, measured while the floor was in flight and past
  its start-up, ``WARMUP_S``), less than half of the CPU the machine used was ours (this
  process and its executions' cgroups): then another tenant crowds the cores, and holding our
  work back would only idle our slots.

CPU-bound programs hold the gate, and the queue drains a few at a time, each finishing in about
its own CPU time (the floor, 2 per core, is the sharing the default wall limit of 2 x time + 1 s
allows for). Waiting at the gate is waiting for a slot: it never counts against a program's
limits. A count that cannot be read leaves the gate open: it only orders work, never judges it.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Optional

LOADAVG = "/proc/loadavg"
STAT = "/proc/stat"
POLL_S = 0.05  # while closed, one waiting slot asks again this often
SAMPLE_S = 0.2  # whose CPU the machine spent is measured over windows at least this long
WARMUP_S = 0.2  # ... that start this long after the floor was reached (programs starting up)
TICKS_PER_S = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


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


def machine_busy_s(path: str = STAT) -> Optional[float]:
    """CPU time the machine has spent on anything but idling, all cores, seconds."""
    try:
        ticks = [int(x) for x in _read(path, 256).split(b"\n", 1)[0].split()[1:]]
        return (sum(ticks[:8]) - ticks[3] - ticks[4]) / TICKS_PER_S  # less idle and iowait
    except (OSError, IndexError, ValueError):
        return None


class CpuGate:
    """Whether one more execution may start now, given how many are in flight.

    ``jails_cpu_s``: CPU seconds all executions of this instance have used so far (monotonic),
    or None when unknown (then the machine's count alone decides)."""

    def __init__(self, cores: int, jails_cpu_s: Callable[[], Optional[float]], runnable_per_core: float = 2.0,
                 floor_per_core: int = 2, loadavg: str = LOADAVG, stat: str = STAT,
                 machine_cpu_s: Optional[Callable[[], Optional[float]]] = None):
        self.cores = max(1, cores)
        self.jails_cpu_s = jails_cpu_s
        self.machine_cpu_s = machine_cpu_s or (lambda: machine_busy_s(stat))
        self.most_runnable = runnable_per_core * self.cores
        self.floor = max(1, floor_per_core * self.cores)
        self.loadavg = loadavg
        self.held = 0  # how often it said no (each time a waiting slot asked)
        self._floor_since: Optional[float] = None  # since when at least the floor has been in flight
        self._sample: Optional[tuple[float, float, float]] = None  # (when, ours, machine's)
        self._others_crowd = False  # the last trusted window: less than half of the machine's CPU was ours

    def _ours_s(self) -> Optional[float]:
        jails = self.jails_cpu_s()
        return None if jails is None else jails + time.process_time()

    def _measure(self, now: float) -> None:
        if self._sample is not None and now - self._sample[0] < SAMPLE_S:
            return
        ours, machine = self._ours_s(), self.machine_cpu_s()
        if ours is None or machine is None:
            self._sample, self._others_crowd = None, False
            return
        if self._sample is not None and self._floor_since is not None and self._sample[0] >= self._floor_since + WARMUP_S:
            spent = machine - self._sample[2]
            self._others_crowd = spent > 0 and (ours - self._sample[1]) < spent / 2
        else:
            self._others_crowd = False  # not a window to trust: the floor was reached within it
        self._sample = (now, ours, machine)

    def describe(self) -> dict:
        """What /healthz shows of it."""
        return {"floor": self.floor, "most_runnable": self.most_runnable, "held": self.held}

    def admits(self, in_flight: int) -> bool:
        if in_flight < self.floor:
            self._floor_since = None
            return True
        now = time.monotonic()
        if self._floor_since is None:
            self._floor_since = now
        ready = runnable_tasks(self.loadavg)
        if ready is None or ready <= self.most_runnable:
            return True
        self._measure(now)
        if self._others_crowd:
            return True
        self.held += 1
        return False


def cpu_gate_for(runnable_per_core: float, jails_cpu_s: Optional[Callable[[], Optional[float]]]) -> Optional[CpuGate]:
    """The gate for this machine's cores, or None: switched off (``runnable_per_core`` 0), or a
    backend that cannot say how much CPU its executions use (Docker: one slot per core anyway)."""
    if runnable_per_core <= 0 or jails_cpu_s is None:
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return CpuGate(cores, jails_cpu_s, runnable_per_core)
