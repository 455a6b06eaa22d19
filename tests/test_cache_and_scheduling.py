"""Compile cache (once per source, safe under concurrency, bounded) and fair scheduling."""

from __future__ import annotations

import os
import threading
import time

import pytest

from sandbox import Limits, RunRequest, TestCase, Verdict
from sandbox.cache import CompileCache
from sandbox.scheduler import FairScheduler

from conftest import cache_entry

C_SUM = '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}\n'


def test_concurrent_identical_submissions_compile_once(sandbox):
    code = C_SUM + "/* concurrency probe */\n"
    before = sandbox.stats["compiles"]
    reqs = [RunRequest(language="c", code=code, tests=[TestCase(stdin="1 2\n", expected_stdout="3\n")] * 3)
            for _ in range(8)]
    results = sandbox.run_many(reqs)
    assert all(r.verdict == Verdict.AC for r in results), results
    assert sandbox.stats["compiles"] == before + 1
    assert sum(1 for r in results if r.compile.cached) == 7


def test_stop_on_first_failure_short_circuits(sandbox):
    tests = [TestCase(stdin="1 1\n", expected_stdout="3\n")] + [TestCase(stdin="1 1\n", expected_stdout="2\n")] * 40
    before = sandbox.stats["executions"]
    res = sandbox.run(RunRequest(language="python", code="a,b=map(int,input().split())\nprint(a+b)\n",
                                 tests=tests, stop_on_first_failure=True))
    ran = sandbox.stats["executions"] - before
    assert res.verdict == Verdict.WA and res.tests[0].verdict == Verdict.WA
    assert all(t.verdict == Verdict.SKIPPED for t in res.tests[1:])
    assert ran < 10, f"{ran} executions for a program that failed its first test"


def test_cache_is_bounded_and_keeps_pinned_entries(tmp_path):
    cache = CompileCache(str(tmp_path / "cache"), max_bytes=250_000)
    with cache.pinned("k0"):
        for i in range(6):
            cache.put(f"k{i}", cache_entry(str(tmp_path), f"k{i}", 100_000), {"ok": True})
            time.sleep(0.01)  # distinct recency
        assert cache.get("k0") is not None, "a pinned entry was evicted"
    assert cache.size <= 250_000 + 1000
    assert cache.get("k5") is not None  # the newest stays
    kept = [k for k in (f"k{i}" for i in range(6)) if cache.get(k) is not None]
    assert len(kept) <= 3


def test_cache_put_race_keeps_one_copy(tmp_path):
    cache = CompileCache(str(tmp_path / "cache"), max_bytes=10 << 20)
    folders = [cache_entry(str(tmp_path), f"race{i}", 10) for i in range(4)]
    threads = [threading.Thread(target=cache.put, args=("same", f, {"ok": True, "n": i}))
               for i, f in enumerate(folders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.get("same")["ok"] is True
    assert sorted(os.listdir(tmp_path / "cache")) == ["same"]
    assert not any(os.path.exists(f) for f in folders)  # the losers' copies are gone


def test_big_batch_does_not_starve_a_small_request():
    sched = FairScheduler(workers=2)
    order: list[str] = []
    lock = threading.Lock()

    def work(tag):
        def go():
            time.sleep(0.005)
            with lock:
                order.append(tag)
        return go

    big = [sched.submit(work("big"), outer="batch", inner=i % 50) for i in range(300)]
    time.sleep(0.02)  # the batch is queued and running first
    small = [sched.submit(work("small"), outer="request", inner=0) for _ in range(4)]
    for f in small:
        f.result(timeout=30)
    done_at = len(order)
    for f in big:
        f.result(timeout=60)
    sched.close()
    assert done_at < 40, f"the small request waited for {done_at} executions of the batch"


def test_programs_in_a_batch_take_turns():
    sched = FairScheduler(workers=1)
    order: list[int] = []
    futs = [sched.submit(lambda i=i: order.append(i), outer="b", inner=i % 3) for i in range(9)]
    for f in futs:
        f.result(timeout=10)
    sched.close()
    assert order[:3] == [0, 1, 2]  # one of each program before any second test


# -- what the compile cache keeps (issue 11, finding 3)

def test_compile_limits_that_change_the_outcome_are_in_the_key(sandbox):
    tc = sandbox.toolchain("cpp")
    comp = sandbox.compiler
    files = {"main.cpp": C_SUM}
    small, big = Limits(memory_mb=256), Limits(memory_mb=8192)
    assert comp.key(tc, "main.cpp", files, small) != comp.key(tc, "main.cpp", files, big)
    # Limits that cannot change a cached outcome (a success stays a success; a timeout is never
    # cached) do not split the cache.
    assert comp.key(tc, "main.cpp", files, small) == comp.key(tc, "main.cpp", files, Limits(memory_mb=256,
                                                                                            compile_time_s=5))


def test_compile_wall_has_a_server_side_cap(sandbox):
    tc = sandbox.toolchain("cpp")
    cl = sandbox.compiler.compile_limits(tc, Limits(compile_time_s=300))
    assert cl.wall_s <= sandbox.config.compile_wall_max_s and cl.cpu_s <= sandbox.config.compile_wall_max_s


def test_a_compile_over_its_cpu_limit_is_not_cached(sandbox):
    """A compile that ran out of time is not the source's fault: it compiles again next time."""
    code = "#include <cstdio>\n// timeout probe %s\nint main(){puts(\"1\");}\n" % time.time_ns()
    before = sandbox.stats["compiles"]
    r1 = sandbox.run(RunRequest(language="cpp", code=code, tests=[TestCase(expected_stdout="1\n")],
                                limits=Limits(compile_time_s=0.01)))
    r2 = sandbox.run(RunRequest(language="cpp", code=code, tests=[TestCase(expected_stdout="1\n")]))
    assert r1.verdict == Verdict.CE and "timed out" in r1.compile.stderr and not r1.compile.cached, r1.compile
    assert r2.verdict == Verdict.AC and not r2.compile.cached, "a timed-out compile was served from the cache"
    assert sandbox.stats["compiles"] == before + 2


@pytest.mark.parametrize("device", ["/dev/stderr", "/dev/fd/1", "/proc/self/fd/1", "/proc/self/fd/2", "/dev/tty"])
def test_a_compiler_does_not_read_its_own_stdio_as_a_source(sandbox, device):
    """The compiler's stdin is /dev/null and its stdout/stderr are files in its work folder:
    including any of them reads an empty (or refused) file at once, never a pipe that blocks."""
    code = f'#include "{device}"\n/* {time.time_ns()} */\nint main(void) {{ return 0; }}\n'
    t0 = time.monotonic()
    res = sandbox.run(RunRequest(language="c", code=code, tests=[TestCase()], limits=Limits(compile_time_s=10)))
    assert time.monotonic() - t0 < 8 and "timed out" not in res.compile.stderr, res.compile
    assert res.verdict in (Verdict.AC, Verdict.CE), res


PROG_PROBE = {
    # Each prints: its own file is its source, read-only (and root's); then what /prog holds.
    "python": ("import os, sys\nsrc = open('/prog/main.py').read()\n"
               "print(src == open(sys.argv[0]).read(), os.access('/prog/main.py', os.W_OK), "
               "os.stat('/prog/main.py').st_uid, ' '.join(sorted(os.listdir('/prog'))))\n# probe {n}\n"),
    "bash": ("cmp -s /prog/main.sh \"$0\" && echo True; test -w /prog/main.sh && echo writable || echo False; "
             "shopt -s dotglob nullglob; cd /prog && echo *\n# probe {n}\n"),
}


@pytest.mark.parametrize("language", sorted(PROG_PROBE))
def test_a_program_with_no_compile_step_runs_from_prog_and_leaves_no_cache_folder(sandbox, language):
    """Python and the other interpreted languages: the program's file is at /prog, read-only and
    root's, exactly its source. On a backend that takes programs inline (native) nothing of it
    goes to the compile cache's folder on the host's disk, however many distinct programs come:
    a trainer's completions are all distinct, and each folder cost file system operations
    per request (and a read of the file back per execution)."""
    inline = sandbox.backend.name == "native"
    before = set(os.listdir(sandbox.cache.root)) if os.path.isdir(sandbox.cache.root) else set()
    name = "main.py" if language == "python" else "main.sh"
    for n in range(3):
        res = sandbox.run(RunRequest(language=language, code=PROG_PROBE[language].format(n=n), tests=[TestCase()]))
        assert res.verdict == Verdict.AC, res
        lines = res.tests[0].stdout.split("\n")
        if language == "python":
            same, writable, uid, listing = lines[0].split(" ", 3)
            assert (same, writable, uid) == ("True", "False", "0"), lines
        else:  # bash's own tests and globs: coreutils' statx fails under gVisor
            assert lines[:2] == ["True", "False"], lines
            listing = lines[2]
        assert name in listing.split()
        if inline:
            assert listing.split() == [name], listing  # only the program: no cache metadata beside it
    after = set(os.listdir(sandbox.cache.root)) if os.path.isdir(sandbox.cache.root) else set()
    if inline:
        assert after == before, after - before
    else:
        assert len(after - before) == 3  # Docker sends each program to its containers once, from its folder
