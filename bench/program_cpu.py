"""CPU per execution of one program through the library, for the per-language benches
(``jvm_cpu.py``, ``cpp_cpu.py``): they compare a language's compile or run flags by running in two
checkouts alternately, so what they time is the sandbox's own CPU figure of each test (what a time
limit counts), on the native backend, in a state folder of their own."""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
from typing import Callable, Iterator

from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase, Verdict


def run_counts(doc: str) -> tuple[int, int]:
    """The command line's ``--tiny N`` and ``--heavy N``: runs of the tiny program and of each
    CPU-bound one (0: skip those)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--tiny", type=int, default=30, help="runs of the tiny program")
    ap.add_argument("--heavy", type=int, default=3, help="runs of each CPU-bound program (0: skip)")
    args = ap.parse_args()
    return args.tiny, args.heavy


@contextlib.contextmanager
def language_bench(language: str, bench: str) -> Iterator[Callable[[str, str, str, int], None]]:
    """A library sandbox on the native backend with a fresh state folder; yields
    ``measure(label, code, stdin, n)``, which runs the program ``n`` times and prints the median and
    spread of its CPU time. Exits with a message (``bench`` names the caller) unless every run is
    accepted."""
    state = tempfile.mkdtemp(prefix=f"codetest-{bench}-")
    os.chmod(state, 0o755)
    sb = Sandbox(SandboxConfig(state_dir=state))

    def measure(label: str, code: str, stdin: str, n: int) -> None:
        lim = Limits(time_s=20, wall_time_s=60, memory_mb=1024)
        res = sb.run(RunRequest(language=language, code=code, tests=[TestCase(stdin=stdin)] * n, limits=lim))
        bad = [t.verdict.value for t in res.tests if t.verdict != Verdict.AC]
        if bad or res.compile is None or not res.compile.ok:
            sys.exit(f"{bench}: the program did not run cleanly: {bad or res.compile}")
        times = [t.time_s for t in res.tests]
        print(f"{label:28s} median {statistics.median(times) * 1000:8.1f} ms CPU  "
              f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}, {len(times)} runs)")

    try:
        yield measure
    finally:
        sb.close()


def bench_language(language: str, bench: str, doc: str, tiny: str, heavy: list[tuple[str, str, str]]) -> None:
    """The whole run of a per-language bench: the tiny program (reads ``1 2 3``, prints the sum)
    ``--tiny`` times, then each ``(label, code, stdin)`` of ``heavy`` ``--heavy`` times."""
    n_tiny, n_heavy = run_counts(doc)
    with language_bench(language, bench) as measure:
        measure("tiny (sum of 3 numbers)", tiny, "1 2 3\n", n_tiny)
        for label, code, stdin in heavy if n_heavy else []:
            measure(label, code, stdin, n_heavy)
