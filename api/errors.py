"""Every failure as a JSON body ``{"error", "message", "detail"}`` with the right status.

Schema errors are 422, a wrong job 400, work that cannot be done within its client's time 503
with Retry-After (refused at admission, or not started before the deadline; ``/run_code`` says
504, the status verl retries), a sandbox that refuses to run 503, the output budget of the jobs
in flight spent 429 with Retry-After. A 500 means a bug here: its body says nothing about internals.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from .admission import Overloaded

log = logging.getLogger("codetest.api")


class InvalidInput(ValueError):
    """Input that passed the schema but not the service's rules (e.g. too many items)."""


def _body(error: str, message: str, detail: Any = None) -> dict:
    return {"error": error, "message": message, "detail": detail}


def _clean_errors(errors: Any) -> list[dict]:
    """Pydantic's errors without the offending input echoed back (it may be megabytes, or a secret)."""
    out = []
    for e in list(errors)[:50]:
        out.append({"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))})
    return out


def busy(metrics: Any, exc: Exception, status_code: int = 503) -> JSONResponse:
    """Work that cannot be done within its client's time now: refused at admission
    (``Overloaded``) or not started before the deadline (``DeadlinePassed``). Retry-After says when."""
    if isinstance(exc, Overloaded):
        reason, retry = "overloaded", exc.retry_after
        detail = {"depth": exc.depth, "capacity": exc.capacity, "wait_s": round(exc.wait_s, 3),
                  "deadline_s": exc.deadline_s, "reason": exc.reason}
    else:
        reason, retry, detail = "deadline", int(getattr(exc, "retry_after_s", 1)), None
    metrics.rejections.labels(reason).inc()
    return JSONResponse(_body("overloaded", str(exc), detail), status_code=status_code,
                        headers={"Retry-After": str(retry)})


def still_running(metrics: Any, exc: Exception) -> JSONResponse:
    """504 for a ``/run_code`` request whose run goes on past its time (``api.rejoin``): the
    status verl retries; the retry gets the run's answer."""
    metrics.run_code_still_running.inc()
    return JSONResponse(_body("still_running", str(exc)), status_code=504,
                        headers={"Retry-After": str(getattr(exc, "retry_after_s", 1))})


def install(app: FastAPI) -> None:
    from sandbox import BadRequest, SandboxUnavailable
    from sandbox.errors import DeadlinePassed, Saturated

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = _clean_errors(exc.errors())
        first = errs[0] if errs else {"loc": [], "msg": "invalid request"}
        where = ".".join(x for x in first["loc"] if x != "body") or "body"
        return JSONResponse(_body("invalid_request", f"{where}: {first['msg']}", errs), status_code=422)

    @app.exception_handler(ValidationError)
    async def _derived(request: Request, exc: ValidationError) -> JSONResponse:
        # A model built from the request inside a handler (e.g. /run_code's job) refused it.
        errs = _clean_errors(exc.errors())
        first = errs[0] if errs else {"loc": [], "msg": "invalid request"}
        where = ".".join(first["loc"]) or "body"
        return JSONResponse(_body("invalid_request", f"{where}: {first['msg']}", errs), status_code=422)

    @app.exception_handler(InvalidInput)
    async def _invalid(request: Request, exc: InvalidInput) -> JSONResponse:
        return JSONResponse(_body("invalid_request", str(exc)), status_code=422)

    @app.exception_handler(BadRequest)
    async def _bad(request: Request, exc: BadRequest) -> JSONResponse:
        return JSONResponse(_body("bad_job", str(exc) or type(exc).__name__), status_code=400)

    @app.exception_handler(SandboxUnavailable)
    async def _unavailable(request: Request, exc: SandboxUnavailable) -> JSONResponse:
        return JSONResponse(_body("sandbox_unavailable", str(exc) or "the sandbox refuses to run code"),
                            status_code=503, headers={"Retry-After": "30"})

    @app.exception_handler(Saturated)
    async def _saturated(request: Request, exc: Saturated) -> JSONResponse:
        request.app.state.service.metrics.rejections.labels("output_budget").inc()
        return JSONResponse(_body("output_budget_spent", str(exc)), status_code=429,
                            headers={"Retry-After": str(exc.retry_after_s)})

    @app.exception_handler(Overloaded)
    async def _overloaded(request: Request, exc: Overloaded) -> JSONResponse:
        return busy(request.app.state.service.metrics, exc)

    @app.exception_handler(DeadlinePassed)
    async def _late(request: Request, exc: DeadlinePassed) -> JSONResponse:
        return busy(request.app.state.service.metrics, exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        names = {404: "not_found", 405: "method_not_allowed"}
        return JSONResponse(_body(names.get(exc.status_code, "http_error"), str(exc.detail)),
                            status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s", request.url.path)
        return JSONResponse(_body("internal", "internal error; see the server log"), status_code=500)
