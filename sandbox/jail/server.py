"""The jail server: one per native slot or container, one execution at a time.

The server is a warm interpreter that never reads a byte from the host after its start. It
keeps one fresh **supervisor** forked in advance; the supervisor reads the next ``Header``
(limits and a size: no job content) and the ``Job`` that follows, runs the program through
the steps of ``contain`` (see ``steps``), supervises it, reports ``Facts``, and exits. So the
program's parent is a process that held this job and no other, and every supervisor is forked
from the same clean server. The fork, the sweep after an execution and the next execution's
cgroup folder happen while the host is busy with the reply: off the execution's path.

    server ──fork──► supervisor ──fork──► program (contain: the steps, then exec / Python)
      │                 │ reads Header + Job, writes the Facts, exits
      └ after it exits: the box's sweep (kill what is left, System V IPC, cgroup folders)
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback

from . import kernel, steps, zygote
from .supervise import Pipes, supervise
from .protocol import (
    F_HEADER, F_INIT, F_REPLY, MAX_CONTROL, Facts, Header, Job, Limits, ProtocolError, decode_header, decode_job,
    encode_facts, facts_from_error, json_frame, read_frame, write_all,
)

# What the supervisor tells the server on the sync pipe.
HEADER_READ, JOB_READ, REPLY_STARTED, REPLY_DONE, STOP, PONG = b"H", b"R", b"W", b"D", b"S", b"P"
MAX_EARLY_DEATHS = 3  # supervisors dead before reading anything, in a row: give up


def serve(box, rfd: int, wfd: int) -> int:
    count = 0
    early_deaths = 0
    while True:
        sync_r, sync_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the supervisor
            code = 1
            try:
                os.close(sync_r)
                code = supervisor(box, rfd, wfd, sync_w, count)
            except BaseException:
                traceback.print_exc()
            os._exit(code)
        os.close(sync_w)
        _, status = os.waitpid(pid, 0)
        marks = kernel.drain(sync_r, 16)
        os.close(sync_r)
        box.sweep()
        if STOP in marks:
            return 0
        if PONG in marks:
            continue
        if HEADER_READ not in marks:
            early_deaths += 1
            if early_deaths >= MAX_EARLY_DEATHS:
                return 1
            continue
        early_deaths = 0
        count += 1
        if REPLY_DONE not in marks:
            if REPLY_STARTED in marks:
                return 1  # a reply was cut half-way: the stream is unusable
            write_all(wfd, encode_facts(facts_from_error(f"jail supervisor died (status {status})")))
            if JOB_READ not in marks:
                return 1  # the job is still on the stream: cannot go on


def supervisor(box, rfd: int, wfd: int, sync_w: int, count: int) -> int:
    """Read one execution (the first and only job this process sees), run it, report."""
    try:  # orphans of the program come to us, not to the server (gVisor lacks it: PID 1 reaps)
        kernel.prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)
    except OSError:
        pass
    box.prepare()  # before the header arrives: nothing of the job is known yet
    got = read_frame(rfd, MAX_CONTROL)
    if got is None:
        os.write(sync_w, STOP)
        return 0
    kind, payload = got
    if kind != F_HEADER:
        os.write(sync_w, HEADER_READ)
        raise ProtocolError(f"frame kind {kind}, expected a header")
    header = decode_header(payload)
    if header.op == "stop":
        os.write(sync_w, STOP)
        return 0
    if header.op == "ping":
        write_all(wfd, json_frame(F_REPLY, {"ok": True, "count": count}))
        os.write(sync_w, PONG)
        return 0
    os.write(sync_w, HEADER_READ)
    job = decode_job(rfd, header.job_size)
    os.write(sync_w, JOB_READ)
    os.close(rfd)
    try:
        facts, extras, blobs = execute(box, job, header.limits)
    except Exception as e:
        traceback.print_exc()
        facts, extras, blobs = facts_from_error(f"jail: {type(e).__name__}: {e}"), {}, []
    os.write(sync_w, REPLY_STARTED)
    write_all(wfd, encode_facts(facts, extras, blobs))
    os.write(sync_w, REPLY_DONE)
    return 0


def execute(box, job: Job, lim: Limits):
    """One execution: prepare, fork the program into ``contain``, supervise, clean up."""
    early = box.before(job, lim)
    if early is not None:
        return Facts(), early, []
    stdin_fd = kernel.memfd_with(job.stdin)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    status_r, status_w = os.pipe()  # the program's process reports a set-up failure here
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the program's process
        where = [status_w]
        try:
            for fd in (out_r, err_r, res_r, status_r):
                os.close(fd)
            contain(box, job, lim, stdin_fd, out_w, err_w, res_w, where)
        except BaseException as e:
            try:
                os.write(where[0], f"{type(e).__name__}: {e}".encode()[:4000])
            finally:
                os._exit(127)
        os._exit(127)
    for fd in (stdin_fd, out_w, err_w, res_w, status_w):
        os.close(fd)
    box.forked()
    facts = supervise(pid, Pipes(out_r, err_r, res_r), lim, t0, box)
    setup_error = kernel.drain(status_r, 4096)
    os.close(status_r)
    extras, blobs = box.after(job, lim, facts)
    if setup_error:
        facts.error = "jail setup failed: " + setup_error.decode(errors="replace")
    return facts, extras, blobs


def contain(box, job: Job, lim: Limits, stdin_fd: int, out_w: int, err_w: int, res_w: int, status: list) -> None:
    """The program's process, from fork to untrusted code: the steps, in order."""
    workdir = box.make_root(job, lim)                                # 1. root
    box.enter_cgroup()                                               # 2. cgroup
    box.network()                                                    # 3. network
    if box.rlimits:
        steps.rlimits(lim, box.nproc(lim))                           # 4. rlimits
    status[0] = steps.fds(stdin_fd, out_w, err_w, res_w, status[0])  # 5. fds
    os.chdir(workdir)
    box.credentials()                                                # 6. credentials
    steps.write_files(job.files, workdir)                            # 7. files
    box.write_files(job)
    env = steps.environment(box.env, job.env)                        # 8. environment
    steps.seccomp(box.bpf)                                           # 9. seccomp
    steps.exec_program(job.argv, env, job.python_source, status[0], box.path)  # 10. exec


def main() -> int:
    # Our own stdio carries the protocol; keep them away from the fds children inherit.
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0), os.dup2(devnull, 1)
    os.close(devnull)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    got = read_frame(rfd, MAX_CONTROL, F_INIT)
    if got is None:
        return 2
    import json

    cfg = json.loads(got[1])
    try:
        if cfg.get("box") == "container":
            from .container import ContainerBox as Box
        else:
            from .native import NativeBox as Box
        box = Box(cfg)
        reply = box.setup()
    except Exception as e:  # report and stop: the host marks the slot broken
        traceback.print_exc()
        write_all(wfd, json_frame(F_REPLY, {"ok": False, "error": f"{type(e).__name__}: {e}"}))
        return 1
    write_all(wfd, json_frame(F_REPLY, {"ok": True, "pid": os.getpid(), **(reply or {})}))
    zygote.preload()
    try:
        return serve(box, rfd, wfd)
    except ProtocolError as e:
        print(f"jail server: {e}", file=sys.stderr)
        return 1
