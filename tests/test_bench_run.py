"""Smoke test of the benchmark command on a small slice: it runs, prints its ratio table, writes JSON.

No timing is asserted (the machine is shared); verdict agreement is, since the bench's whole
point is that speed with wrong verdicts does not count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "bench", "workload.py")

pytestmark = pytest.mark.skipif(not os.path.isfile(SHARED), reason="../shared/bench/workload.py is not here")


def _bench(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_bench_small_slice_prints_ratio_table_and_json(tmp_path):
    out = tmp_path / "results.json"
    p = _bench("--workloads", "W1,W3", "--modes", "floor,library,http-run", "--limit", "2", "--no-after",
               "--budget-s", "60", "--out", str(out))
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("mode "))
    assert "exec/s" in lines[header] and "x floor" in lines[header]
    rows = [l.split() for l in lines[header + 2:] if l and not l.startswith("targets")]
    seen = {(r[0], r[1]) for r in rows if len(r) > 4}
    for mode in ("floor", "library", "http-run"):
        for wl in ("W1", "W3"):
            assert (mode, wl) in seen, p.stdout
    assert "targets:" in p.stdout

    doc = json.loads(out.read_text())
    results = {(r["mode"], r["workload"]): r for r in doc["results"]}
    assert results[("floor", "W1")]["exec_per_s_x_floor"] == pytest.approx(1.0)
    for mode in ("library", "http-run"):
        for wl in ("W1", "W3"):
            r = results[(mode, wl)]
            assert r["executions"] == (20 if wl == "W1" else 10)
            assert r["disagreements"] == 0, r["disagreement_examples"]
            assert r["se"] == 0 and r["errors"] == 0
            assert r["exec_per_s"] > 0 and r["exec_per_s_x_floor"] is not None
    assert doc["machine"]["cpus"] >= 1 and doc["table"]


def test_bench_rejects_unknown_mode():
    p = _bench("--modes", "floor,warp-drive", timeout=60)
    assert p.returncode == 2
    assert "warp-drive" in p.stderr


def test_rounds_measure_each_checkout_in_turn_and_print_medians(tmp_path):
    """bench/rounds.py: every round runs each checkout's bench (here this one, twice, as "before"
    and "after"), /run_code through the kept-alive driver with no wrong verdict, then medians."""
    out = tmp_path / "rounds.json"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "rounds.py"), "--rounds", "2",
                        "--trees", f"{ROOT},{ROOT}", "--json", str(out), "--",
                        "--workloads", "W1", "--modes", "floor,http-run-code", "--limit", "2", "--no-after"],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(out.read_text())
    rows = doc["rows"]
    assert [(r["round"], r["mode"]) for r in rows] == [(1, "floor"), (1, "http-run-code")] * 2 + \
        [(2, "floor"), (2, "http-run-code")] * 2
    for r in rows:
        assert r["wrong"] == 0 and r["errors"] == 0, r
        assert r["exec_per_s"] > 0 and r["x_floor"] is not None
    assert "median over rounds:" in p.stdout and "http-run-code  W1: x floor" in p.stdout


def test_rounds_pass_on_a_bad_bench_argument_as_exit_2():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "rounds.py"), "--rounds", "1", "--",
                        "--modes", "floor,warp-drive"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 2
    assert "warp-drive" in p.stderr
