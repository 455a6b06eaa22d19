"""The zygote process: forks every program's process, and never holds a byte of any job.

A jail (one native slot, or one container) is two long-lived processes:

    zygote (PID 1 of the slot / container) ── the warm interpreter; forks, reaps, reports
      ├─ supervisor    reads jobs from the host, supervises, answers; never forks a program
      └─ program       one per execution, forked by the zygote, handed its job by the supervisor

The zygote forks the supervisor once, before any job exists, then serves two things on a
socket shared with it: "fork a program process" (the request carries only the descriptor of a
fresh socket that the supervisor then sends the job down, straight to the new process), and
"this program ended" (its wait status, rusage and run delay, read when the zygote reaps it).
Orphans of programs come to the zygote too and are reaped silently. So the program's process
is a fork of an interpreter that has read nothing of anyone, as a fresh ``python3`` would be,
and an execution costs one fork, as it did before the supervisor existed.

Messages on the link (SOCK_SEQPACKET, one message each):
  supervisor -> zygote  b"F" + SCM_RIGHTS [job socket]     fork a program process
  zygote -> supervisor  b"P" + pid                          its pid
  zygote -> supervisor  b"X" + pid, status, cpu, rss, delay, ended at
                                                            a program process was reaped
"""

from __future__ import annotations

import os
import select
import signal
import socket
import struct
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Optional

from . import kernel
from .clock import WakeClock, run_delay_s
from .protocol import ProtocolError

_PID = struct.Struct(">i")
_EXIT = struct.Struct(">iiddqdd")  # pid, wait status, user cpu s, system cpu s, max rss KiB, run delay s, ended at
FORK, FORKED, EXITED = b"F", b"P", b"X"


@dataclass(frozen=True)
class ProgramExit:
    """How a program's process ended, as its parent (the zygote) reaped it."""

    status: int
    """The wait status (``os.WIFEXITED`` & co. read it)."""
    cpu_s: float
    """User + system CPU seconds of the process and the children it waited for."""
    max_rss_kb: int
    """Peak resident set size (KiB) of the process or of a child it waited for."""
    run_delay_s: float
    """Seconds its main thread was ready to run but waited for a CPU (0 where unknown)."""
    ended_at: float = 0.0
    """When it ended, by the zygote's clock (``clock.WakeClock``): monotonic seconds."""


# --- the zygote's side --------------------------------------------------------------------

def start(box, run_supervisor: Callable[[socket.socket], int],
          run_program: Callable[[socket.socket], None], close_in_zygote: tuple = ()) -> int:
    """In the process that will be the zygote (the jail's PID 1): fork the supervisor, then
    serve fork requests until the supervisor ends. ``close_in_zygote``: descriptors only the
    supervisor keeps (the host's stream). Returns the jail's exit status."""
    zyg_end, sup_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    supervisor = os.fork()
    if supervisor == 0:  # pragma: no cover - the supervisor
        code = 1
        try:
            zyg_end.close()
            code = run_supervisor(sup_end)
        except BaseException:
            traceback.print_exc()
        os._exit(code)
    sup_end.close()
    for fd in close_in_zygote:
        os.close(fd)
    box.enter_skeleton()  # native: the zygote's root becomes the skeleton (a container's is its own)
    return _serve(box, zyg_end, supervisor, run_program)


def _serve(box, link: socket.socket, supervisor: int, run_program) -> int:
    try:  # orphans come here, not to whoever is PID 1 (gVisor lacks it: PID 1 reaps anyway)
        kernel.prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)
    except OSError:
        pass
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    proc = getattr(box, "proc", "/proc")
    clock = WakeClock(proc)
    programs: set[int] = set()
    link_open = True
    poller = select.poll()
    poller.register(link, select.POLLIN)
    poller.register(wake_r, select.POLLIN)
    more = True  # reap first: zombies may be left from before (and a round is bounded: see _reap)
    link_fd = link.fileno()
    while True:
        if programs:  # only a program's end is stamped (no schedstat read while the slot is idle)
            clock.asleep()
        ready = {fd for fd, _ in poller.poll(0 if more else 1000)}
        if wake_r in ready:
            try:
                os.read(wake_r, 4096)
            except BlockingIOError:
                pass
        if more or wake_r in ready or not ready:  # a child ended (SIGCHLD), some were left, or a quiet second
            ended: list = []
            more = _reap(programs, proc, supervisor, clock, ended.append)
            for pid, status, ru, delay, ended_at in ended:
                if pid == supervisor:
                    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1
                try:
                    link.send(EXITED + _EXIT.pack(pid, status, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, delay, ended_at))
                except OSError:
                    pass
        if not link_open or link_fd not in ready:  # only a readable link is read: no exception per wake-up
            continue
        try:
            msg, fds = kernel.recv_fds(link, 16, 1, block=False)
        except BlockingIOError:
            continue
        except OSError:
            return 1
        if not msg:  # the supervisor is gone; its exit is reaped next round
            poller.unregister(link)
            link_open = False
            continue
        if msg != FORK or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the program's process
            try:
                signal.set_wakeup_fd(-1)
                kernel.set_signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (wake_r, wake_w):
                    os.close(fd)
                link.close()
                run_program(socket.socket(fileno=fds[0]))
            except BaseException:
                traceback.print_exc()
            os._exit(127)
        os.close(fds[0])
        programs.add(pid)
        link.send(FORKED + _PID.pack(pid))


REAP_ROUND = 512  # zombies reaped before the link is served again (a fork bomb makes them forever)


def _reap(programs: set, proc: str, supervisor: int, clock: WakeClock, report) -> bool:
    """Reap children that have ended; ``report((pid, status, rusage, run delay, ended at))`` for the
    programs and the supervisor; orphans are reaped and forgotten. True when zombies may be
    left (a round is bounded: a fork bomb makes them as fast as they are reaped)."""
    for _ in range(REAP_ROUND):
        try:
            seen = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return False
        if seen is None or not seen.si_pid:
            return False
        pid = seen.si_pid
        ended_at = clock.stamp() if pid in programs else 0.0
        delay = run_delay_s(proc, pid) if pid in programs else 0.0
        got, status, ru = os.wait4(pid, 0)
        if pid in programs or pid == supervisor:
            programs.discard(pid)
            report((got, status, ru, delay, ended_at))
    return True


# --- the supervisor's side ----------------------------------------------------------------

class ZygoteLink:
    """The supervisor's end: ask for program processes, learn when they end."""

    def __init__(self, link: socket.socket):
        self.link = link
        self.exits: dict[int, ProgramExit] = {}

    def fileno(self) -> int:
        return self.link.fileno()

    def spawn(self) -> tuple[int, socket.socket]:
        """A fresh program process waiting for its job: (pid, the socket to send it on)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.link, [FORK], [theirs.fileno()])
        finally:
            theirs.close()
        while True:
            kind, body = self._recv(block=True)
            if kind == FORKED:
                return _PID.unpack(body)[0], mine

    def _recv(self, block: bool):
        try:
            msg = self.link.recv(64, 0 if block else socket.MSG_DONTWAIT)
        except BlockingIOError:
            return None, b""
        if not msg:
            raise ProtocolError("the zygote is gone")
        kind, body = msg[:1], msg[1:]
        if kind == EXITED:
            pid, status, ut, st, rss, delay, ended_at = _EXIT.unpack(body)
            self.exits[pid] = ProgramExit(status, ut + st, rss, delay, ended_at)
        return kind, body

    def exit_of(self, pid: int) -> Optional[ProgramExit]:
        """The program's exit if the zygote has reported it (never blocks)."""
        while pid not in self.exits:
            kind, _ = self._recv(block=False)
            if kind is None:
                return None
        return self.exits.pop(pid)

    def wait_exit(self, pid: int, timeout: float) -> Optional[ProgramExit]:
        """The program's exit, waited for up to ``timeout`` (None then). A wait the runtime
        breaks off is waited again: gVisor's select has failed with EPERM while the zygote was
        reaping a fork bomb, and that is no reason to give up on the report."""
        deadline = time.monotonic() + timeout
        poller = select.poll()
        poller.register(self.link, select.POLLIN)
        while pid not in self.exits:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                ready = poller.poll(left * 1000)
            except OSError:
                time.sleep(0.001)
                continue
            if ready:
                self._recv(block=True)
        return self.exits.pop(pid)

    def forget(self) -> None:
        """Drop reports of processes nobody waits for any more (a killed spare)."""
        while self._recv(block=False)[0] is not None:
            pass
        self.exits.clear()
