"""Which instance owns a folder: the one holding an ``flock`` on it, in any PID namespace.

Instances of codetest on one host (two services, a service and a CLI batch, one of them in a
container or another PID namespace) share a state dir and a cgroup hierarchy. A PID tells
nothing across PID namespaces, so ownership is a lock: the live instance holds an exclusive
``flock`` on its own folder for as long as it lives, and the kernel drops it when the process
dies, whatever namespace it was in. A folder whose lock can be taken has no owner and may go.
"""

from __future__ import annotations

import fcntl
import os
from typing import Callable


def claim(folder: str, mode: int = 0o700) -> int:
    """Create ``folder`` (if needed) and hold an exclusive flock on it; the descriptor to keep open."""
    os.makedirs(folder, mode=mode, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


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
