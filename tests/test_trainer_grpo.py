"""GRPO end to end on CPU: the real service on 127.0.0.1, a tiny model built from a config,
a tokenizer trained here. Known completions are injected into every sampled group so
the rewards are known in advance; the random model's own samples fill the rest.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

torch = pytest.importorskip("torch", reason="torch not installed; scripts/setup.sh --train installs the CPU build")
pytest.importorskip("transformers", reason="transformers not installed; scripts/setup.sh --train installs it")
pytest.importorskip("tokenizers", reason="tokenizers not installed; scripts/setup.sh --train installs it")

from _reward_service import (  # noqa: E402
    BAD, DOUBLE_TESTS, FAST_LIMITS, GOOD, SLOW, closed_port_url, hanging_service, real_service,
)
from client.rewards.scorer import RewardScorer  # noqa: E402
from trainer.config import GRPOConfig  # noqa: E402
from trainer.problems import Problem, load_problems  # noqa: E402

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[1]
INJECT = {0: GOOD, 1: BAD, 2: SLOW}  # position in each group -> completion; position 3 stays sampled
EXPECT = {0: (1.0, "AC"), 1: (0.5, "WA"), 2: (0.0, "TLE")}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from trainer.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny"), layers=2, width=32, heads=2)


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    with real_service() as url:
        yield url


@pytest.fixture()
def problems_file(tmp_path: Path) -> Path:
    path = tmp_path / "problems.jsonl"
    rows = [
        {"id": "double", "prompt": "Read n and print 2n.\n", "tests": DOUBLE_TESTS, "limits": FAST_LIMITS},
        {"id": "double2", "statement": "Print twice the integer on stdin.", "io": "stdio",
         "tests": json.dumps(DOUBLE_TESTS), "limits": FAST_LIMITS},
        {"id": "broken", "statement": "no tests here"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    return path


def inject(step: int, problems: list[Problem], texts: list[str]) -> list[str | None]:
    return [INJECT.get(i % 4) for i in range(len(texts))]


def small_config(model: Path, url: str, out: Path, **kw: Any) -> GRPOConfig:
    base = dict(model=str(model), problems="", service_url=url, output_dir=str(out), steps=3, prompts_per_step=2,
                group_size=4, max_new_tokens=12, lr=5e-3, kl_coef=0.1, reward_timeout_s=30, seed=0, device="auto")
    base.update(kw)
    return GRPOConfig(**base)


def test_problems_load_and_skip_with_reasons(problems_file: Path) -> None:
    problems, skipped = load_problems(problems_file)
    assert [p.id for p in problems] == ["double", "double2"]
    assert problems[1].tests == DOUBLE_TESTS and "```python" in problems[1].prompt
    assert skipped == ["line 3: no tests (nor seed_tests)", "line 4: not JSON (Expecting value)"]


def test_group_advantages_leave_out_missing_rewards() -> None:
    from trainer.objective import group_advantages

    adv, valid = group_advantages([1.0, 0.0, None, 0.0, 0.5, 0.5, 0.5, 0.5], group_size=4)
    assert valid.tolist() == [1, 1, 0, 1, 1, 1, 1, 1]
    assert adv[2] == 0 and adv[0] > 0 > adv[1] and abs(float(adv[:4].sum())) < 1e-5
    assert adv[4:].abs().max() == 0  # all equal: no signal


def test_grpo_steps_end_to_end(tiny_model: Path, service: str, problems_file: Path, tmp_path: Path) -> None:
    from trainer.grpo import GRPOTrainer
    from trainer.metrics import MetricsLog

    problems, _ = load_problems(problems_file)
    cfg = small_config(tiny_model, service, tmp_path / "run", micro_batch_size=4)  # two micro-batches a step
    trainer = GRPOTrainer(cfg, problems, completion_hook=inject)
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    metrics = MetricsLog(tmp_path / "run")
    t0 = time.monotonic()
    history = trainer.train(metrics)
    elapsed = time.monotonic() - t0

    assert len(history) == 3
    for rec in history:
        for i, (reward, verdict) in enumerate(zip(rec["rewards"], rec["verdict_list"])):
            if i % 4 in EXPECT:
                assert (reward, verdict) == EXPECT[i % 4], (rec["step"], i, reward, verdict)
            else:  # the random model's own sample: scored, whatever it is
                assert reward is not None and verdict in {"CE", "RE", "WA", "AC", "TLE"}
        assert rec["updated"] and rec["scored"] == 8 and rec["service_errors"] == rec["timeouts"] == 0
        assert rec["verdicts"]["AC"] >= 2 and rec["verdicts"]["TLE"] == 2
        assert rec["reward_latency_s"] > 0 and rec["injected"] == 6
        assert all(torch.isfinite(torch.tensor([rec["loss"], rec["kl"], rec["grad_norm"]])))
    assert history[0]["kl"] == pytest.approx(0.0, abs=1e-6)  # policy == reference before any update
    assert history[-1]["kl"] > 0
    assert len({round(r["loss"], 8) for r in history}) == 3  # the loss moves
    changed = [n for n, p in trainer.model.named_parameters() if not torch.equal(p.detach(), before[n])]
    assert len(changed) > len(before) // 2
    ref_same = all(torch.equal(p, before[n]) for n, p in trainer.ref_model.named_parameters())
    assert ref_same  # the reference stays frozen
    # Overlap: batch k+1 was sampled and sent before the trainer waited on batch k, so the
    # trainer waited less in total than the service took.
    assert sum(r["reward_wait_s"] for r in history) < sum(r["reward_latency_s"] for r in history)
    assert [r["staleness"] for r in history] == [0, 1, 1]  # pipeline depth 1
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["step"] for x in lines] == [0, 1, 2]
    png = metrics.plot()
    assert png is not None and png.stat().st_size > 10_000
    assert elapsed < 150  # a sanity bound; ~15 s on an idle 2-core machine


def test_down_service_gives_no_reward_and_training_goes_on(tiny_model: Path, problems_file: Path,
                                                           tmp_path: Path) -> None:
    from trainer.grpo import GRPOTrainer

    problems, _ = load_problems(problems_file)
    cfg = small_config(tiny_model, closed_port_url(), tmp_path / "down", steps=2, reward_timeout_s=3)
    trainer = GRPOTrainer(cfg, problems, completion_hook=inject)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    t0 = time.monotonic()
    history = trainer.train()
    assert time.monotonic() - t0 < 30  # generation time aside, nothing waits past the deadline:
    assert all(r["reward_wait_s"] <= cfg.reward_timeout_s + 1.5 for r in history)
    for rec in history:
        assert rec["rewards"] == [None] * 8 and rec["service_errors"] == 8 and rec["scored"] == 0
        assert rec["updated"] is False and rec["reward_mean"] is None
    assert all(torch.equal(a, b) for a, b in zip(before, trainer.model.parameters()))  # nothing learned from 0s
    from trainer.metrics import plot_metrics

    assert plot_metrics(history, tmp_path / "down.png").stat().st_size > 0  # gaps, not a crash


def test_hanging_service_times_out_within_the_deadline(tiny_model: Path, problems_file: Path,
                                                       tmp_path: Path) -> None:
    from trainer.grpo import GRPOTrainer

    problems, _ = load_problems(problems_file)
    with hanging_service() as url:
        cfg = small_config(tiny_model, url, tmp_path / "slow", steps=2, reward_timeout_s=1.5)
        scorer = RewardScorer(url, timeout_s=cfg.reward_timeout_s)
        t0 = time.monotonic()
        history = GRPOTrainer(cfg, problems, scorer=scorer, completion_hook=inject).train()
        elapsed = time.monotonic() - t0
        scorer.close()
    assert elapsed < 30
    assert all(r["reward_wait_s"] <= cfg.reward_timeout_s + 1.5 for r in history)
    assert [r["timeouts"] for r in history] == [8, 8]
    assert scorer.stats.snapshot()["timeouts"] == 16


def test_command_line(tiny_model: Path, service: str, problems_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    cmd = [sys.executable, "-m", "trainer.grpo", "--model", str(tiny_model), "--problems", str(problems_file),
           "--service-url", service, "-o", str(out), "--steps", "2", "--prompts-per-step", "1", "--group-size", "2",
           "--max-new-tokens", "8", "--lr", "1e-3", "--no-overlap"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["staleness"] for r in records] == [0, 0]  # no overlap: always on-policy
    assert (out / "metrics.png").stat().st_size > 0
    assert (out / "final" / "config.json").is_file()

    bad = subprocess.run([sys.executable, "-m", "trainer.grpo", "--model", str(tmp_path / "nope"), "--problems",
                          str(problems_file)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a directory" in bad.stderr and "Traceback" not in bad.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"id": "x"}\n')
    bad = subprocess.run([sys.executable, "-m", "trainer.grpo", "--model", str(tiny_model), "--problems",
                          str(empty)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no usable problems" in bad.stderr


def test_codetest_train_subcommand_registers() -> None:
    import argparse

    from trainer.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="cmd"))
    args = parser.parse_args(["train", "--model", "m", "--problems", "p", "--steps", "2", "--no-overlap"])
    assert args.func and args.steps == 2 and args.pipeline_depth == 0
