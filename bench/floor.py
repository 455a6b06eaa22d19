"""The floor: the same programs run by bare ``subprocess.run``, no isolation, 2 at a time.

This is what running the work costs with nothing in the way (the shared README's floor):
``/usr/bin/python3 main.py`` per Python test, and for C++ one ``g++`` with the sandbox's own
flags per program, then its binary per test. Only the trusted workload files are run here,
never user input: the bench is the one place where bare execution is the point.
The time limit is applied as a wall-clock timeout, since without it a loop never ends.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from typing import Sequence

from .measure import Item, ItemResult, Measurement, drive
from .workloads import Submission, normalize

PYTHON = "/usr/bin/python3"
CXX = ("g++", "-O2", "-std=gnu++17", "-pipe")  # the flags sandbox/languages.py compiles C++ with
CONCURRENCY = 2


def verdict_of(proc: "subprocess.CompletedProcess[bytes] | None", expected: str) -> str:
    if proc is None:
        return "TLE"
    if proc.returncode != 0:
        return "RE"
    out = proc.stdout.decode("utf-8", errors="replace")
    return "AC" if normalize(out) == normalize(expected) else "WA"


def _run(argv: list[str], stdin: str, timeout_s: float, cwd: str) -> tuple["subprocess.CompletedProcess[bytes] | None", float]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, input=stdin.encode(), capture_output=True, timeout=timeout_s, cwd=cwd)
    except subprocess.TimeoutExpired:
        proc = None
    return proc, time.perf_counter() - t0


class Floor:
    """Writes each program to its own folder once (untimed), then runs what a measurement asks."""

    def __init__(self, scratch: str):
        self.root = tempfile.mkdtemp(prefix="floor-", dir=scratch)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _folder(self, s: Submission) -> str:
        d = os.path.join(self.root, s.id)
        if not os.path.isdir(d):
            os.makedirs(d)
            name = "main.py" if s.language == "python" else "main.cpp"
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(s.code)
        return d

    def python_test(self, item: Item) -> ItemResult:
        s, j = item.submission, item.test_index
        assert j is not None
        d = self._folder(s)
        proc, took = _run([PYTHON, "main.py"], s.tests[j].stdin, s.time_limit_s, d)
        return ItemResult(verdicts=[verdict_of(proc, s.tests[j].expected_stdout)], exec_s=[took])

    def cpp_program(self, item: Item) -> ItemResult:
        """Compile once, then run every test one after the other: 'compile once + run 10'."""
        s = item.submission
        d = self._folder(s)
        t0 = time.perf_counter()
        cp = subprocess.run([*CXX, "-o", "main", "main.cpp"], capture_output=True, cwd=d,
                            timeout=max(30.0, s.compile_timeout_s * 3))
        compile_s = time.perf_counter() - t0
        if cp.returncode != 0:
            note = cp.stderr.decode(errors="replace")[-200:]
            return ItemResult(verdicts=["CE"] * len(s.tests), compiles=1, compile_s=compile_s,
                              notes=[note] * len(s.tests))
        verdicts, times = [], []
        for t in s.tests:
            proc, took = _run([os.path.join(d, "main")], t.stdin, s.time_limit_s, d)
            verdicts.append(verdict_of(proc, t.expected_stdout))
            times.append(took)
        return ItemResult(verdicts=verdicts, exec_s=times, compiles=1, compile_s=compile_s)

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        for s in subs:  # write the files before the clock starts
            self._folder(s)
        if subs and subs[0].language == "cpp":
            m = drive("floor", workload, subs, self.cpp_program, per_test=False, concurrency=CONCURRENCY,
                      budget_s=budget_s)
            m.latency_unit = "request"  # one program: compile + all its tests, one after the other
            return m
        return drive("floor", workload, subs, self.python_test, per_test=True, concurrency=CONCURRENCY,
                     budget_s=budget_s)
