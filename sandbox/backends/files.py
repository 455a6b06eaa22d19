"""Program and work files between the host and a jail, without bind mounts.

Why not bind mounts: a long-lived container cannot gain mounts after it starts; mounting the
host's state directory into every container would show one job's files to the next; and a
bind shows its host path in the jail's /proc/self/mountinfo (on native too). Files travel
instead in the job and its reply: the compile step's work directory both ways on every backend
(``work_into_job`` / ``work_from_reply``), and on Docker the program directory once per
container (cached there under a key; a compile-cache entry never changes). The jail sees
nothing of the host file system, and native, gVisor and runc behave the same.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import stat
from typing import Any, Optional

from ..jail.protocol import Job
from ..jail.tree import files_to_job

FileMap = dict[str, tuple]  # relpath -> (mode, bytes) (S_IFDIR in mode: a directory)


class FilesTooLarge(ValueError):
    pass


def program_key(program_dir: str, secret: bytes) -> str:
    """A key for the directory's current content: names, sizes, modes and mtimes.

    Keyed with a per-backend secret so a program cannot guess the cache names of others.
    """
    h = hmac.new(secret, os.path.realpath(program_dir).encode(), hashlib.sha256)
    for rel, st in _walk(program_dir):
        h.update(f"\0{rel}\0{st.st_mode:o}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    return h.hexdigest()[:40]


def read_dir(path: str, limit: int) -> tuple[FileMap, int]:
    """Regular files and directories under ``path`` (symlinks skipped), and their total size."""
    out: FileMap = {}
    total = 0
    for rel, st in _walk(path):
        if stat.S_ISDIR(st.st_mode):
            out[rel] = (stat.S_IFDIR | 0o755, b"")
            continue
        total += st.st_size
        if total > limit:
            raise FilesTooLarge(f"{path} holds more than {limit} bytes")
        with open(os.path.join(path, rel), "rb") as f:
            out[rel] = (st.st_mode & 0o777, f.read())
    return out, total


def encode_files(files: dict[str, bytes]) -> FileMap:
    """ExecSpec.files as a FileMap; a name ending in "/" is a directory (a Kattis feedback dir)."""
    out: FileMap = {}
    for k, v in files.items():
        if k.endswith("/"):
            out[_safe_rel(k)] = (stat.S_IFDIR | 0o755, b"")
        else:
            out[_safe_rel(k)] = (0o644, bytes(v))
    return out


def write_back(work_dir: str, files: FileMap) -> None:
    """Make ``work_dir`` hold exactly ``files`` (what the container's /work held at the end).

    The names come from untrusted code: each is normalised, kept inside ``work_dir`` and
    written without following links.
    """
    wanted = {_safe_rel(k): v for k, v in files.items()}
    root = os.path.realpath(work_dir)
    for rel, st in sorted(_walk(root), key=lambda x: -x[0].count("/")):
        if rel not in wanted or stat.S_ISDIR(st.st_mode) != stat.S_ISDIR(wanted[rel][0]):
            p = os.path.join(root, rel)
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
    for rel in sorted(wanted):
        mode, data = wanted[rel]
        p = os.path.join(root, rel)
        parent = os.path.dirname(p)
        os.makedirs(parent, exist_ok=True)
        if os.path.realpath(parent) != parent:  # a link smuggled in as a directory
            raise ValueError(f"refusing to write through a link: {rel}")
        if stat.S_ISDIR(mode):
            os.makedirs(p, exist_ok=True)
            continue
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, (mode & 0o755) | 0o600)
        finally:
            os.close(fd)


def work_into_job(work_dir: str, job: Job, limit: int) -> Optional[str]:
    """The compile step: ``work_dir``'s files go into the job (the jail writes them into the
    run's own /work) and the jail sends /work back at the end (``box.collect_work``). Returns
    None, or why they cannot go (the execution's sandbox error)."""
    try:
        found, _ = read_dir(work_dir, limit)
    except (OSError, ValueError) as e:  # FilesTooLarge is a ValueError
        return f"cannot read the execution's input files: {e}"
    files_to_job(found, "work:", job)
    job.box["collect_work"] = True
    return None


def work_from_reply(res: Any, extras: dict, blobs: list, work_dir: str) -> Any:
    """``work_dir`` made to hold what the compile step's /work held at its end; ``res`` (an
    ExecResult) with the compiler's fault (more than /work may carry) or ours (cannot store)."""
    if res.error:
        return res
    if "work_error" in extras:  # the compile step left more than /work may carry: its fault
        res.stderr += f"\n{extras['work_error']}".encode()
        if res.exit_code == 0:
            res.exit_code = 1
    elif "work_files" in extras:
        try:
            write_back(work_dir, {name: (int(mode), data) for (name, mode), data in zip(extras["work_files"], blobs)})
        except (OSError, ValueError, TypeError) as e:
            res.error = f"cannot store the compile step's files: {e}"
    else:
        res.error = "the jail did not send the compile step's files back"
    return res


def _safe_rel(rel: str) -> str:
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"bad file name {rel!r}")
    return "/".join(parts)


def _walk(base: str) -> list[tuple[str, os.stat_result]]:
    out: list[tuple[str, os.stat_result]] = []

    def rec(d: str, prefix: Optional[str]) -> None:
        try:
            names = sorted(os.listdir(d))
        except FileNotFoundError:
            return
        for name in names:
            p = os.path.join(d, name)
            st = os.lstat(p)
            rel = f"{prefix}/{name}" if prefix else name
            if stat.S_ISDIR(st.st_mode):
                out.append((rel, st))
                rec(p, rel)
            elif stat.S_ISREG(st.st_mode):
                out.append((rel, st))

    rec(base, None)
    return out
