"""One sandbox slot: a long-lived, single-threaded server that runs each execution in a fresh jail.

Standard library only, so it can run on the *toolchain's* Python (it is also the Python
fork-server: a Python test costs a fork, not an interpreter start). The Docker backend's
in-container executor reuses its framing, seccomp loader and Python fast path.

The host (``host.py``) starts one per slot and speaks length-prefixed JSON over stdin/stdout.
At ``init`` the server, still root (or root of a fresh user namespace when the host user is
not), enters the slot's own mount, network (empty), IPC, UTS and PID namespaces, builds a
read-only skeleton root (binds of the system directories and toolchains, a few device nodes,
a generated /etc, a /proc of the slot's PID namespace) and goes on as PID 1 of that namespace.

Each ``exec`` then follows one short list of steps, in the spirit of isolate and nsjail:

  1. the slot's cgroup (memory, pids, CPU accounting) gets this execution's limits and
     fresh counters (a fresh folder per execution on cgroup v2);
  2. one fork; the child joins the cgroup and a fresh mount namespace: a fresh tmpfs at /work
     and /tmp, the program read-only at /prog; it pivots into the skeleton and detaches the
     host tree;
  3. rlimits (CPU, file size, open files, stack, no core dumps);
  4. an unprivileged uid of the slot, no groups, no capabilities, no_new_privs, a scrubbed
     environment;
  5. the seccomp filter, last, just before untrusted code runs (exec, or the in-process
     Python fast path: this server is a warm interpreter, so a Python test costs a fork).

The server meanwhile enforces wall time and the output cap, and when the program ends it
kills every other process of the slot's PID namespace (``kill(-1)`` from its init) and of the
cgroup, reaps them, and removes SysV IPC objects: nothing of one execution reaches the next.
"""

from __future__ import annotations

import base64
import ctypes
import errno
import json
import os
import select
import signal
import struct
import sys
import time

# --- syscalls -------------------------------------------------------------------------------

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2

_MACHINE = os.uname().machine
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(_MACHINE, 155)
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(_MACHINE, 126)

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_libc.syscall.restype = ctypes.c_long


def _check(ret: int, what: str) -> None:
    if ret != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def _b(s):
    return s.encode() if isinstance(s, str) else s


def mount(src, target, fstype, flags=0, data=None):
    _check(_libc.mount(_b(src), _b(target), _b(fstype), flags, _b(data)), f"mount {target}")


def umount(target, flags=MNT_DETACH):
    _check(_libc.umount2(_b(target), flags), f"umount {target}")


def unshare(flags):
    _check(_libc.unshare(flags), f"unshare {flags:#x}")


def prctl(option, a=0, b=0, c=0, d=0):
    _check(_libc.prctl(option, a, b, c, d), f"prctl {option}")


def pivot_root(new, old):
    _check(_libc.syscall(SYS_PIVOT_ROOT, _b(new), _b(old)), "pivot_root")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities():
    """Empty every capability set, the bounding set and the ambient set."""
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    hdr = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(_libc.syscall(SYS_CAPSET, ctypes.byref(hdr), ctypes.byref(data)), "capset")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_seccomp(bpf: bytes) -> None:
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0), "seccomp")


# --- framing --------------------------------------------------------------------------------

def read_msg(fd: int):
    head = _read_exact(fd, 4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    body = _read_exact(fd, n)
    return json.loads(body) if body is not None else None


def _read_exact(fd: int, n: int):
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def write_msg(fd: int, obj) -> None:
    data = json.dumps(obj).encode()
    view = memoryview(struct.pack(">I", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


# --- cgroups --------------------------------------------------------------------------------

class Cgroup:
    """A fresh cgroup for one execution, on v1 (one dir per controller) or v2 (one dir).

    ``parents`` maps controller -> slot directory ({"unified": dir} on v2).
    """

    def __init__(self, parents: dict, name: str):
        self.v2 = "unified" in parents
        # v1 counters can be reset in place, so one folder serves every execution of a slot;
        # v2 has no portable reset of memory.peak, so it gets a fresh folder each time.
        self.reusable = not self.v2
        self.limits = None
        self.oom_base = 0
        self.dirs = {c: os.path.join(p, name) for c, p in parents.items()}
        for d in self.dirs.values():
            try:
                os.mkdir(d)
            except FileExistsError:
                self._drain(d)
            except FileNotFoundError:
                # The slot's folder went away under us (another instance's sweep of "dead" instances
                # judges by /proc/<pid>, which a PID namespace hides): make it again, then ours.
                os.makedirs(d)

    def _w(self, ctrl, fname, value):
        with open(os.path.join(self.dirs[ctrl], fname), "w") as f:
            f.write(str(value))

    def _try_w(self, ctrl, fname, value):
        try:
            self._w(ctrl, fname, value)
        except OSError:
            pass  # e.g. no swap accounting

    def _r(self, ctrl, fname):
        try:
            with open(os.path.join(self.dirs[ctrl], fname)) as f:
                return f.read()
        except OSError:
            return ""

    def limit(self, memory_bytes: int, pids: int) -> None:
        if self.v2:
            self._w("unified", "memory.max", memory_bytes)
            try:
                self._w("unified", "memory.swap.max", 0)
            except OSError:
                pass
            self._w("unified", "pids.max", pids)
        else:
            # memory+swap may never be below memory: raising needs memsw first, lowering after.
            self._try_w("memory", "memory.memsw.limit_in_bytes", memory_bytes)
            self._w("memory", "memory.limit_in_bytes", memory_bytes)
            self._try_w("memory", "memory.memsw.limit_in_bytes", memory_bytes)
            self._w("pids", "pids.max", pids)

    def prepare(self, memory_bytes: int, pids: int) -> None:
        if self.limits != (memory_bytes, pids):
            self.limit(memory_bytes, pids)
            self.limits = (memory_bytes, pids)
        if not self.v2:
            self._w("memory", "memory.max_usage_in_bytes", 0)
            if "cpuacct" in self.dirs:
                self._w("cpuacct", "cpuacct.usage", 0)
            self.oom_base = _kv(self._r("memory", "memory.oom_control")).get("oom_kill", 0)

    def finish(self) -> None:
        if not self.reusable:
            self.remove()

    def procs_files(self):
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    def stats(self):
        """(peak memory bytes, OOM kills, CPU seconds or None)."""
        if self.v2:
            peak = _int(self._r("unified", "memory.peak"))
            oom = _kv(self._r("unified", "memory.events")).get("oom_kill", 0)
            usec = _kv(self._r("unified", "cpu.stat")).get("usage_usec")
            return peak, oom, (usec / 1e6 if usec is not None else None)
        peak = _int(self._r("memory", "memory.max_usage_in_bytes"))
        oom = _kv(self._r("memory", "memory.oom_control")).get("oom_kill", 0) - self.oom_base
        cpu = None
        if "cpuacct" in self.dirs:
            ns = self._r("cpuacct", "cpuacct.usage").strip()
            cpu = int(ns) / 1e9 if ns else None
        return peak, oom, cpu

    def kill_all(self) -> None:
        if self.v2:
            try:
                self._w("unified", "cgroup.kill", 1)
                return
            except OSError:
                pass
        for d in self.dirs.values():
            self._drain(d)

    @staticmethod
    def _drain(d):
        for _ in range(100):
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    pids = [int(x) for x in f.read().split()]
            except OSError:
                return
            if not pids:
                return
            for p in pids:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.002)

    def remove(self) -> None:
        for d in self.dirs.values():
            for _ in range(200):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    self._drain(d)
                    time.sleep(0.002)


def _int(s):
    try:
        return int(s.strip())
    except ValueError:
        return 0


def _kv(s):
    out = {}
    for line in s.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = int(parts[1])
            except ValueError:
                pass
    return out


# --- the slot -------------------------------------------------------------------------------

class Slot:
    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.mode = cfg["mode"]  # "root" | "userns"
        self.uid = cfg["uid"]
        self.gid = cfg["gid"]
        self.root = cfg.get("root")  # the skeleton's mount point (host path, private to us)
        self.bpf = base64.b64decode(cfg["bpf"]) if cfg.get("bpf") else None
        self.cgroup_parents = cfg.get("cgroup_parents") or {}
        self.counter = 0
        self.env = cfg.get("env") or {}
        self.cg = None
        self.pidns_init = False

    # -- once per slot

    def setup(self) -> None:
        """Enter the slot's namespaces once. Returns in the process that serves requests: the
        PID 1 of the slot's PID namespace, which kills everything else in it after every
        execution (so nothing outlives a test), reaps orphans, and owns the slot's /proc."""
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        if self.mode == "userns":
            uid, gid = os.getuid(), os.getgid()
            unshare(CLONE_NEWUSER)
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/uid_map", "w") as f:
                f.write(f"0 {uid} 1")
            with open("/proc/self/gid_map", "w") as f:
                f.write(f"0 {gid} 1")
        unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID)
        name = b"codetest"
        _libc.sethostname(name, len(name))
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        self._build_skeleton()
        init = os.fork()
        if init:
            # The first process stays outside and only waits: the host holds its pid.
            _, status = os.waitpid(init, 0)
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
        # PID 1 from here on. Signals we do not handle are ignored by an init; keep it that way.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        # hidepid: a program sees its own processes only, not this root-owned server.
        mount("proc", os.path.join(self.root, "proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
        self.pidns_init = True

    def _build_skeleton(self) -> None:
        r = self.root
        mount("codetest", r, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
        for d in ("proc", "dev", "tmp", "work", "prog", "etc", "run", ".oldroot"):
            os.makedirs(os.path.join(r, d), exist_ok=True)
        for spec in self.cfg["binds"]:
            self._bind_ro(spec["src"], spec.get("dst", spec["src"]), dev=spec.get("dev", False))
        for name, text in self.cfg.get("etc_files", {}).items():
            with open(os.path.join(r, "etc", name), "w") as f:
                f.write(text)
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"), ("shm", "/tmp")):
            os.symlink(target, os.path.join(r, "dev", name))
        # The skeleton itself becomes read-only: only the per-execution tmpfs mounts are writable.
        mount(None, r, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)

    def _bind_ro(self, src: str, dst: str, dev: bool = False) -> None:
        target = os.path.join(self.root, dst.lstrip("/"))
        if os.path.islink(src) and not dev:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if not os.path.lexists(target):
                os.symlink(os.readlink(src), target)
            return
        if not os.path.exists(src):
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(src):
            os.makedirs(target, exist_ok=True)
        elif not os.path.exists(target):
            open(target, "w").close()
        mount(src, target, None, MS_BIND | MS_REC)
        # Keep the flags the host mount has (a user namespace may not clear them), add ours.
        keep = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME)
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | keep
        if not dev:
            flags |= MS_NODEV
        mount(None, target, None, flags)

    # -- once per execution

    def execute(self, req: dict) -> dict:
        self.counter += 1
        lim = req["limits"]
        stdin = base64.b64decode(req.get("stdin", ""))
        t0 = time.monotonic()
        cg = self._cgroup()
        if cg is not None:
            try:
                cg.prepare(lim["memory_bytes"], lim["processes"])
            except OSError:
                # Start over with a fresh folder rather than run with limits we could not set.
                cg.kill_all()
                cg.remove()
                self.cg = None
                cg = self._cgroup()
                cg.prepare(lim["memory_bytes"], lim["processes"])

        stage = None
        if req.get("fetch") is not None and not req.get("work_dir"):
            # fetch_files: /work is a tmpfs mounted here, in the slot's own mount namespace (never
            # the host's), so it outlives the execution's namespace until its files are read back.
            stage = self.root + ".stage"
            os.makedirs(stage, mode=0o700, exist_ok=True)
            owner = f"uid={self.uid},gid={self.gid}" if self.mode == "root" else "uid=0,gid=0"
            mount("work", stage, "tmpfs", MS_NOSUID | MS_NODEV,
                  f"mode=700,{owner},size={max(lim['file_size_bytes'], 1 << 20)}")
            req = dict(req, work_dir=stage)
        stdin_fd = os.memfd_create("stdin", 0)
        view = memoryview(stdin)
        while view:
            view = view[os.write(stdin_fd, view):]
        os.lseek(stdin_fd, 0, os.SEEK_SET)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        status_r, status_w = os.pipe()  # the child reports a setup failure here

        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                os.close(out_r), os.close(err_r), os.close(status_r)
                if cg is not None:
                    for path in cg.procs_files():
                        with open(path, "w") as f:
                            f.write("0")
                self._child(req, stdin_fd, out_w, err_w, status_w)
            except BaseException as e:
                try:
                    os.write(status_w, f"{type(e).__name__}: {e}".encode()[:4000])
                finally:
                    os._exit(127)
            os._exit(127)
        os.close(stdin_fd), os.close(out_w), os.close(err_w), os.close(status_w)
        res = self._supervise(pid, lim, out_r, err_r, t0, cg)
        setup_error = _drain_fd(status_r)
        os.close(status_r)
        self._kill_rest(cg)
        if stage is not None:  # nothing of the program runs any more: read what it left, then drop it
            try:
                res["files"] = {k: base64.b64encode(v).decode()
                                for k, v in read_beneath(stage, req["fetch"], FETCH_LIMIT).items()}
            finally:
                umount(stage)
        if cg is not None:
            peak, oom, cpu = cg.stats()
            if peak:
                res["memory_kb"] = peak // 1024
            if cpu is not None:
                res["cpu_s"] = max(res["cpu_s"], cpu)
            if oom:
                res["memory_exceeded"] = True
            cg.finish()
        if res["cpu_s"] > lim["cpu_s"] or res["signal"] == signal.SIGXCPU:
            res["cpu_exceeded"] = True
        if setup_error:
            res["error"] = "jail setup failed: " + setup_error.decode(errors="replace")
        return res

    def _cgroup(self):
        if not self.cgroup_parents:
            return None
        if self.cg is None or not self.cg.reusable:
            self.cg = Cgroup(self.cgroup_parents, f"x{self.counter}")
        return self.cg

    def _kill_rest(self, cg) -> None:
        """Nothing of an execution outlives it: kill every other process of our PID namespace
        (kill(-1) from its init reaches exactly those) and of the cgroup, then reap them all."""
        if getattr(self, "pidns_init", False):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if cg is not None:
            cg.kill_all()
        _wipe_sysv_ipc()
        _reap_orphans()

    def _supervise(self, pid, lim, out_r, err_r, t0, cg) -> dict:
        """Collect output up to the cap, enforce wall time, reap the child."""
        cap = lim["output_bytes"]
        deadline = t0 + lim["wall_s"]
        bufs = {out_r: bytearray(), err_r: bytearray()}
        open_fds = {out_r, err_r}
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        for fd in (out_r, err_r, pidfd):
            poller.register(fd, select.POLLIN | select.POLLHUP)
        killed = wall = output = False
        exited = False
        waited = None
        run_delay = 0.0
        while open_fds or not exited:
            timeout = deadline - time.monotonic()
            if timeout <= 0 and not killed:
                wall = killed = True
                _kill(pid, cg)
                timeout = 0
            # After the kill the pipes close at once (the whole namespace dies); keep a bound anyway.
            events = poller.poll(max(0, timeout) * 1000 if not killed else 2000)
            if not events and killed:
                break
            for fd, _ev in events:
                if fd == pidfd:
                    exited = True
                    poller.unregister(pidfd)
                    run_delay = run_delay_s(pid)  # the zombie still has its scheduler counters
                    waited = os.wait4(pid, 0)  # before anything else may reap it
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    open_fds.discard(fd)
                    poller.unregister(fd)
                    continue
                bufs[fd] += chunk
                if len(bufs[out_r]) + len(bufs[err_r]) > cap and not killed:
                    output = killed = True
                    _kill(pid, cg)
            if exited and open_fds and not killed:
                # The program is gone; whatever it left behind dies now, then drain the pipes.
                self._kill_rest(cg)
                for fd in list(open_fds):
                    try:
                        while True:
                            chunk = os.read(fd, 65536)
                            if not chunk:
                                break
                            bufs[fd] += chunk
                            if len(bufs[out_r]) + len(bufs[err_r]) > cap:
                                output = True
                                break
                    except BlockingIOError:
                        pass
                    open_fds.discard(fd)
                    poller.unregister(fd)
        _, status, ru = waited if waited is not None else os.wait4(pid, 0)
        wall_s = time.monotonic() - t0
        os.close(pidfd), os.close(out_r), os.close(err_r)
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        out, err = bytes(bufs[out_r]), bytes(bufs[err_r])
        if output:
            # Keep the cap: what came before the flood, never more than the limit.
            out = out[:cap]
            err = err[: max(0, cap - len(out))]
        return {
            "exit_code": exit_code, "signal": sig,
            "cpu_s": ru.ru_utime + ru.ru_stime, "wall_s": wall_s, "memory_kb": ru.ru_maxrss,
            "stdout": base64.b64encode(out).decode(), "stderr": base64.b64encode(err).decode(),
            "run_delay_s": run_delay,
            "wall_exceeded": wall, "cpu_exceeded": False, "memory_exceeded": False,
            "output_exceeded": output, "error": None,
        }

    # -- the child, between fork and untrusted code

    def _child(self, req, stdin_fd, out_w, err_w, status_w):
        lim = req["limits"]
        unshare(CLONE_NEWNS)
        workdir = self._mount_execution(req, lim)
        if self.cfg.get("rlimits", True):
            _set_rlimits(lim)
        os.dup2(stdin_fd, 0), os.dup2(out_w, 1), os.dup2(err_w, 2)
        os.set_inheritable(status_w, False)
        os.set_blocking(1, True)
        os.chdir(workdir)
        # Identity: the slot's unprivileged user, no groups, no capabilities.
        if self.mode == "root":
            os.setgroups([])
            os.setresgid(self.gid, self.gid, self.gid)
            os.setresuid(self.uid, self.uid, self.uid)
        elif self.mode == "userns":
            drop_capabilities()
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of uid cleared it
        # The uid change also made us non-dumpable, which leaves /proc/self owned by root; exec
        # would reset that, the in-process Python path does not. Core dumps stay off (RLIMIT_CORE).
        prctl(PR_SET_DUMPABLE, 1)
        env = {**self.env, **req.get("env", {})}
        os.closerange(3, status_w)
        os.closerange(status_w + 1, 65536)
        # The status pipe stays open until exec succeeds (it is close-on-exec).
        if self.bpf is not None:
            load_seccomp(self.bpf)
        if req.get("python_inline") is not None:
            os.close(status_w)  # from here on, failures are the program's own
            _run_python_inline(req["python_inline"], req["argv"], env)
        os.execve(req["argv"][0], req["argv"], env)

    def _mount_execution(self, req, lim) -> str:
        r = self.root
        owner = f"uid={self.uid},gid={self.gid}" if self.mode == "root" else "uid=0,gid=0"
        tmpfs_size = max(lim["file_size_bytes"], 1 << 20)
        work = os.path.join(r, "work")
        if req.get("work_dir"):
            mount(req["work_dir"], work, None, MS_BIND)
            mount(None, work, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV)
        else:
            mount("work", work, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=700,{owner},size={tmpfs_size}")
        mount("tmp", os.path.join(r, "tmp"), "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={tmpfs_size}")
        if req.get("program_dir"):
            prog = os.path.join(r, "prog")
            mount(req["program_dir"], prog, None, MS_BIND)
            mount(None, prog, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        for name, b64 in (req.get("files") or {}).items():
            _write_file(os.path.join(work, name), base64.b64decode(b64), self.uid if self.mode == "root" else None,
                        self.gid)
        os.chdir(r)
        pivot_root(".", ".oldroot")
        os.chdir("/")
        umount("/.oldroot")
        return "/work"


def run_delay_s(pid: int) -> float:
    """Seconds the process's main thread was ready to run but waited for a CPU (schedstat's
    run_delay): wall time minus this is the program's own elapsed time, whatever the load.
    Readable until the process is reaped; 0 where the kernel (or gVisor) does not show it."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


FETCH_LIMIT = 64 << 20  # bytes of fetched files one execution may return


def read_beneath(base: str, paths, limit: int) -> dict:
    """The regular files ``paths`` (relative to ``base``) as bytes; names the program controls, so
    no component may be a symlink or '..', and FIFOs and devices are skipped unopened. Missing
    files are left out (SandboxFusion's fetch_files does the same). At most ``limit`` bytes."""
    out, total = {}, 0
    for raw in paths:
        parts = [p for p in str(raw).replace("\\", "/").split("/") if p not in ("", ".")]
        if not parts or ".." in parts or "\x00" in raw:
            continue
        fds = []
        try:
            fds.append(os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            for part in parts[:-1]:
                # lstat first as well as O_NOFOLLOW: not every kernel (gVisor) refuses a link there.
                if (os.stat(part, dir_fd=fds[-1], follow_symlinks=False).st_mode & 0o170000) != 0o040000:
                    raise NotADirectoryError(part)
                fds.append(os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                                   dir_fd=fds[-1]))
            if (os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False).st_mode & 0o170000) != 0o100000:
                continue  # a link, FIFO, device or directory: never opened
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fds[-1])
            fds.append(fd)
            st = os.fstat(fd)
            if not (st.st_mode & 0o170000 == 0o100000) or total + st.st_size > limit:
                continue
            chunks = []
            while True:
                c = os.read(fd, 1 << 20)
                if not c:
                    break
                chunks.append(c)
            data = b"".join(chunks)[: limit - total]
            total += len(data)
            out[str(raw)] = data
        except OSError:
            continue
        finally:
            for f in fds:
                os.close(f)
    return out


def _write_file(path, data, uid, gid):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if path.endswith("/"):  # a folder the program writes into (a Kattis checker's feedback/)
        if uid is not None:
            os.chown(os.path.dirname(path), uid, gid)
        return
    with open(path, "wb") as f:
        f.write(data)
    if uid is not None:
        os.chown(os.path.dirname(path), uid, gid)
        os.chown(path, uid, gid)


def _set_rlimits(lim) -> None:
    import resource

    cpu = int(lim["cpu_s"]) + 1  # the cgroup's CPU accounting judges the exact limit
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    fsize = lim["file_size_bytes"]
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    stack = min(lim["memory_bytes"], 1 << 30)
    resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
    if lim.get("address_space_bytes"):
        a = lim["address_space_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (a, a))


def _kill(pid: int, cg=None) -> None:
    """Kill the program and its cgroup (the rest of the namespace follows in _kill_rest)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if cg is not None:
        cg.kill_all()


_libc.shmctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
_libc.semctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
_libc.msgctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
IPC_RMID = 0


def _wipe_sysv_ipc() -> None:
    """SysV IPC objects outlive their creator; the slot's IPC namespace is shared by its
    executions, so remove whatever the last one made (/proc/sysvipc shows our namespace)."""
    for kind, rm in (("shm", lambda i: _libc.shmctl(i, IPC_RMID, None)),
                     ("sem", lambda i: _libc.semctl(i, 0, IPC_RMID)),
                     ("msg", lambda i: _libc.msgctl(i, IPC_RMID, None))):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if len(parts) > 1 and parts[1].isdigit():
                rm(int(parts[1]))


def _reap_orphans(timeout: float = 2.0) -> None:
    """Wait until this server has no children: every process of the execution is dead by now
    (SIGKILLed with its namespace), so this is quick; bounded all the same."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.001)


def _drain_fd(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return out


# --- the Python fast path -------------------------------------------------------------------

def _run_python_inline(source: str, argv, env) -> None:
    """Run a Python program in this (freshly forked, fully jailed) interpreter, then exit.

    Behaves like ``python3 -I /prog/main.py``: a fresh ``__main__``, fresh stdio on fds 0-2,
    tracebacks on stderr with exit status 1, SystemExit honoured, atexit and non-daemon
    threads run before exit.
    """
    import atexit
    import io
    import threading
    import traceback
    import types

    for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM):
        signal.signal(s, signal.SIG_DFL)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(argv[1:]) or [""]
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                 encoding="utf-8", errors="surrogateescape")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                                   encoding="utf-8", errors="surrogateescape")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                                   encoding="utf-8", errors="backslashreplace", line_buffering=True)
    filename = sys.argv[0] or "<string>"
    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.path[0:0] = [os.path.dirname(filename)] if filename.startswith("/") else []
    code = 0
    try:
        exec(compile(source, filename, "exec"), main.__dict__)
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # what interpreter exit does
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
        code = code or 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 120  # what CPython exits with when stdout cannot be flushed
    os._exit(code)


def _preload() -> None:
    """Warm the fork-server: what every Python execution needs is imported once, here, and
    the heap is frozen so the collector does not dirty (copy) its pages in each child."""
    import atexit, gc, io, threading, traceback, types  # noqa: F401,E401

    gc.collect()
    gc.freeze()


def _exit_code(value) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        sys.stderr.write(f"{value}\n")
    except BaseException:
        pass
    return 1


# --- the loop -------------------------------------------------------------------------------

def main() -> int:
    # Our own stdio carries the protocol; keep them away from the fds children inherit.
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0), os.dup2(devnull, 1)
    os.close(devnull)
    msg = read_msg(rfd)
    if not msg or msg.get("op") != "init":
        return 2
    slot = Slot(msg)
    try:
        slot.setup()
    except Exception as e:  # report and stop: the host marks the slot broken
        write_msg(wfd, {"ok": False, "error": f"{type(e).__name__}: {e}"})
        return 1
    write_msg(wfd, {"ok": True, "pid": os.getpid()})
    _preload()
    while True:
        req = read_msg(rfd)
        if req is None or req.get("op") == "stop":
            return 0
        try:
            res = slot.execute(req)
        except Exception as e:
            import traceback

            traceback.print_exc()  # into the slot's log
            res = {"error": f"{type(e).__name__}: {e}"}
        write_msg(wfd, res)


if __name__ == "__main__":
    sys.exit(main())
