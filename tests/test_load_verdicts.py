"""Load never changes a verdict.

* Time a program waits for a CPU is not counted against its wall limit (the wall limit catches
  sleepers), on a machine busy with other executions: up to ``cpu_wait_allowance``, and never
  past its client's deadline.
* More CPU-bound work than the cores finish in the client's time: the CPU gate starts it a few
  at a time, and what cannot start in time is refused (verl: 504, which it retries) rather than
  run at once and killed together by the clock.

The first two tests switch the gate off (``runnable_per_core = 0``): they show the clock
stretching, which is what protects programs when the machine is busy with other tenants' work.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Iterator, Optional

from sandbox import Limits, RunRequest, Sandbox, TestCase
from conftest import counter_total, make_config

# ~0.4 s of the program's own CPU, however fast the machine: its time limit (1 s) is never near.
BUSY = "import time\nwhile time.process_time() < 0.4:\n    pass\nprint('done')\n"
SLEEPER = "import time\ntime.sleep(30)\nprint('done')\n"
AT_ONCE = 12 * (os.cpu_count() or 1)  # 4.8 s of CPU per core: each waits far past its 3 s wall limit


@contextmanager
def native_sandbox(slots: int, gate: float = 0) -> Iterator[Sandbox]:
    """A native sandbox of ``slots`` slots (enough that every program runs at once, as the
    service's many slots let them), its CPU gate at ``gate`` (0: off), in a state dir of its own."""
    state = tempfile.mkdtemp(prefix="codetest-load-")
    cfg = make_config("native", state)
    cfg.slots = slots
    cfg.runnable_per_core = gate
    sb = Sandbox(cfg)
    try:
        yield sb
    finally:
        sb.close()
        shutil.rmtree(state, ignore_errors=True)


def test_cpu_bound_programs_are_not_killed_by_the_clock_while_they_wait_for_a_cpu():
    with native_sandbox(AT_ONCE + 1) as sb:
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


def verl_scores(code: str, n: int, gate: float, seen: Optional[dict] = None) -> list[tuple]:
    """verl's own ``call_sandbox_api`` (``timeout=1``: compile and run 1 s, HTTP 12 s), ``n`` at
    once, against a real service whose slots let all of them run at once. ``seen``: filled with
    the service's counters of requests that got 504 while their run went on, and of retries
    that joined a run."""
    import sys

    from _real_clients import load_verl_sandbox_fusion

    from api.app import create_app
    from api.testing import serve_in_thread

    call = sys.modules[load_verl_sandbox_fusion().__name__ + ".utils"].call_sandbox_api
    with native_sandbox(n, gate) as sb:
        with serve_in_thread(create_app(sb)) as url:
            def one(i: int) -> tuple:  # n programs, not one request n times (those share a run)
                out, err = call(url + "/run_code", f"{code}# program {i}\n", "", 1, 1, 256, "python")
                run = (out or {}).get("run_result") or {}
                return (out or {}).get("status"), run.get("status"), run.get("stdout"), run.get("execution_time"), err

            with ThreadPoolExecutor(n) as pool:
                results = list(pool.map(one, range(n)))
            if seen is not None:
                import httpx

                text = httpx.get(url + "/metrics", timeout=10).text
                for name in ("codetest_run_code_still_running_total", "codetest_run_code_rejoined_total"):
                    seen[name] = counter_total(text, name)
            return results


def test_verl_cpu_bound_programs_are_not_killed_by_the_clock_before_its_deadline():
    """More CPU-bound correct programs at once than the cores finish within /run_code's 3 s wall
    limit, all run at once (gate off): waiting for a CPU does not count against the wall limit
    until verl's HTTP timeout would pass."""
    results = verl_scores(BUSY, AT_ONCE, gate=0)
    wrong = [r for r in results if r[:3] != ("Success", "Finished", "done\n")]
    assert not wrong, f"correct programs scored by how busy the service was: {wrong[:4]} ({len(wrong)} in all)"
    slowest = max(r[3] for r in results)
    assert slowest > 3, f"the machine was not busy enough to test anything (slowest run {slowest:.2f} s)"


# ~0.8 s of CPU each, 16 per core: 12.8 s of work per core against verl's 12 s (timeout=1).
HEAVY = "import time\nwhile time.process_time() < 0.8:\n    pass\nprint('done')\n"
HEAVY_AT_ONCE = 16 * (os.cpu_count() or 1)


def test_verl_gets_every_correct_program_right_when_the_work_outlasts_its_deadline():
    """More CPU-bound work at once than the machine finishes within verl's deadline. Run all at
    once, every program would be killed by the clock (TLE, 0) with a fraction of its CPU time.
    The gate starts them a few at a time; those that cannot start in time get 504, verl retries
    them (1 s, then 2 s later), and every one is scored 1."""
    results = verl_scores(HEAVY, HEAVY_AT_ONCE, gate=2)
    wrong = [r for r in results if r[:3] != ("Success", "Finished", "done\n")]
    assert not wrong, f"correct programs scored by how busy the service was: {wrong[:4]} ({len(wrong)} in all)"


# ~0.8 s of CPU each, 14 per core: 11.2 s of work per core, past the 10 s in which the service
# answers verl's first attempt (its 12 s less the margin), within the run's clock budget (its 3 s
# wall limit plus 4x that waiting for a CPU).
SHARED_AT_ONCE = 14 * (os.cpu_count() or 1)


def test_verl_gets_every_correct_program_right_with_every_program_running_at_once():
    """The CPU gate off (the default): all run at once, sharing the cores, and are still running
    when verl's time is nearly up. Each run goes on (judged on its own CPU time); its request gets
    504, verl retries it a second later, and the retry joins the run instead of starting it anew
    (api/rejoin.py): every one is scored 1, and no program ran twice."""
    seen: dict = {}
    results = verl_scores(HEAVY, SHARED_AT_ONCE, gate=0, seen=seen)
    wrong = [r for r in results if r[:3] != ("Success", "Finished", "done\n")]
    assert not wrong, f"correct programs scored by how busy the service was: {wrong[:4]} ({len(wrong)} in all)"
    waited = seen["codetest_run_code_still_running_total"]
    assert waited > 0, f"the work ended within verl's first attempt: nothing was tested ({seen})"
    assert seen["codetest_run_code_rejoined_total"] == waited, seen  # every 504 was retried into its run
