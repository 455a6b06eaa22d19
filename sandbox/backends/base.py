"""What every backend does: run one command in a fresh jail and say what happened.

The engine above (languages, compile cache, comparison, verdicts) is shared; a backend
only knows how to execute an ``ExecSpec`` with every isolation layer it has.

Paths inside a jail are fixed so that commands are the same on every backend:
``/prog`` holds the program's files read-only, ``/work`` is the writable working
directory (fresh and empty per execution unless ``work_dir`` binds a host folder there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Protocol

PROG_DIR = "/prog"
WORK_DIR = "/work"


@dataclass(frozen=True)
class ExecLimits:
    cpu_s: float
    wall_s: float
    memory_bytes: int
    output_bytes: int
    processes: int
    file_size_bytes: int


@dataclass
class ExecSpec:
    argv: list[str]
    limits: ExecLimits
    stdin: bytes = b""
    # Host folder with the program's files, mounted read-only at /prog.
    program_dir: Optional[str] = None
    # Host folder mounted read-write at /work (the compile step); None: a fresh tmpfs.
    work_dir: Optional[str] = None
    # Files written into /work before the program starts (a checker's input/answer).
    files: dict[str, bytes] = field(default_factory=dict)
    # Python source to run in a pre-started interpreter instead of exec'ing argv
    # (the fork-server fast path); argv is then only what sys.argv shows.
    python_inline: Optional[str] = None
    env: dict[str, str] = field(default_factory=dict)
    # Paths under /work to read back after the run (SandboxFusion's fetch_files); None: none.
    fetch: Optional[list[str]] = None


@dataclass
class ExecResult:
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    cpu_s: float = 0.0
    wall_s: float = 0.0
    memory_kb: int = 0
    stdout: bytes = b""
    stderr: bytes = b""
    wall_exceeded: bool = False
    cpu_exceeded: bool = False
    memory_exceeded: bool = False
    output_exceeded: bool = False
    # Set when the sandbox itself failed; the program is not to blame (verdict SE).
    error: Optional[str] = None
    # Seconds the program's main thread waited for a CPU (0 where unknown): wall - this is its own time.
    run_delay_s: float = 0.0
    # The fetched files (ExecSpec.fetch) that existed as regular files, by the path asked for.
    files: dict[str, bytes] = field(default_factory=dict)


class Backend(Protocol):
    name: str
    slots: int

    def execute(self, spec: ExecSpec) -> ExecResult:
        """Run one command in a fresh jail; blocks until a slot is free and the run ends."""

    def health(self) -> dict:
        """Active isolation layers, runtime details, problems found."""

    def close(self) -> None:
        """Stop every worker and remove what the backend created."""
