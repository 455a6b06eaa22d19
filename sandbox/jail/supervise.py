"""Watching one program: wall time, output (capped as it arrives), the result descriptor,
and (in a container) memory and CPU sampled by the box's meter. Facts, not verdicts.

The program's process is the zygote's child, not ours: the zygote reaps it and reports its
wait status and rusage (``spawner.ZygoteLink``), which wakes the loop the moment it ends."""

from __future__ import annotations

import os
import select
import signal
import time

from .protocol import (
    LIMIT_CPU, LIMIT_MEMORY, LIMIT_OUTPUT, LIMIT_WALL, Facts, Limits, facts_from_error,
)
from .clock import STARTED, read_start, run_delay_s, within

DRAIN_GRACE_S = 2.0  # after the program ended or was killed, how long its pipes may stay open
KILL_WAIT_S = 10.0  # after SIGKILL, how long the zygote may take to report the program's end
STATUS_CAP = 4096  # bytes of a set-up error kept (after the start stamp)


class Pipes:
    """The supervisor's read ends: stdout, stderr, the result descriptor, and the status pipe
    (the start stamp, ``clock.STARTED``, then a set-up failure's message, if any)."""

    def __init__(self, out_r: int, err_r: int, res_r: int, status_r: int):
        self.out_r, self.err_r, self.res_r, self.status_r = out_r, err_r, res_r, status_r

    def close(self) -> None:
        for fd in (self.out_r, self.err_r, self.res_r, self.status_r):
            try:
                os.close(fd)
            except OSError:
                pass


def _stretched(deadline: float, pid: int, t0: float, lim: Limits, box, delay_at_start: float) -> float:
    """The wall deadline moved by the time the program's process has waited for a CPU so far
    (up to ``lim.wait_allowance`` x its wall limit): the wall limit catches sleepers, not programs
    that a busy machine kept waiting. Unchanged where the kernel does not show the wait (gVisor)."""
    allowed = float(lim.wall_s) * float(lim.wait_allowance)
    if allowed <= 0:
        return deadline
    waited = min(max(0.0, run_delay_s(getattr(box, "proc", "/proc"), pid) - delay_at_start), allowed)
    return max(deadline, t0 + float(lim.wall_s) + waited)


def supervise(pid: int, pipes: Pipes, lim: Limits, handover: float, box, exits) -> Facts:
    """Collect output up to the cap, enforce wall time (and the meter's limits), reap the
    program. ``box.kill_program(pid)`` kills it and its group; ``box.kill_rest()`` kills
    whatever it left behind once it has ended; ``box.meter`` (or None) samples memory/CPU;
    ``exits`` (a ``ZygoteLink``) tells when the program's process has ended and how.

    The program's clock (``clock``) runs from its start stamp to the zygote's end stamp; until
    the start stamp arrives it runs from ``handover``, when its job was sent."""
    cap = int(lim.output_bytes)
    t0 = handover
    deadline = t0 + float(lim.wall_s)
    delay_at_start = 0.0
    started = False
    out, err, res, status = bytearray(), bytearray(), bytearray(), bytearray()
    size = {pipes.out_r: 0, pipes.err_r: 0, pipes.res_r: 0, pipes.status_r: 0}
    keep = {pipes.out_r: out, pipes.err_r: err}
    open_fds = {pipes.out_r, pipes.err_r, pipes.res_r, pipes.status_r}
    for fd in open_fds:
        os.set_blocking(fd, False)
    exits_fd = exits.fileno()
    poller = select.poll()
    for fd in (*open_fds, exits_fd):
        poller.register(fd, select.POLLIN | select.POLLHUP)
    meter = getattr(box, "meter", None)
    poll_s = getattr(box, "poll_s", 0.005)
    killed_by = None
    exited = False
    reaped = None
    drain_deadline = None
    peak = 0
    cpu_seen = 0.0
    next_sample = next_cpu = 0.0

    def kill(why: str) -> None:
        nonlocal killed_by
        if killed_by is None and not exited:
            killed_by = why
            box.kill_program(pid)

    while open_fds or not exited:
        now = time.monotonic()
        if killed_by is None and not exited:
            if now >= deadline:
                deadline = _stretched(deadline, pid, t0, lim, box, delay_at_start)
            if now >= deadline:
                kill(LIMIT_WALL)
            elif meter is not None and now >= next_sample:
                mem = meter.memory()
                peak = max(peak, mem)
                next_sample = now + poll_s
                if now >= next_cpu:  # CPU moves slowly next to memory: sample it less often
                    cpu_seen = max(cpu_seen, meter.cpu())
                    next_cpu = now + max(poll_s, meter.cpu_poll_s)
                if mem > lim.memory_bytes:
                    kill(LIMIT_MEMORY)
                elif cpu_seen > lim.cpu_s:
                    kill(LIMIT_CPU)
        if (killed_by or exited) and drain_deadline is None:
            drain_deadline = now + DRAIN_GRACE_S
        if drain_deadline is not None and now > drain_deadline:
            break
        if killed_by or exited:
            wait = 0.05
        else:
            wait = max(0.0, deadline - now)
            if meter is not None:
                wait = min(wait, poll_s)
        events = poller.poll(wait * 1000)
        if not exited:
            ended = exits.exit_of(pid)
            if ended is not None:
                reaped = (ended, time.monotonic())
                exited = True
                poller.unregister(exits_fd)
                # The program is gone: so is everything it left behind (its pipes then close).
                box.kill_rest()
        for fd, _ev in events:
            if fd == exits_fd:
                continue
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                open_fds.discard(fd)
                poller.unregister(fd)
                continue
            size[fd] += len(chunk)
            if fd == pipes.status_r:
                status += chunk[:max(0, STATUS_CAP + STARTED.size - len(status))]
                stamp = None if started else read_start(status)[0]
                if stamp is not None:
                    started = True
                    t0 = within(stamp[0], handover, time.monotonic(), t0)
                    delay_at_start = stamp[1]
                    if killed_by is None:
                        deadline = t0 + float(lim.wall_s)
                continue
            if fd == pipes.res_r:
                room = cap - len(res)
                if room > 0:
                    res += chunk[:room]
                continue
            room = cap - len(out) - len(err)
            if room > 0:
                keep[fd] += chunk[:room]
            if size[pipes.out_r] + size[pipes.err_r] > cap:
                kill(LIMIT_OUTPUT)
    if reaped is None:
        box.kill_program(pid)
        ended = exits.wait_exit(pid, KILL_WAIT_S)
        t_end = time.monotonic()
        if ended is None:
            pipes.close()
            return facts_from_error(f"the program's process did not end {KILL_WAIT_S:g} s after SIGKILL")
    else:
        ended, t_end = reaped
    t_end = within(ended.ended_at, t0, t_end, t_end)
    pipes.close()
    _, setup_error = read_start(status)
    wait_status = ended.status
    sig = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
    waited = max(0.0, ended.run_delay_s - delay_at_start)
    return Facts(
        exit_code=os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None, signal=sig,
        cpu_s=max(ended.cpu_s, cpu_seen), wall_s=t_end - t0, run_delay_s=min(waited, t_end - t0),
        memory_bytes=max(ended.max_rss_kb * 1024, peak), stdout=bytes(out), stderr=bytes(err),
        stdout_size=size[pipes.out_r], stderr_size=size[pipes.err_r], killed_by=killed_by,
        cpu_limit_signal=sig == signal.SIGXCPU, result=bytes(res), result_size=size[pipes.res_r],
        error=("jail setup failed: " + setup_error[:STATUS_CAP].decode(errors="replace")) if setup_error else None,
    )

