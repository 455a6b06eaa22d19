"""OpenRLHF's reward-function file shape, scoring through ``/v1/reward``.

OpenRLHF takes ``--remote_rm_url`` as either an HTTP URL or a Python file. With a URL
it POSTs ``{"query", "prompts", "labels"}`` there and reads ``{"rewards", "scores",
"extra_logs"}``: point it at the service's ``POST /get_reward``. With a file it
imports the file and calls ``reward_func(queries, prompts, labels, **kwargs)``: pass
this file's path (``python -c "import client.rewards.openrlhf as m; print(m.__file__)"``)
to keep the HTTP batching, concurrency cap and failure accounting on the trainer side.
``--label_key`` names the dataset field with the tests (JSON, any shape
``client.rewards.inputs.parse_tests`` takes); the service URL is ``$CODETEST_URL``.

OpenRLHF needs a number for every sample, so a failed item gets ``$CODETEST_FAILURE_SCORE``
(0.0 unless set), and the batch's failures are counted in ``extra_logs`` (logged to
wandb, one value per sample) and in a warning: never a silent 0.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Sequence

# Absolute imports: OpenRLHF loads this file by path, as a top-level module, so relative
# imports would fail there.
from client.rewards.inputs import BadRewardInput, make_item
from client.rewards.registry import shared_scorer
from client.rewards.scorer import Unscorable

log = logging.getLogger("codetest.rewards.openrlhf")


def _completion(query: str, prompt: str) -> str:
    # queries are prompt + response; the response is what follows the prompt.
    if isinstance(prompt, str) and isinstance(query, str) and query.startswith(prompt):
        return query[len(prompt):]
    return query


def score_openrlhf(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                   **kwargs: Any) -> dict[str, Any]:
    """The ``{rewards, scores, extra_logs}`` answer as plain lists (what ``/get_reward`` returns)."""
    failure_score = float(kwargs.get("failure_score", os.environ.get("CODETEST_FAILURE_SCORE", 0.0)))
    items = []
    for q, p, label in zip(queries, prompts, labels):
        try:
            items.append(make_item(_completion(q, p), label))
        except BadRewardInput as e:
            items.append(Unscorable(str(e)))
    scorer = shared_scorer(kwargs.get("service_url"))
    outcomes = scorer.score_sync(items, scoring=kwargs.get("scoring") or "fraction")
    rewards = [o.reward if o.ok else failure_score for o in outcomes]
    failed = [o for o in outcomes if not o.ok]
    if failed:
        log.warning("openrlhf reward: %d of %d failed (first: %s: %s); scored %s", len(failed), len(outcomes),
                    failed[0].failure, failed[0].error, failure_score)
    # One value per sample: OpenRLHF concatenates extra_logs across batches and splits
    # them by sample, then averages each into a wandb metric.
    extra_logs = {
        "codetest_pass": [float(o.verdict == "AC") for o in outcomes],
        "codetest_failed": [float(not o.ok) for o in outcomes],
        "codetest_timeout": [float(o.failure == "timeout") for o in outcomes],
        "codetest_no_code": [float(o.no_code) for o in outcomes],
        "codetest_latency_s": [o.latency_s for o in outcomes],
    }
    return {"rewards": rewards, "scores": rewards, "extra_logs": extra_logs}


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's ``reward_func``: rewards and scores as tensors when torch is there."""
    out = score_openrlhf(queries, prompts, labels, **kwargs)
    try:
        import torch
    except ImportError:
        return out
    return {"rewards": torch.tensor(out["rewards"], dtype=torch.float32),
            "scores": torch.tensor(out["scores"], dtype=torch.float32),
            "extra_logs": {k: torch.tensor(v, dtype=torch.float32) for k, v in out["extra_logs"].items()}}
