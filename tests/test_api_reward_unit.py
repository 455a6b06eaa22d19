"""Code extraction and scoring rules of /v1/reward, without a server (fast, exhaustive)."""

from __future__ import annotations

import time

import pytest

from api.reward import last_fenced_block, score
from sandbox.models import RunResult, TestResult, Verdict


@pytest.mark.parametrize("text,want", [
    ("```python\nprint(1)\n```", ("python", "print(1)\n")),
    ("a\n```py\nx\n```\nb\n```cpp\nint main(){}\n```\nc", ("cpp", "int main(){}\n")),
    ("Here: ```python\nprint(2)```", ("python", "print(2)\n")),
    ("````python\nprint('```')\n````", ("python", "print('```')\n")),
    ("```{python}\nx=1\n```", ("python", "x=1\n")),
    ("```Python title=x.py\r\nx=1\r\n```\r\n", ("python", "x=1\n")),
    ("```\nplain\n```", ("", "plain\n")),
    ("```python\nunterminated", None),
    ("```python\nfirst\n```\n```python\nlast but unterminated", ("python", "first\n")),
    ("inline ```code``` only", None),
    ("no fences at all", None),
])
def test_last_fenced_block(text, want):
    assert last_fenced_block(text) == want


def test_extraction_is_linear_on_hostile_text():
    hostile = ("`" * 200_000 + "\n") + ("```x\n" + "a" * 50 + "\n") * 20_000 + "`" * 100_000
    t0 = time.process_time()
    last_fenced_block(hostile)
    last_fenced_block("```\n" * 500_000)
    assert time.process_time() - t0 < 6.0  # CPU seconds: other load on the machine does not count


def tr(v: str) -> TestResult:
    return TestResult(verdict=Verdict(v))


@pytest.mark.parametrize("verdict,tests,scoring,want", [
    ("AC", ["AC", "AC"], "fraction", 1.0),
    ("WA", ["AC", "WA", "AC", "AC"], "fraction", 0.75),
    ("TLE", ["AC", "TLE"], "fraction", 0.5),
    ("RE", ["RE", "RE"], "fraction", 0.0),
    ("WA", ["AC", "WA"], "all_or_nothing", 0.0),
    ("AC", ["AC"], "all_or_nothing", 1.0),
    ("CE", [], "fraction", 0.0),
    ("WA", ["WA", "SKIPPED"], "fraction", 0.0),
    ("SE", ["SE"], "fraction", None),
    ("WA", ["WA", "SE"], "fraction", None),
    ("AC", [], "fraction", 1.0),
])
def test_score(verdict, tests, scoring, want):
    passed = sum(1 for t in tests if t == "AC")
    res = RunResult(verdict=Verdict(verdict), passed=passed, total=len(tests), tests=[tr(t) for t in tests])
    reward, error = score(res, scoring)
    assert reward == want
    assert (error is not None) == (want is None)
