"""Load never changes a verdict: time a program waits for a CPU is not counted against its wall
limit (the wall limit catches sleepers), on a machine busy with other executions."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading

from sandbox import Limits, RunRequest, Sandbox, TestCase
from conftest import make_config

# ~0.4 s of the program's own CPU, however fast the machine: its time limit (1 s) is never near.
BUSY = "import time\nwhile time.process_time() < 0.4:\n    pass\nprint('done')\n"
SLEEPER = "import time\ntime.sleep(30)\nprint('done')\n"
AT_ONCE = 12 * (os.cpu_count() or 1)  # 4.8 s of CPU per core: each waits far past its 3 s wall limit


def test_cpu_bound_programs_are_not_killed_by_the_clock_while_they_wait_for_a_cpu():
    state = tempfile.mkdtemp(prefix="codetest-load-")
    cfg = make_config("native", state)
    cfg.slots = AT_ONCE + 1  # every program runs at once, as the service's many slots let them
    sb = Sandbox(cfg)
    try:
        limits = Limits(time_s=1, wall_time_s=3)
        results: list = []

        def run(code: str) -> None:
            results.append((code, sb.run(RunRequest(language="python", code=code, limits=limits,
                                                    tests=[TestCase(stdin="", expected_stdout="done\n")]))))

        threads = [threading.Thread(target=run, args=(BUSY,)) for _ in range(AT_ONCE)]
        threads.append(threading.Thread(target=run, args=(SLEEPER,)))
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        busy = [r for code, r in results if code == BUSY]
        assert len(busy) == AT_ONCE
        wrong = [(r.verdict.value, r.tests[0].time_s, r.tests[0].wall_time_s, r.tests[0].run_delay_s)
                 for r in busy if r.verdict.value != "AC"]
        assert not wrong, f"correct programs judged by how long they waited (verdict, cpu, wall, waited): {wrong}"
        waited = max(r.tests[0].run_delay_s for r in busy)
        assert waited > 3, f"the machine was not busy enough to test anything (longest wait {waited:.2f} s)"
        # The wall limit still catches a program that sleeps: it waited for nothing.
        (sleeper,) = [r for code, r in results if code == SLEEPER]
        assert sleeper.verdict.value == "TLE" and sleeper.tests[0].wall_time_s < 10, sleeper.tests[0]
    finally:
        sb.close()
        shutil.rmtree(state, ignore_errors=True)
