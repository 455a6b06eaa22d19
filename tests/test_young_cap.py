"""The young-execution cap: at most a few executions that started recently run at once (quick
programs do not all share the cores), one that has run longer stops counting (nothing waits
long behind sleepers or loops), and waiting for it never counts against a program."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time

import pytest

from sandbox.config import SandboxConfig
from sandbox.errors import ConfigError
from sandbox.scheduler import FairScheduler
from sandbox.young_cap import YoungCap, young_cap_for


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_cap_has_room_until_most_are_young_and_again_when_one_ends_or_ages():
    clock = Clock()
    cap = YoungCap(2, 0.05, clock)
    assert cap.wait_s() is None
    first = cap.start()
    clock.now += 0.01
    cap.start()
    assert cap.wait_s() == pytest.approx(0.04)  # until the first turns 50 ms old
    cap.ended(first)
    assert cap.wait_s() is None  # an ended one frees its place at once
    third = cap.start()
    assert cap.wait_s() is not None
    clock.now += 0.06
    assert cap.wait_s() is None  # both are old now: they no longer count, running or not
    cap.ended(third)  # ending after ageing out is harmless
    assert cap.wait_s() is None


def test_the_cap_is_per_core_and_off_at_zero():
    assert young_cap_for(3, 50, cores=2).most == 6
    assert young_cap_for(3, 50, cores=2).young_s == pytest.approx(0.05)
    assert young_cap_for(0, 50, cores=2) is None
    assert young_cap_for(3, 0, cores=2) is None


def test_the_settings_are_read_with_loud_casts(monkeypatch):
    monkeypatch.setenv("CODETEST_YOUNG_PER_CORE", "2")
    monkeypatch.setenv("CODETEST_YOUNG_MS", "80")
    cfg = SandboxConfig()
    assert (cfg.young_per_core, cfg.young_ms) == (2.0, 80.0)
    monkeypatch.setenv("CODETEST_YOUNG_MS", "soon")
    with pytest.raises(ConfigError, match="CODETEST_YOUNG_MS"):
        SandboxConfig()


class Probe:
    """Functions that record how many of them run at once."""

    def __init__(self):
        self.lock = threading.Lock()
        self.now = self.most = 0

    def work(self, seconds: float):
        def run():
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            time.sleep(seconds)
            with self.lock:
                self.now -= 1
            return time.monotonic()
        return run


@pytest.mark.parametrize("cap, most", [(YoungCap(2, 0.5), 2), (None, 12)], ids=["capped", "uncapped"])
def test_quick_work_runs_at_most_the_cap_at_once_on_many_workers(cap, most):
    """12 executions of 20 ms on 16 workers: 2 at a time under a cap of 2, all 12 without one
    (each then sleeps 0.3 s, so that all of them overlap)."""
    sched = FairScheduler(16, young_cap=cap)
    try:
        probe = Probe()
        futs = [sched.submit(probe.work(0.02 if cap else 0.3), outer=i) for i in range(12)]
        for f in futs:
            f.result(timeout=10)
        assert probe.most == most
    finally:
        sched.close()


def test_quick_work_does_not_wait_behind_long_work_past_the_young_window():
    """Six executions that sleep 3 s start first; the quick ones behind them start as soon as
    the sleepers are 0.1 s old, not when they end."""
    sched = FairScheduler(16, young_cap=YoungCap(2, 0.1))
    try:
        probe = Probe()
        t0 = time.monotonic()
        sleepers = [sched.submit(probe.work(3.0), outer=f"s{i}") for i in range(6)]
        quick = [sched.submit(probe.work(0.01), outer=f"q{i}") for i in range(4)]
        done = [f.result(timeout=10) - t0 for f in quick]
        assert max(done) < 1.5  # the sleepers run on (3 s): the quick ones did not wait for them
        assert probe.most >= 6  # the sleepers all run at once, each past its young window
        for f in sleepers:
            f.result(timeout=10)
    finally:
        sched.close()


def test_a_real_sandbox_shows_its_cap_and_runs_a_quick_program_past_its_sleepers():
    """Native slots well above the cap, all but a few asleep: the cap is in /healthz, and a
    quick program behind the sleepers is judged while they still sleep."""
    from conftest import assert_quick_program_passes_sleepers, make_config
    from sandbox import Sandbox

    state = tempfile.mkdtemp(prefix="codetest-young-")
    cfg = make_config("native", state)
    cfg.slots = 16
    cfg.young_per_core, cfg.young_ms = 1, 100  # as many young ones as cores
    sb = Sandbox(cfg)
    try:
        cap = sb.health()["young_cap"]
        assert cap["young_ms"] == 100 and cap["most"] >= 1
        assert_quick_program_passes_sleepers(sb, cap["most"] + 6)
    finally:
        sb.close()
        shutil.rmtree(state, ignore_errors=True)
