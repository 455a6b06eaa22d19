"""The program's clock (``sandbox/jail/clock.py``): its wall time is its own, from its start stamp
to its end, never the jail's set-up before it or anyone's lateness in noticing; and a stamp
can only shorten what the supervisor itself saw, never lengthen it or move it outside.

The unit is the real ``supervise`` on a real process: the test plays the zygote's part (it reaps
the process and reports its exit on a real ``ZygoteLink``, in the zygote's wire format), and the
process plays the program's (a set-up of its own length, then the start stamp, then its run).
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from types import SimpleNamespace
from typing import Optional

import pytest

from sandbox.jail import clock, spawner
from sandbox.jail.protocol import Limits
from sandbox.jail.supervise import Pipes, supervise

LIMITS = Limits(cpu_s=5, wall_s=5, memory_bytes=1 << 28, output_bytes=1 << 16, processes=8, file_size_bytes=1 << 20)


NO_STAMP = "no stamp"


def run_program(setup_s: float, run_s: float, stamp_at: Optional[object] = None, after_stamp: bytes = b"",
                ended_at_shift: float = 0.0):
    """A process that sets up for ``setup_s``, stamps its start (``stamp_at`` forges the time;
    ``NO_STAMP``: none), writes ``after_stamp`` on the status pipe (a set-up error), runs for
    ``run_s`` and exits.
    Returns the facts ``supervise`` reports and the span the test itself saw."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    status_r, status_w = os.pipe()
    zygote_end, supervisor_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    handover = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the program's process
        try:
            time.sleep(setup_s)
            if stamp_at is None:
                clock.report_start(status_w)
            elif stamp_at != NO_STAMP:
                os.write(status_w, clock.STARTED.pack(clock.STARTED_MARK, stamp_at, 0.0))
            os.write(status_w, after_stamp)
            os.close(status_w)
            time.sleep(run_s)
            os.write(out_w, b"done\n")
        finally:
            os._exit(0)
    for fd in (out_w, err_w, res_w, status_w):
        os.close(fd)

    def zygote() -> None:  # reaps the program and reports its end, as spawner._reap does
        _, status, ru = os.wait4(pid, 0)
        body = spawner._EXIT.pack(pid, status, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, 0.0,
                                  time.monotonic() + ended_at_shift)
        zygote_end.send(spawner.EXITED + body)

    reaper = threading.Thread(target=zygote)
    reaper.start()
    box = SimpleNamespace(kill_program=lambda p: os.kill(p, 9), kill_rest=lambda: None)
    try:
        facts = supervise(pid, Pipes(out_r, err_r, res_r, status_r), LIMITS, handover, box,
                          spawner.ZygoteLink(supervisor_end))
    finally:
        reaper.join(10)
        zygote_end.close()
        supervisor_end.close()
    return facts, time.monotonic() - handover


def test_the_jails_set_up_before_the_start_stamp_is_not_the_programs_wall_time():
    facts, seen = run_program(setup_s=0.6, run_s=0.2)
    assert facts.stdout == b"done\n" and facts.error is None
    assert seen > 0.8
    # From the start stamp: the 0.2 s run and the process's exit, not the 0.6 s set-up before it.
    assert 0.2 <= facts.wall_s < 0.5, facts


def test_a_set_up_that_fails_before_the_stamp_is_timed_from_its_handover_and_reported():
    facts, seen = run_program(setup_s=0.3, run_s=0.0, stamp_at=NO_STAMP, after_stamp=b"PermissionError: mount")
    assert 0.3 <= facts.wall_s <= seen
    assert facts.error == "jail setup failed: PermissionError: mount"


@pytest.mark.parametrize("forged", ["before the handover", "in the future"])
def test_a_stamp_outside_what_the_supervisor_saw_is_ignored(forged: str):
    at = -100.0 if forged == "before the handover" else time.monotonic() + 100.0
    facts, seen = run_program(setup_s=0.3, run_s=0.1, stamp_at=at)
    assert 0.4 <= facts.wall_s <= seen, facts  # timed from the handover, as if it had no stamp


def test_an_end_stamp_after_what_the_supervisor_saw_is_ignored():
    facts, seen = run_program(setup_s=0.0, run_s=0.1, ended_at_shift=100.0)
    assert facts.wall_s <= seen, facts


def test_a_set_up_error_after_the_stamp_is_reported_without_it():
    facts, _ = run_program(setup_s=0.0, run_s=0.0, after_stamp=b"FileNotFoundError: no such program")
    assert facts.error == "jail setup failed: FileNotFoundError: no such program"


def test_the_stamp_is_read_back_as_written():
    r, w = os.pipe()
    clock.report_start(w)
    os.write(w, b"rest")
    os.close(w)
    data = os.read(r, 1024)
    os.close(r)
    stamp, rest = clock.read_start(data)
    assert stamp is not None and abs(stamp[0] - time.monotonic()) < 5 and stamp[1] >= 0 and rest == b"rest"
    assert clock.read_start(b"OSError: x") == (None, b"OSError: x")
    assert struct.calcsize("=cdd") == clock.STARTED.size


def test_the_service_admission_counts_the_whole_slot_time_not_only_the_programs_clock(sandbox):
    """The program's clock leaves the jail's set-up and reply out; the admission's estimate of
    how long an execution holds a slot (``api/runner.py``) must not: it is timed around the slot."""
    from api.runner import slot_time_per_execution
    from sandbox import RunRequest, TestCase

    r = sandbox.run(RunRequest(language="python", code="print(input())",
                               tests=[TestCase(stdin=f"{i}\n", expected_stdout=f"{i}\n") for i in range(3)]))
    assert r.verdict.value == "AC", r
    for t in r.tests:
        assert t._slot_s is not None and t._slot_s >= t.wall_time_s, t
    assert slot_time_per_execution(r) == pytest.approx(sum(t._slot_s for t in r.tests) / 3)
