"""What a toolchain says its version is, asked once per binary and remembered across processes.

Asking costs a process per language, and a JVM tool (kotlinc, scalac) takes one to two seconds
of CPU to answer: every ``Sandbox`` (each ``codetest run``, each service start) asked all of
them again. The answers are kept in ``<state dir>/toolchain-versions.json``, keyed by the
real path, size, modification time and inode of the binary, of the arguments that are files
and of the folders the language requires (pytest's, jest's), and by the arguments asked, so
an upgraded toolchain is asked again. A cache that cannot be read or written is only slower.
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


def _stamp(path: str) -> list:
    st = os.stat(path)
    return [os.path.realpath(path), st.st_size, st.st_mtime_ns, st.st_ino]


def _key(cmd: list[str], depends_on: tuple = ()) -> Optional[str]:
    """The binary's stamp, the arguments, and the stamp of every argument and ``depends_on`` path
    that exists (a tool run by an interpreter, ``node .../jest.js``; a module's folder): any of
    them upgraded, the tool is asked again."""
    try:
        stamps = [_stamp(cmd[0])]
    except OSError:
        return None
    for path in (*cmd[1:], *depends_on):
        if path.startswith("/") and os.path.exists(path):
            stamps.append(_stamp(path))
    return json.dumps([stamps, *cmd[1:]])


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
    except OSError:
        return
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(known, f, indent=0, sort_keys=True)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
    except OSError:
        try:
            os.unlink(tmp)  # no half-written file left beside the cache
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


def version_of(cmd: list[str], depends_on: tuple = ()) -> str:
    """``ask(cmd)``, from the cache when this binary, its path arguments and ``depends_on`` are
    the same files as when it was asked before."""
    key = _key(cmd, depends_on)
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
