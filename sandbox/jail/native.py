"""The native box: a slot on a Linux host, jailed with namespaces, a skeleton root and cgroups.

Once per slot (``setup``), the server, still root (or root of a fresh user namespace when the
host user is not), enters the slot's own mount, network (empty), IPC, UTS and PID namespaces,
builds a read-only skeleton root (the system directories and toolchains bound read-only,
device nodes, a generated /etc, a /proc of the slot's PID namespace with the host's
revealing files masked) and goes on as PID 1 of that namespace.

Per execution the box supplies the steps that are the host's: a fresh cgroup (made by the
supervisor, joined by the program through descriptors the supervisor hands it), a fresh mount
namespace with tmpfs /work and /tmp and the program read-only at /prog, pivot_root into the
skeleton, the slot's uid. A job that fetches files back, and the compile step, have their /work
handed to the supervisor as a descriptor, which keeps the tmpfs readable after the program and
its namespace are gone. The compile step's work files travel in the job and back in the reply,
as in a container: no host folder is ever mounted into a run (its path would show in mountinfo).
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import stat

from . import cgroup as cgroups
from . import kernel, steps
from .fetch import read_fetch
from .kernel import (
    CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWUTS, MS_BIND, MS_NOATIME,
    MS_NODEV, MS_NODIRATIME, MS_NOEXEC, MS_NOSUID, MS_PRIVATE, MS_RDONLY, MS_REC, MS_RELATIME, MS_REMOUNT, mount,
)
from .protocol import Facts, Job, Limits
from .tree import files_from_job, read_tree, work_reply, write_tree

CLONE_NEWCGROUP = 0x02000000


def copy_tree(src_fd: int, dst: str) -> None:
    """Regular files and directories of the folder open at ``src_fd`` into ``dst`` (root-owned,
    read-only for the program, execute bits kept); links and anything else are not copied. Read
    through descriptors: the folder is outside this process's root."""
    for rel, dirnames, filenames, dir_fd in os.fwalk(".", dir_fd=src_fd):
        target = dst if rel == "." else os.path.join(dst, rel)
        for d in dirnames:
            if stat.S_ISDIR(os.stat(d, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                os.mkdir(os.path.join(target, d), 0o755)
        for f in filenames:
            st = os.stat(f, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode):
                q = os.path.join(target, f)
                mode = (st.st_mode & 0o555) | 0o444
                src = os.open(f, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
                try:
                    out = os.open(q, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
                    try:
                        os.fchmod(out, mode)  # exactly, whatever the umask took off
                        while os.sendfile(out, src, None, 1 << 30) > 0:
                            pass
                    finally:
                        os.close(out)
                finally:
                    os.close(src)

# /proc files that tell about the host, bound over with neutral content (as container runtimes
# mask them): empty files, or a fixed text where a program may expect a well-formed line.
PROC_MASKED_EMPTY = ("kcore", "keys", "key-users", "timer_list", "sched_debug", "kallsyms", "sysrq-trigger",
                     "latency_stats", "timer_stats", "config.gz", "kpagecount", "kpageflags", "kpagecgroup",
                     "vmallocinfo", "modules", "iomem", "ioports", "slabinfo", "interrupts", "softirqs")
PROC_MASKED_TEXT = {
    "cmdline": "BOOT_IMAGE=/vmlinuz ro quiet\n",
    "sys/kernel/random/boot_id": "00000000-0000-4000-8000-000000000000\n",
    "version": "Linux version 0.0.0 (codetest)\n",
}
PROC_MASKED_DIRS = ("acpi", "scsi", "asound")


class NativeBox:
    rlimits: bool
    max_stack = 0  # no cap beyond the limits
    poll_s = cgroups.CpuMeter.cpu_poll_s  # the supervisor's wake-ups while a program runs: as the meter samples

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.mode = cfg["mode"]  # "root" | "userns"
        self.uid = cfg["uid"]
        self.gid = cfg["gid"]
        self.root = cfg.get("root")  # the skeleton's mount point (host path, private to us)
        self.bpf = base64.b64decode(cfg["bpf"]) if cfg.get("bpf") else None
        self.cgroup_parents = cfg.get("cgroup_parents") or {}
        self.env = dict(cfg.get("env") or {})
        self.path = self.env.get("PATH", "/usr/bin:/bin")
        self.rlimits = bool(cfg.get("rlimits", True))
        self.meter = None
        self.cg = None
        self.seq = 0  # executions so far: names the next cgroup folder
        self.held_procs: dict = {}  # in the supervisor: the reused cgroup folders' cgroup.procs, open
        self.program_cgroup_fds: list = []  # in the program's process: its cgroup's cgroup.procs
        self.program_dir_fd = None  # in the program's process: the program's files
        self.sent_dir_fd = None  # in the supervisor: its copy of that descriptor, until sent
        self.channel = None  # in the program's process: the socket its job came on
        # The slot's own /proc (its PID namespace, where the supervisor's child pids are valid).
        self.proc = os.path.join(self.root, "proc") if self.root else "/proc"

    # -- once per slot, in the server

    def setup(self) -> dict:
        """Enter the slot's namespaces once. Returns in the PID 1 of the slot's PID namespace,
        which becomes the zygote (reaps every orphan, owns the slot's /proc); the supervisor, its
        child, kills everything else in the namespace after every execution."""
        try:  # gVisor lacks it: the slot's PID 1 (the zygote) reaps orphans there anyway
            kernel.prctl(kernel.PR_SET_CHILD_SUBREAPER, 1)
        except OSError:
            pass
        if self.mode == "userns":
            uid, gid = os.getuid(), os.getgid()
            kernel.unshare(CLONE_NEWUSER)
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/uid_map", "w") as f:
                f.write(f"0 {uid} 1")
            with open("/proc/self/gid_map", "w") as f:
                f.write(f"0 {gid} 1")
        kernel.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID)
        kernel.sethostname(b"codetest")
        try:  # the slot's own 127.0.0.1: a program may serve and call itself
            kernel.loopback_up()
        except OSError:
            pass  # gVisor's netstack (the native backend in a runsc pod): no loopback, nothing else lost
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        self._build_skeleton()
        init = os.fork()
        if init:
            # The first process stays outside and only waits: the host holds its pid.
            _, status = os.waitpid(init, 0)
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
        # PID 1 from here on. Signals we do not handle are ignored by an init; keep it that way.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        proc = os.path.join(self.root, "proc")
        # hidepid: a program sees its own processes only, not this root-owned server.
        mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
        self._mask_proc(proc)
        return {}

    def _build_skeleton(self) -> None:
        r = self.root
        mount("codetest", r, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
        for d in ("proc", "dev", "tmp", "mnt", "work", "prog", "etc", "run", ".oldroot", ".masks", ".masks/emptydir"):
            os.makedirs(os.path.join(r, d), exist_ok=True)
        for spec in self.cfg["binds"]:
            self._bind_ro(spec["src"], spec.get("dst", spec["src"]), dev=spec.get("dev", False))
        for name, text in self.cfg.get("etc_files", {}).items():
            with open(os.path.join(r, "etc", name), "w") as f:
                f.write(text)
        for name, text in PROC_MASKED_TEXT.items():
            with open(os.path.join(r, ".masks", name.replace("/", "_")), "w") as f:
                f.write(text)
        open(os.path.join(r, ".masks", "empty"), "w").close()
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"), ("shm", "/tmp")):
            os.symlink(target, os.path.join(r, "dev", name))
        # The skeleton itself becomes read-only: only the per-execution tmpfs mounts are writable.
        mount(None, r, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)

    def _mask_proc(self, proc: str) -> None:
        """Bind neutral content over /proc files that describe the host (best effort per file:
        what this kernel lacks needs no mask)."""
        masks = os.path.join(self.root, ".masks")
        for name in PROC_MASKED_EMPTY:
            if name in PROC_MASKED_TEXT:
                continue
            self._mask(os.path.join(masks, "empty"), os.path.join(proc, name))
        for name in PROC_MASKED_TEXT:
            self._mask(os.path.join(masks, name.replace("/", "_")), os.path.join(proc, name))
        for name in PROC_MASKED_DIRS:
            self._mask(os.path.join(masks, "emptydir"), os.path.join(proc, name), directory=True)

    @staticmethod
    def _mask(src: str, target: str, directory: bool = False) -> None:
        if not os.path.lexists(target) or os.path.isdir(target) != directory:
            return
        try:
            mount(src, target, None, MS_BIND)
            mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            pass

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
        if src != dst and os.path.isdir(src) and self._overlay_ro(src, target):
            return
        mount(src, target, None, MS_BIND | MS_REC)
        # Keep the flags the host mount has (a user namespace may not clear them), add ours.
        keep = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME)
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | keep
        if not dev:
            flags |= MS_NODEV
        mount(None, target, None, flags)

    def _overlay_ro(self, src: str, target: str) -> bool:
        """A folder shown at another path (a toolchain at /opt/codetest/<language>): a bind
        would print ``src`` as its root in mountinfo; a read-only overlay of a detached copy
        prints ``/proc/self/fd/N``. False where this kernel cannot (the bind it is, then)."""
        try:
            kernel.overlay_ro([src, os.path.join(self.root, ".masks", "emptydir")], target)
            return True
        except OSError:
            return False

    # -- per execution, in the supervisor

    def prepare(self) -> None:
        """In the supervisor, before the next header arrives: the next execution's fresh cgroup."""
        if self.cgroup_parents:
            self.seq += 1
            self.cg = cgroups.Cgroup(self.cgroup_parents, f"x{self.seq}", self.held_procs)
            self.meter = cgroups.CpuMeter(self.cg) if self.cg.counts_cpu else None

    def before(self, job: Job, lim: Limits):
        """The execution's limits, and fresh counters."""
        if self.cg is not None:
            self.cg.limit(lim.memory_bytes, lim.processes)
            self.cg.reset()
            self.cg.open_procs()
        return None

    def program_fds(self, job: Job) -> list:
        """What the program's process needs from the host, handed over with its job: its
        cgroup's cgroup.procs, then (when the job has one) its files' folder, which the zygote's
        root no longer shows."""
        fds = list(self.cg.procs_fds) if self.cg is not None else []
        if job.program_dir:
            self.sent_dir_fd = os.open(job.program_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            fds.append(self.sent_dir_fd)
        return fds

    def begin_program(self, fds: list, channel, job: Job) -> None:
        """In the program's process, once its job has arrived."""
        if job.program_dir and fds:
            self.program_dir_fd = fds.pop()
        self.program_cgroup_fds = fds
        self.channel = channel

    def enter_skeleton(self) -> None:
        """In the zygote, once (the supervisor, forked before, keeps the host's view): a mount
        namespace whose root is the skeleton, the host tree detached. Every program's process
        forks from here, so its own mount namespace (``make_root``) starts as a copy of the
        skeleton and needs no ``pivot_root`` and no detaching of the host tree: that detach waits
        for an RCU grace period, serialized across the machine, once per execution."""
        kernel.unshare(CLONE_NEWNS)
        os.chdir(self.root)
        kernel.pivot_root(".", ".oldroot")
        os.chdir("/")
        kernel.umount("/.oldroot")
        self.root, self.proc = "/", "/proc"

    def _mount_work(self, lim: Limits) -> None:
        owner = f"uid={self.uid},gid={self.gid}" if self.mode == "root" else "uid=0,gid=0"
        mount("work", os.path.join(self.root, "work"), "tmpfs", MS_NOSUID | MS_NODEV,
              f"mode=700,{owner},size={lim.tmpfs_bytes()}")

    def forked(self) -> None:
        """In the supervisor, once the program's process has its descriptors (or cannot get
        them): close our copies."""
        if self.cg is not None:
            self.cg.close_procs()
        if self.sent_dir_fd is not None:
            os.close(self.sent_dir_fd)
            self.sent_dir_fd = None

    def kill_program(self, pid: int) -> None:
        self.kill_rest()

    def kill_rest(self) -> None:
        """Everything of the execution: kill(-1) from the supervisor, a root process of the
        slot's PID namespace, reaches every process in it but the zygote (its PID 1) and the
        caller, which is exactly the execution's, at once (a fork racing with it fails)."""
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def after(self, job: Job, lim: Limits, facts: Facts, channel):
        """Kill what is left, read the cgroup's counters. Removing the cgroup and System V IPC
        objects is the sweep, after the reply is out (before the next execution)."""
        self.kill_rest()
        extras: dict = {}
        blobs: list = []
        if job.fetch is not None or _collects_work(job):
            # Nothing of the program runs any more; its /work tmpfs is held open by the
            # descriptor its process sent before it became the program: read what it asked for.
            roots = _received_fds(channel)
            try:
                if roots and _collects_work(job):
                    extras, blobs = _work_reply(roots[0], lim)
                elif roots:
                    facts.files = read_fetch(dict(zip(("work", "mnt"), roots)), job.fetch)
            finally:
                for fd in roots:
                    os.close(fd)
        if self.cg is not None:
            peak, oom, cpu = self.cg.stats()
            if peak:
                facts.memory_bytes = peak
            if cpu is not None:
                facts.cpu_s = max(facts.cpu_s, cpu)
            facts.oom_kill = oom > 0
        return extras, blobs

    # -- per execution, in the program's process (the steps)

    def enter_cgroup(self) -> None:
        """Join the execution's cgroup (descriptors opened by the supervisor), then a cgroup
        namespace rooted there: the program's /proc/self/cgroup shows /."""
        cgroups.enter(self.program_cgroup_fds)
        self.program_cgroup_fds = []
        kernel.unshare(CLONE_NEWCGROUP)

    def make_root(self, job: Job, lim: Limits) -> str:
        """A mount namespace of the program's own, a copy of the zygote's (the skeleton, the host
        tree detached: ``enter_skeleton``): tmpfs /work and /tmp, /prog a read-only tmpfs copy of
        the program's files, read through the descriptor the supervisor sent (a bind would show
        its host path in mountinfo). Runs before the cgroup step, so the copy is not charged to
        the program."""
        kernel.unshare(CLONE_NEWNS)
        r = self.root
        tmpfs_size = lim.tmpfs_bytes()
        work = os.path.join(r, "work")
        self._mount_work(lim)
        mount("tmp", os.path.join(r, "tmp"), "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={tmpfs_size}")
        # /mnt: written by programs that expect a writable place there (SandboxFusion's tests do)
        mnt = os.path.join(r, "mnt")
        mount("mnt", mnt, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={tmpfs_size}")
        if job.fetch is not None or _collects_work(job):
            # The supervisor reads the files back through these descriptors after the program
            # and its mount namespace are gone (they keep the two tmpfs readable).
            fds = [os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) for d in (work, mnt)]
            socket.send_fds(self.channel, [b"W"], fds)
            for fd in fds:
                os.close(fd)
        if _collects_work(job):
            self._compile_dev()
        given = files_from_job(job, "prog:")  # a program given inline (no compile step): no host folder
        if self.program_dir_fd is not None or given:
            prog = os.path.join(r, "prog")
            mount("prog", prog, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755")
            if self.program_dir_fd is not None:
                copy_tree(self.program_dir_fd, prog)
                os.close(self.program_dir_fd)
                self.program_dir_fd = None
            else:
                write_tree(prog, given)
            mount(None, prog, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        self._lend_mount_namespace()
        os.chdir("/")
        return "/work"

    def _lend_mount_namespace(self) -> None:
        """Send the supervisor a descriptor of this mount namespace, after the ``W`` message
        (which ``after`` reads first). It waits unread on the supervisor's end of the channel, so
        the namespace outlives the program: its teardown (its tmpfs unmounted, then an RCU grace
        period, serialized across the machine) happens when the supervisor closes the channel
        after the reply is out, not in the program's exit on the way to its verdict."""
        fd = os.open(os.path.join(self.proc, "self/ns/mnt"), os.O_RDONLY | os.O_CLOEXEC)
        try:
            socket.send_fds(self.channel, [b"N"], [fd])
        finally:
            os.close(fd)

    def _compile_dev(self) -> None:
        """The compile step's /dev: ``null`` alone (and the fd links). A compiler reads what a
        source names (``#include "/dev/zero"``, ``include_bytes!``): no endless device to read."""
        dev = os.path.join(self.root, "dev")
        mount("dev", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k")
        open(os.path.join(dev, "null"), "w").close()
        mount("/dev/null", os.path.join(dev, "null"), None, MS_BIND)
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
            os.symlink(target, os.path.join(dev, name))
        mount(None, dev, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC)

    def network(self) -> None:
        """The slot's network namespace has only its own loopback (up since setup): nothing to do."""

    def nproc(self, lim: Limits) -> int:
        return 0  # the pids cgroup bounds tasks; the slot's uid is its own

    def credentials(self) -> None:
        if self.mode == "root":
            steps.credentials(self.uid, self.gid)
        else:
            kernel.drop_capabilities()
        # The uid change made us non-dumpable, which leaves /proc/self owned by root; exec
        # would reset that, the in-process Python path does not. Core dumps stay off (RLIMIT_CORE).
        kernel.prctl(kernel.PR_SET_DUMPABLE, 1)

    def write_files(self, job: Job) -> None:
        """The compile step's work files, with their modes, as the program's uid."""
        work = files_from_job(job, "work:")
        if work:
            write_tree("/work", work, public=False)

    # -- after the reply, in the supervisor

    def sweep(self) -> None:
        """Kill everything in the slot's PID namespace but the zygote (its PID 1, spared by
        kill(-1)) and ourselves; the zygote reaps them. Then the cgroup folders and IPC."""
        self.kill_rest()
        if self.cg is not None and self.cg.remove_fresh():
            pass  # the usual case: this execution's folders are gone
        elif self.cgroup_parents:
            cgroups.sweep_children(self.cgroup_parents)  # start-up, or a folder that would not go
        self.cg = self.meter = None
        kernel.ipc_sweep()


def _collects_work(job: Job) -> bool:
    return bool(job.box.get("collect_work"))


def _work_reply(work_fd: int, lim: Limits) -> tuple[dict, list]:
    """The compile step's /work, read through the held descriptor: the tmpfs, not a path the
    program could have re-pointed."""
    try:
        files = read_tree(f"/proc/self/fd/{work_fd}", lim.tmpfs_bytes())
    except (OSError, OverflowError) as e:
        return work_reply(str(e))
    return work_reply(files)


def _received_fds(channel) -> list:
    """The descriptors the program's process sent on its channel (never blocks)."""
    try:
        msg, fds = kernel.recv_fds(channel, 1, 2, block=False)
    except OSError:
        return []
    if msg != b"W":
        for fd in fds:
            os.close(fd)
        return []
    return fds
