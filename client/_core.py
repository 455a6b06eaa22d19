"""What the sync and async clients share: settings, payloads, response parsing, the retry policy.

Retry only what a later attempt can fix: the connection failed (refused, reset, closed
early), the service was saturated (429: wait what Retry-After says), or it failed on its
side (5xx). A 4xx other than 429 is the caller's request and is raised at once; a read
timeout is not retried either (the program may still be running there). Waits are
jittered exponential backoff, and nothing waits past the call's overall deadline.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import httpx
from tenacity import RetryCallState, retry_if_exception

from .errors import APIError, CodetestError, ConnectionFailed, DeadlineExceeded

DEFAULT_URL = "http://127.0.0.1:8080"
URL_ENV = "CODETEST_URL"
KEY_ENV = "CODETEST_API_KEY"

# Transport failures where the request most likely never reached a handler, or the
# connection broke; re-sending is safe because judging code has no side effects.
RETRYABLE_TRANSPORT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError,
                       httpx.WriteError)


@dataclass
class Settings:
    base_url: str
    api_key: Optional[str]
    timeout_s: float
    max_concurrency: int
    max_retries: int
    backoff_s: float
    backoff_max_s: float
    deadline_s: Optional[float]
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def make(cls, base_url: Optional[str], api_key: Optional[str], timeout_s: float, max_concurrency: int,
             max_retries: int, backoff_s: float, backoff_max_s: float, deadline_s: Optional[float],
             headers: Optional[Mapping[str, str]]) -> "Settings":
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        url = (base_url or os.environ.get(URL_ENV) or DEFAULT_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get(KEY_ENV) or None
        hdrs = {"Accept": "application/json", "User-Agent": "codetest-client"}
        hdrs.update(headers or {})
        if key:
            hdrs["Authorization"] = f"Bearer {key}"
        return cls(url, key, timeout_s, max_concurrency, max_retries, backoff_s, backoff_max_s, deadline_s, hdrs)

    def __repr__(self) -> str:  # never print the key
        return f"Settings(base_url={self.base_url!r}, api_key={'***' if self.api_key else None})"

    def limits(self) -> httpx.Limits:
        return httpx.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)


class Deadline:
    """Monotonic end time of one call; ``None`` means only the per-attempt timeout applies."""

    def __init__(self, seconds: Optional[float]):
        self.end = time.monotonic() + seconds if seconds is not None else None

    def remaining(self) -> Optional[float]:
        return None if self.end is None else self.end - time.monotonic()

    def expired(self) -> bool:
        r = self.remaining()
        return r is not None and r <= 0

    def attempt_timeout(self, timeout_s: float) -> float:
        r = self.remaining()
        if r is None:
            return timeout_s
        if r <= 0:
            raise DeadlineExceeded("deadline passed before the request could be sent")
        return min(timeout_s, r)


# The client's time for one attempt, sent with every request: the service admits a request only
# when it can answer within it (api/admission.py), and otherwise says 503 + Retry-After at once.
DEADLINE_HEADER = "X-Codetest-Deadline"


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, APIError):
        return exc.retryable
    return isinstance(exc, RETRYABLE_TRANSPORT)


def backoff(settings: Settings, deadline: Deadline):
    """tenacity ``wait``: Retry-After when the server gave one, else full-jitter exponential."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = getattr(exc, "retry_after", None)
        if hinted is not None:
            delay = min(float(hinted), max(settings.backoff_max_s, 1.0) * 6)
        else:
            cap = min(settings.backoff_max_s, settings.backoff_s * (2 ** (state.attempt_number - 1)))
            delay = random.uniform(cap / 2, cap)
        r = deadline.remaining()
        return delay if r is None else max(0.0, min(delay, r))

    return wait


def stopper(settings: Settings, deadline: Deadline):
    """tenacity ``stop``: out of attempts, or the next wait would reach the deadline."""

    def stop(state: RetryCallState) -> bool:
        if state.attempt_number > settings.max_retries:
            return True
        r = deadline.remaining()
        return r is not None and r - (getattr(state, "upcoming_sleep", 0.0) or 0.0) <= 0.01

    return stop


def retrying_args(settings: Settings, deadline: Deadline) -> dict[str, Any]:
    """tenacity's ``Retrying`` / ``AsyncRetrying`` arguments for one call."""
    return dict(stop=stopper(settings, deadline), wait=backoff(settings, deadline),
                retry=retry_if_exception(is_retryable), reraise=True)


def gate_timeout(deadline: Deadline) -> Optional[float]:
    """How long an attempt may wait for a free connection (None: as long as it takes)."""
    r = deadline.remaining()
    return max(0.0, r) if r is not None else None


GATE_CLOSED = "deadline passed while waiting for a free connection"


def send_args(call: Any, settings: Settings, deadline: Deadline) -> dict[str, Any]:
    """httpx ``request`` arguments for one attempt of ``call`` (an ``_endpoints.Call``): the time
    left, as the attempt's timeout and as the deadline header the service admits by."""
    t = deadline.attempt_timeout(settings.timeout_s)
    return dict(method=call.method, url=call.path, json=call.body, timeout=httpx.Timeout(t, connect=min(10.0, t)),
                headers={DEADLINE_HEADER: f"{t:.3f}"})


def answer(resp: httpx.Response, call: Any) -> Any:
    """What ``call`` returns for this response, or the APIError it raises."""
    if call.text:
        if resp.status_code != 200:
            raise_for(resp)
        return resp.text
    body = resp.json() if resp.status_code in call.ok else raise_for(resp)
    return body[call.field] if call.field else body


def raise_for(resp: httpx.Response) -> Any:
    """The JSON body of a 2xx, else an APIError carrying the service's message."""
    if 200 <= resp.status_code < 300:
        try:
            return resp.json()
        except ValueError as e:
            raise APIError(resp.status_code, "the service sent a body that is not JSON") from e
    body: Any = None
    message = resp.reason_phrase or "error"
    error = None
    try:
        body = resp.json()
        if isinstance(body, dict):
            message = str(body.get("message") or body.get("detail") or message)
            error = body.get("error")
    except ValueError:
        message = resp.text[:500] or message
    retry_after = None
    raw = resp.headers.get("retry-after")
    if raw:
        try:
            retry_after = max(0.0, float(raw))
        except ValueError:
            retry_after = None
    raise APIError(resp.status_code, message, error=error, body=body, retry_after=retry_after)


def final_error(exc: BaseException, deadline: Deadline) -> CodetestError:
    """What to raise once retrying stopped."""
    if isinstance(exc, CodetestError) and not isinstance(exc, APIError):
        return exc
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        return DeadlineExceeded(f"no answer in time ({type(exc).__name__})")
    if deadline.expired() and not isinstance(exc, APIError):
        return DeadlineExceeded(f"deadline passed; last error: {type(exc).__name__}: {exc}")
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, httpx.TransportError):
        return ConnectionFailed(f"{type(exc).__name__}: {exc}")
    return CodetestError(f"{type(exc).__name__}: {exc}")


# ---------------------------------------------------------------- payloads

def run_payload(language: str, code: str, tests: Optional[Sequence[Mapping[str, Any]]],
                options: Mapping[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"language": language, "code": code, "tests": list(tests or [])}
    body.update({k: v for k, v in options.items() if v is not None})
    return body


def reward_payload(items: Sequence[Mapping[str, Any]], scoring: str, deadline_s: Optional[float],
                   call_deadline: Deadline) -> dict[str, Any]:
    body: dict[str, Any] = {"scoring": scoring, "items": [dict(i) for i in items]}
    if deadline_s is None:
        r = call_deadline.remaining()
        if r is not None:  # let the server answer, with partial results, before we stop waiting
            deadline_s = max(0.5, r * 0.9 - 0.5)
    if deadline_s is not None:
        body["deadline_s"] = min(3600.0, deadline_s)
    return body


def run_code_payload(code: str, language: str, stdin: Optional[str], compile_timeout: float, run_timeout: float,
                     memory_limit_mb: int, files: Optional[Mapping[str, str]],
                     fetch_files: Optional[Sequence[str]]) -> dict[str, Any]:
    return {"code": code, "language": language, "stdin": stdin, "compile_timeout": compile_timeout,
            "run_timeout": run_timeout, "memory_limit_MB": memory_limit_mb, "files": dict(files or {}),
            "fetch_files": list(fetch_files or [])}
