"""Reading a job's ``fetch`` files back out of /work once the program has ended.

The names are the program's to choose (it wrote the files), so nothing of them is trusted: each
path is walked one component at a time from the work directory; each component is ``lstat``-ed
first (a symlink, a FIFO, a device or anything on another file system ends the walk, unopened),
then opened with ``O_NOFOLLOW``, and what was opened must be the very inode that was looked at.
So no symlink is followed even where a runtime would follow one despite ``O_NOFOLLOW`` (seen
under gVisor for a directory), ``..`` never leaves, and only regular files of the work
directory's own file system are read. Missing or unreadable files are left out (as
SandboxFusion's ``fetch_files`` does), and the total is bounded by ``protocol.FETCH_BYTES``. The
caller runs it after every process of the program is gone, so nothing swaps a component while it
is walked. Standard library only.
"""

from __future__ import annotations

import os
import stat

from .protocol import FETCH_BYTES


def _parts(raw: str):
    if not isinstance(raw, str) or "\x00" in raw:
        return None
    parts = [p for p in raw.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return parts


def _open_beneath(name: str, dir_fd: int, dev: int, flags: int, kind) -> int:
    """``name`` in ``dir_fd`` if it is of ``kind`` (not a link) on device ``dev``; OSError otherwise."""
    seen = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if not kind(seen.st_mode) or seen.st_dev != dev:
        raise OSError(f"{name!r}: not a plain entry of the work directory")
    fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    got = os.fstat(fd)
    if (got.st_dev, got.st_ino) != (seen.st_dev, seen.st_ino) or not kind(got.st_mode):
        os.close(fd)
        raise OSError(f"{name!r} changed while it was opened")
    return fd


def read_beneath(base, paths, limit: int = FETCH_BYTES) -> dict:
    """``{path as asked: bytes}`` for the ``paths`` (relative to ``base``, a folder's path or an
    open descriptor of it) that are regular files
    reachable without a link; at most ``limit`` bytes in all (a file that does not fit is left out)."""
    out: dict = {}
    total = 0
    for raw in paths or ():
        parts = _parts(raw)
        if parts is None or raw in out:
            continue
        fds = []
        try:
            fds.append(os.dup(base) if isinstance(base, int) else
                       os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            dev = os.fstat(fds[0]).st_dev
            for part in parts[:-1]:
                fds.append(_open_beneath(part, fds[-1], dev, os.O_RDONLY | os.O_DIRECTORY, stat.S_ISDIR))
            fd = _open_beneath(parts[-1], fds[-1], dev, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY, stat.S_ISREG)
            fds.append(fd)
            st = os.fstat(fd)
            if total + st.st_size > limit:
                continue
            chunks, got = [], 0
            while got <= st.st_size:  # the size seen by fstat bounds the read (no one writes now)
                c = os.read(fd, min(1 << 20, st.st_size + 1 - got))
                if not c:
                    break
                chunks.append(c)
                got += len(c)
            data = b"".join(chunks)[: st.st_size]
            total += len(data)
            out[raw] = data
        except OSError:
            continue
        finally:
            for f in fds:
                os.close(f)
    return out


# Where a program may write, besides its work directory: fetch paths there are absolute.
FETCH_ROOTS = {"/work/": "work", "/mnt/": "mnt"}


def read_fetch(bases: dict, paths, limit: int = FETCH_BYTES) -> dict:
    """``{path as asked: bytes}`` over the writable roots: ``bases`` maps ``work`` and ``mnt`` to
    a folder's path or descriptor. A relative path is under the work directory; an absolute one
    must be under ``/work/`` or ``/mnt/`` (anything else is left out). Bounded by ``limit``."""
    plan: dict = {}
    for raw in paths or ():
        if not isinstance(raw, str):
            continue
        root, rel = "work", raw
        if raw.startswith("/"):
            prefix = next((p for p in FETCH_ROOTS if raw.startswith(p)), None)
            if prefix is None:
                continue
            root, rel = FETCH_ROOTS[prefix], raw[len(prefix):]
        plan.setdefault(root, []).append((raw, rel))
    out: dict = {}
    left = limit
    for root, items in plan.items():
        if bases.get(root) is None:
            continue
        got = read_beneath(bases[root], [rel for _raw, rel in items], left)
        for raw, rel in items:
            if rel in got and raw not in out:
                out[raw] = got[rel]
                left -= len(got[rel])
    return out
