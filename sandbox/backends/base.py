"""What every backend does: run one command in a fresh jail and say what happened.

The engine above (languages, compile cache, comparison, verdicts) is shared; a backend
only knows how to execute an ``ExecSpec`` with every isolation layer it has.

Paths inside a jail are fixed so that commands are the same on every backend:
``/prog`` holds the program's files read-only, ``/work`` is the writable working
directory (fresh and empty per execution; the compile step's ``work_dir`` files are copied in and back).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Protocol

from ..jail.protocol import RESULT_FD, Facts, Limits  # noqa: F401  (re-exported)

PROG_DIR = "/prog"
WORK_DIR = "/work"
JAIL_ATTEMPTS = 2
"""How often an execution is tried. A jail that fails one (it reports an ``error`` and stops,
dies, or stops answering) is replaced, and the execution runs again on a fresh jail; only the
last failure is the caller's ``SE``. A failure of the jail is never the program's verdict."""


# One schema for limits and one record of facts, shared with the jail (see sandbox/jail/protocol.py).
ExecLimits = Limits
ExecResult = Facts


@dataclass
class ExecSpec:
    argv: list[str]
    limits: ExecLimits
    stdin: bytes = b""
    # Host folder with the program's files, read-only at /prog (native: a tmpfs copy; Docker:
    # sent once per container and cached there).
    program_dir: Optional[str] = None
    # The program's files given in memory instead (name -> bytes; a backend whose
    # ``inline_programs`` is true): read-only at /prog all the same, nothing on the host's disk.
    program_files: dict[str, bytes] = field(default_factory=dict)
    # The compile step: a host folder whose files are copied into the run's /work, and which
    # afterwards holds exactly what /work held (backends/files.py); None: a fresh, empty /work.
    work_dir: Optional[str] = None
    # Files written into /work before the program starts (a checker's input/answer).
    files: dict[str, bytes] = field(default_factory=dict)
    # Python source to run in a pre-started interpreter instead of exec'ing argv
    # (the fork-server fast path); argv is then only what sys.argv shows.
    python_inline: Optional[str] = None
    env: dict[str, str] = field(default_factory=dict)
    # Paths under /work to read back after the run (SandboxFusion's fetch_files); None: none.
    fetch: Optional[list[str]] = None
    # When its client needs the answer (None: no deadline).
    deadline: Optional["Deadline"] = None


@dataclass(frozen=True)
class Deadline:
    """When a client needs an execution's answer, as ``time.monotonic()`` values.

    ``reply_by``: the wait for a CPU that the wall limit forgives ends by then (``Limits.within``);
    ``start_by``: an execution whose turn comes later is not started (``DeadlinePassed``: not
    judged at all, rather than judged on less than its time)."""

    reply_by: float
    start_by: float


class Backend(Protocol):
    name: str
    slots: int
    # Whether ``ExecSpec.program_files`` may stand for ``program_dir``: a program with no compile
    # step then never touches the disk (the compile cache folder costs a few file system
    # operations per distinct program, which a trainer's unique completions would pay each time).
    inline_programs: bool

    def execute(self, spec: ExecSpec) -> Facts:
        """Run one command in a fresh jail and report what happened (facts, never a verdict);
        blocks until a slot is free and the run ends. ``Facts.error`` is set only when the
        sandbox itself failed."""

    def health(self) -> dict:
        """Active isolation layers, runtime details, problems found."""

    def gate(self) -> dict:
        """The part of ``health`` the isolation gate reads before every run: ``{"layers": ...,
        "problems": [...]}``. Cheap: it is asked once per request (no polling of every slot)."""

    def close(self) -> None:
        """Stop every worker and remove what the backend created."""


def facts_from_reply(r: dict) -> Facts:
    """Facts out of a jail reply of the old dict form (transitional; base64 output)."""
    import base64

    if r.get("error") and "exit_code" not in r:
        return Facts(error=r["error"])
    killed_by = None
    for flag, name in (("output_exceeded", "output"), ("memory_exceeded", "memory"), ("wall_exceeded", "wall"),
                       ("cpu_exceeded", "cpu")):
        if r.get(flag):
            killed_by = name
            break
    out, err = base64.b64decode(r.get("stdout", "")), base64.b64decode(r.get("stderr", ""))
    return Facts(exit_code=r.get("exit_code"), signal=r.get("signal"), cpu_s=float(r.get("cpu_s", 0.0)),
                 wall_s=float(r.get("wall_s", 0.0)), memory_bytes=int(r.get("memory_kb", 0)) * 1024,
                 stdout=out, stderr=err, stdout_size=len(out), stderr_size=len(err), killed_by=killed_by,
                 error=r.get("error"))
