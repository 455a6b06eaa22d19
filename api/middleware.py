"""Pure ASGI guards that run before any body is parsed: metrics, API keys, body size.

They are plain ASGI (not BaseHTTPMiddleware) so they see every response, stream
nothing twice, and can refuse a request before reading a byte of an oversized body.
"""

from __future__ import annotations

import hmac
import json
import time
from typing import Any, Awaitable, Callable, Iterable

from .metrics import Metrics

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Reachable without a key: health and readiness/liveness probes, and the API description.
OPEN_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


async def send_json(send: Send, status: int, body: dict, headers: Iterable[tuple[str, str]] = ()) -> None:
    raw = json.dumps(body).encode()
    hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    hdrs += [(k.lower().encode(), v.encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": hdrs})
    await send({"type": "http.response.body", "body": raw})


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers") or ():
        if k.lower() == name:
            return v.decode("latin-1")
    return None


class MetricsMiddleware:
    """Counts every answered request by route template (not raw path: fuzzers invent paths)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, known_paths: Iterable[str] = ()):
        self.app = app
        self.metrics = metrics
        self.known_paths = frozenset(known_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = {"code": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            label = getattr(route, "path", None)
            if label is None:  # refused before routing (401, 413): still the route it asked for
                label = scope.get("path") if scope.get("path") in self.known_paths else "unmatched"
            self.metrics.requests.labels(label, scope.get("method", ""), str(status["code"])).inc()
            self.metrics.request_latency.labels(label).observe(time.perf_counter() - start)


class AuthMiddleware:
    """Requires ``Authorization: Bearer KEY`` or ``X-API-Key: KEY`` when keys are configured.

    Keys are compared in constant time and never written back in any response or log.
    """

    def __init__(self, app: ASGIApp, api_keys: Iterable[str], metrics: Metrics):
        self.app = app
        self.keys = [k.encode() for k in api_keys if k]
        self.metrics = metrics

    def _authorized(self, scope: Scope) -> bool:
        offered: list[str] = []
        auth = _header(scope, b"authorization")
        if auth:
            scheme, _, token = auth.strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                offered.append(token.strip())
        xkey = _header(scope, b"x-api-key")
        if xkey and xkey.strip():
            offered.append(xkey.strip())
        ok = False
        for candidate in offered:
            c = candidate.encode("latin-1", "replace")
            for key in self.keys:
                ok |= hmac.compare_digest(c, key)
        return ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.keys or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        if not self._authorized(scope):
            self.metrics.rejections.labels("unauthorized").inc()
            await send_json(
                send, 401,
                {"error": "unauthorized",
                 "message": "a valid API key is required: 'Authorization: Bearer KEY' or 'X-API-Key: KEY'"},
                headers=[("WWW-Authenticate", "Bearer")],
            )
            return
        await self.app(scope, receive, send)


class BodyLimitMiddleware:
    """413 for bodies over the cap, judged by Content-Length first and by the bytes that arrive.

    The 413 is sent at once, then the rest of the body is read and dropped (up to
    ``drain_bytes`` or ``drain_s``) before the connection is let go: a server that closes a
    socket with unread data makes the kernel reset it, and the client, still writing, sees a
    broken pipe instead of the answer. Draining lets it finish sending and read the 413.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, metrics: Metrics, drain_bytes: int = 1 << 30,
                 drain_s: float = 30.0):
        self.app = app
        self.max_bytes = max_bytes
        self.metrics = metrics
        self.drain_bytes = drain_bytes
        self.drain_s = drain_s

    async def _too_large(self, send: Send, receive: Receive, more: bool) -> None:
        """Send the whole 413 (headers and body, so the client can read it at once), drain what
        the client is still sending, and only then end the response, which lets the server
        close the connection (it does when the client asked for ``Connection: close``)."""
        self.metrics.rejections.labels("too_large").inc()
        raw = json.dumps({"error": "payload_too_large",
                          "message": f"request body over {self.max_bytes} bytes; this server takes at most "
                                     f"{self.max_bytes} bytes per request"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]})
        await send({"type": "http.response.body", "body": raw, "more_body": True})
        await self._drain(receive, more)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _drain(self, receive: Receive, more: bool) -> None:
        """Read and drop what the client is still sending, within bounds."""
        import asyncio

        loop = asyncio.get_running_loop()
        end = loop.time() + self.drain_s
        drained = 0
        while more and drained < self.drain_bytes:
            left = end - loop.time()
            if left <= 0:
                return
            try:
                message = await asyncio.wait_for(receive(), timeout=left)
            except asyncio.TimeoutError:
                return
            if message["type"] != "http.request":
                return
            drained += len(message.get("body", b""))
            more = bool(message.get("more_body", False))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                if int(declared) > self.max_bytes:
                    await self._too_large(send, receive, True)
                    return
            except ValueError:
                await send_json(send, 400, {"error": "bad_request", "message": "invalid Content-Length"})
                return
        # Read the whole body under the cap, then replay it: the app never sees a partial body.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                chunks.clear()
                await self._too_large(send, receive, bool(message.get("more_body", False)))
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        await self.app(scope, replay(b"".join(chunks), receive), send)


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the whole ``body`` in one message, then the client's own (a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return again
