"""The jail server: one per native slot or container, one execution at a time.

A jail is two long-lived processes and one short-lived one per execution (see ``spawner``):

    zygote (PID 1) ──fork, once──► supervisor: reads Header + Job from the host, supervises,
       │                            writes the Facts; never forks a program
       └──fork, per execution──► program: handed its job by the supervisor over a socket of
                                 its own, goes through the steps of ``contain``, then execs
                                 (or runs the Python source in the warm interpreter)

The zygote never reads a byte of any job, so a program's process holds nothing of anyone but
its own job. The supervisor holds jobs, and nothing is ever forked from it but the container's
short-lived cleaning helper. An execution costs one fork: the program's. The next program's
process is forked, the previous execution swept (kill what is left, System V IPC, cgroup
folders) and the next cgroup folder made while the host is busy with the reply.
"""

from __future__ import annotations

import marshal
import os
import signal
import socket
import struct
import sys
import time
import traceback
from typing import Optional

from . import kernel, spawner, steps, zygote
from .protocol import (
    F_HEADER, F_INIT, F_REPLY, MAX_CONTROL, Facts, Job, Limits, ProtocolError, decode_header, decode_job,
    encode_facts, facts_from_error, json_frame, read_exact, read_frame, write_all,
)
from .supervise import Pipes, supervise

GO = b"J"  # the byte that carries the program's descriptors
_LENGTH = struct.Struct(">Q")


def program_job(lim: Limits, job: Job) -> bytes:
    """The job as the supervisor hands it to the program's process (stdin travels as a memfd):
    one length-prefixed ``marshal`` record. Both ends are the same interpreter, and marshal's
    decoder is C code that builds the job touching few objects; in the freshly forked process
    every page it touches is a copy (JSON and frames made about 80 more copies per execution)."""
    body = marshal.dumps((lim.to_tuple(), job.argv, job.env, job.files, job.python_source, job.program_dir,
                          job.box, job.blobs, job.fetch))
    return _LENGTH.pack(len(body)) + body


def take_program_job(fd: int) -> Optional[tuple[Limits, Job]]:
    """The program's side of ``program_job``; None if the stream ends first."""
    head = read_exact(fd, _LENGTH.size)
    if head is None:
        return None
    body = read_exact(fd, _LENGTH.unpack(head)[0])
    limits, argv, env, files, source, program_dir, box, blobs, fetch = marshal.loads(body or b"")
    return Limits(*limits), Job(argv=argv, env=env, files=files, python_source=source, program_dir=program_dir,
                                box=box, blobs=blobs, fetch=fetch)


# --- the supervisor ----------------------------------------------------------------------------

def serve(box, rfd: int, wfd: int, link: socket.socket) -> int:
    """Answer the host's requests until it says stop or the stream ends, or until an execution
    fails on the jail's side (its facts carry ``error``): then the reply goes out and the jail
    stops, since nothing is known of what that execution left behind."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a program gone early is an error, not our death
    zyg = spawner.ZygoteLink(link)
    count = 0
    box.prepare()
    spare = zyg.spawn()
    while True:
        got = read_frame(rfd, MAX_CONTROL)
        if got is None:
            return 0
        kind, payload = got
        if kind != F_HEADER:
            raise ProtocolError(f"frame kind {kind}, expected a header")
        header = decode_header(payload)
        if header.op == "stop":
            return 0
        if header.op == "ping":
            write_all(wfd, json_frame(F_REPLY, {"ok": True, "count": count}))
            continue
        job = decode_job(rfd, header.job_size)
        try:
            facts, extras, blobs = execute(box, zyg, spare, job, header.limits)
        except ProtocolError:
            raise
        except Exception as e:
            traceback.print_exc()
            facts, extras, blobs = facts_from_error(f"jail: {type(e).__name__}: {e} ({_where(e)})"), {}, []
        write_all(wfd, encode_facts(facts, extras, blobs))
        if facts.error:  # fail closed: what the execution left is unknown; the host starts a fresh jail
            return 1
        count += 1
        del job, facts, extras, blobs
        spare[1].close()  # with what waits unread on it: the program's mount namespace (native)
        box.sweep()
        zyg.forget()
        box.prepare()
        spare = zyg.spawn()


def _where(e: BaseException) -> str:
    """The jail's line that raised, for the error's message (the traceback goes to the log)."""
    frame = traceback.extract_tb(e.__traceback__)[-1]
    return f"at {os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"


def execute(box, zyg: spawner.ZygoteLink, spare, job: Job, lim: Limits):
    """One execution: prepare, hand the job to the waiting program process, supervise, clean up."""
    pid, channel = spare
    early = box.before(job, lim)
    if early is not None:
        return Facts(), early, []
    try:
        extra = box.program_fds(job)
    except OSError as e:  # the program's folder went (a cache eviction): before any pipe is made
        box.forked()
        return facts_from_error(f"jail: the program's files cannot be opened ({e})"), {}, []
    stdin_fd = kernel.memfd_with(job.stdin)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    status_r, status_w = os.pipe()  # the program's process reports a set-up failure here
    given = [stdin_fd, out_w, err_w, res_w, status_w]
    body = program_job(lim, job)
    try:
        socket.send_fds(channel, [GO], given + extra)
        handover = time.monotonic()
        channel.sendall(body)
    except OSError as e:  # the program's process died before it took its job: ours, not its
        for fd in given + [out_r, err_r, res_r, status_r]:
            os.close(fd)
        box.forked()  # our copies of the box's descriptors, as after a handover
        return facts_from_error(f"jail: the program's process is gone ({e})"), {}, []
    finally:
        del body
    for fd in given:
        os.close(fd)
    box.forked()
    facts = supervise(pid, Pipes(out_r, err_r, res_r, status_r), lim, handover, box, zyg)
    extras, blobs = box.after(job, lim, facts, channel)
    return facts, extras, blobs


# --- the program's process ---------------------------------------------------------------------

def program(box, channel: socket.socket) -> None:
    """A fresh fork of the zygote: wait for a job, then become the program. Never returns."""
    msg, fds = kernel.recv_fds(channel, 1, 64)
    if msg != GO or len(fds) < 5:  # no job for us (the jail stops, or the spare was swept)
        os._exit(0)
    stdin_fd, out_w, err_w, res_w, status_w, *box_fds = fds
    where = [status_w]
    try:
        got = take_program_job(channel.fileno())
        if got is None:
            os._exit(0)
        lim, job = got
        box.begin_program(box_fds, channel, job)
        contain(box, job, lim, stdin_fd, out_w, err_w, res_w, where)
    except BaseException as e:
        try:
            os.write(where[0], f"{type(e).__name__}: {e}".encode()[:4000])
        finally:
            os._exit(127)
    os._exit(127)


def contain(box, job: Job, lim: Limits, stdin_fd: int, out_w: int, err_w: int, res_w: int, status: list) -> None:
    """The program's process, from its job to untrusted code: the steps, in order."""
    workdir = box.make_root(job, lim)                                # 1. root
    box.enter_cgroup()                                               # 2. cgroup
    box.network()                                                    # 3. network
    if box.rlimits:
        steps.rlimits(lim, box.nproc(lim), box.max_stack)            # 4. rlimits
    status[0] = steps.fds(stdin_fd, out_w, err_w, res_w, status[0])  # 5. fds
    os.chdir(workdir)
    box.credentials()                                                # 6. credentials
    steps.write_files(job.files, workdir)                            # 7. files
    box.write_files(job)
    env = steps.environment(box.env, job.env)                        # 8. environment
    steps.seccomp(box.bpf)                                           # 9. seccomp
    steps.exec_program(job.argv, env, job.python_source, status[0], box.path)  # 10. exec


# --- start ---------------------------------------------------------------------------------------

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

    def supervisor(link: socket.socket) -> int:
        try:
            return serve(box, rfd, wfd, link)
        except ProtocolError as e:
            print(f"jail server: {e}", file=sys.stderr)
            return 1

    return spawner.start(box, supervisor, lambda channel: program(box, channel), close_in_zygote=(rfd, wfd))
