"""The native backend: a pool of jail servers, one per slot, on this Linux host.

Each slot is a jail server (``sandbox.jail``, started from source by ``sandbox.jail.boot``)
on the Python toolchain's interpreter, set up once (private mount, PID, IPC, UTS and empty
network namespaces, read-only skeleton root) and then asked to run one execution at a time;
this module is only the driver: it starts slots and speaks ``sandbox.jail.protocol``. A slot
that fails an execution (it stops answering, or its jail reports an error and stops) is killed
with everything under it and started again, and the execution runs once more on a fresh slot;
only a second failure comes back as SE.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import queue
import select
import shutil
import signal
import subprocess
import threading
import time
from typing import Optional

from ...config import SandboxConfig
from ...jail import protocol
from ...jail.boot import BOOTSTRAP, boot_message
from ...jail.tree import files_to_job
from ..base import JAIL_ATTEMPTS, ExecResult, ExecSpec
from ..files import work_from_reply, work_into_job
from . import cgroups

log = logging.getLogger("codetest.native")

SYSTEM_BINDS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
ETC_BINDS = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
# /etc/java-17-openjdk, /etc/python3.11, and the config folders of R, Mono, PHP and Racket.
ETC_GLOBS = ("java-", "python3", "R", "mono", "php", "racket", "ldc2.conf")
JAIL_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}
PROTOCOL_GRACE_S = 10.0  # beyond an execution's own wall limit, before a slot counts as hung


class SlotBroken(Exception):
    pass


class SlotProcess:
    """One jail server (``sandbox.jail``, started from source on the Python toolchain) and the
    pipes to it. Speaks ``sandbox.jail.protocol``: a Header and a Job out, Facts back."""

    def __init__(self, index: int, init: dict, python: str, state_dir: str):
        self.index = index
        self.init = init
        self.python = python
        self.log_path = os.path.join(state_dir, f"slot{index}.log")
        self.proc: Optional[subprocess.Popen] = None
        self.executions = 0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        logf = open(self.log_path, "ab")
        try:
            self.proc = subprocess.Popen(
                [self.python, "-I", "-B", "-c", BOOTSTRAP], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=logf, env=dict(JAIL_ENV), close_fds=True, start_new_session=True, cwd="/", bufsize=0,
            )
        finally:
            logf.close()
        self._send(boot_message() + protocol.json_frame(protocol.F_INIT, self.init))
        kind, payload = self._recv_frame(30.0, protocol.FrameBuffer(protocol.MAX_CONTROL))
        reply = json.loads(payload) if kind == protocol.F_REPLY else {"error": f"unexpected frame {kind}"}
        if not reply.get("ok"):
            self.kill()
            raise SlotBroken(reply.get("error", "jail server failed to start"))

    def call(self, header: bytes, job: bytes, limits: protocol.Limits, timeout: float,
             fetch_cap: int = 0, blob_cap: int = 0) -> tuple[protocol.Facts, dict, list[bytes]]:
        """The execution's facts, the box's extras and blobs (the compile step's work files)."""
        if not self.alive():
            raise SlotBroken("jail server is not running")
        self._send(header + job)
        cap = limits.output_bytes
        buf = protocol.FrameBuffer(max(cap, fetch_cap, blob_cap, protocol.MAX_CONTROL))
        reader = protocol.FactsReader(cap, blob_cap=blob_cap, fetch_cap=fetch_cap)
        deadline = time.monotonic() + timeout
        try:
            while not reader.add(*self._recv_frame(deadline - time.monotonic(), buf)):
                pass
        except protocol.ProtocolError as e:
            raise SlotBroken(f"jail server broke the protocol: {e}") from e
        return reader.facts()

    def _send(self, data: bytes) -> None:
        try:
            assert self.proc and self.proc.stdin
            self.proc.stdin.write(data)
        except (OSError, ValueError) as e:
            raise SlotBroken(f"cannot write to jail server: {e}") from e

    def _recv_frame(self, timeout: float, buf: "protocol.FrameBuffer"):
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while True:
            got = buf.take()
            if got is not None:
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                raise SlotBroken("jail server did not answer in time")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise SlotBroken("jail server exited")
            buf.feed(chunk)

    def kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f and f.close()
            except OSError:
                pass
        self.proc = None

    def stop(self) -> None:
        if self.alive():
            try:
                self._send(protocol.json_frame(protocol.F_HEADER, {"op": "stop"}))
                self.proc.wait(timeout=5)
            except (SlotBroken, subprocess.TimeoutExpired):
                pass
        self.kill()


class NativeBackend:
    name = "native"
    inline_programs = True  # the program's process writes them into its own /prog tmpfs

    def __init__(self, config: SandboxConfig, python: str, toolchain_binds: list[tuple[str, str]]):
        self.config = config
        self.slots = max(1, config.slots)
        self.python = python
        self.instance = f"{os.getpid()}-{id(self) & 0xFFFFFF:x}"
        self.mode = "root" if os.geteuid() == 0 else "userns"
        self.layers: dict[str, dict] = {}
        self.problems: list[str] = []
        self._closed = False
        self.state_dir = config.state_dir
        self.run_dir = os.path.join(self.state_dir, "run", self.instance)
        os.makedirs(self.run_dir, mode=0o755, exist_ok=True)
        self._bpf = self._compile_seccomp()
        if "cgroups" in config.disable:
            self.cgroup, cg_detail = None, "disabled by the operator"
        else:
            self.cgroup, cg_detail = cgroups.find(self.instance)
        self.layers["cgroups"] = {"active": self.cgroup is not None, "detail": cg_detail}
        self.rlimits = "rlimits" not in config.disable
        self.layers["rlimits"] = {"active": self.rlimits, "detail": "CPU, file size, open files, stack, core dumps off"
                                  if self.rlimits else "disabled by the operator"}
        self.layers["gvisor"] = {"active": False, "detail": "not applicable to the native backend"}
        self._toolchain_binds = toolchain_binds
        # Last freed, first taken: the slots in use stay the few whose processes the caches hold.
        self._free: "queue.LifoQueue[SlotProcess]" = queue.LifoQueue()
        self._all: list[SlotProcess] = []
        self._lock = threading.Lock()
        self._start_slots()

    # -- setup

    def _compile_seccomp(self) -> Optional[bytes]:
        if "seccomp" in self.config.disable:
            self.layers["seccomp"] = {"active": False, "detail": "disabled by the operator"}
            return None
        try:
            import seccomp

            bpf = seccomp.compile_bpf()
            self.layers["seccomp"] = {"active": True, "detail": f"{seccomp.policy_path()} ({len(bpf) // 8} BPF instructions)"}
            return bpf
        except Exception as e:  # libseccomp missing: reported, and refused unless allowed
            self.layers["seccomp"] = {"active": False, "detail": f"cannot build the filter: {e}"}
            return None

    def _init_message(self, index: int) -> dict:
        uid = gid = self.config.uid_base + index if self.mode == "root" else 0
        root = os.path.join(self.run_dir, f"root{index}")
        os.makedirs(root, exist_ok=True)
        binds = [{"src": p} for p in SYSTEM_BINDS if os.path.lexists(p)]
        binds += [{"src": src, "dst": dst} for src, dst in self._toolchain_binds if os.path.lexists(src)]
        binds += [{"src": p} for p in ETC_BINDS if os.path.exists(p)]
        try:
            for name in sorted(os.listdir("/etc")):
                if name.startswith(ETC_GLOBS):
                    binds.append({"src": os.path.join("/etc", name)})
        except OSError:
            pass
        binds += [{"src": d, "dev": True} for d in DEVICES if os.path.exists(d)]
        etc_files = {
            "passwd": f"root:x:0:0:root:/root:/bin/sh\nsandbox:x:{uid}:{gid}:sandbox:/tmp:/bin/sh\n"
                      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
            "group": f"root:x:0:\nsandbox:x:{gid}:\nnogroup:x:65534:\n",
            "hosts": "127.0.0.1 localhost codetest\n::1 localhost\n",
            "hostname": "codetest\n",
            "resolv.conf": "",
        }
        return {
            "box": "native", "mode": self.mode, "uid": uid, "gid": gid, "root": root, "binds": binds,
            "etc_files": etc_files, "env": JAIL_ENV,
            "bpf": base64.b64encode(self._bpf).decode() if self._bpf else None,
            "cgroup_parents": self.cgroup.slot_parents(index) if self.cgroup else None,
            "rlimits": self.rlimits,
        }

    def _start_slots(self) -> None:
        errors = []
        for i in range(self.slots):
            slot = SlotProcess(i, self._init_message(i), self.python, self.run_dir)
            try:
                slot.start()
            except SlotBroken as e:
                errors.append(str(e))
                continue
            self._all.append(slot)
            self._free.put(slot)
        if errors or not self._all:
            self.layers["namespaces"] = {"active": False, "detail": "; ".join(sorted(set(errors)))[:500]}
            self.layers["uid"] = {"active": False, "detail": "no jail could be set up"}
            self.problems.append("jail setup failed: " + (errors[0] if errors else "no slots"))
            return
        self.layers["namespaces"] = {"active": True, "detail": "mount (read-only skeleton, tmpfs /work), pid, net "
                                     "(none), ipc, uts; fresh per execution"}
        if self.mode == "root":
            detail = (f"uid {self.config.uid_base}+slot per slot, no groups, no capabilities, no_new_privs, "
                      "scrubbed environment")
        else:
            detail = ("the invoking unprivileged user in a user namespace, every capability dropped, no_new_privs, "
                      "scrubbed environment (one uid for all slots: per-slot uids need root)")
        self.layers["uid"] = {"active": True, "detail": detail}

    # -- running

    def execute(self, spec: ExecSpec) -> ExecResult:
        job = protocol.Job(
            argv=list(spec.argv), env=dict(spec.env), stdin=spec.stdin, files=dict(spec.files),
            python_source=spec.python_inline, program_dir=spec.program_dir,
            fetch=None if spec.fetch is None else list(spec.fetch))
        if spec.program_files:
            files_to_job({name: (0o444, data) for name, data in spec.program_files.items()}, "prog:", job)
        work_cap = spec.limits.tmpfs_bytes()  # the size of the run's /work tmpfs
        if spec.work_dir:
            problem = work_into_job(spec.work_dir, job, work_cap)
            if problem:
                return ExecResult(error=problem)
        job = protocol.encode_job(job)
        header = protocol.encode_header(protocol.Header(limits=spec.limits, job_size=len(job)))
        if not self._all:
            return ExecResult(error="native backend has no working slot: " + "; ".join(self.problems))
        last = ""
        for attempt in range(JAIL_ATTEMPTS):
            slot = self._free.get()
            try:
                if not slot.alive():
                    self._restart(slot)
                try:
                    res, extras, blobs = slot.call(
                        header, job, spec.limits, spec.limits.clock_budget_s() + PROTOCOL_GRACE_S,
                        fetch_cap=protocol.FETCH_BYTES if spec.fetch is not None else 0,
                        blob_cap=work_cap if spec.work_dir else 0)
                except SlotBroken as e:
                    last = str(e)
                else:
                    slot.executions += 1
                    if not res.error:
                        return work_from_reply(res, extras, blobs, spec.work_dir) if spec.work_dir else res
                    last = res.error  # the jail failed and stopped; the program gets a fresh one
                log.warning("slot %d failed (attempt %d): %s; restarting", slot.index, attempt + 1, last)
                self._restart(slot)
            finally:
                self._free.put(slot)
        return ExecResult(error=f"sandbox slot failed {JAIL_ATTEMPTS} times: {last}")

    def _restart(self, slot: SlotProcess) -> None:
        slot.kill()
        if self.cgroup:
            for d in slot.init["cgroup_parents"].values():
                for name in os.listdir(d) if os.path.isdir(d) else []:
                    if os.path.isdir(os.path.join(d, name)):
                        cgroups.remove_tree(os.path.join(d, name))
        if self._closed:
            return
        try:
            slot.start()
        except SlotBroken as e:
            log.error("slot %d could not restart: %s", slot.index, e)

    def gate(self) -> dict:
        return {"layers": self.layers, "problems": list(self.problems)}

    def slots_cpu_s(self) -> list[Optional[float]]:
        """CPU time each slot's executions have used so far (the CPU gate's signal); None where unknown."""
        cgroup = self.cgroup
        return [cgroup.slot_cpu_s(i) if cgroup is not None else None for i in range(self.slots)]

    def health(self) -> dict:
        alive = sum(1 for s in self._all if s.proc is not None and s.proc.poll() is None)
        return {"layers": self.layers, "slots": self.slots, "slots_alive": alive, "mode": self.mode,
                "problems": list(self.problems)}

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for slot in self._all:
            slot.stop()
        if self.cgroup:
            self.cgroup.remove()
        shutil.rmtree(self.run_dir, ignore_errors=True)
