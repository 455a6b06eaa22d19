"""Which backend a config names, built with the toolchains it must show its jails."""

from __future__ import annotations

import sys
from typing import Any

from .config import SandboxConfig
from .errors import BadRequest
from .languages import Toolchain


def make_backend(config: SandboxConfig, toolchains: dict[str, Toolchain]) -> Any:
    name = config.backend
    if name == "native":
        from .backends.native.host import NativeBackend

        binds = sorted({b for tc in toolchains.values() for b in tc.binds})
        py = toolchains.get("python")
        return NativeBackend(config, py.on_host if py else sys.executable, binds)
    if name == "docker":
        from .backends.docker import DockerBackend

        return DockerBackend(config)
    raise BadRequest(f"unknown backend {name!r}; choose native or docker")
