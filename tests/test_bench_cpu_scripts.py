"""Smoke test of the CPU-per-execution benches (`bench/jail_cpu.py`, `bench/service_cpu.py`,
`bench/jvm_cpu.py`, `bench/cpp_cpu.py`, `bench/ts_cpu.py`) and of
the own-time bench (`bench/own_time.py`): they run against a real slot and a real service, and
every answer they get is right.

No timing is asserted (performance claims live in docs/bench.md, measured side by side)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

from conftest import UID_BASE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(script: str, *args: str, uid_offset: int) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="codetest-bench-cpu-", ignore_cleanup_errors=True) as state:
        env = dict(os.environ, CODETEST_STATE_DIR=state, CODETEST_UID_BASE=str(UID_BASE + uid_offset),
                   CODETEST_SLOTS="2")
        return subprocess.run([sys.executable, os.path.join(ROOT, "bench", script), *args], capture_output=True,
                              text=True, timeout=240, cwd=ROOT, env=env)


def test_jail_cpu_reports_both_program_kinds():
    p = _run("jail_cpu.py", "20", uid_offset=8)
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [l for l in p.stdout.splitlines() if "jail cpu" in l]
    assert [r.split()[0] for r in rows] == ["/bin/true", "python"], p.stdout
    for r in rows:
        assert float(re.search(r"jail cpu\s+([\d.]+)", r).group(1)) > 0, r


def test_service_cpu_gets_every_answer_right():
    p = _run("service_cpu.py", "40", "--concurrency", "4", uid_offset=11)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    m = re.search(r"service\s+([\d.]+) ms/request\s+jails\s+([\d.]+)\s+client\s+([\d.]+).*, (\d+) wrong, (\d+) joined",
                  p.stdout)
    assert m, p.stdout
    service, jails, wrong, joined = float(m.group(1)), float(m.group(2)), int(m.group(4)), int(m.group(5))
    # Every request ran a program of its own: identical requests in flight would share one run
    # (api/rejoin.py), and the bench would time requests that execute nothing.
    assert wrong == 0 and joined == 0 and service > 0 and jails > 0, p.stdout


def test_own_time_reports_every_one_line_program_accepted():
    p = _run("own_time.py", "--programs", "20", "--concurrency", "4", "--busy", "2", "--busy-cpu-s", "1",
             uid_offset=14)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    m = re.search(r"(\d+) one-line programs.*own p50 ([\d.]+) p90 [\d.]+ p99 [\d.]+ max ([\d.]+) s.*not AC (\d+)", p.stdout)
    assert m, p.stdout
    assert int(m.group(1)) == 20 and int(m.group(4)) == 0 and 0 < float(m.group(2)) <= float(m.group(3)), p.stdout


def test_jvm_cpu_reports_each_java_program_run_cleanly():
    p = _run("jvm_cpu.py", "--tiny", "3", "--heavy", "1", uid_offset=17)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    medians = dict(re.findall(r"^(tiny|tight loop)\S*.*?median\s+([\d.]+) ms CPU", p.stdout, re.M))
    assert set(medians) == {"tiny", "tight loop"} and all(float(v) > 0 for v in medians.values()), p.stdout


def test_cpp_cpu_reports_each_cpp_program_run_cleanly():
    p = _run("cpp_cpu.py", "--tiny", "3", "--heavy", "1", uid_offset=20)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    medians = dict(re.findall(r"^(tiny|stack buffers|tight loop)\S*.*?median\s+([\d.]+) ms CPU", p.stdout, re.M))
    assert set(medians) == {"tiny", "stack buffers", "tight loop"} and all(float(v) > 0 for v in medians.values()), \
        p.stdout


def test_ts_cpu_reports_each_typescript_program_run_cleanly():
    p = _run("ts_cpu.py", "--tiny", "3", "--heavy", "1", uid_offset=23)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    medians = dict(re.findall(r"^(tiny|loop)\S*.*?median\s+([\d.]+) ms CPU", p.stdout, re.M))
    assert set(medians) == {"tiny", "loop"} and all(float(v) > 0 for v in medians.values()), p.stdout
