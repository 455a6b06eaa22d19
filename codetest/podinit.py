"""``codetest-pod-init CMD...``: make the container's own cgroup writable, then exec CMD.

A container runtime (runc, containerd, CRI-O; Docker and Kubernetes alike) mounts the cgroup
filesystem of an unprivileged container read-only, even when the container holds
``CAP_SYS_ADMIN``. The native backend puts each execution in a cgroup of its own under the
service's cgroup (memory, pids, CPU), and refuses to run code without one (fail closed). In a
pod, the pod's limits bound the service's cgroup, so the jails' cgroups below it can never get
more than the pod was given.

This entry point remounts read-write exactly the cgroup mounts that show *this container's own
cgroup and nothing above it*: a mount whose root (``/proc/self/mountinfo``) is the path this
process is in for that hierarchy (``/proc/self/cgroup``). With a private cgroup namespace
(Kubernetes on cgroup v2, ``docker run --cgroupns private``) both are ``/``; with the host's
namespace on cgroup v1 the runtime binds ``/kubepods/.../<container>`` and the process is in
that same path. A mount that shows more than the container's own subtree is left read-only
and named on stderr. ``nosuid,nodev,noexec`` stay. Nothing is done without ``CAP_SYS_ADMIN``
(then the backend reports the cgroups layer missing, as before). The remount uses the
capability the jail needs anyway (SYS_ADMIN: namespaces, mounts, pivot_root); no other one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND = 32, 4096
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
CAP_SYS_ADMIN = 21
_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
          "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}


def has_sys_admin() -> bool:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_SYS_ADMIN & 1)
    except (OSError, ValueError):
        pass
    return False


def own_cgroups(text: str) -> dict[str, str]:
    """``/proc/self/cgroup`` -> {controller or "name=x" or "" (v2): path}."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for ctrl in parts[1].split(",") if parts[1] else [""]:
            out[ctrl] = parts[2]
    return out


def cgroup_mounts(text: str) -> list[dict]:
    """Cgroup mounts of ``/proc/self/mountinfo``: mount point, root, per-mount and super options."""
    out = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        f, r = left.split(), right.split()
        if len(f) < 6 or len(r) < 3 or r[0] not in ("cgroup", "cgroup2"):
            continue
        out.append({"mountpoint": f[4].replace("\\040", " "), "root": f[3], "opts": f[5].split(","),
                    "v2": r[0] == "cgroup2", "super": r[2].split(",")})
    return out


def plan(mountinfo: str, cgroup: str) -> tuple[list[dict], list[str]]:
    """(read-only mounts showing only this container's own cgroup, notes on those left alone)."""
    mine = own_cgroups(cgroup)
    todo, notes = [], []
    for m in cgroup_mounts(mountinfo):
        if "ro" not in m["opts"]:
            continue
        # v1: the hierarchy's controllers (or name=) as /proc/self/cgroup names them; v2: "".
        ctrls = [""] if m["v2"] else [o for o in m["super"] if o in mine]
        paths = {mine.get(c) for c in ctrls}
        if ctrls and len(paths) == 1 and m["root"] in paths:
            todo.append(m)
        else:
            notes.append(f"{m['mountpoint']} left read-only: it shows {m['root']}, "
                         f"not this container's own cgroup {sorted(p or '?' for p in paths)}")
    return todo, notes


def remount_rw(mountpoint: str, opts: list[str]) -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    flags = MS_REMOUNT | MS_BIND
    for o in opts:
        flags |= _FLAGS.get(o, 0)
    if libc.mount(None, mountpoint.encode(), None, ctypes.c_ulong(flags), None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"remount {mountpoint} read-write: {os.strerror(e)}")


def prepare() -> list[str]:
    """Remount what :func:`plan` allows; the lines to log."""
    if not has_sys_admin():
        return ["no CAP_SYS_ADMIN: cgroup mounts left as they are"]
    try:
        with open("/proc/self/mountinfo") as f:
            mountinfo = f.read()
        with open("/proc/self/cgroup") as f:
            cgroup = f.read()
    except OSError as e:
        return [f"cannot read the mount table: {e}"]
    todo, notes = plan(mountinfo, cgroup)
    for m in todo:
        try:
            remount_rw(m["mountpoint"], m["opts"])
            notes.append(f"{m['mountpoint']} remounted read-write (this container's own cgroup)")
        except OSError as e:
            notes.append(str(e))
    return notes


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    for line in prepare():
        print(f"codetest-pod-init: {line}", file=sys.stderr, flush=True)
    try:
        os.execvp(args[0], args)
    except OSError as e:
        print(f"codetest-pod-init: cannot run {args[0]}: {e}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main())
