"""Watching one program: wall time, output (capped as it arrives), the result descriptor,
and (in a container) memory and CPU sampled by the box's meter. Facts, not verdicts."""

from __future__ import annotations

import os
import select
import signal
import time

from .protocol import LIMIT_CPU, LIMIT_MEMORY, LIMIT_OUTPUT, LIMIT_WALL, Facts, Limits

DRAIN_GRACE_S = 2.0  # after the program ended or was killed, how long its pipes may stay open


class Pipes:
    """The supervisor's read ends: stdout, stderr and the result descriptor."""

    def __init__(self, out_r: int, err_r: int, res_r: int):
        self.out_r, self.err_r, self.res_r = out_r, err_r, res_r

    def close(self) -> None:
        for fd in (self.out_r, self.err_r, self.res_r):
            try:
                os.close(fd)
            except OSError:
                pass


def supervise(pid: int, pipes: Pipes, lim: Limits, t0: float, box) -> Facts:
    """Collect output up to the cap, enforce wall time (and the meter's limits), reap the
    program. ``box.kill_program(pid)`` kills it and its group; ``box.kill_rest()`` kills
    whatever it left behind once it has ended; ``box.meter`` (or None) samples memory/CPU."""
    cap = int(lim.output_bytes)
    deadline = t0 + float(lim.wall_s)
    out, err, res = bytearray(), bytearray(), bytearray()
    size = {pipes.out_r: 0, pipes.err_r: 0, pipes.res_r: 0}
    keep = {pipes.out_r: out, pipes.err_r: err}
    open_fds = {pipes.out_r, pipes.err_r, pipes.res_r}
    for fd in open_fds:
        os.set_blocking(fd, False)
    try:  # wakes the loop the moment the program ends; gVisor has no pidfd: poll waitpid then
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        pidfd = None
    poller = select.poll()
    for fd in (*open_fds, *((pidfd,) if pidfd is not None else ())):
        poller.register(fd, select.POLLIN | select.POLLHUP)
    meter = getattr(box, "meter", None)
    poll_s = getattr(box, "poll_s", 0.005)
    killed_by = None
    run_delay = 0.0
    proc = getattr(box, "proc", "/proc")  # a /proc that shows the program's PID namespace
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
            if meter is not None or pidfd is None:
                wait = min(wait, poll_s)
        events = poller.poll(wait * 1000)
        if not exited:
            try:  # peek first: the scheduler's counters are readable only until the reap
                if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    run_delay = run_delay_s(proc, pid)
            except ChildProcessError:
                pass
            got, status, ru = os.wait4(pid, os.WNOHANG)
            if got == pid:
                reaped = (status, ru, time.monotonic())
                exited = True
                if pidfd is not None:
                    poller.unregister(pidfd)
                # The program is gone: so is everything it left behind (its pipes then close).
                box.kill_rest()
        for fd, _ev in events:
            if fd == pidfd:
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
        _, status, ru = os.wait4(pid, 0)
        t_end = time.monotonic()
    else:
        status, ru, t_end = reaped
    if pidfd is not None:
        os.close(pidfd)
    pipes.close()
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return Facts(
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, signal=sig,
        cpu_s=max(ru.ru_utime + ru.ru_stime, cpu_seen), wall_s=t_end - t0, run_delay_s=min(run_delay, t_end - t0),
        memory_bytes=max(ru.ru_maxrss * 1024, peak), stdout=bytes(out), stderr=bytes(err),
        stdout_size=size[pipes.out_r], stderr_size=size[pipes.err_r], killed_by=killed_by,
        cpu_limit_signal=sig == signal.SIGXCPU, result=bytes(res), result_size=size[pipes.res_r],
    )


def run_delay_s(proc: str, pid: int) -> float:
    """Seconds the process's main thread was ready to run but waited for a CPU (schedstat's
    run_delay). Readable until the process is reaped; 0 where the kernel (or gVisor) does not show it."""
    try:
        with open(f"{proc}/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0
