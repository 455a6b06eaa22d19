"""Sandbox settings: what a deployment chooses, from arguments or ``CODETEST_*`` variables."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Optional

# Layer names, the same on every backend (see ARCHITECTURE.md "Isolation, layer by layer").
LAYERS = ("namespaces", "gvisor", "seccomp", "cgroups", "rlimits", "uid")
# What a backend must have unless the operator lowers the bar. gVisor is reported, not required.
DEFAULT_REQUIRED = ("namespaces", "seccomp", "cgroups", "rlimits", "uid")


def _env_list(name: str) -> Optional[list[str]]:
    raw = os.environ.get(name)
    if raw is None:
        return None
    return [x.strip() for x in raw.split(",") if x.strip()]


def default_state_dir() -> str:
    base = "/var/lib/codetest" if os.geteuid() == 0 else os.path.join(tempfile.gettempdir(), f"codetest-{os.geteuid()}")
    return os.environ.get("CODETEST_STATE_DIR", base)


@dataclass
class SandboxConfig:
    backend: str = field(default_factory=lambda: os.environ.get("CODETEST_BACKEND", "native"))
    # Concurrent executions; default one per CPU core.
    slots: int = field(default_factory=lambda: int(os.environ.get("CODETEST_SLOTS", "0")) or (os.cpu_count() or 1))
    # Compile cache and scratch space live here.
    state_dir: str = field(default_factory=default_state_dir)
    cache_max_mb: int = field(default_factory=lambda: int(os.environ.get("CODETEST_CACHE_MAX_MB", "2048")))
    # Layers a backend must provide or it refuses to run code. An operator lowers the bar
    # explicitly with allow_missing (CODETEST_ALLOW_MISSING=cgroups,uid).
    required_layers: tuple[str, ...] = DEFAULT_REQUIRED
    allow_missing: tuple[str, ...] = field(default_factory=lambda: tuple(_env_list("CODETEST_ALLOW_MISSING") or ()))
    # Layers to switch off (seccomp, cgroups, rlimits): for diagnostics and for tests that show
    # each remaining layer holds on its own. A disabled layer is missing, so it must also be
    # in allow_missing or the sandbox refuses to run.
    disable: tuple[str, ...] = field(default_factory=lambda: tuple(_env_list("CODETEST_DISABLE_LAYERS") or ()))
    # First uid of the per-slot unprivileged users (root hosts): slot i runs as uid_base + i.
    uid_base: int = field(default_factory=lambda: int(os.environ.get("CODETEST_UID_BASE", "61000")))
    # Docker backend settings.
    docker_image: str = field(default_factory=lambda: os.environ.get("CODETEST_DOCKER_IMAGE", "codetest-runtime:latest"))
    docker_runtime: Optional[str] = field(default_factory=lambda: os.environ.get("CODETEST_DOCKER_RUNTIME"))
    docker_jobs_per_container: int = field(default_factory=lambda: int(os.environ.get("CODETEST_DOCKER_RECYCLE", "500")))
    # Each pool container's own memory and CPU caps (0: the backend's defaults, see docs/docker.md).
    docker_memory_mb: int = field(default_factory=lambda: int(os.environ.get("CODETEST_DOCKER_MEMORY_MB", "0")))
    docker_cpus: float = field(default_factory=lambda: float(os.environ.get("CODETEST_DOCKER_CPUS", "0")))

    def effective_required(self) -> set[str]:
        return set(self.required_layers) - set(self.allow_missing)
