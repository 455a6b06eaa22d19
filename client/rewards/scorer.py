"""Batched, bounded, deadline-aware scoring of completions through ``POST /v1/reward``.

Every trainer shape (TRL, verl, OpenRLHF, our GRPO trainer) goes through one
``RewardScorer``: it splits a call into batches, keeps at most ``max_concurrency``
requests in flight, gives up at a deadline, and turns every failure of the service
into ``reward=None`` with a reason, counted in ``stats``. A failure is never a 0: a
0 teaches the policy that correct code is wrong.

All HTTP runs on one event loop in a daemon thread owned by the scorer, so sync and
async callers on any loop or thread share one connection pool and one concurrency cap,
and a caller's own loop never blocks on the network.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Sequence, Union

import httpx

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
                if o.verdict:
                    self.verdicts[o.verdict] += 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "calls": self.calls, "items": self.items, "scored": self.scored,
                "timeouts": self.timeouts, "service_errors": self.service_errors,
                "bad_inputs": self.bad_inputs, "requests": self.requests,
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


class _ClientError(Exception):
    """A 4xx other than 429: the request itself was refused."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


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
        self._http: Optional[httpx.AsyncClient] = None
        self._sem: Optional[asyncio.Semaphore] = None

    # -- public -------------------------------------------------------------------------

    async def score(self, items: Sequence[Union[RewardItem, Unscorable]], *, scoring: Optional[Scoring] = None,
                    timeout_s: Optional[float] = None) -> list[RewardOutcome]:
        """Score from any event loop; the work runs on the scorer's own loop."""
        fut = self._submit(items, scoring, timeout_s)
        try:
            return await asyncio.wrap_future(fut)
        except asyncio.CancelledError:
            fut.cancel()
            raise

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
        deadline = (timeout_s or self.timeout_s) + 1.0
        n = len(items)

        def _settle(f: concurrent.futures.Future) -> None:
            if outer.done():
                return
            try:
                outer.set_result(f.result())
            except BaseException as e:  # noqa: BLE001 - a scoring bug must not kill training
                log.error("reward scoring failed: %r", e)
                outs = [RewardOutcome(None, error=f"scoring failed: {e!r}", failure="service")] * n
                self.stats.record_outcomes(outs)
                outer.set_result(outs)

        def _guard() -> None:
            if not outer.done():
                inner.cancel()
                outs = [RewardOutcome(None, error="reward deadline passed", failure="timeout") for _ in range(n)]
                self.stats.record_outcomes(outs)
                outer.set_result(outs)

        timer = threading.Timer(deadline, _guard)
        timer.daemon = True
        timer.start()
        inner.add_done_callback(lambda f: (timer.cancel(), _settle(f)))
        return outer

    def close(self) -> None:
        with self._lock:
            lt, http = self._loop_thread, self._http
            self._loop_thread, self._http, self._sem = None, None, None
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

    def _ensure_http(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        # Called on the scorer's loop only, so no lock needed for these two.
        if self._http is None:
            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            limits = httpx.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)
            self._http = httpx.AsyncClient(base_url=self.service_url, headers=headers, limits=limits,
                                           trust_env=False)
            self._sem = asyncio.Semaphore(self.max_concurrency)
        assert self._sem is not None
        return self._http, self._sem

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
        http, sem = self._ensure_http()
        loop = asyncio.get_running_loop()
        payload = {"scoring": scoring, "items": [items[i].payload(str(i)) for i in idx]}
        body: dict[str, Any] = {}
        error: Optional[BaseException] = None
        async with sem:
            t0 = loop.time()
            try:
                body = await self._post(http, payload, deadline)
            except (_ClientError, asyncio.TimeoutError, httpx.HTTPError, ValueError) as e:
                error = e
            latency = loop.time() - t0

        if isinstance(error, _ClientError) and error.status in (400, 413, 422) and len(idx) > 1:
            # One bad item must not cost the whole batch its rewards: score them one by one.
            await asyncio.gather(*(self._run_batch([i], items, outcomes, scoring, deadline) for i in idx))
            return
        if error is not None:
            failure: Failure
            if isinstance(error, _ClientError):
                failure = "bad_input" if error.status in (400, 413, 422) else "service"
                message = str(error)
            elif isinstance(error, asyncio.TimeoutError):
                failure, message = "timeout", "reward request timed out"
            else:
                failure, message = "service", f"reward service unreachable or broken: {error!r}"
            for i in idx:
                outcomes[i] = RewardOutcome(None, error=message, failure=failure, latency_s=latency)
            return

        by_id = {str(r.get("id")): r for r in body.get("results", []) if isinstance(r, dict)}
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
            )

    async def _post(self, http: httpx.AsyncClient, payload: dict[str, Any], deadline: float) -> dict[str, Any]:
        """POST with retries on connection errors, 5xx and 429, never past the deadline."""
        loop = asyncio.get_running_loop()
        last: Exception = RuntimeError("no attempt made")
        for attempt in range(self.max_attempts):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise asyncio.TimeoutError
            # Ask the service to answer (with partial results) a little before we stop waiting.
            payload["deadline_s"] = round(max(0.5, min(3600.0, remaining * 0.9 - 0.5)), 3)
            t0 = time.monotonic()
            try:
                resp = await http.post("/v1/reward", json=payload, timeout=httpx.Timeout(remaining))
            except (httpx.TimeoutException, asyncio.CancelledError) as e:
                self.stats.record_request(time.monotonic() - t0, ok=False)
                if isinstance(e, asyncio.CancelledError):
                    raise  # the call's deadline passed while this request was in flight
                raise asyncio.TimeoutError from None
            except httpx.TransportError as e:
                self.stats.record_request(time.monotonic() - t0, ok=False)
                last = e
                await _sleep_within(0.1 * 2 ** attempt, deadline)
                continue
            self.stats.record_request(time.monotonic() - t0, ok=resp.status_code == 200)
            if resp.status_code == 200:
                return resp.json()
            detail = resp.text[:500]
            if resp.status_code == 429 or resp.status_code >= 500:
                last = httpx.HTTPStatusError(f"HTTP {resp.status_code}: {detail}", request=resp.request,
                                             response=resp)
                await _sleep_within(_retry_after(resp, 0.1 * 2 ** attempt), deadline)
                continue
            raise _ClientError(resp.status_code, detail)
        if isinstance(last, httpx.HTTPError):
            raise last
        raise httpx.TransportError(str(last))


def _retry_after(resp: httpx.Response, default: float) -> float:
    try:
        return min(float(resp.headers.get("Retry-After", default)), 10.0)
    except ValueError:
        return default


async def _sleep_within(seconds: float, deadline: float) -> None:
    remaining = deadline - asyncio.get_running_loop().time()
    await asyncio.sleep(max(0.0, min(seconds, remaining)))
