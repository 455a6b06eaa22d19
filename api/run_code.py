"""``POST /run_code``: SandboxFusion's one program on stdin, answered by one function, and the
plain ASGI path that serves it without FastAPI's routing and dependency machinery.

verl sends one ``/run_code`` request per test, so the request path is paid once per execution.
``RunCodeFastPath`` sits innermost among the service's guards (metrics, keys, drain, body cap
have run): a POST to ``/run_code`` with a JSON body that ``FusionRunRequest`` accepts is parsed
once, answered by ``answer`` and sent; anything else (another path, a body the model refuses, a
body that is not JSON) goes on to FastAPI unchanged, so a refusal is the route's own 422. An
exception ``answer`` raises is rendered by the app's exception handlers (``api/errors.py``),
the same ones the route uses. The route in ``api/routes.py`` calls the same ``answer``: both
paths give one answer.
"""

from __future__ import annotations

import time
from typing import Mapping

from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response

from . import fusion
from .admission import MARGIN_S, RUN_CODE_SLACK_S, Overloaded, run_code_wall_s
from .errors import busy, still_running
from .middleware import ASGIApp, Receive, Scope, Send, replay
from .models import FusionRunRequest, FusionRunResponse
from .rejoin import RUN_CODE_ATTEMPTS, StillRunning
from .run_one import api_key_of, client_deadline, run_one
from .service import Service

PATH = "/run_code"


def _positive(value: object, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and 0 < value < 1e6 else default


def _json(resp: FusionRunResponse, verdict: str | None = None) -> Response:
    headers = {"X-Codetest-Verdict": verdict} if verdict else None
    return Response(FusionRunResponse.__pydantic_serializer__.to_json(resp), media_type="application/json",
                    headers=headers)


async def answer(svc: Service, body: FusionRunRequest, headers: Mapping[str, str]) -> Response:
    """The whole ``/run_code`` answer: 200 with SandboxFusion's response (``SandboxError`` for
    what SandboxFusion would take but this sandbox cannot run), 504 + Retry-After when the run
    cannot be done, or goes on, past verl's time (the status verl retries)."""
    from sandbox import BadRequest
    from sandbox.errors import DeadlinePassed

    arrived = time.monotonic()
    try:
        job = fusion.to_run_request(body, svc.languages, svc.settings.run_code_default_memory_mb)
        # TLE is judged on CPU time; the wall limit only catches sleepers. Waiting for a CPU does
        # not count against it until verl's HTTP timeout (less a margin) would pass.
        job.limits.wall_time_s = run_code_wall_s(job.limits.time_s, job.limits.compile_time_s)
        deadline = _positive(body.compile_timeout, 10.0) + _positive(body.run_timeout, 10.0) + RUN_CODE_SLACK_S
        deadline = client_deadline(headers, deadline)
        # A run still going when this request's time is nearly up goes on; the client gets 504 and
        # its retry (the same request) joins the run: api/rejoin.py.
        key = svc.shared_runs.request_key(body.model_dump_json().encode(), api_key_of(headers))
        result, joined = await svc.shared_runs.answer(
            key, lambda: run_one(svc, job, deadline, lasting_s=deadline * RUN_CODE_ATTEMPTS),
            deadline - MARGIN_S - (time.monotonic() - arrived))
        if joined:
            svc.metrics.run_code_rejoined.inc()
    except StillRunning as e:
        return still_running(svc.metrics, e)
    except (Overloaded, DeadlinePassed) as e:
        # verl retries a 504 and nothing else: work that cannot be done in its time now is one.
        return busy(svc.metrics, e, status_code=504)
    except ValidationError as e:
        return _json(fusion.sandbox_error(fusion.validation_message(e)))
    except BadRequest as e:
        return _json(fusion.sandbox_error(str(e) or type(e).__name__))
    try:
        own_time = fusion.judged_on_own_time(job.language)
        resp = fusion.to_response(result, compiled=fusion.has_compile_step(job.language),
                                  run_timeout=job.limits.time_s if own_time else None)
    finally:
        result.release_output()
    timed_out = resp.run_result is not None and resp.run_result.status == "TimeLimitExceeded"
    return _json(resp, "TLE" if timed_out else result.verdict.value)


def is_json(content_type: str | None) -> bool:
    """FastAPI's rule for a JSON body (its default, ``strict_content_type``): ``application/json`` or
    ``application/*+json``, parameters such as ``charset`` aside; a body with no Content-Type is not
    read as JSON."""
    if content_type is None:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    main, _, sub = media.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


class RunCodeFastPath:
    """``POST /run_code`` with a body ``FusionRunRequest`` accepts, answered without FastAPI's
    request machinery; every other request goes on to ``app`` as it came (module docstring)."""

    def __init__(self, app: ASGIApp, service: Service):
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != PATH or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body arrived
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        raw = b"".join(chunks)
        headers = Headers(scope=scope)
        body = None
        if is_json(headers.get("content-type")):
            try:
                body = FusionRunRequest.model_validate_json(raw)
            except ValidationError:
                pass  # FastAPI's route says why, in its own words
        if body is None:
            await self.app(scope, replay(raw, receive), send)
            return
        try:
            response = await answer(self.service, body, headers)
        except Exception as exc:  # noqa: BLE001 - rendered as the route's exception handlers render it
            response = await _handled(scope, receive, exc)
        await response(scope, receive, send)


async def _handled(scope: Scope, receive: Receive, exc: Exception) -> Response:
    """The response the app's exception handler for ``exc`` gives (the nearest class in its MRO,
    as Starlette looks it up); re-raised where the app has none."""
    handlers = scope["app"].exception_handlers
    for cls in type(exc).__mro__:
        handler = handlers.get(cls)
        if handler is not None:
            return await handler(Request(scope, receive), exc)
    raise exc
