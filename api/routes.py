"""The endpoints. Each one admits its work, runs it on the pool, and maps the outcome."""

from __future__ import annotations

import asyncio
import time
from typing import Optional

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from sandbox.languages import canonical_name
from sandbox.models import RunRequest, RunResult, TestResult

from . import fusion, openrlhf
from .models import (
    ErrorBody, FusionRunRequest, FusionRunResponse, HealthResponse, OpenRLHFRequest, OpenRLHFResponse, RewardItem,
    RewardRequest, RewardResponse, RewardResult, RewardStats, Scoring,
)
from .admission import MARGIN_S, OPENRLHF_DEADLINE_S, RUN_CODE_SLACK_S, Overloaded, run_code_wall_s
from .rejoin import RUN_CODE_ATTEMPTS, StillRunning
from .reward import output_budget_mb, prepare, result_for, slim
from .runner import whole_answer_due
from .errors import InvalidInput, busy, still_running
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


def _positive(value: object, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and 0 < value < 1e6 else default


def service_of(request: Request) -> Service:
    return request.app.state.service


def _require_sandbox(svc: Service) -> None:
    if svc.sandbox is None or svc.admission is None or svc.runner is None:
        from sandbox import SandboxUnavailable

        raise SandboxUnavailable(svc.startup_problem or "the sandbox is not running")


async def _run_one(svc: Service, job: RunRequest, deadline_s: float, lasting_s: Optional[float] = None
                   ) -> RunResult:
    """Admit one job if it can finish within ``deadline_s`` (its client's time), then run it;
    once started, it may go on for ``lasting_s`` (``whole_answer_due``)."""
    _require_sandbox(svc)
    if output_budget_mb(job) > svc.settings.max_output_mb:
        raise InvalidInput(f"tests x limits.output_kb allow {output_budget_mb(job):.0f} MiB of output; this server "
                           f"takes at most {svc.settings.max_output_mb} MiB per job: lower limits.output_kb")
    deadline = whole_answer_due(deadline_s, job.limits.time_s, lasting_s)
    with svc.admission.lease(1, deadline_s) as lease:  # type: ignore[union-attr]
        return await svc.runner.run(job, lease, deadline=deadline)  # type: ignore[union-attr]


def _api_key(request: Request) -> str:
    """The caller's credential as sent (runs are shared only between requests that carry the same)."""
    return request.headers.get("authorization") or request.headers.get("x-api-key") or ""


def client_deadline(request: Request, default: float) -> float:
    """The client's time for this request: ``X-Codetest-Deadline`` (seconds) if sent, else ``default``."""
    raw = request.headers.get("x-codetest-deadline")
    try:
        value = float(raw) if raw is not None else default
    except ValueError:
        value = default
    return value if 0 < value <= 3600 else default


@router.post("/v1/run", response_model=RunResult, responses=_ERRORS, tags=["run"],
             summary="Run one program on any number of tests (compiled once)")
async def run(body: RunRequest, request: Request) -> Response:
    svc = service_of(request)
    job = body.model_copy(update={"language": canonical_name(body.language)})
    result = await _run_one(svc, job, client_deadline(request, svc.settings.run_deadline_s))
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
    _require_sandbox(svc)
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
async def run_code(body: FusionRunRequest, request: Request, response: Response) -> FusionRunResponse:
    from pydantic import ValidationError

    from sandbox import BadRequest
    from sandbox.errors import DeadlinePassed

    arrived = time.monotonic()
    svc = service_of(request)
    # What SandboxFusion would take but this sandbox cannot run (a language without its toolchain,
    # a bad file name) is a 200 with SandboxError and a message, as SandboxFusion answers it.
    try:
        job = fusion.to_run_request(body, svc.languages, svc.settings.run_code_default_memory_mb)
        # TLE is judged on CPU time; the wall limit only catches sleepers. Waiting for a CPU does
        # not count against it until verl's HTTP timeout (less a margin) would pass.
        job.limits.wall_time_s = run_code_wall_s(job.limits.time_s, job.limits.compile_time_s)
        deadline = _positive(body.compile_timeout, 10.0) + _positive(body.run_timeout, 10.0) + RUN_CODE_SLACK_S
        deadline = client_deadline(request, deadline)
        # A run still going when this request's time is nearly up goes on; the client gets 504 and
        # its retry (the same request) joins the run: api/rejoin.py.
        key = svc.shared_runs.request_key(body.model_dump_json().encode(), _api_key(request))
        result, joined = await svc.shared_runs.answer(
            key, lambda: _run_one(svc, job, deadline, lasting_s=deadline * RUN_CODE_ATTEMPTS),
            deadline - MARGIN_S - (time.monotonic() - arrived))
        if joined:
            svc.metrics.run_code_rejoined.inc()
    except StillRunning as e:
        return still_running(request, e)
    except (Overloaded, DeadlinePassed) as e:
        # verl retries a 504 and nothing else: work that cannot be done in its time now is one.
        return busy(request, e, status_code=504)
    except ValidationError as e:
        return fusion.sandbox_error(fusion.validation_message(e))
    except BadRequest as e:
        return fusion.sandbox_error(str(e) or type(e).__name__)
    try:
        own_time = fusion.judged_on_own_time(job.language)
        resp = fusion.to_response(result, compiled=fusion.has_compile_step(job.language),
                                  run_timeout=job.limits.time_s if own_time else None)
    finally:
        result.release_output()
    timed_out = resp.run_result is not None and resp.run_result.status == "TimeLimitExceeded"
    response.headers["X-Codetest-Verdict"] = "TLE" if timed_out else result.verdict.value
    return resp


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
    deadline = body.deadline_s or client_deadline(request, OPENRLHF_DEADLINE_S)
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
