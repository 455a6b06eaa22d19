"""What a pool container's program uses, read from inside the container: its processes (by uid),
their memory and CPU (the container's own cgroup counters, or per process under gVisor), the
tmpfs space it writes, and the kernel's OOM kills (``container.py`` is the box that uses them)."""

from __future__ import annotations

import os
import resource

from . import cgroup

TMPFS_ACCOUNTED = ("/work", "/tmp", "/mnt", "/dev/shm")


# --- processes of the program uid -----------------------------------------------------------

def _proc_uid(pid: str):
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


def uid_processes(uid: int) -> list:
    """Processes (zombies included) whose real uid is ``uid``."""
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and _proc_uid(n) == uid]


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def uid_usage(uid: int):
    """(resident bytes, CPU seconds incl. reaped children) summed over the uid's processes."""
    tick = os.sysconf("SC_CLK_TCK")
    rss = 0
    cpu_ticks = 0
    for pid in uid_processes(uid):  # a handful: the container holds nothing else
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            cpu_ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            rss += int(fields[21]) * resource.getpagesize()
        except (OSError, IndexError, ValueError):
            continue
    return rss, cpu_ticks / tick


class Meter:
    """What the program uses right now: memory (anonymous + tmpfs) and CPU time.

    The container holds the server and the program, nothing else, so the container's
    own counters minus the baseline taken just before the program starts are the
    program's, and shared pages count once (summing per-process RSS would count a fork
    bomb's shared pages sixty times):
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
        self.cpu_poll_s = cgroup.CPU_POLL_S if self.cpu_kind != "proc" else 0.05
        self.mem_base = 0
        self.self_base = 0
        self.cpu_base = 0.0
        self.self_cpu_base = 0.0

    def start(self) -> None:
        """Baseline, taken by the supervisor just before the program starts; the supervisor's
        own growth afterwards (the output it holds) is not the program's."""
        self.mem_base = self._mem_total()
        self.self_base = _self_rss()
        self.cpu_base = self._cpu_total() if self.cpu_kind != "proc" else 0.0
        self.self_cpu_base = _self_cpu()

    def memory(self) -> int:
        if self.mem_kind == "rss":
            return uid_usage(self.uid)[0] + tmpfs_used()
        own = max(0, _self_rss() - self.self_base)
        return max(0, self._mem_total() - self.mem_base - own)

    def cpu(self) -> float:
        if self.cpu_kind == "proc":
            return uid_usage(self.uid)[1]
        own = max(0.0, _self_cpu() - self.self_cpu_base)
        return max(0.0, self._cpu_total() - self.cpu_base - own)

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
        if self.cpu_kind == "cgroup1":
            return cgroup.cpu_seconds("/sys/fs/cgroup/cpuacct", v2=False) or 0.0
        if self.cpu_kind == "cgroup2":
            return cgroup.cpu_seconds("/sys/fs/cgroup", v2=True) or 0.0
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


def oom_kills() -> int:
    for path in ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events"):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
    return 0
