"""Reward functions in the shape TRL's ``GRPOTrainer`` calls.

TRL calls every custom reward function with keyword arguments only::

    await reward_func(prompts=prompts, completions=completions,
                      completion_ids=completion_ids_list, **reward_kwargs)

where ``reward_kwargs`` holds every dataset column but ``prompt`` (one entry per
completion, so a ``tests`` column arrives as ``tests=[...]``), ``trainer_state``, and,
in TRL versions that have them, ``log_extra`` and ``log_metric``. ``async def``
functions are awaited on TRL's own loop, concurrently with other async rewards.
A ``None`` in the returned list becomes NaN, which TRL leaves out of that sample's
reward: exactly what a service failure should do.

    from client.rewards.trl import make_trl_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[make_trl_reward("http://sandbox:8080")],
                          train_dataset=ds)   # ds has "prompt" and "tests" columns
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Optional, Sequence

from .inputs import BadRewardInput, RewardItem, make_item
from .registry import shared_scorer
from .scorer import RewardOutcome, RewardScorer, RewardStats, Scoring, Unscorable

TrlReward = Callable[..., Awaitable[list[Optional[float]]]]
TrlRewardSync = Callable[..., list[Optional[float]]]


def build_items(
    completions: Sequence[Any],
    columns: dict[str, Any],
    *,
    tests_column: str = "tests",
    language_column: str = "language",
    default_language: str = "python",
    limits: Optional[dict[str, Any]] = None,
) -> list[RewardItem | Unscorable]:
    """One item per completion from TRL's dataset-column kwargs."""
    if tests_column not in columns:
        raise TypeError(
            f"the codetest reward needs a {tests_column!r} dataset column (one test list per prompt); "
            f"the reward function got columns {sorted(k for k in columns if not k.startswith('log_'))}"
        )
    n = len(completions)
    tests = _column(columns, tests_column, n)
    languages = _column(columns, language_column, n)
    limit_col = _column(columns, "limits", n)
    entry_points = _column(columns, "entry_point", n)
    items: list[RewardItem | Unscorable] = []
    for i, completion in enumerate(completions):
        if tests[i] is None:
            items.append(Unscorable(f"row has no {tests_column!r}"))
            continue
        try:
            item = make_item(completion, tests[i], language=languages[i], limits=limit_col[i],
                             entry_point=entry_points[i], default_language=default_language)
        except BadRewardInput as e:
            items.append(Unscorable(str(e)))
            continue
        if item.limits is None and limits:
            item.limits = dict(limits)  # row column > tests record > the function's default
        items.append(item)
    return items


def _column(columns: dict[str, Any], name: str, n: int) -> list[Any]:
    value = columns.get(name)
    if value is None:
        return [None] * n
    value = list(value)
    if len(value) != n:
        raise ValueError(f"column {name!r} has {len(value)} entries for {n} completions")
    return value


def report(outcomes: Sequence[RewardOutcome], kwargs: dict[str, Any], prefix: str) -> None:
    """Send this batch's failures, latency and pass rate to TRL's ``log_metric`` / ``log_extra``."""
    log_metric = kwargs.get("log_metric")
    if callable(log_metric):
        n = max(len(outcomes), 1)
        scored = [o for o in outcomes if o.ok]
        log_metric(f"{prefix}/service_errors", float(sum(o.failure == "service" for o in outcomes)))
        log_metric(f"{prefix}/timeouts", float(sum(o.failure == "timeout" for o in outcomes)))
        log_metric(f"{prefix}/bad_inputs", float(sum(o.failure == "bad_input" for o in outcomes)))
        log_metric(f"{prefix}/no_code", float(sum(o.no_code for o in outcomes)))
        log_metric(f"{prefix}/unscored_frac", float(len(outcomes) - len(scored)) / n)
        log_metric(f"{prefix}/pass_rate", float(sum(o.verdict == "AC" for o in scored)) / max(len(scored), 1))
        latencies = [o.latency_s for o in outcomes if o.latency_s > 0]
        if latencies:
            log_metric(f"{prefix}/latency_s", max(latencies))
    log_extra = kwargs.get("log_extra")
    if callable(log_extra):
        log_extra(f"{prefix}_verdict", [o.verdict or (o.failure or "?") for o in outcomes])


def make_trl_reward(
    service_url: Optional[str] = None,
    *,
    scorer: Optional[RewardScorer] = None,
    scoring: Scoring = "fraction",
    tests_column: str = "tests",
    language_column: str = "language",
    default_language: str = "python",
    limits: Optional[dict[str, Any]] = None,
    name: str = "codetest_reward",
    metric_prefix: str = "codetest",
    blocking: bool = False,
    **scorer_options: Any,
) -> TrlReward | TrlRewardSync:
    """An ``async`` TRL reward function scoring completions against the row's tests
    (``blocking=True``: a plain function, for TRL versions without async rewards).

    ``scorer_options`` (``timeout_s``, ``max_concurrency``, ``batch_size``, ...) go to
    the shared ``RewardScorer`` unless ``scorer`` is given.
    """
    the_scorer = scorer or shared_scorer(service_url, **scorer_options)

    def items_of(completions: Sequence[Any], columns: dict[str, Any]) -> list[RewardItem | Unscorable]:
        return build_items(completions, columns, tests_column=tests_column, language_column=language_column,
                           default_language=default_language, limits=limits)

    def rewards_of(outcomes: Sequence[RewardOutcome], columns: dict[str, Any]) -> list[Optional[float]]:
        report(outcomes, columns, metric_prefix)
        return [o.reward for o in outcomes]

    if blocking:
        def reward(prompts: Any = None, completions: Sequence[Any] = (), completion_ids: Any = None,
                   **kwargs: Any) -> list[Optional[float]]:
            return rewards_of(the_scorer.score_sync(items_of(completions, kwargs), scoring=scoring), kwargs)
    else:
        async def reward(prompts: Any = None, completions: Sequence[Any] = (), completion_ids: Any = None,
                         **kwargs: Any) -> list[Optional[float]]:
            return rewards_of(await the_scorer.score(items_of(completions, kwargs), scoring=scoring), kwargs)

    reward.__name__ = reward.__qualname__ = name
    reward.scorer = the_scorer  # type: ignore[attr-defined]
    return reward


def make_trl_reward_sync(service_url: Optional[str] = None, **options: Any) -> TrlRewardSync:
    """The plain-function twin of ``make_trl_reward`` (the same arguments), for TRL versions
    without async rewards."""
    return make_trl_reward(service_url, blocking=True, **options)


async def codetest_reward(prompts: Any = None, completions: Sequence[Any] = (), completion_ids: Any = None,
                          **kwargs: Any) -> list[Optional[float]]:
    """Ready-made async TRL reward against ``$CODETEST_URL`` (default http://127.0.0.1:8080)."""
    return await make_trl_reward()(prompts=prompts, completions=completions, completion_ids=completion_ids,
                                   **kwargs)


def codetest_reward_sync(prompts: Any = None, completions: Sequence[Any] = (), completion_ids: Any = None,
                         **kwargs: Any) -> list[Optional[float]]:
    """Ready-made plain TRL reward against ``$CODETEST_URL``."""
    return make_trl_reward_sync()(prompts=prompts, completions=completions, completion_ids=completion_ids,
                                  **kwargs)


__all__ = [
    "RewardStats", "build_items", "codetest_reward", "codetest_reward_sync", "make_trl_reward",
    "make_trl_reward_sync", "report",
]
