"""The reward functions, called the way TRL, verl and OpenRLHF call them, against the real service.

Known-good, known-bad, timing-out and code-less completions must come back as
1.0, 0.5 (one of two tests passes), 0.0 (TLE) and 0.0 (CE).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import threading
from collections import defaultdict
from typing import Any, Iterator

import pytest

from _reward_service import BAD, DOUBLE_TESTS, FAST_LIMITS, GOOD, NO_CODE, SLOW, real_service
from client.rewards import RewardScorer, compute_score, compute_score_batch
from client.rewards.openrlhf import reward_func as openrlhf_reward_func
from client.rewards.registry import close_all
from client.rewards.trl import make_trl_reward, make_trl_reward_sync

EXPECTED = [1.0, 0.5, 0.0, 0.0]  # GOOD passes both tests, BAD (n*n) the first only, SLOW is TLE, NO_CODE CE


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with real_service() as u:
        yield u
    close_all()


@pytest.fixture(scope="module")
def scorer(url: str) -> Iterator[RewardScorer]:
    with RewardScorer(url, timeout_s=60, batch_size=3, max_concurrency=2) as s:
        yield s


class FakeTrainerState:
    global_step = 3


def call_like_trl(reward_func: Any, inputs: list[dict[str, Any]], prompts: list[Any], completions: list[Any],
                  loop: asyncio.AbstractEventLoop | None) -> tuple[list[float], dict, dict]:
    """GRPOTrainer._calculate_rewards, transcribed: columns but prompt/completion/completion_ids become
    kwargs, plus trainer_state, log_extra and log_metric; async functions run on the trainer's loop."""
    metrics: dict[str, list[float]] = defaultdict(list)
    extra: dict[str, list[Any]] = defaultdict(list)
    keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
    reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
    reward_kwargs["trainer_state"] = FakeTrainerState()
    reward_kwargs["log_extra"] = lambda column, values: extra[column].extend(values)
    reward_kwargs["log_metric"] = lambda name, value: metrics[name].append(value)
    completion_ids = [[1, 2, 3] for _ in completions]
    if inspect.iscoroutinefunction(reward_func):
        assert loop is not None
        out = asyncio.run_coroutine_threadsafe(
            reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids, **reward_kwargs),
            loop).result(timeout=60)
    else:
        out = reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids, **reward_kwargs)
    return [r if r is not None else math.nan for r in out], metrics, extra


@pytest.fixture(scope="module")
def trl_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """TRL runs async reward functions on an event loop in its own thread."""
    loop = asyncio.new_event_loop()
    t = threading.Thread(target=loop.run_forever, daemon=True)
    t.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    t.join(timeout=5)


def _dataset_rows(n: int) -> list[dict[str, Any]]:
    return [{"prompt": "Double n.", "tests": DOUBLE_TESTS, "language": "python", "limits": FAST_LIMITS,
             "problem_id": "double"} for _ in range(n)]


def test_trl_async_reward_called_as_grpo_trainer_does(scorer: RewardScorer,
                                                       trl_loop: asyncio.AbstractEventLoop) -> None:
    reward = make_trl_reward(scorer=scorer)
    assert inspect.iscoroutinefunction(reward) and reward.__name__ == "codetest_reward"
    completions = [GOOD, BAD, SLOW, NO_CODE]
    rows = _dataset_rows(4)
    rewards, metrics, extra = call_like_trl(reward, rows, [r["prompt"] for r in rows], completions, trl_loop)
    assert rewards == EXPECTED
    assert extra["codetest_verdict"] == ["AC", "WA", "TLE", "CE"]
    assert metrics["codetest/service_errors"] == [0.0] and metrics["codetest/timeouts"] == [0.0]
    assert metrics["codetest/pass_rate"] == [0.25]


def test_trl_conversational_completions_and_sync_wrapper(scorer: RewardScorer) -> None:
    reward = make_trl_reward_sync(scorer=scorer, scoring="all_or_nothing")
    assert not inspect.iscoroutinefunction(reward)
    prompts = [[{"role": "user", "content": "Double n."}]] * 2
    completions = [[{"role": "assistant", "content": GOOD}], [{"role": "assistant", "content": BAD}]]
    rewards, metrics, _ = call_like_trl(reward, _dataset_rows(2), prompts, completions, None)
    assert rewards == [1.0, 0.0]
    assert metrics["codetest/unscored_frac"] == [0.0]


def test_trl_bad_row_gives_none_and_is_counted(scorer: RewardScorer, trl_loop: asyncio.AbstractEventLoop) -> None:
    rows = _dataset_rows(2)
    rows[1]["tests"] = "not json"
    before = scorer.stats.snapshot()
    rewards, metrics, _ = call_like_trl(make_trl_reward(scorer=scorer), rows, ["p", "p"], [GOOD, GOOD], trl_loop)
    assert rewards[0] == 1.0 and math.isnan(rewards[1])
    assert metrics["codetest/bad_inputs"] == [1.0]
    assert scorer.stats.snapshot()["bad_inputs"] == before["bad_inputs"] + 1


def test_one_invalid_item_does_not_cost_the_batch(scorer: RewardScorer) -> None:
    """A 422 for the batch is retried item by item: the others still get their rewards."""
    reward = make_trl_reward_sync(scorer=scorer)
    rows = _dataset_rows(3)
    rows[1]["limits"] = {"time_s": 10_000}  # over the service's cap -> 422
    rewards, _, _ = call_like_trl(reward, rows, ["p"] * 3, [GOOD, GOOD, BAD], None)
    assert rewards[0] == 1.0 and math.isnan(rewards[1]) and rewards[2] == 0.5


def test_verl_compute_score_called_as_naive_reward_manager_does(url: str) -> None:
    # NaiveRewardManager: compute_score(data_source=, solution_str=, ground_truth=, extra_info=)
    # with custom_reward_function.reward_kwargs bound in (here: the service URL).
    extra_info = {"index": 0, "language": "python", "limits": FAST_LIMITS, "num_turns": None}
    scores = [compute_score(data_source="codecontests", solution_str=s, ground_truth=json.dumps(DOUBLE_TESTS),
                            extra_info=extra_info, service_url=url) for s in [GOOD, BAD]]
    assert [s["score"] for s in scores] == [1.0, 0.5]
    assert scores[0] == {"score": 1.0, "acc": 1.0, "passed": 2.0, "total": 2.0, "reward_failed": 0.0, "no_code": 0.0}
    # prime_code / sandbox_fusion ground truth: {"inputs": [...], "outputs": [...]}
    gt = json.dumps({"inputs": ["3\n"], "outputs": ["6\n"]})
    assert compute_score("apps", GOOD, gt, None, service_url=url)["score"] == 1.0


def test_verl_batch_compute_score_called_as_batch_reward_manager_does(url: str) -> None:
    out = compute_score_batch(data_sources=["codecontests"] * 4, solution_strs=[GOOD, BAD, SLOW, NO_CODE],
                              ground_truths=[DOUBLE_TESTS] * 4, extra_infos=[{"limits": FAST_LIMITS}] * 4,
                              service_url=url)
    assert [o["score"] for o in out] == EXPECTED
    assert [o["reward_failed"] for o in out] == [0.0] * 4
    assert len({tuple(sorted(o)) for o in out}) == 1  # same keys everywhere: verl stacks them


def test_openrlhf_reward_func(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODETEST_URL", url)
    prompts = ["Double n.\n", "Double n.\n"]
    queries = [p + c for p, c in zip(prompts, [GOOD, BAD])]
    labels = [json.dumps({"tests": DOUBLE_TESTS, "limits": FAST_LIMITS})] * 2
    out = openrlhf_reward_func(queries, prompts, labels)
    assert _list(out["rewards"]) == [1.0, 0.5]
    assert _list(out["extra_logs"]["codetest_pass"]) == [1.0, 0.0]
    assert _list(out["extra_logs"]["codetest_failed"]) == [0.0, 0.0]


def _list(x: Any) -> list:
    return x.tolist() if hasattr(x, "tolist") else list(x)  # tensors when torch is installed


def _load_by_path(path: str, name: str) -> Any:
    """How verl (custom_reward_function.path) and OpenRLHF (--remote_rm_url x.py) load a file."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_files_load_the_way_verl_and_openrlhf_load_them(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    import client.rewards.openrlhf as openrlhf_module
    import client.rewards.verl as verl_module

    verl = _load_by_path(verl_module.__file__, "custom_module")
    # verl binds custom_reward_function.reward_kwargs with a partial-like wrapper.
    fn = functools.partial(verl.compute_score_batch, service_url=url)
    out = fn(data_sources=["x"], solution_strs=[GOOD], ground_truths=[DOUBLE_TESTS], extra_infos=[None])
    assert out[0]["score"] == 1.0
    monkeypatch.setenv("CODETEST_URL", url)
    rm = _load_by_path(openrlhf_module.__file__, "reward_func")
    assert _list(rm.reward_func([GOOD], [""], [json.dumps(DOUBLE_TESTS)])["rewards"]) == [1.0]
