"""Smoke test of `bench/statement_reading.py`: it rewrites the data sets' LaTeX statements as plain
text and reports how many the input model reads as it reads the originals (docs/testgen-measured.md,
"statements written as plain text"). A rewrite must keep what the model reads from it: a
statement with a `$...$` range is read the same after the rewrite."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from bench.statement_reading import to_plain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data")


def test_the_rewrite_is_plain_text():
    latex = (r"\section*{Input}" "\n" r"\begin{itemize}\item One line with an integer $n$ ($1 \le n \le 2\cdot 10^{5}$)."
             "\n" r"\end{itemize}" "\n" r"\section*{Output}" "\n")
    plain = to_plain(latex)
    assert [ln.strip() for ln in plain.splitlines() if ln.strip()] == [
        "Input", "One line with an integer n (1 ≤ n ≤ 2· 10⁵).", "Output"]
    assert "(1 ≤ n ≤ 2· 10^5)" in to_plain(latex, caret=True)
    assert "integers ℓ, w (1 ≤ ℓ,w ≤ 100)" in to_plain(r"integers $\ell, w$ ($1 \le \ell,w \le 100$)")  # as a page shows it


@pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "stdio-toy")), reason="../shared/data is not here")
def test_the_bench_reads_the_small_sets():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "statement_reading.py"), "--datasets",
                        "stdio-toy,stdio-bapc", "--data-dir", DATA], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    m = re.search(r"read as their LaTeX originals: (\d+)/(\d+) stdin problems", p.stdout)
    assert m and int(m.group(2)) >= 10 and int(m.group(1)) == int(m.group(2)), p.stdout
