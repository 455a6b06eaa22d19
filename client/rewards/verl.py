"""Reward functions in the shapes verl's reward managers call.

verl's ``NaiveRewardManager`` (and ``default_compute_score``'s callers) call a custom
reward function once per response::

    score = compute_score(data_source=..., solution_str=response_str,
                          ground_truth=data["reward_model"]["ground_truth"],
                          extra_info=data.get("extra_info", {}))

with ``custom_reward_function.reward_kwargs`` from the config bound in as keywords.
``BatchRewardManager`` calls ``compute_score(data_sources=, solution_strs=,
ground_truths=, extra_infos=, **reward_kwargs)`` once per batch: point verl at
``compute_score_batch`` with ``reward_model.reward_manager=batch`` to send whole
batches to ``/v1/reward``.

verl writes the score into a float tensor, so a failed item cannot be ``None``:
it gets ``failure_score`` (0.0 unless configured), ``reward_failed=1`` in the
returned dict (verl logs every dict key as ``reward_extra_info``), a warning in the
log and a count in the scorer's stats. Filter on ``reward_failed`` to drop them.

``ground_truth`` holds the tests: a list of test dicts, a JSON string of one, a
``{"tests": [...], "language": ...}`` record, or verl's prime_code / sandbox_fusion
``{"inputs": [...], "outputs": [...] (, "fn_name")}``. ``extra_info`` may set
``language``, ``limits``, ``entry_point`` and ``scoring``.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Optional, Sequence

# Absolute imports: verl loads this file by path, as a top-level module, so relative
# imports would fail there.
from client.rewards.inputs import BadRewardInput, make_item
from client.rewards.registry import shared_scorer
from client.rewards.scorer import RewardOutcome, Unscorable

log = logging.getLogger("codetest.rewards.verl")

_SCORER_OPTIONS = ("batch_size", "max_concurrency", "timeout_s", "max_attempts", "api_key")


def _item(solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]], default_language: str):
    extra = dict(extra_info or {})
    try:
        return make_item(solution_str, ground_truth, language=extra.get("language"), limits=extra.get("limits"),
                         entry_point=extra.get("entry_point"), default_language=default_language)
    except BadRewardInput as e:
        return Unscorable(str(e))


def _as_dict(o: RewardOutcome, failure_score: float) -> dict[str, Any]:
    # Every key on every item, all numeric: verl stacks them into arrays and averages them.
    return {
        "score": o.reward if o.ok else failure_score,
        "acc": 1.0 if o.verdict == "AC" else 0.0,
        "passed": float(o.passed or 0),
        "total": float(o.total or 0),
        "reward_failed": 0.0 if o.ok else 1.0,
        "no_code": 1.0 if o.no_code else 0.0,
    }


def _split(kwargs: dict[str, Any]) -> tuple[dict[str, Any], Optional[str], str, str, float]:
    options = {k: kwargs[k] for k in _SCORER_OPTIONS if kwargs.get(k) is not None}
    return (options, kwargs.get("service_url"), kwargs.get("scoring") or "fraction",
            kwargs.get("default_language") or "python", float(kwargs.get("failure_score", 0.0)))


def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Optional[Mapping[str, Any]] = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Score one response. ``kwargs``: ``service_url`` (else ``$CODETEST_URL``),
    ``scoring``, ``failure_score``, ``default_language`` and scorer options
    (``timeout_s``, ``max_concurrency``, ``batch_size``); verl's own extras
    (``sandbox_fusion_url``, ``concurrent_semaphore``, ...) are accepted and ignored."""
    options, url, scoring, language, failure_score = _split(kwargs)
    scoring = (extra_info or {}).get("scoring") or scoring
    outcome = shared_scorer(url, **options).score_sync([_item(solution_str, ground_truth, extra_info, language)],
                                                       scoring=scoring)[0]
    if not outcome.ok:
        log.warning("verl reward for %s failed (%s): %s; scored %s", data_source, outcome.failure, outcome.error,
                    failure_score)
    return _as_dict(outcome, failure_score)


def compute_score_batch(
    data_sources: Sequence[Any] = (),
    solution_strs: Sequence[str] = (),
    ground_truths: Sequence[Any] = (),
    extra_infos: Optional[Sequence[Optional[Mapping[str, Any]]]] = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Score a whole batch in one go (verl ``reward_manager=batch``); same kwargs as ``compute_score``."""
    options, url, scoring, language, failure_score = _split(kwargs)
    n = len(solution_strs)
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    items = [_item(s, g, e, language) for s, g, e in zip(solution_strs, ground_truths, infos)]
    outcomes = shared_scorer(url, **options).score_sync(items, scoring=scoring)
    failed = [o for o in outcomes if not o.ok]
    if failed:
        log.warning("verl batch reward: %d of %d failed (first: %s: %s); scored %s", len(failed), n,
                    failed[0].failure, failed[0].error, failure_score)
    return [_as_dict(o, failure_score) for o in outcomes]
