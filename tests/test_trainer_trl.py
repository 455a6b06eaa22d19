"""TRL's own GRPOTrainer calling our async reward function, when TRL is installed.

``scripts/setup.sh --train`` installs TRL (a skip names the missing package). Two GRPO steps on the
tiny model; the wrapper swaps half the completions for a known-good program so the
reward TRL logs is known: every other completion earns 1.0, the random model's own
text (no code block) earns 0.0.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterator

import pytest

_WHY = "not installed; scripts/setup.sh --train installs it"
pytest.importorskip("torch", reason=f"torch {_WHY}")
trl = pytest.importorskip("trl", reason=f"trl {_WHY}")
datasets = pytest.importorskip("datasets", reason=f"datasets (a trl dependency) {_WHY}")
pa = pytest.importorskip("pyarrow", reason=f"pyarrow (a trl dependency) {_WHY}")

from _reward_service import DOUBLE_TESTS, GOOD, real_service  # noqa: E402
from client.rewards import RewardScorer  # noqa: E402
from client.rewards.trl import make_trl_reward  # noqa: E402

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    with real_service() as url:
        yield url


def test_trl_grpo_trainer_calls_our_reward(service: str, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trainer.tiny import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny", layers=2, width=32, heads=2)
    scorer = RewardScorer(service, timeout_s=60)
    reward = make_trl_reward(scorer=scorer)
    seen: dict[str, Any] = {}

    async def codetest_reward(prompts: Any = None, completions: Any = None, **kwargs: Any) -> list:
        seen.update(kwargs, prompts=prompts)
        swapped = [GOOD if i % 2 == 0 else c for i, c in enumerate(completions)]
        return await reward(prompts=prompts, completions=swapped, **kwargs)

    # The tests column is a JSON string (an Arrow struct column would add None fields); the
    # fingerprint is given so `datasets` does not pickle the table to hash it.
    rows = [{"prompt": "Read n and print 2n.\n", "tests": json.dumps(DOUBLE_TESTS), "language": "python"}] * 4
    args = trl.GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                          max_completion_length=8, max_steps=2, logging_steps=1, report_to=[], use_cpu=True,
                          save_strategy="no", learning_rate=1e-3, bf16=False)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    trainer = trl.GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(model_dir), reward_funcs=[codetest_reward],
                              args=args, train_dataset=datasets.Dataset(pa.Table.from_pylist(rows), fingerprint="codetest"), processing_class=tokenizer)
    trainer.train()
    scorer.close()

    assert {"completion_ids", "trainer_state", "log_metric", "log_extra", "tests", "language"} <= set(seen)
    logs = [h for h in trainer.state.log_history if "rewards/codetest_reward/mean" in h]
    assert len(logs) == 2
    for h in logs:
        assert h["rewards/codetest_reward/mean"] == pytest.approx(0.5)
        assert h["codetest/service_errors"] == 0 and h["codetest/pass_rate"] == pytest.approx(0.5)
        assert not math.isnan(h["loss"])
