"""A service that is down, hangs or fails gives None rewards and counted errors, within the deadline."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict

import pytest

from _reward_service import DOUBLE_TESTS, GOOD, closed_port_url, failing_service, hanging_service
from client.rewards import RewardScorer, compute_score_batch, make_item
from client.rewards.trl import make_trl_reward


def _trl_call(reward, n: int) -> tuple[list, dict]:
    metrics: dict[str, list[float]] = defaultdict(list)
    out = asyncio.run(reward(prompts=["p"] * n, completions=[GOOD] * n, completion_ids=[[1]] * n,
                             tests=[DOUBLE_TESTS] * n, trainer_state=None,
                             log_metric=lambda k, v: metrics[k].append(v), log_extra=lambda c, v: None))
    return out, metrics


def test_down_service_gives_none_and_counts_service_errors() -> None:
    with RewardScorer(closed_port_url(), timeout_s=5, max_attempts=3) as scorer:
        t0 = time.monotonic()
        rewards, metrics = _trl_call(make_trl_reward(scorer=scorer), 3)
        assert time.monotonic() - t0 < 5
        assert rewards == [None, None, None]
        assert metrics["codetest/service_errors"] == [3.0]
        s = scorer.stats.snapshot()
        assert s["service_errors"] == 3 and s["scored"] == 0 and s["failed_requests"] == 1


def test_hanging_service_times_out_at_the_deadline() -> None:
    with hanging_service() as url, RewardScorer(url, timeout_s=1.5, batch_size=2) as scorer:
        t0 = time.monotonic()
        rewards, metrics = _trl_call(make_trl_reward(scorer=scorer), 3)
        elapsed = time.monotonic() - t0
        assert rewards == [None, None, None]
        assert 1.4 < elapsed < 4.0
        assert metrics["codetest/timeouts"] == [3.0]
        assert scorer.stats.snapshot()["timeouts"] == 3


def test_submit_never_blocks_and_resolves_by_the_deadline() -> None:
    with hanging_service() as url, RewardScorer(url, timeout_s=1.0) as scorer:
        t0 = time.monotonic()
        fut = scorer.submit([make_item(GOOD, DOUBLE_TESTS)])
        assert time.monotonic() - t0 < 0.5
        outcomes = fut.result(timeout=5)
        assert outcomes[0].reward is None and outcomes[0].failure == "timeout"


def test_server_errors_are_retried_then_counted() -> None:
    with failing_service(500) as url, RewardScorer(url, timeout_s=10, max_attempts=2) as scorer:
        outcomes = scorer.score_sync([make_item(GOOD, DOUBLE_TESTS)])
        assert outcomes[0].reward is None and outcomes[0].failure == "service"
        assert "HTTP 500" in outcomes[0].error
        assert scorer.stats.snapshot()["failed_requests"] == 1


def test_verl_failure_is_a_flagged_score_not_a_silent_zero(caplog: pytest.LogCaptureFixture) -> None:
    out = compute_score_batch(["x"], [GOOD], [DOUBLE_TESTS], None, service_url=closed_port_url(), timeout_s=3)
    assert out[0]["reward_failed"] == 1.0 and out[0]["score"] == 0.0
    assert any("failed" in r.getMessage() for r in caplog.records)
    out = compute_score_batch(["x"], [GOOD], [DOUBLE_TESTS], None, service_url=closed_port_url(), timeout_s=3,
                              failure_score=-1.0)
    assert out[0]["score"] == -1.0

