"""The few system calls the standard library lacks, and small process helpers.

mount, umount, unshare, pivot_root, prctl, capset, seccomp, System V IPC removal.
"""

from __future__ import annotations

import ctypes
import errno
import _signal
import os
import time

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
PR_SET_SECCOMP = 22
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2

_MACHINE = os.uname().machine
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(_MACHINE, 155)
SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(_MACHINE, 126)

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
libc.unshare.argtypes = [ctypes.c_int]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
libc.syscall.restype = ctypes.c_long
libc.shmctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
libc.semctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
libc.msgctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]


def _check(ret: int, what: str, subject="") -> None:
    """Raise OSError for a failed call; the message is made only then (these calls run in
    every program's process, where each object made is a page copied)."""
    if ret != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}{' ' if subject != '' else ''}{subject}: {os.strerror(e)}")


def _b(s):
    return s.encode() if isinstance(s, str) else s


def mount(src, target, fstype, flags=0, data=None):
    _check(libc.mount(_b(src), _b(target), _b(fstype), flags, _b(data)), "mount", target)


# The mount API of Linux 5.2+ (the same numbers on every architecture).
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_FSOPEN, SYS_FSCONFIG, SYS_FSMOUNT = 428, 429, 430, 431, 432
OPEN_TREE_CLONE, O_CLOEXEC_FLAG = 1, 0o2000000
FSCONFIG_SET_STRING, FSCONFIG_CMD_CREATE = 1, 6
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 1, 2, 4
MOVE_MOUNT_F_EMPTY_PATH = 4


def _fd(ret: int, what: str) -> int:
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
    return ret


def overlay_ro(layers: list, target: str) -> None:
    """A read-only overlay of ``layers`` (folders, first on top) at ``target``. Each layer is
    a detached copy of its folder (``open_tree``), named to overlayfs as ``/proc/self/fd/N``
    (``lowerdir+``, Linux 6.8+): mountinfo shows those names and root ``/``, never the
    folders' own paths, as a bind mount would. Overlayfs wants two layers at least."""
    fds: list = []
    try:
        for layer in layers:
            fds.append(_fd(libc.syscall(SYS_OPEN_TREE, -100, _b(layer), OPEN_TREE_CLONE | O_CLOEXEC_FLAG),
                           f"open_tree {layer}"))
        fs = _fd(libc.syscall(SYS_FSOPEN, b"overlay", 1), "fsopen overlay")
        fds.append(fs)
        for fd in fds[:-1]:
            _check(min(0, libc.syscall(SYS_FSCONFIG, fs, FSCONFIG_SET_STRING, b"lowerdir+",
                                       _b(f"/proc/self/fd/{fd}"), 0)), "fsconfig lowerdir+")
        _check(min(0, libc.syscall(SYS_FSCONFIG, fs, FSCONFIG_CMD_CREATE, None, None, 0)), "fsconfig create")
        mnt = _fd(libc.syscall(SYS_FSMOUNT, fs, 1, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV),
                  "fsmount")
        fds.append(mnt)
        _check(min(0, libc.syscall(SYS_MOVE_MOUNT, mnt, b"", -100, _b(target), MOVE_MOUNT_F_EMPTY_PATH)),
               f"move_mount {target}")
    finally:
        for fd in fds:
            os.close(fd)


def umount(target, flags=MNT_DETACH):
    _check(libc.umount2(_b(target), flags), "umount", target)


def unshare(flags):
    _check(libc.unshare(flags), "unshare", flags)


def prctl(option, a=0, b=0, c=0, d=0):
    _check(libc.prctl(option, a, b, c, d), "prctl", option)


def pivot_root(new, old):
    _check(libc.syscall(SYS_PIVOT_ROOT, _b(new), _b(old)), "pivot_root")


def sethostname(name: bytes) -> None:
    libc.sethostname(name, len(name))


def recv_fds(sock, bufsize: int, maxfds: int, block: bool = True):
    """(data, descriptors) of one message; ``block=False``: BlockingIOError when none is there.
    (``socket.recv_fds`` of Python 3.11 ignores its flags, so it always blocks.)"""
    import array
    import socket

    ints = array.array("i")
    msg, anc, _, _ = sock.recvmsg(bufsize, socket.CMSG_LEN(maxfds * ints.itemsize),
                                  0 if block else socket.MSG_DONTWAIT)
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            ints.frombytes(data[:len(data) - len(data) % ints.itemsize])
    return msg, list(ints)


SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """Bring ``lo`` of this (fresh) network namespace up: 127.0.0.1 and ::1 of its own."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack_from("16sH", fcntl.ioctl(s.fileno(), SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities():
    """Empty every capability set, the bounding set and the ambient set."""
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    hdr = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(libc.syscall(SYS_CAPSET, ctypes.byref(hdr), ctypes.byref(data)), "capset")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_seccomp(bpf: bytes) -> None:
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0), "seccomp")


# --- System V IPC ---------------------------------------------------------------------------

IPC_RMID = 0
IPC_PRIVATE = 0
IPC_SCAN_MAX = 20000  # more ids than this since the last sweep: the caller recycles instead
_KINDS = ("shm", "sem", "msg")
_ID_COLUMN = {"shm": "shmid", "sem": "semid", "msg": "msqid"}


def ipc_remove(kind: str, ident: int) -> int:
    if kind == "shm":
        return libc.shmctl(ident, IPC_RMID, None)
    if kind == "sem":
        return libc.semctl(ident, 0, IPC_RMID)
    return libc.msgctl(ident, IPC_RMID, None)


def _ipc_probe(kind: str) -> int:
    if kind == "shm":
        return libc.shmget(IPC_PRIVATE, 1, 0o600)
    if kind == "sem":
        return libc.semget(IPC_PRIVATE, 1, 0o600)
    return libc.msgget(IPC_PRIVATE, 0o600)


def ipc_listed() -> bool:
    return os.path.exists("/proc/sysvipc/shm")


def ipc_ids(uid=None) -> list:
    """(kind, id) of the System V objects /proc/sysvipc lists (of ``uid`` when given)."""
    out = []
    for kind in _KINDS:
        try:
            lines = read_file(f"/proc/sysvipc/{kind}").splitlines()
        except OSError:
            continue
        if not lines:
            continue
        head = lines[0].split()
        try:
            id_col, uid_col = head.index(_ID_COLUMN[kind]), head.index("uid")
        except ValueError:
            continue
        for line in lines[1:]:
            cols = line.split()
            try:
                if uid is None or int(cols[uid_col]) == uid:
                    out.append((kind, int(cols[id_col])))
            except (IndexError, ValueError):
                continue
    return out


def ipc_sweep(uid=None, marks=None):
    """Remove System V shared memory, semaphores and message queues (of ``uid`` when given).

    Linux lists them in /proc/sysvipc. gVisor does not, but hands out ids in ascending order:
    a fresh probe object's id is above every id made since the last sweep's probe, so removing
    that range (the probe included) removes them all. Returns (new marks, complete).
    """
    marks = dict(marks or {})
    if ipc_listed():
        for kind, ident in ipc_ids(uid):
            ipc_remove(kind, ident)
        return marks, True
    ok = True
    for kind in _KINDS:
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
            ipc_remove(kind, ident)
        marks[kind] = top
    return marks, ok


def ipc_untouched(marks: dict) -> tuple[bool, dict]:
    """Did nobody make a System V object since the last sweep? (gVisor: probe ids.)"""
    if ipc_listed():
        return not ipc_ids(), marks
    clean = True
    marks = dict(marks)
    for kind in _KINDS:
        top = _ipc_probe(kind)
        if top < 0:
            continue
        ipc_remove(kind, top)
        last = marks.get(kind)
        if last is None or top != last + 1:
            clean = False
        marks[kind] = top
    return clean, marks


# --- processes ------------------------------------------------------------------------------

def reap_children(timeout: float = 2.0) -> None:
    """Wait until this process has no children (they are SIGKILLed already); bounded."""
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


def drain(fd: int, limit: int = 1 << 30) -> bytes:
    """Everything until EOF (at most ``limit`` bytes)."""
    chunks, got = [], 0
    while got < limit:
        try:
            c = os.read(fd, min(1 << 20, limit - got))
        except InterruptedError:
            continue
        except OSError:
            break
        if not c:
            break
        chunks.append(c)
        got += len(c)
    return b"".join(chunks)


def read_file(path: str, limit: int = 1 << 20) -> str:
    """A small kernel file (cgroup, /proc) as text: one open, reads, one close, no Python file
    object (the supervisor reads several per execution). Raises OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return drain(fd, limit).decode(errors="replace")
    finally:
        os.close(fd)


def write_file(path: str, value) -> None:
    """Write ``value`` (str(value)) to a kernel file in one write. Raises OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def set_signal(signum: int, handler) -> None:
    """``signal.signal`` without its enum wrapping (``_signal`` is the C module ``signal`` wraps).
    In a freshly forked interpreter, the wrapper's enum conversion of the old handler (a
    ValueError and its message, for a Python handler) touched, and so copied, about 70 pages."""
    _signal.signal(int(signum), int(handler) if isinstance(handler, int) else handler)  # SIG_DFL, SIG_IGN: 0, 1


def memfd_with(data: bytes, name: str = "stdin") -> int:
    """A sealed-size memfd holding ``data``, positioned at 0."""
    fd = os.memfd_create(name, 0)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
