"""`bench/train_step.py` on CPU: a tiny model, a few steps at pipeline depths 0 and 1, against the
bench's own service. Every injected program is scored as expected and the timings add up.

No speed is asserted (the numbers live in docs/trainer.md, measured on one machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch not installed; scripts/setup.sh --train installs the CPU build")
pytest.importorskip("transformers", reason="transformers not installed; scripts/setup.sh --train installs it")
pytest.importorskip("tokenizers", reason="tokenizers not installed; scripts/setup.sh --train installs it")

from conftest import UID_BASE  # noqa: E402

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = str(ROOT / "bench" / "train_step.py")


def _bench(*args: str, timeout: float = 60, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The bench, SIGTERM past ``timeout`` (it then stops its service; SIGKILL would orphan it)."""
    p = subprocess.Popen([sys.executable, SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.terminate()
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        pytest.fail(f"the bench ran past {timeout} s: {out[-2000:]} {err[-2000:]}")
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_bench_runs_both_depths_and_scores_every_injected_program_right(tmp_path: Path) -> None:
    out = tmp_path / "train_step.json"
    p = _bench("--steps", "3", "--pipeline-depth", "0,1", "--device", "cpu", "--layers", "1", "--width", "32",
               "--prompts-per-step", "2", "--group-size", "4", "--max-new-tokens", "16", "--inject", "0.75",
               "--slots", "4", "--uid-base", str(UID_BASE + 800), "--json", str(out), timeout=540)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    runs = json.loads(out.read_text())["runs"]
    assert [r["pipeline_depth"] for r in runs] == [0, 1]
    for r in runs:
        assert r["steps"] == 3 and r["params"] > 0 and r["device"].startswith("cpu")
        assert r["wrong"] == 0 and r["injected_unrewarded"] == 0, r["wrong_examples"]
        assert r["injected_per_step"] == 6 and r["completions_per_step"] == 8
        assert 0 <= r["wait_share"] <= 1 and r["latency_share"] >= 0
        assert 0 < r["reward_wait_s"] + r["update_time_s"] <= r["step_time_s"]
        assert r["executions_per_step"] > 0 and r["steps_per_s"] > 0
        assert r["steady_steps"] == list(range(1, 3 - r["pipeline_depth"]))
        # every kind of the default mix ran: correct, wrong answer, crash, never finishing
        verdicts = {v for s in r["per_step"] for v in s["verdicts"]}
        assert {"AC", "WA", "RE", "TLE"} <= verdicts, verdicts
    assert runs[0]["latency_share"] <= 1  # at depth 0 a step waits for the whole of its scoring
    assert "wait/step" in p.stdout and "steps/s" in p.stdout


def test_bad_flags_exit_2_with_a_message() -> None:
    for args, words in ((["--pipeline-depth", "0,x"], "pipeline-depth"), (["--mix", "correct=1,bogus=2"], "--mix"),
                        (["--steps", "2", "--pipeline-depth", "0,3"], "--steps"), (["--inject", "1.5"], "--inject"),
                        (["--width", "30", "--heads", "4"], "--heads")):
        p = _bench(*args)
        assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)


def test_a_service_that_is_not_there_is_exit_1(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a loopback port where nothing listens
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    p = _bench("--service-url", url, "--steps", "2", "--pipeline-depth", "0", timeout=120,
               env=dict(os.environ, TMPDIR=str(tmp_path)))
    assert p.returncode == 1 and "service is not available" in p.stderr and "Traceback" not in p.stderr, p.stderr
