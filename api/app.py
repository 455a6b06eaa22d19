"""The FastAPI app factory: routes, guards, and the sandbox's lifetime."""

from __future__ import annotations

import gc
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Iterable, Optional

from fastapi import FastAPI

from . import errors
from .lifecycle import DrainMiddleware, Lifecycle
from .middleware import AuthMiddleware, BodyLimitMiddleware, MetricsMiddleware
from .routes import router
from .run_code import RunCodeFastPath
from .service import Service
from .settings import DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_REWARD_ITEMS, DEFAULT_REWARD_DEADLINE_S, ServiceSettings

DESCRIPTION = """A hardened code-execution sandbox for training and evaluating code models.

`/v1/run` judges one program; `/v1/reward` scores batches of completions; `/run_code` speaks
SandboxFusion's protocol (verl's `sandbox_fusion` reward works unchanged); `/get_reward` speaks
OpenRLHF's. Send `Authorization: Bearer KEY` or `X-API-Key: KEY` when the server has keys.
"""


def create_app(
    sandbox: Any = None,
    *,
    api_keys: Optional[Iterable[str]] = None,
    queue_size: int = 0,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    reward_deadline_s: float = DEFAULT_REWARD_DEADLINE_S,
    max_reward_items: int = DEFAULT_MAX_REWARD_ITEMS,
    reward_window: int = 0,
    backend: Optional[str] = None,
    slots: Optional[int] = None,
    settings: Optional[ServiceSettings] = None,
    run_code_fast_path: bool = True,
) -> FastAPI:
    """Build the app. With ``sandbox=None`` the app creates its own sandbox at startup
    (``backend``/``slots``) and closes it at shutdown; a sandbox passed in stays the caller's.
    ``run_code_fast_path=False`` sends every ``/run_code`` request through FastAPI's route (the
    same answer, at FastAPI's cost per request: ``api/run_code.py``), for comparing the two."""
    if settings is None:
        settings = ServiceSettings(
            api_keys=tuple(api_keys or ()), queue_size=queue_size, max_body_bytes=max_body_bytes,
            reward_deadline_s=reward_deadline_s, max_reward_items=max_reward_items, reward_window=reward_window,
        )
    service = Service(settings, sandbox, backend=backend, slots=slots)
    lifecycle = Lifecycle(service.metrics)

    def utilization() -> float:
        adm = service.admission
        return adm.depth / adm.capacity if adm is not None and adm.capacity else 0.0

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start()
        service.metrics.queue_utilization.set_function(utilization)
        # What start-up made (the app, the models' validators, the sandbox's slots) lives as long as
        # the service: kept out of the collector's passes, which then scan only what requests make.
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            service.stop()

    app = FastAPI(title="codetest", version=_version(), description=DESCRIPTION, lifespan=lifespan)
    app.state.service = service
    app.state.lifecycle = lifecycle
    app.include_router(router)
    errors.install(app)
    # Added last runs first: metrics see everything, then keys, then the drain gate, then the size cap,
    # then the /run_code path that skips FastAPI's routing.
    if run_code_fast_path:
        app.add_middleware(RunCodeFastPath, service=service)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes, metrics=service.metrics)
    app.add_middleware(DrainMiddleware, lifecycle=lifecycle)
    app.add_middleware(AuthMiddleware, api_keys=settings.api_keys, metrics=service.metrics)
    app.add_middleware(MetricsMiddleware, metrics=service.metrics,
                       known_paths=[getattr(r, "path", "") for r in (*app.routes, *router.routes)])
    return app


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("codetest")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0"
