"""The per-execution steps, in the order the program's process takes them.

As in ioi/isolate's ``box_inside`` and nsjail's ``contain.cc``, the program's process goes
through a short list of explicit steps between fork and untrusted code; ``server.contain``
calls them in this order, and each backend's box supplies the steps that differ:

  1. root         the file system the program sees                 (box)
  2. cgroup       join the execution's fresh cgroup                (box)
  3. network      an empty network namespace                       (box)
  4. rlimits      CPU, file size, open files, stack, core, ...     (here)
  5. fds          stdin/stdout/stderr, the result descriptor (3)   (here)
  6. credentials  unprivileged uid, no groups, no capabilities     (box)
  7. files        the job's input files into /work, as that uid    (here, box)
  8. environment  a scrubbed environment; no_new_privs             (here)
  9. seccomp      the shared filter, last before untrusted code    (here)
 10. exec         execve, or the warm interpreter runs the source  (here)
"""

from __future__ import annotations

import fcntl
import os
import resource
import signal

from . import clock, kernel, zygote
from .protocol import RESULT_FD, Limits


def rlimits(lim: Limits, nproc: int = 0, max_stack: int = 0) -> None:
    """Step 4. Never above what the process may set (a container has no CAP_SYS_RESOURCE);
    the message-queue limit is best effort (gVisor refuses it)."""
    cpu = int(lim.cpu_s) + 1  # the cgroup's (or meter's) CPU accounting judges the exact limit
    stack = min(int(lim.memory_bytes), int(lim.stack_bytes))
    if max_stack:  # what the runtime can map at all (gVisor: 128 MiB), so the limit tells the truth
        stack = min(stack, max_stack)
    wanted = [
        (resource.RLIMIT_CPU, cpu, cpu + 1, True),
        (resource.RLIMIT_FSIZE, int(lim.file_size_bytes), int(lim.file_size_bytes), True),
        (resource.RLIMIT_CORE, 0, 0, True),
        (resource.RLIMIT_NOFILE, int(lim.open_files), int(lim.open_files), True),
        (resource.RLIMIT_STACK, stack, stack, True),
        (resource.RLIMIT_MEMLOCK, 0, 0, True),
        (resource.RLIMIT_MSGQUEUE, 0, 0, False),
    ]
    if nproc:
        wanted.append((resource.RLIMIT_NPROC, nproc, nproc, True))
    for which, soft, hard, required in wanted:
        _, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            if required:
                raise


def fds(stdin_fd: int, out_w: int, err_w: int, result_w: int, status_w: int) -> int:
    """Step 5. 0-2 and the result descriptor; everything else closed but the status pipe
    (close-on-exec: it reports a set-up failure until exec succeeds). Returns its new number."""
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 64) for fd in (stdin_fd, out_w, err_w, result_w, status_w)]
    for target, src in zip((0, 1, 2, RESULT_FD), high):
        os.dup2(src, target)  # dup2 leaves the copy inheritable
    status = high[4]
    os.set_blocking(1, True)
    os.closerange(RESULT_FD + 1, status)
    os.closerange(status + 1, 65536)
    return status


def credentials(uid: int, gid: int) -> None:
    """Step 6 (the common part): the unprivileged uid, no groups."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def write_files(files: dict, workdir: str = "/work") -> None:
    """Step 7. The job's files, written by the program's own uid (a name ending in "/" is an
    empty directory the program writes into, e.g. a Kattis checker's feedback/)."""
    for name, data in files.items():
        rel = safe_rel(name)
        path = os.path.join(workdir, rel)
        os.makedirs(os.path.dirname(path) or workdir, exist_ok=True)
        if name.endswith("/"):
            os.makedirs(path, exist_ok=True)
            continue
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            kernel_write(fd, data)
        finally:
            os.close(fd)


def environment(base: dict, extra: dict) -> dict:
    """Step 8. The scrubbed environment; no_new_privs; die with the supervisor."""
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of uid cleared it
    return {**base, **extra}


def seccomp(bpf) -> None:
    """Step 9. The shared filter (seccomp/policy.json), loaded last."""
    if bpf is not None:
        kernel.load_seccomp(bpf)


def exec_program(argv: list, env: dict, python_source, status_w: int, path: str) -> None:
    """Step 10. Never returns. The program's clock starts here (``clock.report_start``)."""
    if python_source is not None:
        clock.report_start(status_w)
        os.close(status_w)  # from here on, failures are the program's own
        zygote.run(python_source, argv, env)
    exe = argv[0]
    if "/" not in exe:
        exe = which(exe, env.get("PATH", path)) or exe
    clock.report_start(status_w)
    os.execve(exe, argv, env)


# --- helpers --------------------------------------------------------------------------------

def safe_rel(rel: str) -> str:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise ValueError(f"bad file name {rel!r}")
    return "/".join(parts)


def kernel_write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def which(name: str, path: str):
    for d in path.split(":"):
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None
