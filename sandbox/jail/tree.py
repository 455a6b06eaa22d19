"""A folder's files as ``{relpath: (mode, bytes)}``: into a job, onto a disk, off a disk.

The compile step's work folder travels this way on both backends (the host reads it, the job
carries it, the jail writes it into the run's own /work tmpfs and reads it back after the
compiler ended), and the Docker box's program cache. A mode with ``S_IFDIR`` is a directory.
Standard library only.
"""

from __future__ import annotations

import os
import stat

from . import kernel
from .protocol import Job, write_all
from .steps import safe_rel


def write_tree(base: str, files: dict, public: bool = True) -> None:
    """Write ``{relpath: (mode, bytes)}`` under ``base``; a mode with S_IFDIR makes a directory.

    ``public``: the program cache (root-owned; everyone may read, only root may write);
    otherwise the program's own /work (its modes kept, private directories).
    """
    dir_mode = 0o755 if public else 0o700
    os.makedirs(base, mode=dir_mode, exist_ok=True)
    for rel in sorted(files):
        mode, data = files[rel]
        path = os.path.join(base, safe_rel(rel))
        os.makedirs(os.path.dirname(path), mode=dir_mode, exist_ok=True)
        if stat.S_ISDIR(mode):
            os.makedirs(path, mode=dir_mode, exist_ok=True)
            continue
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            write_all(fd, data)
            os.fchmod(fd, ((mode & 0o555) | 0o444) if public else (mode & 0o777) | 0o600)
        finally:
            os.close(fd)


def read_tree(base: str, limit: int) -> dict:
    """Regular files and directories under ``base`` (no symlinks followed), at most ``limit``
    bytes, as ``{relpath: (mode, bytes)}``."""
    out: dict = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        rel_dir = os.path.relpath(dirpath, base)
        for d in dirnames:
            if stat.S_ISDIR(os.lstat(os.path.join(dirpath, d)).st_mode):
                out[os.path.normpath(os.path.join(rel_dir, d))] = (stat.S_IFDIR | 0o755, b"")
        for f in filenames:
            p = os.path.join(dirpath, f)
            st = os.lstat(p)
            if not stat.S_ISREG(st.st_mode):
                continue  # symlinks, fifos, sockets: never carried out of the jail
            total += st.st_size
            if total > limit:
                raise OverflowError(f"work directory holds more than {limit} bytes")
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                data = kernel.drain(fd, limit)
            finally:
                os.close(fd)
            out[os.path.normpath(os.path.join(rel_dir, f))] = (st.st_mode & 0o777, data)
    return out


def files_to_job(files: dict, prefix: str, job: Job) -> None:
    """``{rel: (mode, bytes)}`` into the job's box (modes) and blobs (bytes)."""
    job.box[prefix + "modes"] = {rel: mode for rel, (mode, _) in files.items()}
    for rel, (_, data) in files.items():
        job.blobs[prefix + rel] = data


def files_from_job(job: Job, prefix: str) -> dict:
    modes = job.box.get(prefix + "modes") or {}
    return {rel: (int(mode), job.blobs.get(prefix + rel, b"")) for rel, mode in modes.items()}


def work_reply(files) -> tuple[dict, list]:
    """The compile step's /work as a reply's extras and blobs: ``work_files`` [[name, mode], ...]
    with one blob each (``{name: (mode, bytes)}``), or ``work_error`` (a message: /work held
    more than its size, or could not be read)."""
    if isinstance(files, str):
        return {"work_error": files}, []
    names = sorted(files)
    return {"work_files": [[n, files[n][0]] for n in names]}, [files[n][1] for n in names]
