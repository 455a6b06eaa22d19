"""Verifiable code rewards for RL trainers, scored by a codetest service.

One ``RewardScorer`` does the work (batches to ``POST /v1/reward``, a concurrency cap,
a deadline, failures as ``None`` and counted); thin adapters give it the shapes that
trainers call:

- TRL ``GRPOTrainer``: ``client.rewards.trl.make_trl_reward`` (async) and
  ``make_trl_reward_sync``; ready-made ``codetest_reward`` / ``codetest_reward_sync``.
- verl: ``client.rewards.verl.compute_score`` (naive manager) and
  ``compute_score_batch`` (``reward_manager=batch``).
- OpenRLHF: ``client.rewards.openrlhf.reward_func`` (``--remote_rm_url`` file), or the
  service's ``POST /get_reward``.

The service URL defaults to ``$CODETEST_URL`` (else http://127.0.0.1:8080).
"""

from .inputs import BadRewardInput, RewardItem, completion_text, make_item, parse_tests
from .scorer import RewardOutcome, RewardScorer, RewardStats, Unscorable, default_service_url
from .trl import codetest_reward, codetest_reward_sync, make_trl_reward, make_trl_reward_sync
from .verl import compute_score, compute_score_batch

__all__ = [
    "BadRewardInput", "RewardItem", "RewardOutcome", "RewardScorer", "RewardStats", "Unscorable",
    "codetest_reward", "codetest_reward_sync", "completion_text", "compute_score", "compute_score_batch",
    "default_service_url", "make_item", "make_trl_reward", "make_trl_reward_sync", "parse_tests",
]
