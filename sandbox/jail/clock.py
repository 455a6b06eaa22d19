"""The program's own clock: when it started, when it ended, and how long it waited for a CPU.

A program's wall time is judged (``Limits.wall_s``, ``/run_code``'s ``run_timeout``), so it must
be the program's and nobody else's, however busy the machine. Three stamps make it so:

- **start**: the program's process writes ``STARTED`` (the monotonic time and its own run delay)
  on its status pipe as the last thing before ``execve`` (or before the warm interpreter runs
  the source). The jail's own set-up steps before it (mounts, the cgroup, a busy kernel's locks)
  are not the program's time, nor is the supervisor's lateness in noticing.
- **end**: the zygote stamps the moment it reaps the program, less the time it waited for a CPU
  since it last went to sleep (``WakeClock.stamp``): the program's SIGCHLD woke it, so neither
  its lateness nor the supervisor's counts.
- **run delay**: ``/proc/<pid>/schedstat``'s run_delay, the time the process was ready to run
  but waited for a CPU; counted from the start stamp, so waits during set-up are not subtracted.

The exit is the program's own time, but its mount namespace's teardown is not: on native the
program's process lends the namespace to the supervisor, which drops it after the reply
(``NativeBox._lend_mount_namespace``).

Every stamp is checked against the supervisor's own clock (handover <= start <= end <= now) and
replaced by the supervisor's where it falls outside: a stamp can only shorten the span the
supervisor itself saw, never lengthen it.
"""

from __future__ import annotations

import os
import struct
import time
from typing import Optional

STARTED = struct.Struct("=cdd")  # b"\0", monotonic seconds, run delay seconds
STARTED_MARK = b"\0"  # a set-up error is text: it never begins with a NUL byte


def run_delay_s(proc: str, pid) -> float:
    """Seconds the process's main thread waited for a CPU (schedstat's run_delay). Readable
    until the process is reaped; 0 where the kernel (or gVisor) does not show it."""
    try:
        fd = os.open(f"{proc}/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
        try:
            return int(os.read(fd, 128).split()[1]) / 1e9  # one read: three numbers on one line
        finally:
            os.close(fd)
    except (OSError, ValueError, IndexError):
        return 0.0


def report_start(status_w: int) -> None:
    """In the program's process, the last step before untrusted code: stamp the start."""
    try:
        os.write(status_w, STARTED.pack(STARTED_MARK, time.monotonic(), run_delay_s("/proc", "self")))
    except OSError:
        pass  # the supervisor is gone: the program is killed with it


def read_start(status: bytes) -> tuple[Optional[tuple[float, float]], bytes]:
    """Split what the status pipe carried: ((start, run delay at start) or None, set-up error)."""
    if len(status) >= STARTED.size and status[:1] == STARTED_MARK:
        _, at, delay = STARTED.unpack_from(status)
        return (at, delay), bytes(status[STARTED.size:])
    return None, bytes(status)


class WakeClock:
    """The zygote's: the moment, less the time it waited for a CPU since it last went to sleep.
    Asleep in poll it is never runnable, so what its run delay grew by since is how late it ran
    after the wake-up (a program's SIGCHLD) plus any preemption while reaping."""

    def __init__(self, proc: str):
        self.proc = proc
        self.delay_asleep = run_delay_s(proc, "self")

    def asleep(self) -> None:
        """Called just before the zygote polls."""
        self.delay_asleep = run_delay_s(self.proc, "self")

    def stamp(self) -> float:
        now = time.monotonic()
        return now - max(0.0, run_delay_s(self.proc, "self") - self.delay_asleep)


def within(stamp: Optional[float], lo: float, hi: float, fallback: float) -> float:
    """A stamp from another process, trusted only inside the span the supervisor saw."""
    if stamp is None or not lo <= stamp <= hi:
        return fallback
    return stamp
