"""The container box: the jail server as PID 1 of a hardened pool container.

The container is the outer jail (namespaces, read-only root, no network, the shared seccomp
profile, cgroup limits, gVisor when present); the server is uid 0 of the container with every
capability dropped except SETUID, SETGID and KILL. Per execution the box supplies:

  before      the program's files at /prog (a symlink switched to a root-owned, read-only
              directory in the server's tmpfs, cached by content key); the meter's baseline
  cgroup      none of its own: the container's; memory and CPU are sampled by the meter
  root        a new session, the OOM killer's preference, /work
  credentials the container's unprivileged uid
  files       the compile step's work files (with their modes)
  after       every process of the uid killed (no PID namespace here: the uid is the group);
              /work, /tmp, /dev/shm and System V IPC wiped by a helper running as that uid;
              anything left is an anomaly, and the host retires the container.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import stat
import sys
import time

from . import kernel
from .container_usage import Meter, is_zombie, oom_kills, uid_processes
from .protocol import (
    F_BYTES, F_END, F_JOB, Facts, Job, Limits, frame, json_frame, read_frame, write_all,
)
from .fetch import read_fetch
from .protocol import FETCH_BYTES
from .steps import credentials, safe_rel
from .tree import files_from_job, read_tree, work_reply, write_tree

ROOT = "/run/codetest"          # the server's own tmpfs (root-owned, 0755)
CACHE = ROOT + "/cache"         # program directories by key (0711: no listing)
EMPTY = CACHE + "/-"            # what /prog shows when an execution has no program dir
PROG_LINK = ROOT + "/prog"      # /prog in the image is a symlink to this
IPC_MARKS = ROOT + "/ipc-marks"
HIDDEN_DEVICES = "/dev/.codetest-hidden"  # root-only: endless devices wait here while a compiler runs (a rename: same file system)
ENDLESS_DEVICES = ("zero", "full", "random", "urandom", "tty")
GVISOR_MAX_STACK = 128 << 20
WORK = "/work"
SCRATCH = ("/tmp", "/mnt", "/dev/shm", "/dev/mqueue")
FETCHED = "\0fetched"            # _cleanup's key for the fetch files (no path has a NUL)
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _wipe(path: str) -> None:
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
            _wipe(p)
            try:
                os.rmdir(p)
            except OSError:
                pass
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


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


# --- the box --------------------------------------------------------------------------------

class ContainerBox:
    rlimits = True

    def __init__(self, cfg: dict):
        self.uid = int(cfg["uid"])
        self.gid = int(cfg["gid"])
        self.bpf = base64.b64decode(cfg["bpf"]) if cfg.get("bpf") else None
        self.env = {"PATH": PATH, "HOME": WORK, "LANG": "C.UTF-8", "TMPDIR": "/tmp", **(cfg.get("env") or {})}
        self.path = PATH
        self.poll_s = float(cfg.get("poll_s", 0.005))
        self.work_limit = int(cfg.get("work_limit_bytes", 256 << 20))
        self.runtime = str(cfg.get("runtime", "runc"))
        # gVisor maps a process's whole stack at exec, never grows it, and maps at most 128 MiB
        # whatever RLIMIT_STACK says: the limit is capped there, so a program sizing its stack
        # from it (Ruby, a thread library) is not killed at start.
        self.max_stack = GVISOR_MAX_STACK if self.runtime.startswith("runsc") else 0
        self.meter = Meter(self.uid, self.runtime)
        self.oom_before = 0

    def setup(self) -> dict:
        # PID 1 ignores signals it has no handler for: without this, `docker stop` (and a
        # dockerd shutting down) would wait its whole grace period for us.
        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
        os.umask(0o022)
        os.makedirs(CACHE, mode=0o711, exist_ok=True)
        os.chmod(CACHE, 0o711)
        try:  # the runtime may copy the image folder's mode onto the tmpfs (runc: 0755, root's)
            os.chmod("/mnt", 0o1777)
        except OSError:
            pass
        os.makedirs(EMPTY, mode=0o755, exist_ok=True)
        self._point_prog(EMPTY)
        if os.path.isdir(HIDDEN_DEVICES):
            self._restore_devices()
        anomaly = self._cleanup(collect=False)[1]
        if anomaly:
            raise RuntimeError(anomaly)
        return {"uid": os.getuid(), "python": sys.version.split()[0], "kernel": os.uname().release,
                "oom_kills": oom_kills(), "meter": {"memory": self.meter.mem_kind, "cpu": self.meter.cpu_kind}}

    # -- /prog

    def _point_prog(self, target: str) -> None:
        tmp = PROG_LINK + ".new"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(target, tmp)
        os.rename(tmp, PROG_LINK)

    def _prepare_prog(self, job: Job) -> bool:
        for key in job.box.get("evict") or ():
            _rm_tree_root(os.path.join(CACHE, safe_rel(key)))
        key = job.box.get("prog_key")
        if not key:
            self._point_prog(EMPTY)
            return True
        d = os.path.join(CACHE, safe_rel(key))
        if not os.path.isdir(d):
            if not job.box.get("prog_modes") and not job.box.get("prog_sent"):
                return False
            tmp = d + ".tmp"
            _rm_tree_root(tmp)
            write_tree(tmp, files_from_job(job, "prog:"))
            os.rename(tmp, d)
        self._point_prog(d)
        return True

    def enter_skeleton(self) -> None:
        pass  # in the zygote: the container's root is already the image, the host's never shown

    # -- per execution, in the supervisor

    def prepare(self) -> None:
        pass

    def before(self, job: Job, lim: Limits):
        if not self._prepare_prog(job):
            return {"missing_prog": True}
        if job.box.get("collect_work"):  # the compile step
            self._hide_devices()
        self.oom_before = oom_kills()
        self.meter.start()
        return None

    def program_fds(self, job: Job) -> list:
        return []  # the container's cgroup: nothing to join; /prog is the container's own

    def begin_program(self, fds: list, channel, job: Job) -> None:
        pass

    def forked(self) -> None:
        pass

    def kill_program(self, pid: int) -> None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        self._kill_uid()

    def kill_rest(self) -> None:
        self._kill_uid()

    def _hide_devices(self) -> None:
        """The compile step's /dev keeps ``null`` and the fd links only: a compiler reads what a
        source names (``#include "/dev/zero"``), and no endless device is there to read. The
        container's /dev is ours (root's tmpfs); the nodes wait in a root-only folder."""
        os.makedirs(HIDDEN_DEVICES, mode=0o700, exist_ok=True)
        for name in ENDLESS_DEVICES:
            try:
                os.rename(f"/dev/{name}", f"{HIDDEN_DEVICES}/{name}")
            except FileNotFoundError:
                pass

    def _restore_devices(self) -> None:
        for name in ENDLESS_DEVICES:
            try:
                os.rename(f"{HIDDEN_DEVICES}/{name}", f"/dev/{name}")
            except FileNotFoundError:
                pass

    def after(self, job: Job, lim: Limits, facts: Facts, channel):
        self._restore_devices()
        if oom_kills() > self.oom_before:
            facts.oom_kill = True
        files, anomaly = self._cleanup(collect=bool(job.box.get("collect_work")), fetch=job.fetch)
        if isinstance(files, dict):
            facts.files = files.pop(FETCHED, {})
            if not job.box.get("collect_work"):
                files = None
        extras: dict = {}
        blobs: list = []
        if anomaly:
            extras["anomaly"] = anomaly
        if files is not None:
            work, blobs = work_reply(files)
            extras.update(work)
        return extras, blobs

    # -- per execution, in the program's process

    def enter_cgroup(self) -> None:
        pass  # the container's cgroup; the meter watches it

    def make_root(self, job: Job, lim: Limits) -> str:
        os.setsid()
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # under runc the container's OOM killer takes the program, not us
        except OSError:
            pass
        return WORK

    def network(self) -> None:
        pass  # the container has no network

    def nproc(self, lim: Limits) -> int:
        nproc = int(lim.processes)
        if self.runtime.startswith("runsc"):  # gVisor lets a uid have limit+1 tasks (Linux: limit)
            nproc = max(1, nproc - 1)
        return nproc

    def credentials(self) -> None:
        credentials(self.uid, self.gid)
        # As on native: the uid change made the process non-dumpable (its /proc/self owned by
        # root); exec resets that, the Python fast path does not. Core dumps stay off.
        kernel.prctl(kernel.PR_SET_DUMPABLE, 1)

    def write_files(self, job: Job) -> None:
        work = files_from_job(job, "work:")
        if work:
            write_tree(WORK, work, public=False)

    # -- after the reply, in the supervisor

    def sweep(self) -> None:
        self._kill_uid()
        kernel.reap_children()

    # -- killing and cleaning, as the program's uid

    def _as_uid(self, fn):
        """Run ``fn`` in a child that has become the program uid; its pid."""
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                credentials(self.uid, self.gid)
                code = fn() or 0
            except BaseException:
                code = 1
            os._exit(code)
        return pid

    def _kill_uid(self, rounds: int = 1000) -> bool:
        """SIGKILL every live process of the program uid (CAP_KILL), until none is left.

        Each round is one kill(-1): with CAP_KILL it takes every process of the container but
        PID 1 (the zygote) and the caller at once, so a fork bomb cannot refill what would be
        killed one by one (under gVisor a fork racing with it can still leave a child, which the
        next round takes). Go round until a listing of the uid (no PID namespace inside a
        container: the uid is the group) shows nothing alive.
        """
        for _ in range(rounds):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if not any(not is_zombie(p) for p in uid_processes(self.uid)):
                return True
            time.sleep(0.0005)
        return False

    def _reap(self, timeout: float = 2.0) -> list:
        """Collect the zombies of killed processes; the uid's processes still there at the end."""
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

    def _marks(self) -> dict:
        try:
            with open(IPC_MARKS) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def _save_marks(self, marks: dict) -> None:
        with open(IPC_MARKS + ".new", "w") as f:
            json.dump(marks, f)
        os.rename(IPC_MARKS + ".new", IPC_MARKS)

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
        clean, marks = kernel.ipc_untouched(self._marks())
        self._save_marks(marks)
        return not clean

    def _cleanup(self, collect: bool, fetch=None):
        """Kill the uid's processes; read /work back if asked (all of it for the compile step,
        the ``fetch`` paths for a test, under the ``FETCHED`` key); wipe every writable place.

        The wiping runs in a helper that has become the program uid (root here has no
        DAC_OVERRIDE, and must not need it); when nothing was left it is skipped.
        Returns (files or an error text or None, anomaly or None).
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
        marks = self._marks()

        def helper():
            os.close(r)
            meta: dict = {}
            files: dict = {}
            if collect:
                try:
                    files = read_tree(WORK, limit)
                except (OSError, OverflowError) as e:
                    meta["error"] = str(e)
            fetched: dict = {}
            if fetch is not None:  # as the program's uid, no link followed, bounded
                fetched = read_fetch({"work": WORK, "mnt": "/mnt"}, fetch)
            for d in (WORK,) + SCRATCH:
                _wipe(d)
            try:
                os.chmod(WORK, 0o755)
            except OSError:
                pass
            meta["ipc_marks"], meta["ipc_ok"] = kernel.ipc_sweep(self.uid, marks)
            names = sorted(files)
            meta["files"] = [[n, files[n][0]] for n in names]
            fnames = sorted(fetched)
            meta["fetched"] = fnames
            write_all(w, json_frame(F_JOB, meta) + b"".join(frame(F_BYTES, files[n][1]) for n in names)
                      + b"".join(frame(F_BYTES, fetched[n]) for n in fnames) + frame(F_END, b""))
            os.close(w)
            return 0

        pid = self._as_uid(helper)
        os.close(w)
        meta, files, fetched = {}, {}, {}
        try:
            got = read_frame(r, 1 << 20, F_JOB)
            meta = json.loads(got[1]) if got else {}
            for name, mode in meta.get("files", []):
                files[name] = (int(mode), read_frame(r, limit + 1, F_BYTES)[1])
            left = FETCH_BYTES
            for name in meta.get("fetched", []):
                fetched[name] = read_frame(r, left, F_BYTES)[1]
                left -= len(fetched[name])
        except Exception as e:
            anomaly = anomaly or f"cleanup report was garbled: {e}"
            meta = {"error": "cleanup report was garbled"}
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            anomaly = anomaly or f"cleanup helper failed (status {status})"
        try:
            if os.listdir(WORK):
                anomaly = anomaly or "/work is not empty after cleanup"
        except OSError as e:
            anomaly = anomaly or f"/work unreadable after cleanup: {e}"
        if "ipc_marks" in meta:
            self._save_marks(meta["ipc_marks"])
        if meta.get("ipc_ok") is False:
            anomaly = anomaly or "too many System V IPC ids to sweep"
        if not collect:
            return ({FETCHED: fetched} if fetch is not None else None), anomaly
        # A work directory too big to carry back is the program's doing, not an anomaly.
        if "error" in meta:
            return meta["error"], anomaly
        if fetch is not None:
            files[FETCHED] = fetched
        return files, anomaly
