"""Batched, bounded, deadline-aware scoring of completions through ``POST /v1/reward``.

Every trainer shape (TRL, verl, OpenRLHF, our GRPO trainer) goes through one
``RewardScorer``: it splits a call into batches, keeps at most ``max_concurrency``
requests in flight, gives up at a deadline, and turns every failure of the service
into ``reward=None`` with a reason, counted in ``stats``. A failure is never a 0: a
0 teaches the policy that correct code is wrong.

All HTTP goes through the SDK's ``AsyncClient`` (retries on connection errors, 429 and
5xx, never past the deadline) on one event loop in a daemon thread owned by the
scorer, so sync and async callers on any loop or thread share one connection pool and
one concurrency cap, and a caller's own loop never blocks on the network.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Sequence, Union

from ..aio import AsyncClient
from ..errors import APIError, CodetestError, DeadlineExceeded
from .inputs import RewardItem

log = logging.getLogger("codetest.rewards")

DEFAULT_URL = "http://127.0.0.1:8080"
Failure = Literal["timeout", "service", "bad_input"]
Scoring = Literal["fraction", "all_or_nothing"]


def default_service_url() -> str:
    """``CODETEST_URL`` from the environment, else the local default."""
    return os.environ.get("CODETEST_URL", DEFAULT_URL).rstrip("/")


@dataclass(frozen=True)
class Unscorable:
    """A completion whose inputs were bad (no tests, bad JSON): scored as None, not sent."""

    reason: str


@dataclass
class RewardOutcome:
    """The service's answer for one completion, or why there is none."""

    reward: Optional[float]
    verdict: Optional[str] = None
    passed: Optional[int] = None
    total: Optional[int] = None
    error: Optional[str] = None
    failure: Optional[Failure] = None
    latency_s: float = 0.0
    no_code: bool = False  # the completion held no code block: reward 0, not a failure

    @property
    def ok(self) -> bool:
        return self.reward is not None


@dataclass
class RewardStats:
    """Running counters; ``snapshot()`` before and after a step, ``delta`` the two."""

    calls: int = 0
    items: int = 0
    scored: int = 0
    timeouts: int = 0
    service_errors: int = 0
    bad_inputs: int = 0
    no_code: int = 0
    requests: int = 0
    failed_requests: int = 0
    latency_sum_s: float = 0.0
    latency_max_s: float = 0.0
    verdicts: Counter = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record_request(self, latency_s: float, ok: bool) -> None:
        with self._lock:
            self.requests += 1
            self.failed_requests += 0 if ok else 1
            self.latency_sum_s += latency_s
            self.latency_max_s = max(self.latency_max_s, latency_s)

    def record_outcomes(self, outcomes: Sequence[RewardOutcome]) -> None:
        with self._lock:
            self.calls += 1
            self.items += len(outcomes)
            for o in outcomes:
                self.scored += o.ok
                self.timeouts += o.failure == "timeout"
                self.service_errors += o.failure == "service"
                self.bad_inputs += o.failure == "bad_input"
                self.no_code += o.no_code
                if o.verdict:
                    self.verdicts[o.verdict] += 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "calls": self.calls, "items": self.items, "scored": self.scored,
                "timeouts": self.timeouts, "service_errors": self.service_errors,
                "bad_inputs": self.bad_inputs, "no_code": self.no_code, "requests": self.requests,
                "failed_requests": self.failed_requests, "latency_sum_s": self.latency_sum_s,
                "latency_max_s": self.latency_max_s, "verdicts": dict(self.verdicts),
            }

    @staticmethod
    def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
        out = {k: after[k] - before[k] for k in after if k not in ("verdicts", "latency_max_s")}
        out["verdicts"] = {v: n - before["verdicts"].get(v, 0) for v, n in after["verdicts"].items()
                           if n - before["verdicts"].get(v, 0)}
        out["latency_mean_s"] = out["latency_sum_s"] / out["requests"] if out["requests"] else 0.0
        return out


class _LoopThread:
    """An event loop in a daemon thread: the scorer's one home for HTTP."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="codetest-rewards", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, coro: Any) -> concurrent.futures.Future:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)


class RewardScorer:
    """Scores completions through a codetest service; safe to share across threads.

    ``timeout_s`` is the deadline of one ``score`` call, however many batches it
    takes; what has not come back by then is ``None`` with ``failure="timeout"``.
    """

    def __init__(
        self,
        service_url: Optional[str] = None,
        *,
        scoring: Scoring = "fraction",
        batch_size: int = 64,
        max_concurrency: int = 4,
        timeout_s: float = 120.0,
        max_attempts: int = 3,
        api_key: Optional[str] = None,
    ) -> None:
        if batch_size < 1 or max_concurrency < 1 or timeout_s <= 0 or max_attempts < 1:
            raise ValueError("batch_size, max_concurrency, max_attempts must be >= 1 and timeout_s > 0")
        self.service_url = (service_url or default_service_url()).rstrip("/")
        self.scoring = scoring
        self.batch_size = batch_size
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s
        self.max_attempts = max_attempts
        self.api_key = api_key if api_key is not None else os.environ.get("CODETEST_API_KEY")
        self.stats = RewardStats()
        self._lock = threading.Lock()
        self._loop_thread: Optional[_LoopThread] = None
        self._http: Optional[AsyncClient] = None

    # -- public -------------------------------------------------------------------------

    async def score(self, items: Sequence[Union[RewardItem, Unscorable]], *, scoring: Optional[Scoring] = None,
                    timeout_s: Optional[float] = None) -> list[RewardOutcome]:
        """Score from any event loop; the work runs on the scorer's own loop."""
        return await asyncio.wrap_future(self.submit(items, scoring=scoring, timeout_s=timeout_s))

    def score_sync(self, items: Sequence[Union[RewardItem, Unscorable]], *, scoring: Optional[Scoring] = None,
                   timeout_s: Optional[float] = None) -> list[RewardOutcome]:
        """Score from plain code (any thread, even one inside a running loop)."""
        return self.submit(items, scoring=scoring, timeout_s=timeout_s).result()

    def submit(self, items: Sequence[Union[RewardItem, Unscorable]], *, scoring: Optional[Scoring] = None,
               timeout_s: Optional[float] = None) -> concurrent.futures.Future:
        """Start scoring and return at once: a Future of the outcomes that never raises
        and always resolves by the deadline (plus a second of grace)."""
        inner = self._submit(items, scoring, timeout_s)
        outer: concurrent.futures.Future = concurrent.futures.Future()
        settle_lock = threading.Lock()
        n = len(items)

        def _settle(outs: Optional[list[RewardOutcome]], failure: Failure, why: str) -> None:
            with settle_lock:
                if outer.done():
                    return
                if outs is None:
                    outs = [RewardOutcome(None, error=why, failure=failure) for _ in range(n)]
                    self.stats.record_outcomes(outs)
                outer.set_result(outs)

        def _finished(f: concurrent.futures.Future) -> None:
            timer.cancel()
            if f.cancelled():
                _settle(None, "timeout", "reward deadline passed")
                return
            try:
                _settle(f.result(), "service", "")
            except BaseException as e:  # noqa: BLE001 - a scoring bug must not kill training
                log.error("reward scoring failed: %r", e)
                _settle(None, "service", f"scoring failed: {e!r}")

        def _guard() -> None:
            inner.cancel()
            _settle(None, "timeout", "reward deadline passed")

        timer = threading.Timer((timeout_s or self.timeout_s) + 1.0, _guard)
        timer.daemon = True
        timer.start()
        inner.add_done_callback(_finished)
        outer.add_done_callback(lambda f: inner.cancel() if f.cancelled() else None)
        return outer

    def close(self) -> None:
        with self._lock:
            lt, http = self._loop_thread, self._http
            self._loop_thread, self._http = None, None
        if lt is not None:
            if http is not None:
                try:
                    lt.submit(http.aclose()).result(timeout=5)
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
            lt.stop()

    def __enter__(self) -> "RewardScorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------

    def _submit(self, items: Sequence[Union[RewardItem, Unscorable]], scoring: Optional[Scoring],
                timeout_s: Optional[float]) -> concurrent.futures.Future:
        with self._lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            lt = self._loop_thread
        return lt.submit(self._score(list(items), scoring or self.scoring, timeout_s or self.timeout_s))

    def _ensure_http(self) -> AsyncClient:
        # Called on the scorer's loop only, so no lock is needed.
        if self._http is None:
            self._http = AsyncClient(self.service_url, api_key=self.api_key, timeout_s=self.timeout_s,
                                     max_concurrency=self.max_concurrency, max_retries=self.max_attempts - 1,
                                     backoff_s=0.1, backoff_max_s=2.0)
        return self._http

    async def _score(self, items: list[Union[RewardItem, Unscorable]], scoring: Scoring,
                     timeout_s: float) -> list[RewardOutcome]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        outcomes: list[Optional[RewardOutcome]] = [None] * len(items)
        todo: list[int] = []
        for i, it in enumerate(items):
            if isinstance(it, Unscorable):
                outcomes[i] = RewardOutcome(None, error=it.reason, failure="bad_input")
            else:
                todo.append(i)
        batches = [todo[k:k + self.batch_size] for k in range(0, len(todo), self.batch_size)]
        tasks = [asyncio.ensure_future(self._run_batch(b, items, outcomes, scoring, deadline)) for b in batches]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - loop.time()))
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        result = [o or RewardOutcome(None, error=f"no answer within {timeout_s:g}s", failure="timeout")
                  for o in outcomes]
        self.stats.record_outcomes(result)
        failed = Counter(o.failure for o in result if o.failure)
        if failed:
            first = next(o.error for o in result if o.failure)
            log.warning("reward service: %d of %d completions got no reward (%s); first: %s",
                        sum(failed.values()), len(result), dict(failed), first)
        return result

    async def _run_batch(self, idx: list[int], items: list[Any], outcomes: list[Optional[RewardOutcome]],
                         scoring: Scoring, deadline: float) -> None:
        http = self._ensure_http()
        loop = asyncio.get_running_loop()
        payload = [items[i].payload(str(i)) for i in idx]
        results: list[dict[str, Any]] = []
        error: Optional[BaseException] = None
        t0 = loop.time()
        try:
            remaining = deadline - t0
            if remaining <= 0:
                raise DeadlineExceeded("deadline passed before the request could be sent")
            results = await http.reward(payload, scoring=scoring, deadline=remaining)
        except (CodetestError, ValueError, KeyError, TypeError) as e:
            error = e
        latency = loop.time() - t0
        self.stats.record_request(latency, ok=error is None)

        bad_request = isinstance(error, APIError) and error.status_code in (400, 413, 422)
        if bad_request and len(idx) > 1:
            # One bad item must not cost the whole batch its rewards: score them one by one.
            await asyncio.gather(*(self._run_batch([i], items, outcomes, scoring, deadline) for i in idx))
            return
        if error is not None:
            failure: Failure
            if bad_request:
                failure, message = "bad_input", str(error)
            elif isinstance(error, DeadlineExceeded):
                failure, message = "timeout", f"reward request timed out: {error}"
            else:
                failure, message = "service", f"reward service unreachable or broken: {error}"
            for i in idx:
                outcomes[i] = RewardOutcome(None, error=message, failure=failure, latency_s=latency)
            return

        by_id = {str(r.get("id")): r for r in results if isinstance(r, dict)}
        for i in idx:
            r = by_id.get(str(i))
            if r is None:
                outcomes[i] = RewardOutcome(None, error="item missing from the service's answer",
                                            failure="service", latency_s=latency)
                continue
            reward = r.get("reward")
            outcomes[i] = RewardOutcome(
                reward=float(reward) if reward is not None else None,
                verdict=r.get("verdict"), passed=r.get("passed"), total=r.get("total"),
                error=r.get("error") or (None if reward is not None else "service gave no reward"),
                failure=None if reward is not None else "service", latency_s=latency,
                no_code=bool(r.get("no_code")),
            )
