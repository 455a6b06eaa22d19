"""Find the cgroup subtree this service may use and carve one folder per slot out of it.

Jails live **under the service's own cgroup** (read from ``/proc/self/cgroup``), so a limit the
operator puts on the service (systemd ``MemoryMax=``, a Kubernetes pod limit) bounds every
program it runs:

  v1: ``<controller mount>/<our path>/codetest/<instance>/slot<i>/x<n>`` per controller
      (memory, pids, cpuacct);
  v2: ``<our cgroup>/codetest/<instance>/slot<i>/x<n>``; a cgroup with processes may not
      hand controllers to children, so the service first moves its own processes into a
      leaf ``<our cgroup>/codetest-service`` (what a systemd ``Delegate=yes`` unit does).
      Without root, ``CODETEST_CGROUP_ROOT`` names a delegated v2 folder instead.

The execution folders ``x<n>`` are made and removed by the jail (``sandbox/jail/cgroup.py``),
one per execution.

Ownership across instances (two services, a service and a CLI batch, in different PID
namespaces): the live instance holds an ``flock`` on its own instance folder for its whole
life. A folder is stale, and removed, only when its lock can be taken: no PID is compared,
so an instance never deletes another's jails because it cannot see its process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from ...jail.cgroup import remove as remove_cgroup_folder
from ...ownership import claim, remove_unowned

V1_CONTROLLERS = ("memory", "pids", "cpuacct")
V2_CONTROLLERS = ("memory", "pids", "cpu")
REQUIRED = frozenset({"memory", "pids"})  # what no jail runs without, in either hierarchy
SERVICE_LEAF = "codetest-service"


@dataclass
class CgroupSetup:
    version: str  # "v1" | "v2"
    bases: dict[str, str]  # controller (or "unified") -> our instance folder
    locks: list[int] = field(default_factory=list)  # flocked instance folders (held until remove)

    def slot_parents(self, slot: int) -> dict[str, str]:
        out = {}
        for ctrl, base in self.bases.items():
            d = os.path.join(base, f"slot{slot}")
            os.makedirs(d, exist_ok=True)
            if self.version == "v2":
                _enable_controllers(d)
            out[ctrl] = d
        return out

    def slot_cpu_s(self, slot: int) -> Optional[float]:
        """CPU time the executions of one slot have used so far, seconds (the slot folder's own
        account, which each execution's folder adds to); None if unreadable."""
        try:
            if self.version == "v1":
                with open(os.path.join(self.bases["cpuacct"], f"slot{slot}", "cpuacct.usage"), "rb") as f:
                    return int(f.read()) / 1e9
            with open(os.path.join(self.bases["unified"], f"slot{slot}", "cpu.stat"), "rb") as f:
                for line in f:
                    if line.startswith(b"usage_usec "):
                        return int(line.split()[1]) / 1e6
        except (OSError, KeyError, ValueError, IndexError):
            pass
        return None

    def remove(self) -> None:
        for base in self.bases.values():
            remove_tree(base)
        for fd in self.locks:
            try:
                os.close(fd)
            except OSError:
                pass
        self.locks.clear()


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


def own_paths() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and "" for the v2 (unified) one."""
    out: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) != 3:
                    continue
                _, ctrls, path = parts
                if not ctrls:
                    out[""] = path
                for c in ctrls.split(","):
                    if c:
                        out[c] = path
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


def _v2_list(d: str, name: str) -> set[str]:
    """A v2 folder's controller list (``cgroup.controllers``: offered to it by its parent;
    ``cgroup.subtree_control``: handed down to its children); empty where it cannot be read."""
    try:
        with open(os.path.join(d, name)) as f:
            return set(f.read().split())
    except OSError:
        return set()


def _v2_has(d: str) -> bool:
    return REQUIRED <= _v2_list(d, "cgroup.controllers")


def _enabled(d: str) -> bool:
    return REQUIRED <= _v2_list(d, "cgroup.subtree_control")


def _v2_delegate(own: str) -> tuple[Optional[str], str]:
    """Make the service's own v2 cgroup able to hold jails below it; the folder or None."""
    if own in ("", "/"):
        return None, ""
    if os.path.basename(own) == SERVICE_LEAF and _enabled(os.path.dirname(own)):
        # We were started inside another instance's service leaf (a CLI batch run by a
        # service, a second service in its unit): its cgroup is delegated already; our jails go
        # beside its jails, still under every limit the operator set above.
        return os.path.dirname(own), ""
    if _v2_has(own) and _enabled(own):
        return own, ""
    # No internal processes: move ours into a leaf first, then hand the controllers down.
    leaf = os.path.join(own, SERVICE_LEAF)
    try:
        os.makedirs(leaf, exist_ok=True)
        with open(os.path.join(own, "cgroup.procs")) as f:
            pids = f.read().split()
        for pid in pids:
            try:
                with open(os.path.join(leaf, "cgroup.procs"), "w") as f:
                    f.write(pid)
            except OSError:
                pass
    except OSError as e:
        return None, f"cannot make a leaf in {own}: {e}"
    _enable_controllers(own)
    return (own, "") if _v2_has(leaf) or _v2_has(os.path.join(own, "codetest")) or _enabled(own) else (
        None, _not_delegated(own))


def _not_delegated(own: str) -> str:
    """Why the service's own v2 cgroup cannot hold jails, and what the operator can do."""
    missing = sorted(REQUIRED - _v2_list(own, "cgroup.controllers"))
    why = (f"its parent does not pass down {' and '.join(missing)}" if missing
           else "enabling memory and pids in its cgroup.subtree_control failed")
    return (f"cannot delegate controllers below {own}: {why}; give the service a delegated cgroup v2 "
            "folder with CODETEST_CGROUP_ROOT (systemd: Delegate=yes), or run it where the controllers reach it")


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
        top = os.path.join(explicit, "codetest")
        try:
            os.makedirs(top, exist_ok=True)
        except OSError as e:
            return None, f"CODETEST_CGROUP_ROOT {explicit} is not writable: {e}"
        _enable_controllers(explicit)
        _enable_controllers(top)
        remove_unowned(top, remove_tree)
        return _v2_setup(top, instance, f"v2 at {explicit}")
    if os.geteuid() != 0:
        return None, "not root and no delegated cgroup (set CODETEST_CGROUP_ROOT to a writable cgroup v2 folder)"
    own = own_paths()
    if REQUIRED <= set(v1):
        bases = {}
        locks = []
        for ctrl, mnt in v1.items():
            parent = os.path.join(mnt, own.get(ctrl, "/").lstrip("/"))
            top = os.path.join(parent, "codetest")
            remove_unowned(top, remove_tree)
            bases[ctrl] = os.path.join(top, instance)
            try:
                locks.append(claim(bases[ctrl]))
            except OSError as e:
                for fd in locks:
                    os.close(fd)
                return None, f"cannot create {bases[ctrl]}: {e}"
        where = ", ".join(f"{c}:{own.get(c, '/')}" for c in sorted(v1))
        return CgroupSetup("v1", bases, locks), f"v1, below the service's own cgroups ({where})"
    if v2_root:
        own_dir = os.path.join(v2_root, own.get("", "/").lstrip("/"))
        parent, why = _v2_delegate(own_dir)
        if parent is None:
            if own.get("", "/") not in ("", "/"):
                return None, why or _not_delegated(own_dir)
            parent = v2_root
            _enable_controllers(parent)
        top = os.path.join(parent, "codetest")
        try:
            os.makedirs(top, exist_ok=True)
        except OSError as e:
            return None, f"cannot create {top}: {e}"
        _enable_controllers(top)
        remove_unowned(top, remove_tree)
        return _v2_setup(top, instance, f"v2 below the service's own cgroup ({os.path.relpath(parent, v2_root)})")
    return None, "no cgroup hierarchy with memory and pids controllers is mounted"


def _v2_setup(top: str, instance: str, detail: str) -> tuple[Optional[CgroupSetup], str]:
    base = os.path.join(top, instance)
    try:
        lock = claim(base)
    except OSError as e:
        return None, f"cannot create {base}: {e}"
    _enable_controllers(base)
    if not _v2_has(base):
        os.close(lock)
        remove_tree(base)
        return None, "cgroup v2 without the memory and pids controllers"
    return CgroupSetup("v2", {"unified": base}, [lock]), detail



def remove_tree(path: str) -> None:
    """rmdir a cgroup folder bottom-up, killing anything still inside (the jail's own rule,
    ``sandbox.jail.cgroup.remove``, folder by folder)."""
    if not os.path.isdir(path):
        return
    for root, dirs, _files in os.walk(path, topdown=False):
        for d in dirs:
            remove_cgroup_folder(os.path.join(root, d))
    remove_cgroup_folder(path)
