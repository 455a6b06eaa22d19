"""``serve()``: the app on uvicorn, refusing to listen beyond loopback without an API key."""

from __future__ import annotations

import logging
import signal
from types import FrameType
from typing import Any, Iterable, Optional

from .settings import env_api_keys, is_loopback


class ConfigError(ValueError):
    """The service was asked to start in a way it refuses (the CLI turns this into exit 2)."""


def check_exposure(host: str, api_keys: Iterable[str]) -> None:
    if not is_loopback(host) and not any(api_keys):
        raise ConfigError(
            f"refusing to listen on {host!r} without an API key: pass --api-key KEY or set CODETEST_API_KEYS "
            "(keys are optional only on loopback addresses such as 127.0.0.1)"
        )


DEFAULT_DRAIN_TIMEOUT_S = 60.0
DEFAULT_DRAIN_GRACE_S = 0.0


def draining_server(config: Any, drain_timeout_s: float = DEFAULT_DRAIN_TIMEOUT_S,
                    drain_grace_s: float = DEFAULT_DRAIN_GRACE_S) -> Any:
    """A uvicorn server that drains on SIGTERM before it shuts down (see ``api.lifecycle``).

    The first SIGTERM (or SIGINT) starts the drain: the listener stays open, ``/readyz``
    answers 503, new work 503 + Retry-After, admitted work runs to its end. Once nothing is
    left (and ``drain_grace_s`` has passed) or after ``drain_timeout_s``, uvicorn's own
    graceful shutdown follows. A second signal skips the drain."""
    import uvicorn

    class DrainingServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Optional[FrameType]) -> None:
            lifecycle = _lifecycle(self.config)
            if lifecycle is None or lifecycle.draining or sig not in (signal.SIGTERM, signal.SIGINT):
                super().handle_exit(sig, frame)
                return
            logging.getLogger("codetest.api").info("signal %s: draining (at most %.0f s)", sig, drain_timeout_s)
            lifecycle.begin_drain()

        async def on_tick(self, counter: int) -> bool:
            if await super().on_tick(counter):
                return True
            lifecycle = _lifecycle(self.config)
            if lifecycle is None or not lifecycle.draining:
                return False
            service = self.config.app.state.service
            admitted = service.admission.depth if service.admission is not None else 0
            return lifecycle.drained(admitted, drain_grace_s, drain_timeout_s)

    return DrainingServer(config)


def _lifecycle(config: Any) -> Any:
    state = getattr(getattr(config, "app", None), "state", None)
    return getattr(state, "lifecycle", None)


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    backend: str = "native",
    *,
    slots: Optional[int] = None,
    api_keys: Iterable[str] = (),
    queue_size: int = 0,
    max_body_mb: Optional[float] = None,
    log_level: str = "info",
    drain_timeout_s: float = DEFAULT_DRAIN_TIMEOUT_S,
    drain_grace_s: float = DEFAULT_DRAIN_GRACE_S,
) -> None:
    """Run until interrupted. Keys come from ``api_keys`` plus ``CODETEST_API_KEYS``."""
    import uvicorn

    from .app import create_app
    from .settings import DEFAULT_MAX_BODY_BYTES

    keys = tuple(dict.fromkeys([k for k in api_keys if k] + list(env_api_keys())))
    check_exposure(host, keys)
    if not 0 <= port <= 65535:
        raise ConfigError(f"port {port} is out of range")
    max_body = int(max_body_mb * (1 << 20)) if max_body_mb else DEFAULT_MAX_BODY_BYTES
    app = create_app(None, api_keys=keys, queue_size=queue_size, backend=backend, slots=slots, max_body_bytes=max_body)
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO))
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, server_header=False, proxy_headers=False,
        timeout_graceful_shutdown=15, timeout_keep_alive=30,
    )
    draining_server(config, drain_timeout_s, drain_grace_s).run()
