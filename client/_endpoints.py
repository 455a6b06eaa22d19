"""The service's endpoints, written once for both clients.

An endpoint method builds a ``Call`` (method, path, body, the call's deadline, how to read the
answer) and hands it to the transport's ``_call``: ``Client._call`` sends it and returns the
answer, ``AsyncClient._call`` is a coroutine function, so on ``AsyncClient`` every endpoint
method returns an awaitable (``await c.run(...)``). Everything else a request needs (the
concurrency gate, the per-attempt timeout, retries and the final error) is in ``_core``; a
transport holds only what differs between threads and an event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import httpx

from . import _core
from .types import TestCase


@dataclass(frozen=True)
class Call:
    """One logical request; the transport may send it more than once (retries)."""

    method: str
    path: str
    body: Any = None
    deadline: Optional[float] = None  # seconds for the whole call; None: the client's deadline_s
    ok: Sequence[int] = ()            # non-2xx statuses whose JSON body is an answer, not an error
    field: Optional[str] = None       # return this field of the JSON body instead of all of it
    text: bool = False                # the body is text (``/metrics``), not JSON


class Endpoints:
    """The calls ``Client`` and ``AsyncClient`` share; a transport defines ``_open`` and ``_call``.

    ``timeout_s`` bounds one attempt; ``deadline_s`` (per client, or ``deadline=`` per call)
    bounds a whole call including waiting for a free connection and every retry. URL and key
    default to ``$CODETEST_URL`` and ``$CODETEST_API_KEY``; ``transport`` is httpx's (tests).
    """

    def __init__(self, base_url: Optional[str] = None, *, api_key: Optional[str] = None, timeout_s: float = 360.0,
                 max_concurrency: int = 16, max_retries: int = 5, backoff_s: float = 0.5, backoff_max_s: float = 10.0,
                 deadline_s: Optional[float] = None, headers: Optional[Mapping[str, str]] = None,
                 transport: Any = None):
        self.settings = _core.Settings.make(base_url, api_key, timeout_s, max_concurrency, max_retries, backoff_s,
                                            backoff_max_s, deadline_s, headers)
        self._open(dict(base_url=self.settings.base_url, headers=self.settings.headers,
                        limits=self.settings.limits(), timeout=httpx.Timeout(timeout_s, connect=10.0),
                        transport=transport))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.settings.base_url!r})"

    def _open(self, http_args: dict[str, Any]) -> None:  # pragma: no cover - each transport defines it
        """Make the connection pool (httpx arguments given) and the concurrency gate."""
        raise NotImplementedError

    def _call(self, call: Call) -> Any:  # pragma: no cover - each transport defines it
        """Send ``call`` with the client's retries and deadline; its answer (awaitable on AsyncClient)."""
        raise NotImplementedError

    def request(self, method: str, path: str, body: Any = None, *, deadline: Optional[float] = None,
                ok: Sequence[int] = ()) -> Any:
        """Any endpoint, with the client's retries and deadline; the JSON body."""
        return self._call(Call(method, path, body, deadline, tuple(ok)))

    def run(self, language: str, code: str, tests: Optional[Sequence[TestCase]] = None, *,
            limits: Optional[Mapping[str, Any]] = None, compare: Any = None, float_tol: Optional[float] = None,
            stop_on_first_failure: Optional[bool] = None, entry_point: Optional[str] = None,
            deadline: Optional[float] = None) -> Any:
        """``POST /v1/run``: one program, compiled once, judged on every test (a ``RunResult``)."""
        body = _core.run_payload(language, code, tests, {
            "limits": limits, "compare": compare, "float_tol": float_tol,
            "stop_on_first_failure": stop_on_first_failure, "entry_point": entry_point})
        return self._call(Call("POST", "/v1/run", body, deadline))

    def reward(self, items: Sequence[Mapping[str, Any]], *, scoring: str = "fraction",
               deadline_s: Optional[float] = None, deadline: Optional[float] = None) -> Any:
        """``POST /v1/reward``: one ``RewardResult`` per item, in order. ``reward`` is None when the
        service failed on that item (never 0 for that). ``deadline_s`` is the server's batch
        deadline; by default it is set a little inside this call's ``deadline``."""
        dl = _core.Deadline(deadline if deadline is not None else self.settings.deadline_s)
        body = _core.reward_payload(items, scoring, deadline_s, dl)
        return self._call(Call("POST", "/v1/reward", body, dl.remaining(), field="results"))

    def run_code(self, code: str, language: str = "python", stdin: Optional[str] = "", *,
                 compile_timeout: float = 10, run_timeout: float = 10, memory_limit_mb: int = -1,
                 files: Optional[Mapping[str, str]] = None, fetch_files: Optional[Sequence[str]] = None,
                 deadline: Optional[float] = None) -> Any:
        """``POST /run_code``: SandboxFusion's request and response shapes (a ``RunCodeResponse``)."""
        body = _core.run_code_payload(code, language, stdin, compile_timeout, run_timeout, memory_limit_mb,
                                      files, fetch_files)
        return self._call(Call("POST", "/run_code", body, deadline))

    def health(self, *, deadline: Optional[float] = 30.0) -> Any:
        """``GET /healthz``; a 503 (sandbox refusing to run) comes back as the body, ``ok`` false."""
        return self._call(Call("GET", "/healthz", None, deadline, ok=(503,)))

    def metrics(self, *, deadline: Optional[float] = 30.0) -> Any:
        """``GET /metrics``: the Prometheus text."""
        return self._call(Call("GET", "/metrics", None, deadline, text=True))
