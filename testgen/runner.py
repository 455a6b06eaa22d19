"""The one door from the pipeline to code execution.

Everything testgen runs (gold solutions, mutants, validators, checkers, LLM-written
generators, held-out submissions) goes through a ``Runner``: a batch of ``RunRequest``s
in, a batch of ``RunResult``s out. ``LocalRunner`` wraps an in-process ``sandbox.Sandbox``;
``HttpRunner`` talks to a running ``codetest serve`` over ``POST /v1/run`` through the client
SDK. Nothing else in testgen starts a process.

A request whose tests would make a body past the service's limit (a program runs on every
candidate at once, stress inputs of up to 4 MB among them) is sent as several requests over
consecutive tests, and their results are joined into the one result the request would have had
(``split_by_size``, ``join_results``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Protocol, Union

from sandbox.models import RunRequest, RunResult, TestResult, Verdict
from sandbox.verdict import overall_verdict

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


# One /v1/run body's tests stay below this many bytes of JSON: a quarter of the service's default
# limit (api/settings.py DEFAULT_MAX_BODY_BYTES, 64 MiB), so the code and the rest of the body fit.
REQUEST_TEST_BYTES = 16 << 20


class HttpRunner:
    """A remote ``codetest serve`` through the client SDK (``client.Client``): a busy service
    (429, 503 with Retry-After) or a dropped connection is retried with backoff, so it is not
    recorded as a sandbox error. Requests go out in parallel, at most ``parallel`` at once; one
    whose tests pass ``request_test_bytes`` goes out as several (``split_by_size``), and one the
    service answers 413 (a smaller ``--max-body-mb``) goes again in halves."""

    def __init__(self, base_url: str, api_key: Optional[str] = None, parallel: int = 4, timeout_s: float = 600,
                 max_retries: int = 5, request_test_bytes: int = REQUEST_TEST_BYTES):
        from client import Client

        self.client = Client(base_url.rstrip("/"), api_key=api_key, timeout_s=timeout_s,
                             max_concurrency=max(1, parallel), max_retries=max_retries)
        self.pool = ThreadPoolExecutor(max_workers=max(1, parallel))
        self.request_test_bytes = request_test_bytes
        self._langs: Optional[set[str]] = None

    def _post(self, req: RunRequest) -> Outcome:
        try:
            body = self.client.request("POST", "/v1/run", req.model_dump(mode="json", exclude_none=True))
            return RunResult.model_validate(body)
        except Exception as e:  # what is left after the retries is this request's outcome, not a crash
            return e

    def _one(self, req: RunRequest) -> Outcome:
        parts = split_by_size(req, self.request_test_bytes)
        return self._send(req) if len(parts) == 1 else self._send_parts(parts, req.stop_on_first_failure)

    def _send(self, req: RunRequest) -> Outcome:
        """One request; one the service finds too large (413: it was started with a smaller body
        limit) goes again as its two halves."""
        out = self._post(req)
        if getattr(out, "status_code", None) == 413 and len(req.tests) > 1:
            half = len(req.tests) // 2
            halves = [req.model_copy(update={"tests": req.tests[:half]}),
                      req.model_copy(update={"tests": req.tests[half:]})]
            return self._send_parts(halves, req.stop_on_first_failure)
        return out

    def _send_parts(self, parts: list[RunRequest], stop_on_first_failure: bool) -> Outcome:
        outs: list[Outcome] = []
        stopped = False
        for part in parts:  # in order: a stop on the first failure skips the parts after it
            outs.append(_skipped(len(part.tests)) if stopped else self._send(part))
            stopped = stop_on_first_failure and _failed(outs[-1])
        return join_results(outs)

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


def split_by_size(req: RunRequest, budget: int) -> list[RunRequest]:
    """``req`` as requests over consecutive runs of its tests, each run's tests below ``budget``
    bytes of JSON (a test larger than that goes alone); ``[req]`` when they all fit."""
    sizes = [len(t.model_dump_json()) for t in req.tests]
    if sum(sizes) <= budget:
        return [req]
    parts: list[RunRequest] = []
    start, used = 0, 0
    for i, size in enumerate(sizes):
        if i > start and used + size > budget:
            parts.append(req.model_copy(update={"tests": req.tests[start:i]}))
            start, used = i, 0
        used += size
    parts.append(req.model_copy(update={"tests": req.tests[start:]}))
    return parts


def join_results(outs: list[Outcome]) -> Outcome:
    """The result of one request sent as ``split_by_size``'s parts: their tests in order, the
    verdict the whole would have had; a part that failed to run fails the whole."""
    for o in outs:
        if isinstance(o, BaseException):
            return o
    parts = [o for o in outs if isinstance(o, RunResult)]
    first = parts[0]
    tests = [t for p in parts for t in p.tests]
    compiled = first.compile is None or first.compile.ok
    return RunResult(verdict=overall_verdict(compiled, tests), passed=sum(p.passed for p in parts),
                     total=sum(p.total for p in parts), compile=first.compile, tests=tests,
                     message=next((p.message for p in parts if p.message), None))


def _failed(out: Outcome) -> bool:
    """Did this part fail, or was it skipped after a failure (a stop on the first one)?"""
    return isinstance(out, BaseException) or out.verdict != Verdict.AC


def _skipped(n: int) -> RunResult:
    return RunResult(verdict=Verdict.SKIPPED, passed=0, total=n,
                     tests=[TestResult(verdict=Verdict.SKIPPED) for _ in range(n)])


def failed_result(e: BaseException, n: int) -> RunResult:
    """A stand-in result for a request that raised: every test SE, with the reason."""
    msg = f"{type(e).__name__}: {e}"
    return RunResult(verdict=Verdict.SE, passed=0, total=n, message=msg,
                     tests=[TestResult(verdict=Verdict.SE, message=msg) for _ in range(n)])
