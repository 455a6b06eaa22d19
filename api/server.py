"""``serve()``: the app on uvicorn, refusing to listen beyond loopback without an API key."""

from __future__ import annotations

import logging
from typing import Iterable, Optional

from .settings import env_api_keys, is_loopback


class ConfigError(ValueError):
    """The service was asked to start in a way it refuses (the CLI turns this into exit 2)."""


def check_exposure(host: str, api_keys: Iterable[str]) -> None:
    if not is_loopback(host) and not any(api_keys):
        raise ConfigError(
            f"refusing to listen on {host!r} without an API key: pass --api-key KEY or set CODETEST_API_KEYS "
            "(keys are optional only on loopback addresses such as 127.0.0.1)"
        )


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
    uvicorn.run(
        app, host=host, port=port, log_level=log_level, server_header=False, proxy_headers=False,
        timeout_graceful_shutdown=15, timeout_keep_alive=30,
    )
