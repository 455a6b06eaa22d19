"""Docker backend settings: what SandboxConfig says, else ``CODETEST_DOCKER_*`` variables.

SandboxConfig carries the three settings every deployment touches (image, runtime,
jobs per container); the rest have sensible defaults and an environment variable each.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Optional


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        return float(raw) if raw else default
    except ValueError:
        return default


@dataclass
class DockerSettings:
    image: str = "codetest-runtime:latest"
    # None: runsc when the engine has it registered, runc otherwise.
    runtime: Optional[str] = None
    # A container is replaced after this many executions (and at once after an anomaly).
    jobs_per_container: int = 500
    containers: int = 2
    # Container memory: the largest per-test limit a job may ask for, plus headroom for the
    # executor and, under gVisor, the Sentry. The executor enforces each test's own limit.
    memory_mb: int = 2048
    memory_headroom_mb: int = 384
    cpus: float = 1.0
    pids: int = 512
    # Under gVisor's ptrace platform the pids cgroup counts the Sentry's host threads and
    # stub processes (about a dozen per guest process), not the guest's processes, and the
    # Sentry dies when it cannot make one; the guest's own count is bounded by RLIMIT_NPROC.
    pids_runsc: int = 16384
    work_mb: int = 512          # /work tmpfs
    tmp_mb: int = 256           # /tmp tmpfs
    shm_mb: int = 64            # /dev/shm
    prog_cache_mb: int = 256    # program files cached per container (/run/codetest)
    uid_base: int = 62000       # program uid of container k is uid_base + k (k < 1000)
    start_timeout_s: float = 60.0
    acquire_timeout_s: float = 120.0
    poll_s: float = 0.005
    # Seconds a request may take beyond its wall limit (transfer, cleanup) before the
    # container is declared hung.
    reply_grace_s: float = 20.0
    docker_timeout_s: int = 60

    @classmethod
    def from_config(cls, config: Any) -> "DockerSettings":
        s = cls()
        s.image = getattr(config, "docker_image", None) or os.environ.get("CODETEST_DOCKER_IMAGE") or s.image
        s.runtime = getattr(config, "docker_runtime", None) or os.environ.get("CODETEST_DOCKER_RUNTIME") or None
        s.jobs_per_container = int(getattr(config, "docker_jobs_per_container", 0)
                                   or _env_int("CODETEST_DOCKER_RECYCLE", s.jobs_per_container))
        s.containers = max(1, int(getattr(config, "slots", 0) or os.cpu_count() or 1))
        s.memory_mb = int(getattr(config, "docker_memory_mb", 0) or _env_int("CODETEST_DOCKER_MEMORY_MB", s.memory_mb))
        s.cpus = float(getattr(config, "docker_cpus", 0) or _env_float("CODETEST_DOCKER_CPUS", s.cpus))
        s.pids = _env_int("CODETEST_DOCKER_PIDS", s.pids)
        s.pids_runsc = _env_int("CODETEST_DOCKER_PIDS_RUNSC", s.pids_runsc)
        s.work_mb = _env_int("CODETEST_DOCKER_WORK_MB", s.work_mb)
        s.tmp_mb = _env_int("CODETEST_DOCKER_TMP_MB", s.tmp_mb)
        s.prog_cache_mb = _env_int("CODETEST_DOCKER_PROG_CACHE_MB", s.prog_cache_mb)
        s.uid_base = _env_int("CODETEST_DOCKER_UID_BASE", s.uid_base)
        s.acquire_timeout_s = _env_float("CODETEST_DOCKER_ACQUIRE_TIMEOUT_S", s.acquire_timeout_s)
        return s
