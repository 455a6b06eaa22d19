"""A replica's life: ready, draining, gone. Probes, the drain on SIGTERM, in-flight work.

A replica is *live* while its event loop answers (``/livez``), *ready* while it has a
sandbox and is not draining (``/readyz``; a load balancer or Kubernetes sends work only to
ready replicas). On SIGTERM it starts to *drain*: ``/readyz`` turns 503, new work is
answered ``503`` with ``Retry-After`` (the client or the load balancer sends it to another
replica), and the process exits once the work it admitted has finished (or the drain
timeout has passed), never before ``grace_s`` so that a load balancer's health check has
seen the replica leave.
"""

from __future__ import annotations

import time
from typing import Any, Awaitable, Callable

from .metrics import Metrics

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]

# Requests that run code. Everything else (probes, metrics, docs) is answered while draining.
WORK_PATHS = frozenset({"/v1/run", "/v1/reward", "/run_code", "/get_reward"})
# Probes answer without an API key (a kubelet or a load balancer has none).
PROBE_PATHS = frozenset({"/livez", "/readyz"})


class Lifecycle:
    """Drain state and the count of work requests in progress. Touched only on the event loop."""

    def __init__(self, metrics: Metrics, retry_after_s: int = 1):
        self.metrics = metrics
        self.retry_after_s = max(1, int(retry_after_s))
        self.draining = False
        self.drain_started: float | None = None
        self.in_flight = 0
        metrics.requests_in_flight.set_function(lambda: self.in_flight)
        metrics.draining.set_function(lambda: 1 if self.draining else 0)

    def begin_drain(self) -> None:
        if not self.draining:
            self.draining = True
            self.drain_started = time.monotonic()

    def drained(self, admitted: int, grace_s: float, timeout_s: float) -> bool:
        """True once the drain may end: nothing admitted or in flight (and the grace period
        is over), or the drain timeout has passed."""
        if not self.draining or self.drain_started is None:
            return False
        waited = time.monotonic() - self.drain_started
        if waited >= timeout_s:
            return True
        return waited >= grace_s and self.in_flight == 0 and admitted == 0


class DrainMiddleware:
    """Counts work requests in flight; while draining answers new work 503 + Retry-After."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], lifecycle: Lifecycle):
        self.app = app
        self.lifecycle = lifecycle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in WORK_PATHS:
            await self.app(scope, receive, send)
            return
        lc = self.lifecycle
        if lc.draining:
            from .middleware import send_json

            lc.metrics.rejections.labels("draining").inc()
            await send_json(send, 503, {"error": "draining",
                                        "message": "this replica is shutting down; send the request to another one"},
                            headers=[("Retry-After", str(lc.retry_after_s)), ("Connection", "close")])
            return
        lc.in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            lc.in_flight -= 1
