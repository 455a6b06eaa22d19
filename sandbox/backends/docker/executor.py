"""The executor inside each pool container: one long-lived process, one execution at a time.

Standard library only: the host sends this file (with the native backend's
``jail_server.py``, whose framing, seccomp loader, prctl and Python fast path it reuses:
``read_msg``, ``write_msg``, ``load_seccomp``, ``prctl``, ``_run_python_inline``) over the
container's stdin when the container starts, so the image holds toolchains and nothing
of ours, and a code change never needs an image rebuild.

The container is the jail (namespaces, read-only root, no network, seccomp, cgroup
limits, gVisor when present). This process is uid 0 of the container with every
capability dropped except SETUID, SETGID and KILL, and runs nothing untrusted itself.
Each ``exec`` follows a short list of steps:

  1. the program's files appear at ``/prog`` (a symlink switched to a root-owned,
     read-only directory in the executor's tmpfs, cached by content key);
  2. fork; the child starts a new session, sets rlimits (CPU, file size, open files,
     processes, no core dumps), drops to the container's unprivileged uid (no groups,
     no capabilities, no_new_privs), writes the input files into the empty ``/work``,
     loads the seccomp filter again (stacked on the container's) and runs the program;
  3. the parent enforces wall time, CPU time (summed over the uid's processes), memory
     (their resident memory plus what they put in the tmpfs mounts) and the output cap;
  4. when the program ends, every process of the uid is killed (no PID namespace here:
     the uid is the group), ``/work``, ``/tmp``, ``/dev/shm`` and System V IPC objects are
     wiped by a helper running as that uid, and a leftover anything is reported as an
     anomaly so the host retires the container.
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import resource
import select
import signal
import stat
import sys
import time

try:  # inside the container the host installs it as a top-level module
    import jail_server as js  # type: ignore[import-not-found]
except ImportError:  # on the host (tests, type checks)
    from sandbox.backends.native import jail_server as js

ROOT = "/run/codetest"          # the executor's own tmpfs (root-owned, 0755)
CACHE = ROOT + "/cache"         # program directories by key (0711: no listing)
EMPTY = CACHE + "/-"            # what /prog shows when an execution has no program dir
PROG_LINK = ROOT + "/prog"      # /prog in the image is a symlink to this
WORK = "/work"
SCRATCH = ("/tmp", "/dev/shm", "/dev/mqueue")
TMPFS_ACCOUNTED = ("/work", "/tmp", "/dev/shm")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

IPC_RMID = 0
_libc = ctypes.CDLL(None, use_errno=True)


# --- files ----------------------------------------------------------------------------------

def _safe_rel(rel: str) -> str:
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise ValueError(f"bad file name {rel!r}")
    return "/".join(parts)


def write_tree(base: str, files: dict, public: bool = True) -> None:
    """Write ``{relpath: [mode, base64]}`` under ``base``; a mode with S_IFDIR makes a directory.

    ``public``: the program cache (root-owned; everyone may read, only root may write);
    otherwise the program's own /work (its modes kept, private directories).
    """
    dir_mode = 0o755 if public else 0o700
    os.makedirs(base, mode=dir_mode, exist_ok=True)
    for rel in sorted(files):
        mode, b64 = files[rel]
        path = os.path.join(base, _safe_rel(rel))
        os.makedirs(os.path.dirname(path), mode=dir_mode, exist_ok=True)
        if stat.S_ISDIR(mode):
            os.makedirs(path, mode=dir_mode, exist_ok=True)
            continue
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            data = memoryview(base64.b64decode(b64))
            while data:
                data = data[os.write(fd, data):]
            os.fchmod(fd, ((mode & 0o555) | 0o444) if public else (mode & 0o777) | 0o600)
        finally:
            os.close(fd)


def read_tree(base: str, limit: int) -> dict:
    """Regular files and directories under ``base`` (no symlinks followed), at most ``limit`` bytes."""
    out: dict = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        rel_dir = os.path.relpath(dirpath, base)
        for d in dirnames:
            p = os.path.join(dirpath, d)
            st = os.lstat(p)
            if stat.S_ISDIR(st.st_mode):
                out[os.path.normpath(os.path.join(rel_dir, d))] = [stat.S_IFDIR | 0o755, ""]
        for f in filenames:
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            if not stat.S_ISREG(st.st_mode):
                continue  # symlinks, fifos, sockets: never carried out of the jail
            total += st.st_size
            if total > limit:
                raise OverflowError(f"work directory holds more than {limit} bytes")
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                chunks = []
                while True:
                    c = os.read(fd, 1 << 20)
                    if not c:
                        break
                    chunks.append(c)
            finally:
                os.close(fd)
            out[os.path.normpath(os.path.join(rel_dir, f))] = [st.st_mode & 0o777, base64.b64encode(b"".join(chunks)).decode()]
    return out


def _wipe(path: str, keep_root: bool = True) -> None:
    """Remove everything under ``path`` that this uid may remove, fixing modes on the way."""
    try:
        entries = os.listdir(path)
    except PermissionError:
        try:
            os.chmod(path, 0o700)
            entries = os.listdir(path)
        except OSError:
            return
    except OSError:
        return
    for name in entries:
        p = os.path.join(path, name)
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                os.chmod(p, 0o700)
            except OSError:
                pass
            _wipe(p, keep_root=False)
            try:
                os.rmdir(p)
            except OSError:
                pass
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


# --- processes of the program uid -----------------------------------------------------------

def _proc_uid(pid: str) -> int | None:
    # /proc/<pid> is owned by root while a process is not dumpable (right after setuid,
    # and for the whole of a Python fast-path run), so read the real uid from status.
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def uid_processes(uid: int) -> list[int]:
    """Processes (zombies included) whose real uid is ``uid``."""
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and _proc_uid(n) == uid]


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def uid_usage(uid: int) -> tuple[int, float]:
    """(resident bytes, CPU seconds incl. reaped children) summed over the uid's processes."""
    tick = os.sysconf("SC_CLK_TCK")
    rss = 0
    cpu_ticks = 0
    for pid in uid_processes(uid):  # a handful: the container holds nothing else
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            # after the comm: state=0 ... utime=11 stime=12 cutime=13 cstime=14 ... rss=21
            cpu_ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            rss += int(fields[21]) * resource.getpagesize()
        except (OSError, IndexError, ValueError):
            continue
    return rss, cpu_ticks / tick


class Meter:
    """What the program uses right now: memory (anonymous + tmpfs) and CPU time.

    The container holds the executor and the program, nothing else, so the container's
    own counters minus the executor's share are the program's, and shared pages count
    once (summing per-process RSS would count a fork bomb's shared pages sixty times):
      - runc, cgroup v1 or v2: memory.stat (anon/rss + shmem) and cpuacct / cpu.stat;
      - gVisor: the Sentry's /proc/meminfo (anon + shmem) for memory, /proc per process for CPU;
      - otherwise: per-process RSS plus the tmpfs mounts' usage.
    """

    def __init__(self, uid: int, runtime: str):
        self.uid = uid
        self.mem_kind = "rss"
        self.cpu_kind = "proc"
        if os.path.exists("/sys/fs/cgroup/memory/memory.stat"):
            self.mem_kind = "cgroup1"
        elif os.path.exists("/sys/fs/cgroup/memory.stat"):
            self.mem_kind = "cgroup2"
        elif runtime.startswith("runsc"):
            self.mem_kind = "meminfo"
        if os.path.exists("/sys/fs/cgroup/cpuacct/cpuacct.usage"):
            self.cpu_kind = "cgroup1"
        elif os.path.exists("/sys/fs/cgroup/cpu.stat"):
            self.cpu_kind = "cgroup2"
        self.mem_base = 0
        self.cpu_base = 0.0

    def start(self) -> None:
        self.mem_base = self._mem_total() - _self_rss()
        self.cpu_base = self._cpu_total() - _self_cpu() if self.cpu_kind != "proc" else 0.0

    def memory(self) -> int:
        if self.mem_kind == "rss":
            return uid_usage(self.uid)[0] + tmpfs_used()
        return max(0, self._mem_total() - _self_rss() - self.mem_base)

    def cpu(self) -> float:
        if self.cpu_kind == "proc":
            return uid_usage(self.uid)[1]
        return max(0.0, self._cpu_total() - _self_cpu() - self.cpu_base)

    def _mem_total(self) -> int:
        if self.mem_kind == "cgroup1":
            kv = _read_kv("/sys/fs/cgroup/memory/memory.stat")
            return kv.get("rss", 0) + kv.get("shmem", 0)
        if self.mem_kind == "cgroup2":
            kv = _read_kv("/sys/fs/cgroup/memory.stat")
            return kv.get("anon", 0) + kv.get("shmem", 0)
        if self.mem_kind == "meminfo":
            kv = _read_kv("/proc/meminfo", colon=True)
            return (kv.get("Active(anon)", 0) + kv.get("Inactive(anon)", 0) + kv.get("Shmem", 0)) * 1024
        return 0

    def _cpu_total(self) -> float:
        try:
            if self.cpu_kind == "cgroup1":
                with open("/sys/fs/cgroup/cpuacct/cpuacct.usage") as f:
                    return int(f.read()) / 1e9
            if self.cpu_kind == "cgroup2":
                return _read_kv("/sys/fs/cgroup/cpu.stat").get("usage_usec", 0) / 1e6
        except (OSError, ValueError):
            pass
        return 0.0


def _read_kv(path: str, colon: bool = False) -> dict:
    out = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.replace(":", " ").split() if colon else line.split()
                if len(parts) >= 2:
                    try:
                        out[parts[0]] = int(parts[1])
                    except ValueError:
                        pass
    except OSError:
        pass
    return out


def _self_rss() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _self_cpu() -> float:
    t = os.times()
    return t.user + t.system


def tmpfs_used() -> int:
    used = 0
    for mnt in TMPFS_ACCOUNTED:
        try:
            st = os.statvfs(mnt)
            used += (st.f_blocks - st.f_bfree) * st.f_frsize
        except OSError:
            pass
    return used


IPC_PRIVATE = 0
IPC_SCAN_MAX = 20000  # more ids than this since the last cleanup: recycle the container instead


def _ipc_rm(kind: str, ident: int) -> int:
    if kind == "shm":
        return _libc.shmctl(ident, IPC_RMID, None)
    if kind == "sem":
        return _libc.semctl(ident, 0, IPC_RMID)
    return _libc.msgctl(ident, IPC_RMID, None)


def _ipc_probe(kind: str) -> int:
    if kind == "shm":
        return _libc.shmget(IPC_PRIVATE, 1, 0o600)
    if kind == "sem":
        return _libc.semget(IPC_PRIVATE, 1, 0o600)
    return _libc.msgget(IPC_PRIVATE, 0o600)


def rm_sysv_ipc(uid: int, marks: dict) -> tuple[dict, bool]:
    """Remove the uid's System V shared memory, semaphores and message queues.

    Linux lists them in /proc/sysvipc. gVisor does not, but hands out ids in ascending
    order, like Linux: a fresh probe object's id is above every id made since the last
    cleanup's probe, so removing that range (the probe included) removes them all.
    Returns the new marks, and False when the range was too long to sweep.
    """
    if os.path.exists("/proc/sysvipc/shm"):
        _rm_sysv_ipc_listed(uid)
        return marks, True
    ok = True
    new = dict(marks)
    for kind in ("shm", "sem", "msg"):
        top = _ipc_probe(kind)
        if top < 0:
            continue
        low = int(marks.get(kind, -1)) + 1
        if top < low:  # the ids wrapped around: sweep from 0
            low = 0
        if top - low > IPC_SCAN_MAX:
            ok = False
            low = top - IPC_SCAN_MAX
        for ident in range(low, top + 1):
            _ipc_rm(kind, ident)
        new[kind] = top
    return new, ok


def _rm_sysv_ipc_listed(uid: int) -> None:
    for kind, rm in (("shm", lambda i: _libc.shmctl(i, IPC_RMID, None)),
                     ("sem", lambda i: _libc.semctl(i, 0, IPC_RMID)),
                     ("msg", lambda i: _libc.msgctl(i, IPC_RMID, None))):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        if not lines:
            continue
        head = lines[0].split()
        try:
            id_col, uid_col = head.index({"shm": "shmid", "sem": "semid", "msg": "msqid"}[kind]), head.index("uid")
        except ValueError:
            continue
        for line in lines[1:]:
            cols = line.split()
            try:
                if int(cols[uid_col]) == uid:
                    rm(int(cols[id_col]))
            except (IndexError, ValueError):
                continue


# --- the executor ---------------------------------------------------------------------------

class Executor:
    def __init__(self, cfg: dict):
        self.uid = int(cfg["uid"])
        self.gid = int(cfg["gid"])
        self.bpf = base64.b64decode(cfg["bpf"]) if cfg.get("bpf") else None
        self.env = {"PATH": PATH, "HOME": WORK, "LANG": "C.UTF-8", "TMPDIR": "/tmp", **(cfg.get("env") or {})}
        self.poll_s = float(cfg.get("poll_s", 0.005))
        self.work_limit = int(cfg.get("work_limit_bytes", 256 << 20))
        self.count = 0
        self.runtime = str(cfg.get("runtime", "runc"))
        self.ipc_marks: dict = {}
        self.meter = Meter(self.uid, self.runtime)

    def setup(self) -> dict:
        os.umask(0o022)
        os.makedirs(CACHE, mode=0o711, exist_ok=True)
        os.chmod(CACHE, 0o711)
        os.makedirs(EMPTY, mode=0o755, exist_ok=True)
        self._point_prog(EMPTY)
        anomaly = self._cleanup(collect=False)[1]
        if anomaly:
            raise RuntimeError(anomaly)
        return {"ok": True, "pid": os.getpid(), "uid": os.getuid(), "python": sys.version.split()[0],
                "kernel": os.uname().release, "oom_kills": self._oom_kills(),
                "meter": {"memory": self.meter.mem_kind, "cpu": self.meter.cpu_kind}}

    # -- /prog

    def _point_prog(self, target: str) -> None:
        tmp = PROG_LINK + ".new"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.rename(tmp, PROG_LINK)

    def _prepare_prog(self, req: dict) -> bool:
        for key in req.get("evict") or ():
            _rm_tree_root(os.path.join(CACHE, _safe_rel(key)))
        key = req.get("prog_key")
        if not key:
            self._point_prog(EMPTY)
            return True
        d = os.path.join(CACHE, _safe_rel(key))
        if not os.path.isdir(d):
            files = req.get("prog_files")
            if files is None:
                return False
            tmp = d + ".tmp"
            _rm_tree_root(tmp)
            write_tree(tmp, files)
            os.rename(tmp, d)
        self._point_prog(d)
        return True

    # -- one execution

    def execute(self, req: dict) -> dict:
        self.count += 1
        if not self._prepare_prog(req):
            return {"missing_prog": True}
        lim = req["limits"]
        stdin_fd = os.memfd_create("stdin", 0)
        stdin = base64.b64decode(req.get("stdin") or "")
        view = memoryview(stdin)
        while view:
            view = view[os.write(stdin_fd, view):]
        os.lseek(stdin_fd, 0, os.SEEK_SET)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        status_r, status_w = os.pipe()
        oom_before = self._oom_kills()
        self.meter.start()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.close(out_r), os.close(err_r), os.close(status_r)
                self._child(req, stdin_fd, out_w, err_w, status_w)
            except BaseException as e:
                try:
                    os.write(status_w, f"{type(e).__name__}: {e}".encode()[:4000])
                finally:
                    os._exit(127)
            os._exit(127)
        os.close(stdin_fd), os.close(out_w), os.close(err_w), os.close(status_w)
        res = self._supervise(pid, lim, out_r, err_r, t0)
        setup_error = _drain(status_r)
        os.close(status_r)
        if self._oom_kills() > oom_before:
            res["memory_exceeded"] = True
        if res["cpu_s"] > lim["cpu_s"] or res["signal"] == signal.SIGXCPU:
            res["cpu_exceeded"] = True
        if res["memory_kb"] * 1024 > lim["memory_bytes"]:
            res["memory_exceeded"] = True
        if setup_error:
            res["error"] = "jail setup failed: " + setup_error.decode(errors="replace")
        files, anomaly = self._cleanup(collect=bool(req.get("collect_work")), fetch=req.get("fetch"))
        if files is not None:
            fetched = files.pop("\0fetched", None)
            if fetched is not None:
                res["files"] = fetched
            if req.get("collect_work"):
                res["work_files"] = files
        if anomaly:
            res["anomaly"] = anomaly
        return res

    def _child(self, req, stdin_fd, out_w, err_w, status_w):
        lim = req["limits"]
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # under runc the container's OOM killer takes the program, not us
        except OSError:
            pass
        set_rlimits(lim, gvisor=self.runtime.startswith("runsc"))
        os.dup2(stdin_fd, 0), os.dup2(out_w, 1), os.dup2(err_w, 2)
        os.set_blocking(1, True)
        os.chdir(WORK)
        os.setgroups([])
        os.setresgid(self.gid, self.gid, self.gid)
        os.setresuid(self.uid, self.uid, self.uid)
        if req.get("work_files"):
            write_tree(WORK, req["work_files"], public=False)
        js.prctl(js.PR_SET_NO_NEW_PRIVS, 1)
        js.prctl(js.PR_SET_PDEATHSIG, signal.SIGKILL)
        env = {**self.env, **(req.get("env") or {})}
        os.closerange(3, status_w)
        os.closerange(status_w + 1, 65536)
        os.set_inheritable(status_w, False)
        argv = list(req["argv"])
        exe = argv[0]
        if "/" not in exe:
            exe = _which(exe, env.get("PATH", PATH)) or exe
        if self.bpf is not None:
            js.load_seccomp(self.bpf)
        if req.get("python_inline") is not None:
            os.close(status_w)
            js._run_python_inline(req["python_inline"], argv, env)
        os.execve(exe, argv, env)

    def _supervise(self, pid, lim, out_r, err_r, t0) -> dict:
        cap = int(lim["output_bytes"])
        deadline = t0 + float(lim["wall_s"])
        cpu_limit = float(lim["cpu_s"])
        mem_limit = int(lim["memory_bytes"])
        bufs = {out_r: bytearray(), err_r: bytearray()}
        open_fds = {out_r, err_r}
        for fd in open_fds:
            os.set_blocking(fd, False)
        try:  # wakes the loop the moment the program ends; gVisor has no pidfd: poll waitpid then
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
        poller = select.poll()
        for fd in (out_r, err_r) + ((pidfd,) if pidfd is not None else ()):
            poller.register(fd, select.POLLIN | select.POLLHUP)
        reaped = None
        run_delay = 0.0
        flags = {"wall": False, "cpu": False, "mem": False, "out": False}
        killed = exited = False
        peak = 0
        cpu_seen = 0.0
        next_sample = 0.0
        next_cpu = 0.0
        meter = self.meter
        drain_deadline = None
        while open_fds or not exited:
            now = time.monotonic()
            if not killed and not exited:
                if now >= deadline:
                    flags["wall"] = killed = True
                    self._kill(pid)
                elif now >= next_sample:
                    mem = meter.memory()
                    peak = max(peak, mem)
                    next_sample = now + self.poll_s
                    if now >= next_cpu:  # CPU moves slowly next to memory: sample it less often
                        cpu_seen = max(cpu_seen, meter.cpu())
                        next_cpu = now + max(self.poll_s, 0.02 if meter.cpu_kind != "proc" else 0.05)
                    if mem > mem_limit:
                        flags["mem"] = killed = True
                        self._kill(pid)
                    elif cpu_seen > cpu_limit:
                        flags["cpu"] = killed = True
                        self._kill(pid)
            if (killed or exited) and drain_deadline is None:
                drain_deadline = now + 2.0
            if drain_deadline is not None and now > drain_deadline:
                break
            wait = min(self.poll_s, max(0.0, deadline - now)) if not (killed or exited) else 0.05
            events = poller.poll(wait * 1000)
            if not exited:
                try:  # peek first: the scheduler counters are readable only until the reap
                    if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                        run_delay = js.run_delay_s(pid)
                except ChildProcessError:
                    pass
                got, status, ru = os.wait4(pid, os.WNOHANG)
                if got == pid:
                    reaped = (status, ru, time.monotonic())
                    exited = True
                    if pidfd is not None:
                        poller.unregister(pidfd)
                    # The main process is gone: so is everything it left behind, as in a PID namespace.
                    self._kill_uid()
            for fd, _ev in events:
                if fd == pidfd:
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    open_fds.discard(fd)
                    poller.unregister(fd)
                    continue
                bufs[fd] += chunk
                if len(bufs[out_r]) + len(bufs[err_r]) > cap and not flags["out"]:
                    flags["out"] = True
                    if not killed:
                        killed = True
                        self._kill(pid)
        if reaped is None:
            self._kill(pid)
            _, status, ru = os.wait4(pid, 0)
            t_end = time.monotonic()
        else:
            status, ru, t_end = reaped
        wall_s = t_end - t0
        if pidfd is not None:
            os.close(pidfd)
        os.close(out_r), os.close(err_r)
        out, err = bytes(bufs[out_r]), bytes(bufs[err_r])
        if flags["out"]:
            out = out[:cap]
            err = err[: max(0, cap - len(out))]
        cpu_s = max(ru.ru_utime + ru.ru_stime, cpu_seen)
        return {
            "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "cpu_s": cpu_s, "wall_s": wall_s, "memory_kb": max(ru.ru_maxrss, peak // 1024),
            "stdout": base64.b64encode(out).decode(), "stderr": base64.b64encode(err).decode(),
            "run_delay_s": run_delay,
            "wall_exceeded": flags["wall"], "cpu_exceeded": flags["cpu"], "memory_exceeded": flags["mem"],
            "output_exceeded": flags["out"], "error": None,
        }

    # -- killing and cleaning, as the program's uid

    def _kill(self, pid: int) -> None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        self._kill_uid()

    def _as_uid(self, fn, out_fd: int | None = None) -> int:
        """Run ``fn`` in a child that has become the program uid; its exit status."""
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                os.setgroups([])
                os.setresgid(self.gid, self.gid, self.gid)
                os.setresuid(self.uid, self.uid, self.uid)
                code = fn() or 0
            except BaseException:
                code = 1
            os._exit(code)
        if out_fd is not None:
            return pid
        _, status = os.waitpid(pid, 0)
        return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)

    def _kill_uid(self, rounds: int = 1000) -> bool:
        """SIGKILL every live process of the program uid (CAP_KILL), until none is left.

        No PID namespace inside a container: the uid is the group. A fork bomb refills the
        list while it is being killed, so go round until a listing comes back empty.
        """
        for _ in range(rounds):
            live = [p for p in uid_processes(self.uid) if not _is_zombie(p)]
            if not live:
                return True
            for p in live:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.0005)
        return False

    def _reap(self, timeout: float = 2.0) -> list[int]:
        """Collect the zombies of killed processes (this is PID 1: orphans are ours).

        Returns the uid's processes still there when the time is up.
        """
        end = time.monotonic() + timeout
        while True:
            while True:
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
            left = uid_processes(self.uid)
            if not left or time.monotonic() > end:
                return left
            self._kill_uid()
            time.sleep(0.001)

    def _dirty(self) -> bool:
        """Could the program have left anything behind? (No: skip the cleanup helper's fork.)"""
        for d in (WORK,) + SCRATCH:
            try:
                if os.listdir(d):
                    return True
            except FileNotFoundError:
                continue
            except OSError:
                return True  # the program changed the mode of its /work: the helper fixes it
        if os.path.exists("/proc/sysvipc/shm"):
            for kind in ("shm", "sem", "msg"):
                try:
                    with open(f"/proc/sysvipc/{kind}") as f:
                        rows = f.read().splitlines()[1:]
                except OSError:
                    return True
                if rows:
                    return True
            return False
        # gVisor: ids go up one by one; a probe right after the last one means none was made.
        dirty = False
        for kind in ("shm", "sem", "msg"):
            top = _ipc_probe(kind)
            if top < 0:
                continue
            _ipc_rm(kind, top)
            last = self.ipc_marks.get(kind)
            if last is None or top != last + 1:
                dirty = True
            self.ipc_marks[kind] = top
        return dirty

    def _cleanup(self, collect: bool, fetch=None) -> tuple[dict | None, str | None]:
        """Kill the uid's processes; read /work back if asked; wipe every writable place.

        The wiping runs in a helper that has become the program uid (root here has no
        DAC_OVERRIDE, and must not need it); when nothing was left it is skipped.
        """
        anomaly = None
        if not self._kill_uid():
            anomaly = "the program's processes could not all be killed"
        left = self._reap()
        if left:
            anomaly = f"{len(left)} process(es) of the program survived the kill"
        if not collect and fetch is None and not self._dirty():
            return None, anomaly
        r, w = os.pipe()
        limit = self.work_limit
        marks = dict(self.ipc_marks)

        def helper():
            os.close(r)
            payload: dict = {}
            if collect:
                try:
                    payload["files"] = read_tree(WORK, limit)
                except (OSError, OverflowError) as e:
                    payload["error"] = str(e)
            if fetch is not None:  # fetch_files: only these, read as the program's uid, no links followed
                got = js.read_beneath(WORK, fetch, js.FETCH_LIMIT)
                payload["fetched"] = {k: base64.b64encode(v).decode() for k, v in got.items()}
            for d in (WORK,) + SCRATCH:
                _wipe(d)
            try:
                os.chmod(WORK, 0o755)
            except OSError:
                pass
            payload["ipc_marks"], payload["ipc_ok"] = rm_sysv_ipc(self.uid, marks)
            view = memoryview(json.dumps(payload).encode())
            while view:
                view = view[os.write(w, view):]
            os.close(w)
            return 0

        pid = self._as_uid(helper, out_fd=w)
        os.close(w)
        data = _drain(r)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            anomaly = anomaly or f"cleanup helper failed (status {status})"
        try:
            if os.listdir(WORK):
                anomaly = anomaly or "/work is not empty after cleanup"
        except OSError as e:
            anomaly = anomaly or f"/work unreadable after cleanup: {e}"
        try:
            payload = json.loads(data or b"{}")
        except ValueError:
            payload = {"error": "cleanup report was garbled"}
            anomaly = anomaly or "cleanup report was garbled"
        self.ipc_marks = payload.get("ipc_marks", self.ipc_marks)
        if payload.get("ipc_ok") is False:
            anomaly = anomaly or "too many System V IPC ids to sweep"
        files = None
        if collect:
            # A work directory too big to carry back is the program's doing, not an anomaly.
            files = {"__error__": payload["error"]} if "error" in payload else payload.get("files", {})
        if fetch is not None:
            files = dict(files or {}, **{"\0fetched": payload.get("fetched", {})})
        return files, anomaly

    def _oom_kills(self) -> int:
        try:
            with open("/sys/fs/cgroup/memory/memory.oom_control") as f:
                for line in f:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        try:
            with open("/sys/fs/cgroup/memory.events") as f:
                for line in f:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0


def set_rlimits(lim: dict, gvisor: bool = False) -> None:
    """The native jail's rlimits, plus processes (the uid is this container's alone).

    A limit is never raised above what the container allows (no CAP_SYS_RESOURCE here);
    the message-queue limit is best effort: gVisor refuses to set it at all.
    """
    cpu = int(lim["cpu_s"]) + 1  # the executor's CPU accounting judges the exact limit
    nproc = int(lim["processes"])
    if gvisor:  # gVisor lets a uid have limit+1 tasks (Linux: limit); keep the same bound
        nproc = max(1, nproc - 1)
    stack = min(int(lim["memory_bytes"]), 1 << 30)
    wanted = [
        (resource.RLIMIT_CPU, cpu, cpu + 1, True),
        (resource.RLIMIT_FSIZE, int(lim["file_size_bytes"]), int(lim["file_size_bytes"]), True),
        (resource.RLIMIT_CORE, 0, 0, True),
        (resource.RLIMIT_NOFILE, 256, 256, True),
        (resource.RLIMIT_STACK, stack, stack, True),
        (resource.RLIMIT_NPROC, nproc, nproc, True),
        (resource.RLIMIT_MEMLOCK, 0, 0, True),
        (resource.RLIMIT_MSGQUEUE, 0, 0, False),
    ]
    if lim.get("address_space_bytes"):
        a = int(lim["address_space_bytes"])
        wanted.append((resource.RLIMIT_AS, a, a, True))
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


def _drain(fd: int) -> bytes:
    """Everything until EOF (a list of big reads: joining 4 KiB pieces would be quadratic)."""
    chunks = []
    while True:
        try:
            c = os.read(fd, 1 << 20)
        except InterruptedError:
            continue
        except OSError:
            break
        if not c:
            break
        chunks.append(c)
    return b"".join(chunks)


def _rm_tree_root(path: str) -> None:
    """Remove a directory this (root) process wrote itself."""
    if not os.path.lexists(path):
        return
    if os.path.isdir(path) and not os.path.islink(path):
        for name in os.listdir(path):
            _rm_tree_root(os.path.join(path, name))
        os.rmdir(path)
    else:
        os.unlink(path)


def _which(name: str, path: str) -> str | None:
    for d in path.split(":"):
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


# --- the loop -------------------------------------------------------------------------------

def main() -> int:
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0), os.dup2(devnull, 1)
    os.close(devnull)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # PID 1 ignores signals it has no handler for: without this, `docker stop` (and a
    # dockerd shutting down) would wait its whole grace period for us.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    msg = js.read_msg(rfd)
    if not msg or msg.get("op") != "init":
        return 2
    try:
        ex = Executor(msg)
        reply = ex.setup()
    except Exception as e:
        js.write_msg(wfd, {"ok": False, "error": f"{type(e).__name__}: {e}"})
        return 1
    js.write_msg(wfd, reply)
    while True:
        req = js.read_msg(rfd)
        if req is None or req.get("op") == "stop":
            return 0
        if req.get("op") == "ping":
            js.write_msg(wfd, {"ok": True, "count": ex.count})
            continue
        try:
            res = ex.execute(req)
        except Exception as e:
            res = {"error": f"executor: {type(e).__name__}: {e}", "anomaly": "executor raised"}
        js.write_msg(wfd, res)


# The bootstrap the container starts with: read {"modules": {name: source}, "main": name}
# as one length-prefixed JSON frame on stdin, install the modules, run main().
BOOTSTRAP = (
    "import json,os,struct,sys,types\n"
    "def r(n):\n"
    " b=b''\n"
    " while len(b)<n:\n"
    "  c=os.read(0,n-len(b))\n"
    "  if not c: sys.exit(3)\n"
    "  b+=c\n"
    " return b\n"
    "m=json.loads(r(struct.unpack('>I',r(4))[0]))\n"
    "for k in m['order']:\n"
    " mod=types.ModuleType(k);mod.__file__='<codetest:'+k+'>';sys.modules[k]=mod\n"
    " exec(compile(m['modules'][k],mod.__file__,'exec'),mod.__dict__)\n"
    "sys.exit(sys.modules[m['main']].main())\n"
)


if __name__ == "__main__":
    sys.exit(main())
