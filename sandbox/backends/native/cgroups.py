"""Find a cgroup hierarchy we may use and carve one folder per slot out of it.

v1 (a folder per controller: memory, pids, cpuacct) and v2 (one unified tree) both work.
Root uses the hierarchy's top; an ordinary user needs a delegated v2 folder, named by
``CODETEST_CGROUP_ROOT``. Slot folders are removed on close; folders of dead instances
left by a crash are removed on the next start.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from dataclasses import dataclass
from typing import Optional

V1_CONTROLLERS = ("memory", "pids", "cpuacct")
V2_CONTROLLERS = ("memory", "pids", "cpu")


@dataclass
class CgroupSetup:
    version: str  # "v1" | "v2"
    bases: dict[str, str]  # controller (or "unified") -> our instance folder

    def slot_parents(self, slot: int) -> dict[str, str]:
        out = {}
        for ctrl, base in self.bases.items():
            d = os.path.join(base, f"slot{slot}")
            os.makedirs(d, exist_ok=True)
            if self.version == "v2":
                _enable_controllers(d)
            out[ctrl] = d
        return out

    def remove(self) -> None:
        for base in self.bases.values():
            remove_tree(base)


def _mounts() -> list[tuple[str, str, str]]:
    out = []
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 4:
                    out.append((parts[1], parts[2], parts[3]))
    except OSError:
        pass
    return out


def _enable_controllers(d: str) -> None:
    path = os.path.join(d, "cgroup.subtree_control")
    for ctrl in V2_CONTROLLERS:
        try:
            with open(path, "w") as f:
                f.write(f"+{ctrl}")
        except OSError:
            pass


def _v2_has(d: str) -> bool:
    try:
        with open(os.path.join(d, "cgroup.controllers")) as f:
            have = set(f.read().split())
    except OSError:
        return False
    return {"memory", "pids"} <= have


def find(instance: str) -> tuple[Optional[CgroupSetup], str]:
    """A usable cgroup setup for this process, or None and the reason."""
    explicit = os.environ.get("CODETEST_CGROUP_ROOT")
    mounts = _mounts()
    v1 = {}
    v2_root = None
    for target, fstype, opts in mounts:
        if fstype == "cgroup":
            for ctrl in V1_CONTROLLERS:
                if ctrl in opts.split(","):
                    v1.setdefault(ctrl, target)
        elif fstype == "cgroup2" and v2_root is None:
            v2_root = target
    if explicit:
        base = os.path.join(explicit, f"codetest-{instance}")
        try:
            os.makedirs(base, exist_ok=True)
        except OSError as e:
            return None, f"CODETEST_CGROUP_ROOT {explicit} is not writable: {e}"
        _enable_controllers(explicit)
        _enable_controllers(base)
        if not _v2_has(base):
            return None, f"{explicit}: memory and pids controllers are not delegated"
        return CgroupSetup("v2", {"unified": base}), f"v2 at {explicit}"
    if os.geteuid() != 0:
        return None, "not root and no delegated cgroup (set CODETEST_CGROUP_ROOT to a writable cgroup v2 folder)"
    if {"memory", "pids"} <= set(v1):
        bases = {}
        for ctrl, mnt in v1.items():
            top = os.path.join(mnt, "codetest")
            _cleanup_dead(top)
            bases[ctrl] = os.path.join(top, instance)
            try:
                os.makedirs(bases[ctrl], exist_ok=True)
            except OSError as e:
                return None, f"cannot create {bases[ctrl]}: {e}"
        return CgroupSetup("v1", bases), "v1 (" + ", ".join(sorted(v1)) + ")"
    if v2_root:
        _enable_controllers(v2_root)
        top = os.path.join(v2_root, "codetest")
        try:
            os.makedirs(top, exist_ok=True)
        except OSError as e:
            return None, f"cannot create {top}: {e}"
        _cleanup_dead(top)
        _enable_controllers(top)
        base = os.path.join(top, instance)
        os.makedirs(base, exist_ok=True)
        _enable_controllers(base)
        if not _v2_has(base):
            return None, "cgroup v2 without the memory and pids controllers"
        return CgroupSetup("v2", {"unified": base}), f"v2 at {v2_root}"
    return None, "no cgroup hierarchy with memory and pids controllers is mounted"


INIT_PID_NS_INODE = 0xEFFFFFFC  # the kernel's PROC_PID_INIT_INO: the initial PID namespace


def _sees_every_pid() -> bool:
    """True in the initial PID namespace. Elsewhere /proc hides other instances' processes, and a
    sweep by "/proc/<pid> is gone" would remove (and kill) live instances' cgroups."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino == INIT_PID_NS_INODE
    except OSError:
        return False


def _cleanup_dead(top: str) -> None:
    """Remove instance folders whose owning process is gone (a crash left them)."""
    if not _sees_every_pid():
        return
    try:
        names = os.listdir(top)
    except OSError:
        return
    for name in names:
        pid = name.split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            remove_tree(os.path.join(top, name))


def remove_tree(path: str) -> None:
    """rmdir a cgroup folder bottom-up, killing anything still inside."""
    if not os.path.isdir(path):
        return
    for root, dirs, _files in os.walk(path, topdown=False):
        for d in dirs:
            _rmdir_cgroup(os.path.join(root, d))
    _rmdir_cgroup(path)


def _rmdir_cgroup(d: str) -> None:
    for _ in range(100):
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError:
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    for pid in f.read().split():
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except ProcessLookupError:
                            pass
            except OSError:
                shutil.rmtree(d, ignore_errors=True)
                return
            time.sleep(0.01)
