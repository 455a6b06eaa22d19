"""The typed boundary between the host and a jail: what goes in, what comes out, on the wire.

Modelled on httpx's ``_transports/base.py``: every field is documented here, and nothing
crosses the boundary that is not declared here. Standard library only.

One execution, seen from the host::

    host ──Header + Job (frames: argv, stdin, files, source)──►  supervisor (long-lived)
    supervisor ──the Job, on a socket of its own──►  program process (a fresh fork of the zygote)
    host ◄──Facts + stdout/stderr/result bytes (frames)──  supervisor

The zygote (the warm interpreter, see ``spawner``) never reads a byte of any job; every
program's process is a fresh fork of it and receives only its own job. The supervisor holds
jobs and never forks a program.

The jail reports **facts** (``Facts``); it decides no verdict. ``sandbox`` turns facts into a
verdict in one function.

Wire format: a sequence of frames ``[kind: u8][length: u32 big-endian][payload]``. Bytes
(stdin, files, source, stdout, stderr, result) travel raw in their own frames, never as JSON
escapes or base64; only small scalar records are JSON. Every reader bounds what it accepts.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass, field, fields, replace
from typing import Iterable, Optional

# --- the program's private result descriptor ------------------------------------------------

RESULT_FD = 3
"""File descriptor on which a program may write its function-call result (a pipe, write end).

Only the program (and what it starts) holds it; stdout cannot forge it. The jail reads at most
``Limits.output_bytes`` bytes from it and reports them as ``Facts.result`` (``result_size``
counts every byte written, so ``result_size > len(result)`` means it was cut). What the bytes
mean (e.g. one JSON document) is the host driver's business; the jail only carries them.
Writing more than the cap does not block the program: the jail keeps reading and discards.
"""

# --- limits: one schema, with units -----------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """What one execution may use. The jail enforces each; which one fired is a fact.

    Units are in the names: ``_s`` seconds, ``_bytes`` bytes; counts have no suffix.
    """

    cpu_s: float
    """CPU time (user + system) of every process of the execution together, seconds. The
    cgroup's accounting (or the container's meter) judges it, sampled while the program runs so
    that it is stopped once past it; RLIMIT_CPU (rounded down + 1 s, per process) is a backstop."""
    wall_s: float
    """Wall-clock time from the program's start (its start stamp, ``clock``), seconds, not counting the time its process
    waited for a CPU (its schedstat run delay, up to ``wait_allowance`` x ``wall_s``): past it
    the jail kills everything. It catches sleepers; a busy machine stretches the clock, never
    the program's own time (``clock_budget_s``)."""
    memory_bytes: int
    """Peak memory of the execution's memory cgroup (anonymous, page cache, tmpfs, kernel
    memory charged to it), bytes. No swap."""
    output_bytes: int
    """stdout and stderr together, bytes; the first byte beyond it kills the program
    (``Facts.killed_by == "output"``). Also the cap of the result descriptor."""
    processes: int
    """Tasks (processes and threads) at once: the pids cgroup (and RLIMIT_NPROC in a container)."""
    file_size_bytes: int
    """Largest file the program may write (RLIMIT_FSIZE), and the size of /work and /tmp."""
    open_files: int = 256
    """Open descriptors per process (RLIMIT_NOFILE)."""
    stack_bytes: int = 1 << 30
    """Stack size (RLIMIT_STACK); never above ``memory_bytes``."""
    wait_allowance: float = 0.0
    """Waiting for a CPU not counted against ``wall_s``, as a multiple of it (the API's
    ``cpu_wait_allowance``, 4 by default there): on a machine busy with other executions a
    CPU-bound program is not killed by the clock before it has had its time, while its CPU limit
    still judges it. 0: the wall limit is hard (``/run_code``, whose answer must come within
    verl's HTTP timeout)."""

    @classmethod
    def from_dict(cls, d: dict) -> "Limits":
        return cls(**{k: v for k, v in d.items() if k in _LIMIT_NAMES})

    def clock_budget_s(self) -> float:
        """The longest an execution may take by the clock: ``wall_s`` plus the most waiting for
        a CPU that is not counted against it. What the host waits for before a slot counts as hung."""
        return float(self.wall_s) * (1 + float(self.wait_allowance))

    def within(self, seconds: float) -> "Limits":
        """These limits with the waiting allowance cut so that ``clock_budget_s()`` fits in
        ``seconds`` (a client's time left). Never below the hard wall limit: ``wall_s`` itself
        and every other limit are the program's and stay as they are."""
        most = max(0.0, float(seconds) / float(self.wall_s) - 1) if self.wall_s > 0 else 0.0
        if float(self.wait_allowance) <= most:
            return self
        return replace(self, wait_allowance=most)

    def tmpfs_bytes(self) -> int:
        """The size of the run's /work, /tmp and /mnt tmpfs (native): ``file_size_bytes``, at
        least 1 MiB; also what the compile step's /work may hand back."""
        return max(int(self.file_size_bytes), 1 << 20)

    def to_tuple(self) -> tuple:
        """The fields in order (``Limits(*t)`` is the same limits)."""
        return tuple(getattr(self, name) for name in _LIMIT_NAMES)

    def to_dict(self) -> dict:
        """The fields as they go on the wire (all scalars: no deep copy, unlike ``asdict``,
        which costs more than the rest of a header's encoding)."""
        return {name: getattr(self, name) for name in _LIMIT_NAMES}


_LIMIT_NAMES = tuple(f.name for f in fields(Limits))


# --- the request --------------------------------------------------------------------------------

LIMIT_WALL = "wall"
LIMIT_CPU = "cpu"
LIMIT_MEMORY = "memory"
LIMIT_OUTPUT = "output"
KILLED_BY = (LIMIT_WALL, LIMIT_CPU, LIMIT_MEMORY, LIMIT_OUTPUT)


@dataclass(frozen=True)
class Header:
    """What comes first for an execution: its limits and the size of the ``Job`` that follows
    on the same stream (``job_size`` bytes of frames); no job content.
    """

    limits: Limits
    """This execution's limits."""
    job_size: int
    """Bytes of Job frames that follow the header on the stream."""
    op: str = "exec"
    """``exec`` (run one job) or ``stop`` (end the server)."""


@dataclass
class Job:
    """Everything of one job. Held by the supervisor and by this job's program process only."""

    argv: list[str]
    """The program and its arguments; ``argv[0]`` is a path inside the jail (or a name found
    on PATH in a container). With ``python_source`` it is only what ``sys.argv`` shows
    (``argv[1:]``), as under ``python3 prog.py``."""
    env: dict[str, str] = field(default_factory=dict)
    """Added to the jail's scrubbed environment (PATH, HOME, LANG, ...)."""
    stdin: bytes = b""
    """The program's standard input (a memfd: seekable, read-only for the program)."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Files written into /work before the program starts (a checker's input/answer), owned
    by the program's user; a name ending in ``/`` makes an empty directory."""
    python_source: Optional[str] = None
    """Python source to run in the warm interpreter (fork, not exec), compiled with
    ``dont_inherit=True`` as ``argv[1]`` (or ``<string>``) in a fresh ``__main__``."""
    program_dir: Optional[str] = None
    """Native: a host folder copied read-only into /prog (a tmpfs: no host path shows)."""
    box: dict = field(default_factory=dict)
    """Scalars for the box. Both backends: ``collect_work`` (the compile step: the work files
    in ``blobs`` are written into /work with the modes in ``box["work:modes"]``, and /work's
    files come back at the end, as the extras ``work_files`` [[name, mode], ...] with one blob
    each, or ``work_error`` when /work held more than its size). Docker: program cache key,
    keys to evict."""
    blobs: dict[str, bytes] = field(default_factory=dict)
    """Named byte strings for the box: ``work:<name>`` (the compile step's files, both
    backends), ``prog:<name>`` (the program's files, modes in ``box["prog:modes"]``: Docker,
    for its cache; native, a program given inline instead of ``program_dir``, for /prog)."""
    fetch: Optional[list[str]] = None
    """Paths to read back once the program and everything it started have ended
    (SandboxFusion's ``fetch_files``): relative to /work, or absolute under /work/ or /mnt/
    (``fetch.read_fetch``; any other absolute path is left out); they come back in ``Facts.files``. Names the
    program controls: a path with ``..``, a NUL or nothing in it is skipped; no component may
    be a symlink (never followed); only regular files are read (a FIFO or device is skipped
    unopened); a missing file is left out. At most ``FETCH_BYTES`` bytes in all. Ignored by the
    compile step (``collect_work``: all of /work comes back). None: nothing is read back."""


@dataclass
class Facts:
    """What happened to one execution: measurements, never a verdict.

    ``sandbox``'s one verdict function reads these (and the job's limits) and nothing else.
    """

    exit_code: Optional[int] = None
    """Exit status when the program exited normally (0-255), else None."""
    signal: Optional[int] = None
    """The signal number that ended the program, else None (SIGKILL after a limit fired too)."""
    cpu_s: float = 0.0
    """CPU time of every process of the execution together (cgroup accounting when there is a
    cgroup, else the reaped children's rusage), seconds."""
    wall_s: float = 0.0
    """Wall-clock seconds from the program's start stamp to its end stamp (or the kill): the
    jail's set-up before it and the reporting after it are not in it (``clock``)."""
    run_delay_s: float = 0.0
    """Of ``wall_s``, the seconds the program's main thread was ready to run but waited for a CPU
    (``/proc/<pid>/schedstat``'s run_delay from the start stamp on, read before the reap): ``wall_s - run_delay_s`` is
    the program's own elapsed time, whatever the load. 0 where the kernel (or gVisor) shows none."""
    memory_bytes: int = 0
    """Peak memory of the execution, bytes: the cgroup's peak when there is one (a fresh
    cgroup per execution), else the container's meter or the maximum resident set."""
    stdout: bytes = b""
    """What the program wrote on stdout, at most ``Limits.output_bytes`` (with stderr)."""
    stderr: bytes = b""
    """What the program wrote on stderr; stdout and stderr together stay within the cap."""
    stdout_size: int = 0
    """Bytes the jail read from the program's stdout, kept or not."""
    stderr_size: int = 0
    """Bytes the jail read from the program's stderr, kept or not."""
    killed_by: Optional[str] = None
    """The limit the jail enforced by killing the program: ``wall``, ``cpu``, ``memory`` or
    ``output``; None when the jail killed nothing (the program ended on its own)."""
    oom_kill: bool = False
    """The kernel's OOM killer acted inside the execution's memory cgroup."""
    cpu_limit_signal: bool = False
    """The program got SIGXCPU (RLIMIT_CPU, the backstop of ``Limits.cpu_s``)."""
    result: bytes = b""
    """Bytes the program wrote on ``RESULT_FD``, at most ``Limits.output_bytes``."""
    result_size: int = 0
    """Bytes the program wrote on ``RESULT_FD``, kept or not."""
    files: dict[str, bytes] = field(default_factory=dict)
    """``Job.fetch`` read back: path as asked -> the file's bytes, for each asked path that was a
    regular file reachable without a link when the execution ended (``FETCH_BYTES`` in all)."""
    error: Optional[str] = None
    """Set only when the sandbox itself failed (the jail could not be set up, the slot
    broke): the program is not to blame. Every other field is then meaningless."""

    # -- derived, read-only views (kept for the engine of before the verdict function)

    @property
    def output_truncated(self) -> bool:
        """More was written on stdout/stderr than was kept."""
        return self.stdout_size + self.stderr_size > len(self.stdout) + len(self.stderr)

    @property
    def memory_kb(self) -> int:
        return self.memory_bytes // 1024

    @property
    def wall_exceeded(self) -> bool:
        return self.killed_by == LIMIT_WALL

    @property
    def cpu_exceeded(self) -> bool:
        return self.killed_by == LIMIT_CPU or self.cpu_limit_signal

    @property
    def memory_exceeded(self) -> bool:
        return self.killed_by == LIMIT_MEMORY or self.oom_kill

    @property
    def output_exceeded(self) -> bool:
        return self.killed_by == LIMIT_OUTPUT


FACT_SCALARS = ("exit_code", "signal", "cpu_s", "wall_s", "run_delay_s", "memory_bytes", "stdout_size", "stderr_size",
                "killed_by", "oom_kill", "cpu_limit_signal", "result_size", "error")
FACT_BYTES = ("stdout", "stderr", "result")

FETCH_BYTES = 64 << 20
"""Bytes of ``Job.fetch`` files one execution returns at most, all files together; the jail
stops reading there and the host refuses a reply beyond it."""

# --- frames -----------------------------------------------------------------------------------

F_HEADER = 1   # JSON: Header
F_JOB = 2      # JSON: Job's scalar fields (argv, env, dirs, box, byte sizes)
F_BYTES = 3    # raw bytes, named by the JSON frame before it (order is fixed)
F_FACTS = 4    # JSON: Facts' scalar fields + backend extras
F_END = 5      # end of a message
F_INIT = 6     # JSON: the server's one-time configuration
F_REPLY = 7    # JSON: a small control reply (init answer, error)

_HEAD = struct.Struct(">BI")
MAX_CONTROL = 16 << 20  # a JSON control frame is never larger than this


class ProtocolError(Exception):
    """The peer broke the protocol (a frame too large, of the wrong kind, or cut short)."""


def frame(kind: int, payload: bytes) -> bytes:
    return _HEAD.pack(kind, len(payload)) + payload


def json_frame(kind: int, obj) -> bytes:
    return frame(kind, json.dumps(obj, separators=(",", ":")).encode())


def write_all(fd: int, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_exact(fd: int, n: int) -> Optional[bytes]:
    """Exactly n bytes, or None at end of stream before the first byte."""
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            if not buf:
                return None
            raise ProtocolError(f"stream ended after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def read_frame(fd: int, max_size: int = MAX_CONTROL, want: Optional[int] = None):
    """(kind, payload) of the next frame on fd, or None at end of stream."""
    head = read_exact(fd, _HEAD.size)
    if head is None:
        return None
    kind, n = _HEAD.unpack(head)
    if n > max_size:
        raise ProtocolError(f"frame of {n} bytes (at most {max_size})")
    if want is not None and kind != want:
        raise ProtocolError(f"frame kind {kind}, expected {want}")
    return kind, (read_exact(fd, n) or b"") if n else b""


class FrameBuffer:
    """Frames out of a byte stream that arrives in pieces (the host side, with deadlines)."""

    def __init__(self, max_size: int):
        self.buf = bytearray()
        self.max_size = max_size

    def feed(self, data: bytes) -> None:
        self.buf += data

    def take(self):
        """The next complete (kind, payload), or None."""
        if len(self.buf) < _HEAD.size:
            return None
        kind, n = _HEAD.unpack_from(self.buf, 0)
        if n > self.max_size:
            raise ProtocolError(f"frame of {n} bytes (at most {self.max_size})")
        if len(self.buf) < _HEAD.size + n:
            return None
        payload = bytes(self.buf[_HEAD.size:_HEAD.size + n])
        del self.buf[:_HEAD.size + n]
        return kind, payload


# --- messages ---------------------------------------------------------------------------------

def encode_job(job: Job) -> bytes:
    """The Job as frames: one JSON frame, then one raw frame per byte string, then END."""
    names = sorted(job.files)
    blob_names = sorted(job.blobs)
    meta = {
        "argv": list(job.argv), "env": dict(job.env), "program_dir": job.program_dir,
        "python": job.python_source is not None, "files": names, "blobs": blob_names, "box": job.box,
        "fetch": None if job.fetch is None else [str(p) for p in job.fetch],
    }
    parts = [json_frame(F_JOB, meta), frame(F_BYTES, job.stdin)]
    parts += [frame(F_BYTES, job.files[n]) for n in names]
    parts += [frame(F_BYTES, job.blobs[n]) for n in blob_names]
    if job.python_source is not None:
        parts.append(frame(F_BYTES, job.python_source.encode("utf-8", "surrogatepass")))
    parts.append(frame(F_END, b""))
    return b"".join(parts)


def decode_job(fd: int, job_size: int) -> Job:
    """Read exactly one Job (``job_size`` bytes of frames) from fd."""
    left = job_size

    def take(want: int, limit: int = 1 << 40) -> bytes:
        nonlocal left
        got = read_frame(fd, min(limit, left), want)
        if got is None:
            raise ProtocolError("stream ended inside a job")
        left -= _HEAD.size + len(got[1])
        return got[1]

    meta = json.loads(take(F_JOB, MAX_CONTROL))
    job = Job(argv=list(meta["argv"]), env=dict(meta.get("env") or {}), program_dir=meta.get("program_dir"),
              box=dict(meta.get("box") or {}),
              fetch=None if meta.get("fetch") is None else [str(p) for p in meta["fetch"]])
    job.stdin = take(F_BYTES)
    for n in meta.get("files", []):
        job.files[n] = take(F_BYTES)
    for n in meta.get("blobs", []):
        job.blobs[n] = take(F_BYTES)
    if meta.get("python"):
        job.python_source = take(F_BYTES).decode("utf-8", "surrogatepass")
    take(F_END, 0)
    if left != 0:
        raise ProtocolError(f"job size mismatch ({left} bytes left)")
    return job


def encode_header(h: Header) -> bytes:
    return json_frame(F_HEADER, {"op": h.op, "limits": h.limits.to_dict(), "job_size": h.job_size})


def decode_header(payload: bytes) -> Header:
    d = json.loads(payload)
    return Header(limits=Limits.from_dict(d.get("limits") or _NO_LIMITS), job_size=int(d.get("job_size", 0)),
                  op=str(d.get("op", "exec")))


_NO_LIMITS = {"cpu_s": 0, "wall_s": 0, "memory_bytes": 0, "output_bytes": 0, "processes": 0, "file_size_bytes": 0}


def encode_facts(facts: Facts, extras: Optional[dict] = None, blobs: Iterable[bytes] = ()) -> bytes:
    """Facts as frames: a JSON frame of the scalars (plus backend extras), then stdout, stderr,
    result, the fetched files (``Facts.files``, in the order ``meta["files"]`` names them) and
    any extra byte strings as raw frames, then END."""
    meta = {k: getattr(facts, k) for k in FACT_SCALARS}
    blobs = list(blobs)
    names = sorted(facts.files)
    meta["extras"] = dict(extras or {})
    meta["n_blobs"] = len(blobs)
    meta["files"] = names
    parts = [json_frame(F_FACTS, meta)] + [frame(F_BYTES, getattr(facts, k)) for k in FACT_BYTES]
    parts += [frame(F_BYTES, facts.files[n]) for n in names]
    parts += [frame(F_BYTES, b) for b in blobs]
    parts.append(frame(F_END, b""))
    return b"".join(parts)


class FactsReader:
    """Reassembles one Facts message from frames, bounding every byte string.

    ``output_cap``: stdout and stderr together, and the result, may not exceed it (the jail
    already keeps to it; a larger frame is a broken jail, not a program's doing).
    ``fetch_cap``: the fetched files together (``FETCH_BYTES``; 0 when the job fetched none).
    """

    def __init__(self, output_cap: int, blob_cap: int = 0, fetch_cap: int = 0):
        self.output_cap = output_cap
        self.blob_cap = blob_cap
        self.fetch_cap = fetch_cap
        self.fetched = 0
        self.meta: Optional[dict] = None
        self.byts: list[bytes] = []
        self.done = False

    def _n_files(self) -> int:
        assert self.meta is not None
        return len(self.meta.get("files") or ())

    def add(self, kind: int, payload: bytes) -> bool:
        """Take one frame; True once the message is complete."""
        if self.meta is None:
            if kind != F_FACTS:
                raise ProtocolError(f"expected facts, got frame kind {kind}")
            self.meta = json.loads(payload)
            names = self.meta.get("files") or []
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ProtocolError("fetched file names are not a list of strings")
            return False
        if kind == F_END:
            if len(self.byts) != 3 + self._n_files() + int(self.meta.get("n_blobs", 0)):
                raise ProtocolError("facts message cut short")
            self.done = True
            return True
        if kind != F_BYTES:
            raise ProtocolError(f"unexpected frame kind {kind} in facts")
        i = len(self.byts)
        if i == 1 and len(self.byts[0]) + len(payload) > self.output_cap:
            raise ProtocolError("stdout and stderr beyond the output cap")
        if i in (0, 2) and len(payload) > self.output_cap:
            raise ProtocolError("output beyond the cap")
        if 3 <= i < 3 + self._n_files():
            self.fetched += len(payload)
            if self.fetched > self.fetch_cap:
                raise ProtocolError("fetched files beyond their cap")
        elif i >= 3 and len(payload) > self.blob_cap:
            raise ProtocolError("extra bytes beyond their cap")
        self.byts.append(payload)
        return False

    def facts(self) -> tuple[Facts, dict, list[bytes]]:
        assert self.meta is not None and self.done
        m = self.meta
        f = Facts(**{k: m.get(k, getattr(Facts, k, None)) for k in FACT_SCALARS})
        f.stdout, f.stderr, f.result = self.byts[0], self.byts[1], self.byts[2]
        nf = self._n_files()
        f.files = dict(zip(m.get("files") or [], self.byts[3:3 + nf]))
        return f, dict(m.get("extras") or {}), self.byts[3 + nf:]


def facts_from_error(message: str) -> Facts:
    """The sandbox failed; nothing is known of the program."""
    return Facts(error=message)
