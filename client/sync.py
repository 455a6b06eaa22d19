"""The blocking client: safe to share between threads (one pool, one concurrency cap)."""

from __future__ import annotations

import threading
from typing import Any

import httpx
from tenacity import Retrying

from . import _core
from ._endpoints import Call, Endpoints
from .errors import CodetestError, DeadlineExceeded


class Client(Endpoints):
    """``Client("http://127.0.0.1:8080", api_key=...)``: the arguments and the endpoint methods
    (``run``, ``reward``, ``run_code``, ``health``, ``metrics``, ``request``) are
    ``client/_endpoints.py``'s, shared with ``AsyncClient``; this class is the blocking transport.
    """

    def _open(self, http_args: dict[str, Any]) -> None:
        self._gate = threading.BoundedSemaphore(self.settings.max_concurrency)
        self._http = httpx.Client(**http_args)

    def _once(self, call: Call, dl: _core.Deadline) -> Any:
        if not self._gate.acquire(timeout=_core.gate_timeout(dl)):
            raise DeadlineExceeded(_core.GATE_CLOSED)
        try:
            resp = self._http.request(**_core.send_args(call, self.settings, dl))
        finally:
            self._gate.release()
        return _core.answer(resp, call)

    def _call(self, call: Call) -> Any:
        dl = _core.Deadline(call.deadline if call.deadline is not None else self.settings.deadline_s)
        try:
            for attempt in Retrying(**_core.retrying_args(self.settings, dl)):
                with attempt:
                    result = self._once(call, dl)
        except (CodetestError, httpx.HTTPError) as e:
            raise _core.final_error(e, dl) from e
        return result

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
