"""Reading a job's ``fetch`` files back out of /work once the program has ended.

The names are the program's to choose (it wrote the files), so nothing of them is trusted:
each path is walked one component at a time with ``openat(O_NOFOLLOW)`` from the work
directory, so no symlink is ever followed and ``..`` never leaves it; only regular files are
read (a FIFO or device is opened non-blocking and skipped before any read), missing or
unreadable ones are left out (as SandboxFusion's ``fetch_files`` does), and the total is
bounded by ``protocol.FETCH_BYTES``. The caller runs it after every process of the program is
gone, so nothing swaps a component while it is walked. Standard library only.
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


def read_beneath(base: str, paths, limit: int = FETCH_BYTES) -> dict:
    """``{path as asked: bytes}`` for the ``paths`` (relative to ``base``) that are regular files
    reachable without a link; at most ``limit`` bytes in all (a file that does not fit is left out)."""
    out: dict = {}
    total = 0
    for raw in paths or ():
        parts = _parts(raw)
        if parts is None or raw in out:
            continue
        fds = []
        try:
            fds.append(os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            for part in parts[:-1]:
                fds.append(os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                                   dir_fd=fds[-1]))
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                         dir_fd=fds[-1])
            fds.append(fd)
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or total + st.st_size > limit:
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
