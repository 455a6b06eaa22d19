"""What the SDK raises. Every error says whether retrying later could help."""

from __future__ import annotations

from typing import Any, Optional


class CodetestError(Exception):
    """Base class of everything the client raises."""

    retryable = False


class APIError(CodetestError):
    """The service answered with an error status (after any retries the status allowed)."""

    def __init__(self, status_code: int, message: str, *, error: Optional[str] = None, body: Any = None,
                 retry_after: Optional[float] = None):
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.message = message
        self.error = error
        self.body = body
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return self.status_code == 429 or self.status_code >= 500


class ConnectionFailed(CodetestError):
    """The service could not be reached (refused, reset, DNS) even after retrying."""

    retryable = True


class DeadlineExceeded(CodetestError, TimeoutError):
    """The call's overall deadline passed: waiting in line, on the wire, or between retries."""
