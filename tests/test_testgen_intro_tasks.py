"""Issue 14's first held-out kind, intro function tasks with student programs, in small: six
problems in the style of the assignments the issue describes (a search for 42 in a sorted
sequence, ``(gender, age)`` pairs sorted by age, duplicates removed, top k, a unique day among
``(month, day)`` birthdays, a primality test), one gold each, and correct and incorrect programs written the way
students write them (``tests/data/intro_tasks.jsonl``). Synthesized through the CLI on a real
sandbox and judged with ``codetest evaluate``: every correct program is accepted (before the
record-field and empty-sequence rules, two correct ``sort_age`` programs were rejected on lists
with two equal ages, which "All ages are different" excludes) and the wrong ones are rejected
(the search that reads ``seq[-1]`` fails only on an empty sequence; the primality test that
tries every number below n is too slow on the largest prime of the stated range, which the suite
holds whatever its random draws)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "intro_tasks.jsonl")


@pytest.fixture
def env():
    """A sandbox state folder of this test's own that the jail users can traverse."""
    d = tempfile.mkdtemp(prefix="codetest-intro-")
    os.chmod(d, 0o755)
    yield dict(os.environ, CODETEST_STATE_DIR=d)
    shutil.rmtree(d, ignore_errors=True)


def _cli(env: dict, *args: str) -> None:
    r = subprocess.run([sys.executable, "-m", "codetest.cli", *args], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def test_an_intro_task_set_accepts_every_correct_student_program(tmp_path, env):
    out, rep = tmp_path / "suites.jsonl", tmp_path / "report.json"
    _cli(env, "testgen", DATA, "-o", str(out), "--quiet")
    _cli(env, "evaluate", str(out), "--json", str(rep))
    report = json.loads(rep.read_text())
    by_id = {p["id"]: p for p in report["problems"]}
    assert len(by_id) == 6 and not report["pooled"]["unjudged_programs"]
    assert report["pooled"]["accepted"] == report["pooled"]["correct"] == 25, \
        {k: p["false_rejects"] for k, p in by_id.items()}
    assert by_id["ref/search"]["missed"] == [] and by_id["ref/sort_age"]["missed"] == []
    assert by_id["ref/is_prime"]["missed"] == []
    assert report["pooled"]["rejected"] >= 27, {k: p["missed"] for k, p in by_id.items()}
    suites = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert [999_999_937] in [t["args"] for t in suites["ref/is_prime"]["tests"]]  # 1 <= n <= 10^9
