"""Every setting of the sandbox, read in this one place: arguments, else ``CODETEST_*`` variables.

Each variable is read once, when a config is made, and cast loudly: a value that is not of its
type (``CODETEST_SLOTS=two``) raises :class:`~sandbox.errors.ConfigError` naming the variable,
never a silent default (encode/starlette's ``config.py`` is the model). The table of variables
is in README.md ("Configuration"); nothing else in the repository reads ``os.environ`` for a
setting of the sandbox or the service.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TypeVar

from .errors import ConfigError

T = TypeVar("T")

# Layer names, the same on every backend (see docs/architecture.md "Isolation, layer by layer").
LAYERS = ("namespaces", "gvisor", "seccomp", "cgroups", "rlimits", "uid")
# What a backend must have unless the operator lowers the bar. gVisor is reported, not required.
DEFAULT_REQUIRED = ("namespaces", "seccomp", "cgroups", "rlimits", "uid")
# Docker container k runs its programs as uid_base + DOCKER_UID_OFFSET + k (native slot i: uid_base + i).
DOCKER_UID_OFFSET = 1000


def env(name: str, cast: Callable[[str], T], default: T) -> T:
    """``CODETEST_<name>`` cast by ``cast``; unset or empty gives ``default``; a bad value raises."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return cast(raw.strip())
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{name}={raw!r} is not a valid {getattr(cast, '__name__', 'value')}: {e}") from None


def env_str(name: str, default: Optional[str] = None) -> Optional[str]:
    return env(name, str, default)


def env_list(name: str) -> tuple[str, ...]:
    """A comma-separated list; empty items dropped."""
    raw = os.environ.get(name, "")
    return tuple(x.strip() for x in raw.split(",") if x.strip())


def positive(cast: Callable[[str], T]) -> Callable[[str], T]:
    def check(raw: str) -> T:
        v = cast(raw)
        if v <= 0:  # type: ignore[operator]
            raise ValueError("must be greater than 0")
        return v
    check.__name__ = f"positive {cast.__name__}"
    return check


def non_negative(cast: Callable[[str], T]) -> Callable[[str], T]:
    def check(raw: str) -> T:
        v = cast(raw)
        if v < 0:  # type: ignore[operator]
            raise ValueError("must not be negative")
        return v
    check.__name__ = f"non-negative {cast.__name__}"
    return check


def default_state_dir() -> str:
    base = "/var/lib/codetest" if os.geteuid() == 0 else os.path.join(tempfile.gettempdir(), f"codetest-{os.geteuid()}")
    return env("CODETEST_STATE_DIR", str, base)


def default_docker_owners_dir() -> str:
    """One folder per host that every instance sees: /run/codetest/docker-pools as root."""
    base = "/run/codetest" if os.geteuid() == 0 else os.path.join(tempfile.gettempdir(), f"codetest-{os.geteuid()}")
    return env("CODETEST_DOCKER_OWNERS_DIR", str, os.path.join(base, "docker-pools"))


def toolchain_override(language: str) -> Optional[str]:
    """``CODETEST_<LANGUAGE>``: the toolchain binary the operator names for a language."""
    return env_str(f"CODETEST_{language.upper()}")


def api_keys() -> tuple[str, ...]:
    """``CODETEST_API_KEYS`` (comma separated): keeps secrets off the command line."""
    return env_list("CODETEST_API_KEYS")


def slots_from_env() -> int:
    """``CODETEST_SLOTS``: concurrent executions the operator asked for; 0 when unset (then the
    library runs one per CPU core and the service its own default, ``slots_per_core``)."""
    return env("CODETEST_SLOTS", non_negative(int), 0)


@dataclass
class SandboxConfig:
    backend: str = field(default_factory=lambda: env("CODETEST_BACKEND", str, "native"))
    # Concurrent executions; 0 (the default) is one per CPU core.
    slots: int = field(default_factory=lambda: slots_from_env() or (os.cpu_count() or 1))
    # The CPU gate (cpu_gate.py): past 2 executions per core in flight, a slot waits to start its
    # next one while the machine has more than this many tasks per core ready to run and our own
    # CPU-bound programs are what crowds it. They then run a few at a time instead of all sharing
    # the cores and all missing their clients' deadlines. 0 (the default) leaves the gate off: on
    # a mix with infinite loops the loops hold it and quick programs miss their deadlines at its
    # door, and it costs quick workloads about 6 % of their throughput (docs/api.md); 2 is the
    # tested setting, for completions that are nearly all CPU-heavy.
    runnable_per_core: float = field(default_factory=lambda: env("CODETEST_RUNNABLE_PER_CORE",
                                                                 non_negative(float), 0.0))
    # The young-execution cap (young_cap.py): an execution starts only while fewer than this
    # many per core that started less than young_ms ago still run, so quick programs run a few
    # at a time instead of all sharing the cores (measured in docs/api.md, "Admission and load"),
    # and one that runs longer no longer counts, so nothing waits long behind sleepers or loops.
    # 0 in either switches it off.
    young_per_core: float = field(default_factory=lambda: env("CODETEST_YOUNG_PER_CORE", non_negative(float), 3.0))
    young_ms: float = field(default_factory=lambda: env("CODETEST_YOUNG_MS", non_negative(float), 50.0))
    # Compile cache and scratch space live here.
    state_dir: str = field(default_factory=default_state_dir)
    cache_max_mb: int = field(default_factory=lambda: env("CODETEST_CACHE_MAX_MB", positive(int), 2048))
    # A compile cache shared by several instances (replicas on one volume): compiled programs are
    # stored there instead of <state_dir>/cache; the same key rules (successes and deterministic
    # compiler rejections only), written by atomic rename. None: the instance's own cache.
    shared_cache_dir: Optional[str] = field(default_factory=lambda: env_str("CODETEST_SHARED_CACHE_DIR"))
    # Layers a backend must provide or it refuses to run code. An operator lowers the bar
    # explicitly with allow_missing (CODETEST_ALLOW_MISSING=cgroups,uid).
    required_layers: tuple[str, ...] = DEFAULT_REQUIRED
    allow_missing: tuple[str, ...] = field(default_factory=lambda: env_list("CODETEST_ALLOW_MISSING"))
    # Layers to switch off (seccomp, cgroups, rlimits): for diagnostics and for tests that show
    # each remaining layer holds on its own. A disabled layer is missing, so it must also be
    # in allow_missing or the sandbox refuses to run.
    disable: tuple[str, ...] = field(default_factory=lambda: env_list("CODETEST_DISABLE_LAYERS"))
    # The one uid base (root hosts): native slot i runs as uid_base + i, Docker container k's
    # programs as uid_base + 1000 + k.
    uid_base: int = field(default_factory=lambda: env("CODETEST_UID_BASE", positive(int), 61000))
    # A delegated cgroup v2 folder for non-root hosts.
    cgroup_root: Optional[str] = field(default_factory=lambda: env_str("CODETEST_CGROUP_ROOT"))
    # Hard server-side cap on a compile's wall clock, whatever a request asks (seconds).
    compile_wall_max_s: float = field(default_factory=lambda: env("CODETEST_COMPILE_WALL_MAX_S", positive(float), 60.0))
    # Program output (stdout + stderr) one job keeps in its result, MiB; past it a test's
    # output is judged in full but not returned (the result says so).
    job_output_mb: int = field(default_factory=lambda: env("CODETEST_JOB_OUTPUT_MB", positive(int), 64))
    # Program output all jobs in flight keep at once, MiB: the service's memory bound for output.
    total_output_mb: int = field(default_factory=lambda: env("CODETEST_OUTPUT_BUDGET_MB", positive(int), 512))
    # Docker backend settings (the rest of DockerSettings below).
    docker_image: str = field(default_factory=lambda: env("CODETEST_DOCKER_IMAGE", str, "codetest-runtime:latest"))
    docker_runtime: Optional[str] = field(default_factory=lambda: env_str("CODETEST_DOCKER_RUNTIME"))
    docker_jobs_per_container: int = field(default_factory=lambda: env("CODETEST_DOCKER_RECYCLE", positive(int), 500))
    # Each pool container's own memory and CPU caps (0: the backend's defaults, see docs/docker.md).
    docker_memory_mb: int = field(default_factory=lambda: env("CODETEST_DOCKER_MEMORY_MB", non_negative(int), 0))
    docker_cpus: float = field(default_factory=lambda: env("CODETEST_DOCKER_CPUS", non_negative(float), 0.0))
    # Where each Docker backend holds a lock for its pool while it lives (docs/docker.md, "Leftover
    # containers"): a starting backend removes the containers of pools whose lock is free. Every
    # instance that should clean up after the others must see the same folder.
    docker_owners_dir: str = field(default_factory=default_docker_owners_dir)

    def effective_required(self) -> set[str]:
        return set(self.required_layers) - set(self.allow_missing)


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
    owners_dir: str = ""        # pool locks (SandboxConfig.docker_owners_dir); "" when not known
    # How often a running backend looks again for containers of dead instances (a container an
    # instance was creating when it was killed can appear after the next instance's start-up).
    stale_sweep_s: float = 30.0
    start_timeout_s: float = 60.0
    acquire_timeout_s: float = 120.0
    poll_s: float = 0.005
    # Seconds a request may take beyond its wall limit (transfer, cleanup) before the
    # container is declared hung.
    reply_grace_s: float = 20.0
    docker_timeout_s: int = 60

    @classmethod
    def from_config(cls, config: Any) -> "DockerSettings":
        """The settings a SandboxConfig names, the rest from ``CODETEST_DOCKER_*`` (cast loudly)."""
        s = cls()
        s.image = getattr(config, "docker_image", None) or s.image
        s.runtime = getattr(config, "docker_runtime", None) or None
        s.jobs_per_container = int(getattr(config, "docker_jobs_per_container", 0) or s.jobs_per_container)
        s.containers = max(1, int(getattr(config, "slots", 0) or os.cpu_count() or 1))
        s.memory_mb = int(getattr(config, "docker_memory_mb", 0) or s.memory_mb)
        s.cpus = float(getattr(config, "docker_cpus", 0) or s.cpus)
        s.uid_base = int(getattr(config, "uid_base", 61000)) + DOCKER_UID_OFFSET
        s.owners_dir = getattr(config, "docker_owners_dir", "") or default_docker_owners_dir()
        s.pids = env("CODETEST_DOCKER_PIDS", positive(int), s.pids)
        s.pids_runsc = env("CODETEST_DOCKER_PIDS_RUNSC", positive(int), s.pids_runsc)
        s.work_mb = env("CODETEST_DOCKER_WORK_MB", positive(int), s.work_mb)
        s.tmp_mb = env("CODETEST_DOCKER_TMP_MB", positive(int), s.tmp_mb)
        s.prog_cache_mb = env("CODETEST_DOCKER_PROG_CACHE_MB", positive(int), s.prog_cache_mb)
        s.acquire_timeout_s = env("CODETEST_DOCKER_ACQUIRE_TIMEOUT_S", positive(float), s.acquire_timeout_s)
        s.stale_sweep_s = env("CODETEST_DOCKER_STALE_SWEEP_S", positive(float), s.stale_sweep_s)
        return s
