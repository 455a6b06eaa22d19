"""The asyncio client: the same calls as ``Client``, awaitable, for trainers that gather many."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from tenacity import AsyncRetrying

from . import _core
from ._endpoints import Call, Endpoints
from .errors import CodetestError, DeadlineExceeded


class AsyncClient(Endpoints):
    """``async with AsyncClient(url) as c: await c.reward(items)``. Use it from one event loop.

    The endpoint methods are ``Client``'s (``client/_endpoints.py``); here each returns an awaitable.
    """

    def _open(self, http_args: dict[str, Any]) -> None:
        self._gate = asyncio.Semaphore(self.settings.max_concurrency)
        self._http = httpx.AsyncClient(**http_args)

    async def _once(self, call: Call, dl: _core.Deadline) -> Any:
        try:
            await asyncio.wait_for(self._gate.acquire(), timeout=_core.gate_timeout(dl))
        except asyncio.TimeoutError:
            raise DeadlineExceeded(_core.GATE_CLOSED) from None
        try:
            resp = await self._http.request(**_core.send_args(call, self.settings, dl))
        finally:
            self._gate.release()
        return _core.answer(resp, call)

    async def _call(self, call: Call) -> Any:
        dl = _core.Deadline(call.deadline if call.deadline is not None else self.settings.deadline_s)
        try:
            async for attempt in AsyncRetrying(**_core.retrying_args(self.settings, dl)):
                with attempt:
                    result = await self._once(call, dl)
        except (CodetestError, httpx.HTTPError) as e:
            raise _core.final_error(e, dl) from e
        return result

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
