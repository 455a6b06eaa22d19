"""What a toolchain says its version is, asked once per binary and remembered across processes.

Asking costs a process per language, and a JVM tool (kotlinc, scalac) takes one to two seconds
of CPU to answer: every ``Sandbox`` (each ``codetest run``, each service start) asked all of
them again. The answers are kept in ``<state dir>/toolchain-versions.json``, keyed by the
binary's real path, size, modification time and inode and by the arguments asked, so an
upgraded toolchain is asked again. A cache that cannot be read or written is only slower.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from typing import Optional

from .config import default_state_dir

CACHE_NAME = "toolchain-versions.json"
_lock = threading.Lock()
_known: Optional[dict] = None  # this process's copy of the file


def _key(cmd: list[str]) -> Optional[str]:
    try:
        st = os.stat(cmd[0])
    except OSError:
        return None
    return json.dumps([os.path.realpath(cmd[0]), st.st_size, st.st_mtime_ns, st.st_ino, *cmd[1:]])


def _path() -> str:
    return os.path.join(default_state_dir(), CACHE_NAME)


def _load() -> dict:
    global _known
    if _known is None:
        try:
            with open(_path()) as f:
                data = json.load(f)
            _known = data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            _known = {}
    return _known


def _save(known: dict) -> None:
    path = _path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".toolchain-versions.")
        with os.fdopen(fd, "w") as f:
            json.dump(known, f, indent=0, sort_keys=True)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
    except OSError:
        pass


def first_line(text: str) -> str:
    """The version line of a tool's answer: the first line that is not a JVM's warning."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    for ln in lines:
        if "warning:" not in ln.lower():
            return ln
    return lines[0] if lines else ""


def ask(cmd: list[str]) -> str:
    """The tool's version line, "" when it cannot say."""
    try:
        # A JVM tool (kotlinc, scalac) may take long to say its version on a busy machine.
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=90,
                           env={"PATH": os.defpath, "LANG": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return first_line(p.stdout) or first_line(p.stderr)


def version_of(cmd: list[str]) -> str:
    """``ask(cmd)``, from the cache when this binary was asked the same before."""
    key = _key(cmd)
    with _lock:
        known = _load()
        if key is not None and key in known:
            return known[key]
    version = ask(cmd)
    if key is not None and version:
        with _lock:
            known = _load()
            known[key] = version
            _save(known)
    return version
