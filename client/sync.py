"""The blocking client: safe to share between threads (one pool, one concurrency cap)."""

from __future__ import annotations

import threading
from typing import Any, Mapping, Optional, Sequence

import httpx
from tenacity import Retrying, retry_if_exception

from . import _core
from .errors import CodetestError, DeadlineExceeded
from .types import Health, RewardItem, RewardResult, RunCodeResponse, RunResult, TestCase


class Client:
    """``Client("http://127.0.0.1:8080", api_key=...)``; URL and key default to
    ``$CODETEST_URL`` and ``$CODETEST_API_KEY``.

    ``timeout_s`` bounds one attempt; ``deadline_s`` (per client, or ``deadline=`` per call)
    bounds a whole call including waiting for a free connection and every retry.
    """

    def __init__(self, base_url: Optional[str] = None, *, api_key: Optional[str] = None, timeout_s: float = 360.0,
                 max_concurrency: int = 16, max_retries: int = 5, backoff_s: float = 0.5, backoff_max_s: float = 10.0,
                 deadline_s: Optional[float] = None, headers: Optional[Mapping[str, str]] = None,
                 transport: Optional[httpx.BaseTransport] = None):
        self.settings = _core.Settings.make(base_url, api_key, timeout_s, max_concurrency, max_retries, backoff_s,
                                            backoff_max_s, deadline_s, headers)
        self._gate = threading.BoundedSemaphore(max_concurrency)
        self._http = httpx.Client(base_url=self.settings.base_url, headers=self.settings.headers,
                                  limits=self.settings.limits(), timeout=httpx.Timeout(timeout_s, connect=10.0),
                                  transport=transport)

    def __repr__(self) -> str:
        return f"Client({self.settings.base_url!r})"

    # ------------------------------------------------------------------ plumbing
    def _once(self, method: str, path: str, body: Any, dl: _core.Deadline, ok: Sequence[int]) -> Any:
        r = dl.remaining()
        if not self._gate.acquire(timeout=max(0.0, r) if r is not None else None):
            raise DeadlineExceeded("deadline passed while waiting for a free connection")
        try:
            t = dl.attempt_timeout(self.settings.timeout_s)
            resp = self._http.request(method, path, json=body,
                                      timeout=httpx.Timeout(t, connect=min(10.0, t)),
                                      headers={_core.DEADLINE_HEADER: f"{t:.3f}"})
        finally:
            self._gate.release()
        if resp.status_code in ok:
            return resp.json()
        return _core.raise_for(resp)

    def request(self, method: str, path: str, body: Any = None, *, deadline: Optional[float] = None,
                ok: Sequence[int] = ()) -> Any:
        """Any endpoint, with the client's retries and deadline; returns the JSON body."""
        dl = _core.Deadline(deadline if deadline is not None else self.settings.deadline_s)
        retrying = Retrying(stop=_core.stopper(self.settings, dl), wait=_core.backoff(self.settings, dl),
                            retry=retry_if_exception(_core.is_retryable), reraise=True)
        try:
            for attempt in retrying:
                with attempt:
                    result = self._once(method, path, body, dl, ok)
        except (CodetestError, httpx.HTTPError) as e:
            raise _core.final_error(e, dl) from e
        return result

    # ------------------------------------------------------------------ endpoints
    def run(self, language: str, code: str, tests: Optional[Sequence[TestCase]] = None, *,
            limits: Optional[Mapping[str, Any]] = None, compare: Any = None, float_tol: Optional[float] = None,
            stop_on_first_failure: Optional[bool] = None, entry_point: Optional[str] = None,
            deadline: Optional[float] = None) -> RunResult:
        """``POST /v1/run``: one program, compiled once, judged on every test."""
        body = _core.run_payload(language, code, tests, {
            "limits": limits, "compare": compare, "float_tol": float_tol,
            "stop_on_first_failure": stop_on_first_failure, "entry_point": entry_point})
        return self.request("POST", "/v1/run", body, deadline=deadline)

    def reward(self, items: Sequence[RewardItem], *, scoring: str = "fraction", deadline_s: Optional[float] = None,
               deadline: Optional[float] = None) -> list[RewardResult]:
        """``POST /v1/reward``: one result per item, in order. ``reward`` is None when the
        service failed on that item (never 0 for that). ``deadline_s`` is the server's batch
        deadline; by default it is set a little inside this call's ``deadline``."""
        dl = _core.Deadline(deadline if deadline is not None else self.settings.deadline_s)
        body = _core.reward_payload(items, scoring, deadline_s, dl)
        return self.request("POST", "/v1/reward", body, deadline=dl.remaining())["results"]

    def run_code(self, code: str, language: str = "python", stdin: Optional[str] = "", *,
                 compile_timeout: float = 10, run_timeout: float = 10, memory_limit_mb: int = -1,
                 files: Optional[Mapping[str, str]] = None, fetch_files: Optional[Sequence[str]] = None,
                 deadline: Optional[float] = None) -> RunCodeResponse:
        """``POST /run_code``: SandboxFusion's request and response shapes."""
        body = _core.run_code_payload(code, language, stdin, compile_timeout, run_timeout, memory_limit_mb,
                                      files, fetch_files)
        return self.request("POST", "/run_code", body, deadline=deadline)

    def health(self, *, deadline: Optional[float] = 30.0) -> Health:
        """``GET /healthz``; a 503 (sandbox refusing to run) comes back as the body, ``ok`` false."""
        return self.request("GET", "/healthz", deadline=deadline, ok=(503,))

    def metrics(self, *, deadline: Optional[float] = 30.0) -> str:
        resp = self._http.get("/metrics", timeout=deadline)
        if resp.status_code != 200:
            _core.raise_for(resp)
        return resp.text

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
