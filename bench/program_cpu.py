"""CPU per execution of one program through the library, for the per-language benches
(``jvm_cpu.py``, ``cpp_cpu.py``): they compare a language's compile or run flags by running in two
checkouts alternately, so what they time is the sandbox's own CPU figure of each test (what a time
limit counts), on the native backend, in a state folder of their own."""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import tempfile
from typing import Iterator

from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase, Verdict


@contextlib.contextmanager
def native_sandbox(prefix: str) -> Iterator[Sandbox]:
    """A library sandbox on the native backend with a fresh state folder."""
    state = tempfile.mkdtemp(prefix=prefix)
    os.chmod(state, 0o755)
    sb = Sandbox(SandboxConfig(state_dir=state))
    try:
        yield sb
    finally:
        sb.close()


def cpu_times(sb: Sandbox, language: str, code: str, stdin: str, n: int, bench: str) -> list[float]:
    """The CPU seconds of ``n`` runs of the program on ``stdin``; exits with a message (``bench``
    names the caller) unless every run is accepted."""
    lim = Limits(time_s=20, wall_time_s=60, memory_mb=1024)
    res = sb.run(RunRequest(language=language, code=code, tests=[TestCase(stdin=stdin)] * n, limits=lim))
    bad = [t.verdict.value for t in res.tests if t.verdict != Verdict.AC]
    if bad or res.compile is None or not res.compile.ok:
        sys.exit(f"{bench}: the program did not run cleanly: {bad or res.compile}")
    return [t.time_s for t in res.tests]


def show(name: str, times: list[float]) -> None:
    print(f"{name:28s} median {statistics.median(times) * 1000:8.1f} ms CPU  "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}, {len(times)} runs)")
