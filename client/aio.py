"""The asyncio client: the same calls as ``Client``, awaitable, for trainers that gather many."""

from __future__ import annotations

import asyncio
from typing import Any, Mapping, Optional, Sequence

import httpx
from tenacity import AsyncRetrying, retry_if_exception

from . import _core
from .errors import CodetestError, DeadlineExceeded
from .types import Health, RewardItem, RewardResult, RunCodeResponse, RunResult, TestCase


class AsyncClient:
    """``async with AsyncClient(url) as c: await c.reward(items)``. Use it from one event loop."""

    def __init__(self, base_url: Optional[str] = None, *, api_key: Optional[str] = None, timeout_s: float = 360.0,
                 max_concurrency: int = 16, max_retries: int = 5, backoff_s: float = 0.5, backoff_max_s: float = 10.0,
                 deadline_s: Optional[float] = None, headers: Optional[Mapping[str, str]] = None,
                 transport: Optional[httpx.AsyncBaseTransport] = None):
        self.settings = _core.Settings.make(base_url, api_key, timeout_s, max_concurrency, max_retries, backoff_s,
                                            backoff_max_s, deadline_s, headers)
        self._gate = asyncio.Semaphore(max_concurrency)
        self._http = httpx.AsyncClient(base_url=self.settings.base_url, headers=self.settings.headers,
                                       limits=self.settings.limits(), timeout=httpx.Timeout(timeout_s, connect=10.0),
                                       transport=transport)

    def __repr__(self) -> str:
        return f"AsyncClient({self.settings.base_url!r})"

    async def _once(self, method: str, path: str, body: Any, dl: _core.Deadline, ok: Sequence[int]) -> Any:
        r = dl.remaining()
        try:
            await asyncio.wait_for(self._gate.acquire(), timeout=max(0.0, r) if r is not None else None)
        except asyncio.TimeoutError:
            raise DeadlineExceeded("deadline passed while waiting for a free connection") from None
        try:
            t = dl.attempt_timeout(self.settings.timeout_s)
            resp = await self._http.request(method, path, json=body, timeout=httpx.Timeout(t, connect=min(10.0, t)),
                                             headers={_core.DEADLINE_HEADER: f"{t:.3f}"})
        finally:
            self._gate.release()
        if resp.status_code in ok:
            return resp.json()
        return _core.raise_for(resp)

    async def request(self, method: str, path: str, body: Any = None, *, deadline: Optional[float] = None,
                      ok: Sequence[int] = ()) -> Any:
        dl = _core.Deadline(deadline if deadline is not None else self.settings.deadline_s)
        retrying = AsyncRetrying(stop=_core.stopper(self.settings, dl), wait=_core.backoff(self.settings, dl),
                                 retry=retry_if_exception(_core.is_retryable), reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    result = await self._once(method, path, body, dl, ok)
        except (CodetestError, httpx.HTTPError) as e:
            raise _core.final_error(e, dl) from e
        return result

    async def run(self, language: str, code: str, tests: Optional[Sequence[TestCase]] = None, *,
                  limits: Optional[Mapping[str, Any]] = None, compare: Any = None, float_tol: Optional[float] = None,
                  stop_on_first_failure: Optional[bool] = None, entry_point: Optional[str] = None,
                  deadline: Optional[float] = None) -> RunResult:
        body = _core.run_payload(language, code, tests, {
            "limits": limits, "compare": compare, "float_tol": float_tol,
            "stop_on_first_failure": stop_on_first_failure, "entry_point": entry_point})
        return await self.request("POST", "/v1/run", body, deadline=deadline)

    async def reward(self, items: Sequence[RewardItem], *, scoring: str = "fraction",
                     deadline_s: Optional[float] = None, deadline: Optional[float] = None) -> list[RewardResult]:
        dl = _core.Deadline(deadline if deadline is not None else self.settings.deadline_s)
        body = _core.reward_payload(items, scoring, deadline_s, dl)
        return (await self.request("POST", "/v1/reward", body, deadline=dl.remaining()))["results"]

    async def run_code(self, code: str, language: str = "python", stdin: Optional[str] = "", *,
                       compile_timeout: float = 10, run_timeout: float = 10, memory_limit_mb: int = -1,
                       files: Optional[Mapping[str, str]] = None, fetch_files: Optional[Sequence[str]] = None,
                       deadline: Optional[float] = None) -> RunCodeResponse:
        body = _core.run_code_payload(code, language, stdin, compile_timeout, run_timeout, memory_limit_mb,
                                      files, fetch_files)
        return await self.request("POST", "/run_code", body, deadline=deadline)

    async def health(self, *, deadline: Optional[float] = 30.0) -> Health:
        return await self.request("GET", "/healthz", deadline=deadline, ok=(503,))

    async def metrics(self, *, deadline: Optional[float] = 30.0) -> str:
        resp = await self._http.get("/metrics", timeout=deadline)
        if resp.status_code != 200:
            _core.raise_for(resp)
        return resp.text

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
