"""The CPU gate: past its floor, a slot starts its next execution only while our own CPU-bound
programs do not crowd the cores; programs it has not measured yet count as CPU-bound; sleepers
and other tenants never hold it, and a count it cannot read leaves it open (it orders work,
never judges it)."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time

from sandbox import Sandbox
from sandbox.cpu_gate import SAMPLE_S, CpuGate, runnable_tasks
from sandbox.scheduler import FairScheduler
from conftest import assert_quick_program_passes_sleepers, make_config


def loadavg(tmp_path, runnable: int, name: str = "loadavg") -> str:
    path = tmp_path / name
    path.write_text(f"3.10 2.50 1.20 {runnable}/812 41234\n")
    return str(path)


class Slots:
    """Each slot's CPU seconds so far: ``busy`` slots use ``share`` of a core each, the rest none."""

    def __init__(self, n: int, busy: int, share: float = 0.5):
        self.n, self.busy, self.share, self.t0 = n, busy, share, time.monotonic()

    def __call__(self) -> list[float]:
        used = (time.monotonic() - self.t0) * self.share
        return [used if i < self.busy else 0.0 for i in range(self.n)]


def gate(tmp_path, runnable: int, busy: int, **kw) -> CpuGate:
    """A 2-core gate (floor 4) over 16 slots, ``busy`` of them CPU-bound, the machine with
    ``runnable`` tasks ready to run."""
    return CpuGate(cores=2, slots_cpu_s=Slots(16, busy), loadavg=loadavg(tmp_path, runnable, f"l{runnable}"), **kw)


def warmed(g: CpuGate) -> CpuGate:
    """The gate after windows with its floor in flight, past start-up (its measure is trusted)."""
    for _ in range(4):
        g.admits(g.floor)
        time.sleep(SAMPLE_S + 0.02)
    return g


def test_the_machine_count_is_read_from_loadavg(tmp_path):
    assert runnable_tasks(loadavg(tmp_path, 17)) == 17
    assert runnable_tasks(str(tmp_path / "missing")) is None
    assert runnable_tasks("/proc/loadavg") >= 1  # the reader itself is running


def test_the_gate_closes_only_when_our_cpu_bound_programs_crowd_the_cores(tmp_path):
    crowded = warmed(gate(tmp_path, 9, busy=4))
    assert crowded.floor == 4  # 2 per core: the default
    assert not crowded.admits(crowded.floor)  # 4 of ours burn CPU and 9 tasks wait for 2 cores
    assert crowded.admits(crowded.floor - 1)  # below the floor: always
    # A burst: the floor is just reached, nothing measured yet: the machine's count decides.
    burst = gate(tmp_path, 9, busy=0)
    assert not burst.admits(burst.floor)
    assert warmed(gate(tmp_path, 3, busy=4)).admits(40)  # the cores have no queue
    # The machine is crowded, but not by our CPU-bound programs (sleepers, another tenant):
    # ours may start (1 busy and the 2 that warming started, not measured yet: 3 below the floor).
    assert warmed(gate(tmp_path, 9, busy=1)).admits(40)
    # Counts it cannot read leave it open: the slots' (past start-up), or the machine's.
    assert warmed(CpuGate(cores=2, slots_cpu_s=lambda: [None] * 16, loadavg=loadavg(tmp_path, 9))).admits(40)
    assert warmed(CpuGate(cores=2, slots_cpu_s=Slots(16, 4), loadavg=str(tmp_path / "none"))).admits(40)


def test_programs_it_has_not_measured_yet_count_as_cpu_bound(tmp_path):
    """Fewer than the floor measured busy (some CPU-bound programs ended, others just took their
    slots): it lets in only as many as keep the busy and the unmeasured below the floor. Judged on
    the measure alone, it let a flood in (17 at once, in verl's burst), all then killed together
    by the clock."""
    g = gate(tmp_path, 9, busy=1)
    admitted = []
    for _ in range(3):  # two windows measured: 1 busy
        admitted.append(g.admits(40) is not None)
        time.sleep(SAMPLE_S + 0.02)
    admitted += [g.admits(40) is not None for _ in range(20)]  # a burst in the same window
    assert sum(admitted) == g.floor - 1, admitted
    # Once measured (they never grew: sleepers), they no longer hold it.
    for _ in range(10):
        time.sleep(SAMPLE_S + 0.02)
        if g.admits(40):
            break
    else:
        raise AssertionError("programs measured as sleepers still held the gate")


def test_programs_that_have_ended_no_longer_count(tmp_path):
    """A crowded machine, sleepers filling the slots (measured: they hold nothing), and a stream
    of quick programs: each one that ends frees its place at once. Counting every recent start
    instead held a crowded service to the floor per two windows (10 starts a second on 2 cores):
    verl's mix of quick programs, sleepers and loops then got 504s for correct programs."""
    g = gate(tmp_path, 9, busy=0)
    for _ in range(3):  # two windows measured: nothing busy
        ticket = g.admits(40)
        if ticket is not None:
            g.ended(ticket)
        time.sleep(SAMPLE_S + 0.02)
    for i in range(50):  # within one window
        ticket = g.admits(40)
        assert ticket is not None, f"held after {i} quick programs had started and ended"
        g.ended(ticket)
    running = [g.admits(40) for _ in range(g.floor + 2)]  # these do not end: the floor holds
    assert sum(t is not None for t in running) == g.floor, running


def test_a_closed_gate_holds_work_back_and_lets_it_start_when_it_opens(tmp_path):
    sched = FairScheduler(8, gate=CpuGate(cores=1, slots_cpu_s=Slots(8, 1, 1.0), floor_per_core=1,
                                          loadavg=loadavg(tmp_path, 50)))
    release = threading.Event()
    try:
        first = sched.submit(lambda: release.wait(10), "a")
        second = sched.submit(lambda: "ran", "b")
        time.sleep(0.3)
        assert first.running() and not second.running() and not second.done(), "started past a closed gate"
        loadavg(tmp_path, 1)  # the machine calms down: the slot watching the gate sees it
        assert second.result(timeout=5) == "ran"
    finally:
        release.set()
        sched.close()


def test_sleeping_programs_never_hold_the_gate():
    """A service full of sleepers still starts the next program at once: sleepers use no CPU."""
    state = tempfile.mkdtemp(prefix="codetest-gate-")
    cfg = make_config("native", state)
    cfg.slots = 8 * 8 + 8  # above the floor of 8 per core, on up to 8 cores
    cfg.runnable_per_core = 2
    sb = Sandbox(cfg)
    try:
        assert sb.health()["cpu_gate"]["floor"] >= 2, "the gate is on"
        assert_quick_program_passes_sleepers(sb, sb.scheduler.gate.floor + 4)
    finally:
        sb.close()
        shutil.rmtree(state, ignore_errors=True)
