"""The endpoints. Each one admits its work, runs it on the pool, and maps the outcome."""

from __future__ import annotations

import asyncio
import time
from typing import Optional

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from sandbox.languages import canonical_name
from sandbox.models import RunRequest, RunResult, TestResult

from . import openrlhf
from .models import (
    ErrorBody, FusionRunRequest, FusionRunResponse, HealthResponse, OpenRLHFRequest, OpenRLHFResponse, RewardItem,
    RewardRequest, RewardResponse, RewardResult, RewardStats, Scoring,
)
from .admission import OPENRLHF_DEADLINE_S
from .errors import InvalidInput
from .reward import prepare, result_for, slim
from .run_code import answer as run_code_answer
from .run_one import client_deadline, require_sandbox, run_one
from .service import Service

router = APIRouter()

_ERRORS = {
    400: {"model": ErrorBody, "description": "the job is wrong (unknown language, missing toolchain, ...)"},
    401: {"model": ErrorBody, "description": "an API key is required"},
    413: {"model": ErrorBody, "description": "request body too large"},
    422: {"model": ErrorBody, "description": "the request does not match the schema"},
    429: {"model": ErrorBody, "description": "the output budget of the jobs in flight is spent; retry after the "
                                            "Retry-After header"},
    503: {"model": ErrorBody, "description": "the work cannot be done within the client's time now (Retry-After "
                                            "says when to come back), or the sandbox refuses to run code"},
}


def service_of(request: Request) -> Service:
    return request.app.state.service


@router.post("/v1/run", response_model=RunResult, responses=_ERRORS, tags=["run"],
             summary="Run one program on any number of tests (compiled once)")
async def run(body: RunRequest, request: Request) -> Response:
    svc = service_of(request)
    job = body.model_copy(update={"language": canonical_name(body.language)})
    result = await run_one(svc, job, client_deadline(request.headers, svc.settings.run_deadline_s))
    return encoded(result)


STREAM_ABOVE = 1 << 20
_TESTS = b',"tests":[],'


def encoded(result: RunResult) -> Response:
    """The result as JSON, encoded once straight to bytes (no intermediate dict of copies of the
    output). A large answer is encoded and sent one test at a time in 1 MiB pieces, each test's
    output dropped once it is encoded, so the service holds about one test's JSON beyond the
    result itself; the output stays charged to the sandbox's budget until it has been sent."""
    lease = getattr(result, "_output", None)
    if lease is None or lease.kept <= STREAM_ABOVE:
        try:
            return Response(RunResult.__pydantic_serializer__.to_json(result), media_type="application/json")
        finally:
            result.release_output()
    tests = list(result.tests)
    result.tests.clear()
    head = RunResult.__pydantic_serializer__.to_json(result)
    before, sep, after = head.partition(_TESTS)
    assert sep, "RunResult's field order changed"

    def pieces():
        try:
            yield before + b',"tests":['
            for i in range(len(tests)):
                data = memoryview(TestResult.__pydantic_serializer__.to_json(tests[i]))
                tests[i] = None  # type: ignore[call-overload]
                if i:
                    yield b","
                for j in range(0, len(data), STREAM_ABOVE):
                    yield bytes(data[j:j + STREAM_ABOVE])
                del data
            yield b"]," + after
        finally:
            result.release_output()

    return StreamingResponse(pieces(), media_type="application/json")


async def score_items(svc: Service, items: list[RewardItem], scoring: Scoring,
                      deadline_s: Optional[float]) -> RewardResponse:
    """The /v1/reward logic, shared by /get_reward."""
    started = time.perf_counter()
    if len(items) > svc.settings.max_reward_items:
        raise InvalidInput(f"{len(items)} items; this server takes at most {svc.settings.max_reward_items} per request")
    require_sandbox(svc)
    deadline = min(deadline_s or svc.settings.reward_deadline_s, 3600.0)
    langs, budget = set(svc.languages), svc.settings.max_output_mb
    prepared = await asyncio.to_thread(lambda: [prepare(item, langs, budget) for item in items])
    jobs = [p.job for p in prepared]
    n_jobs = sum(1 for j in jobs if j is not None)
    outcomes: list[object] = [None] * len(items)
    deadline_hit = False
    if n_jobs:
        window = min(n_jobs, svc.window())
        with svc.admission.lease(window, deadline) as lease:  # type: ignore[union-attr]
            left = max(0.01, deadline - (time.perf_counter() - started))  # the deadline counts from arrival
            outcomes = await svc.runner.run_batch(jobs, lease, window, left, keep=slim)  # type: ignore[union-attr]
        deadline_hit = any(j is not None and o is None for j, o in zip(jobs, outcomes))
    results: list[RewardResult] = []
    for item, prep, outcome in zip(items, prepared, outcomes):
        results.append(prep.decided if prep.decided is not None else result_for(item, prep, outcome, scoring))
    null = sum(1 for r in results if r.reward is None)
    svc.metrics.reward_items.labels("scored").inc(len(results) - null)
    svc.metrics.reward_items.labels("null").inc(null)
    no_code = sum(1 for r in results if r.no_code)
    svc.metrics.reward_items.labels("no_code").inc(no_code)
    stats = RewardStats(items=len(results), scored=len(results) - null, null=null, no_code=no_code,
                        deadline_hit=deadline_hit,
                        elapsed_s=round(time.perf_counter() - started, 4))
    return RewardResponse(results=results, stats=stats)


@router.post("/v1/reward", response_model=RewardResponse, responses=_ERRORS, tags=["reward"],
             summary="Score a batch of completions: one reward per item, null when the service failed")
async def reward(body: RewardRequest, request: Request) -> RewardResponse:
    return await score_items(service_of(request), body.items, body.scoring, body.deadline_s)


@router.post("/run_code", response_model=FusionRunResponse, tags=["compat"],
             responses={**_ERRORS, 504: {"model": ErrorBody, "description": "the run cannot be done within verl's "
                                         "time now: the status verl retries (Retry-After says when)"}},
             summary="SandboxFusion-compatible: run code once on stdin")
async def run_code(body: FusionRunRequest, request: Request) -> Response:
    # A JSON body this model accepts is answered before FastAPI routes it (api/run_code.py,
    # RunCodeFastPath); the rest comes here, to the same answer.
    return await run_code_answer(service_of(request), body, request.headers)


@router.post("/get_reward", response_model=OpenRLHFResponse, responses=_ERRORS, tags=["compat"],
             summary="OpenRLHF remote reward: query/prompts/labels in, rewards/scores/extra_logs out")
async def get_reward(body: OpenRLHFRequest, request: Request) -> OpenRLHFResponse:
    svc = service_of(request)
    n = len(body.query)
    prompts = body.prompts or [None] * n
    labels = body.labels if body.labels is not None else [None] * n
    if len(prompts) != n or len(labels) != n:
        raise InvalidInput("'query', 'prompts' and 'labels' must have the same length")
    built = [openrlhf.item_from(q, p, lab) for q, p, lab in zip(body.query, prompts, labels)]
    items = [b for b in built if isinstance(b, RewardItem)]
    deadline = body.deadline_s or client_deadline(request.headers, OPENRLHF_DEADLINE_S)
    scored = (await score_items(svc, items, body.scoring, deadline)).results if items else []
    it = iter(scored)
    rewards: list[float] = []
    errors: list[Optional[str]] = []
    pass_rate: list[float] = []
    sandbox_error: list[float] = []
    no_code: list[float] = []
    for b in built:
        r = next(it) if isinstance(b, RewardItem) else RewardResult(reward=None, error=b)
        # A number always (OpenRLHF makes a tensor of these); failures are flagged, never silent.
        rewards.append(r.reward if r.reward is not None else body.failure_score)
        errors.append(r.error)
        pass_rate.append(r.passed / r.total if r.total else (1.0 if r.reward else 0.0))
        sandbox_error.append(1.0 if r.reward is None else 0.0)
        no_code.append(1.0 if r.no_code else 0.0)
    return OpenRLHFResponse(rewards=rewards, scores=list(rewards), errors=errors,
                            extra_logs={"pass_rate": pass_rate, "sandbox_error": sandbox_error,
                                                                   "no_code": no_code})


@router.get("/healthz", response_model=HealthResponse, responses={503: {"model": HealthResponse}}, tags=["ops"],
            summary="Backend, isolation layers, languages with versions, queue depth; 503 when runs are refused")
async def healthz(request: Request) -> JSONResponse:
    svc = service_of(request)
    h = await asyncio.to_thread(svc.health)
    body = HealthResponse(**h).model_dump(mode="json")
    return JSONResponse(body, status_code=200 if body["ok"] else 503)


@router.get("/livez", tags=["ops"], summary="Liveness: the process answers (restart it when this fails)")
async def livez() -> dict:
    return {"live": True}


@router.get("/readyz", tags=["ops"], responses={503: {"description": "not ready: no sandbox, or draining"}},
            summary="Readiness: send work here (503 while draining or while the sandbox is down)")
async def readyz(request: Request) -> JSONResponse:
    svc = service_of(request)
    lifecycle = request.app.state.lifecycle
    reasons = []
    if lifecycle.draining:
        reasons.append("draining")
    if svc.sandbox is None or svc.admission is None or svc.runner is None:
        reasons.append(svc.startup_problem or "the sandbox is not running")
    depth = svc.admission.depth if svc.admission else 0
    capacity = svc.admission.capacity if svc.admission else 0
    body = {"ready": not reasons, "reasons": reasons, "queue_depth": depth, "queue_capacity": capacity}
    return JSONResponse(body, status_code=200 if not reasons else 503)


@router.get("/metrics", tags=["ops"], summary="Prometheus text format",
            response_class=Response, responses={200: {"content": {"text/plain": {}}}})
async def metrics(request: Request) -> Response:
    svc = service_of(request)
    return Response(svc.metrics.render(), media_type=svc.metrics.content_type)
