"""Which instance owns a folder: the one holding an ``flock`` on it, in any PID namespace.

Instances of codetest on one host (two services, a service and a CLI batch, one of them in a
container or another PID namespace) share a state dir and a cgroup hierarchy. A PID tells
nothing across PID namespaces, so ownership is a lock: the live instance holds an exclusive
``flock`` on its own folder for as long as it lives, and the kernel drops it when the process
dies, whatever namespace it was in. A folder whose lock can be taken has no owner and may go.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from typing import Callable


# How long claim() waits out sweeps that hold its new folder's lock. A sweep may hold it for as
# long as its removal takes (the Docker backend asks the engine for a dead pool's containers):
# seconds on a loaded machine. The folders claimed are the claimer's own by name (a random pool
# id, an instance id), so only a sweep ever holds one, and waiting is always right.
CLAIM_WITHIN_S = 60.0


def claim(folder: str, mode: int = 0o700) -> int:
    """Create ``folder`` (if needed) and hold an exclusive flock on it; the descriptor to keep open.

    A folder is unlocked between its creation and its lock, and another instance's
    ``remove_unowned`` may take it in that moment and remove it. So claim locks what the path
    names, checks that the path still names what it locked, and starts over while a sweep
    holds or removed it. A folder another live instance holds stays its own: BlockingIOError
    after ``CLAIM_WITHIN_S``. (Not ``os.makedirs(exist_ok=True)``: it raises FileExistsError
    when a sweep removes the folder between its failed mkdir and its isdir check.)
    """
    end = time.monotonic() + CLAIM_WITHIN_S
    pause = 0.002
    os.makedirs(os.path.dirname(folder), exist_ok=True)  # the parent, never swept
    while time.monotonic() < end:
        try:
            os.mkdir(folder, mode)
        except FileExistsError:
            pass  # ours from an earlier try, or being swept: what open() finds decides
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            continue  # removed by a sweep since it was created: create it again
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            time.sleep(pause)  # a sweep holds it for a moment, then removes it or lets it go
            pause = min(2 * pause, 0.1)
            continue
        if _names(folder, fd):
            return fd
        os.close(fd)  # a sweep removed it after we opened it
    raise BlockingIOError(errno.EWOULDBLOCK, f"cannot lock {folder}: another instance holds it")


def _names(path: str, fd: int) -> bool:
    """Whether ``path`` names the folder open as ``fd``."""
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


def remove_unowned(top: str, remove: Callable[[str], None]) -> None:
    """``remove(path)`` every folder under ``top`` whose lock can be taken (its owner is gone).

    A folder of an older codetest (which takes no lock) whose ``PID-...`` name is a process
    visible here is left alone too.
    """
    try:
        names = os.listdir(top)
    except OSError:
        return
    for name in names:
        path = os.path.join(top, name)
        if not os.path.isdir(path):
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # alive: its owner holds the lock
        pid = name.split("-")[0]
        try:
            if not (pid.isdigit() and os.path.exists(f"/proc/{pid}")):
                remove(path)
        finally:
            os.close(fd)
