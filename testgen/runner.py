"""The one door from the pipeline to code execution.

Everything testgen runs (gold solutions, mutants, validators, checkers, LLM-written
generators, held-out submissions) goes through a ``Runner``: a batch of ``RunRequest``s
in, a batch of ``RunResult``s out. ``LocalRunner`` wraps an in-process ``sandbox.Sandbox``;
``HttpRunner`` talks to a running ``codetest serve`` over ``POST /v1/run`` through the client
SDK. Nothing else in testgen starts a process.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Protocol, Union

from sandbox.models import RunRequest, RunResult, TestResult, Verdict

Outcome = Union[RunResult, BaseException]


class Runner(Protocol):
    def run_many(self, reqs: list[RunRequest]) -> list[Outcome]:
        """Run every request; a request that could not run comes back as its exception."""

    def languages(self) -> set[str]:
        """Languages this runner can execute."""

    def close(self) -> None: ...


class LocalRunner:
    """The in-process sandbox. Owns it when it created it."""

    def __init__(self, sandbox: object = None):
        from sandbox import Sandbox

        self._own = sandbox is None
        self.sb = sandbox if sandbox is not None else Sandbox()
        self._langs: Optional[set[str]] = None

    def run_many(self, reqs: list[RunRequest]) -> list[Outcome]:
        if not reqs:
            return []
        return list(self.sb.run_many(reqs))  # type: ignore[attr-defined]

    def languages(self) -> set[str]:
        if self._langs is None:
            self._langs = set(self.sb.health().get("languages", {}))  # type: ignore[attr-defined]
        return self._langs

    def close(self) -> None:
        if self._own:
            self.sb.close()  # type: ignore[attr-defined]


class HttpRunner:
    """A remote ``codetest serve`` through the client SDK (``client.Client``): a busy service
    (429, 503 with Retry-After) or a dropped connection is retried with backoff, so it is not
    recorded as a sandbox error. Requests go out in parallel, at most ``parallel`` at once."""

    def __init__(self, base_url: str, api_key: Optional[str] = None, parallel: int = 4, timeout_s: float = 600,
                 max_retries: int = 5):
        from client import Client

        self.client = Client(base_url.rstrip("/"), api_key=api_key, timeout_s=timeout_s,
                             max_concurrency=max(1, parallel), max_retries=max_retries)
        self.pool = ThreadPoolExecutor(max_workers=max(1, parallel))
        self._langs: Optional[set[str]] = None

    def _one(self, req: RunRequest) -> Outcome:
        try:
            body = self.client.request("POST", "/v1/run", req.model_dump(mode="json", exclude_none=True))
            return RunResult.model_validate(body)
        except Exception as e:  # what is left after the retries is this request's outcome, not a crash
            return e

    def run_many(self, reqs: list[RunRequest]) -> list[Outcome]:
        return list(self.pool.map(self._one, reqs))

    def languages(self) -> set[str]:
        if self._langs is None:
            try:
                self._langs = set(self.client.health().get("languages", {}))
            except Exception:
                self._langs = set()
        return self._langs

    def close(self) -> None:
        self.pool.shutdown(wait=False)
        self.client.close()


def failed_result(e: BaseException, n: int) -> RunResult:
    """A stand-in result for a request that raised: every test SE, with the reason."""
    msg = f"{type(e).__name__}: {e}"
    return RunResult(verdict=Verdict.SE, passed=0, total=n, message=msg,
                     tests=[TestResult(verdict=Verdict.SE, message=msg) for _ in range(n)])
