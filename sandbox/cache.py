"""A content-addressed store of compiled programs, shared by every request of a process.

Keyed by (language, toolchain version, command, source) so a program judged on ten tests,
or sent again, compiles once. Entries are folders made read-only and renamed into place
atomically, so concurrent compiles of the same source are safe: the loser's copy is thrown
away. The store is bounded: the least recently used entries go when it grows past its size.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from typing import Optional


class CompileCache:
    def __init__(self, root: str, max_bytes: int):
        self.root = root
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        os.makedirs(root, mode=0o755, exist_ok=True)
        os.chmod(root, 0o755)

    @staticmethod
    def key(*parts: str) -> str:
        h = hashlib.sha256()
        for p in parts:
            h.update(p.encode("utf-8", "surrogatepass"))
            h.update(b"\0")
        return h.hexdigest()[:40]

    def path(self, key: str) -> str:
        return os.path.join(self.root, key)

    def key_lock(self, key: str) -> threading.Lock:
        """One compile per key at a time within this process; others wait and then hit."""
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())

    def get(self, key: str) -> Optional[dict]:
        meta = os.path.join(self.path(key), ".meta.json")
        try:
            with open(meta) as f:
                info = json.load(f)
        except (OSError, ValueError):
            return None
        try:
            os.utime(meta)  # recency for eviction
        except OSError:
            pass
        return info

    def put(self, key: str, folder: str, info: dict) -> None:
        """Move a finished folder into the store (atomic rename), read-only for everyone."""
        with open(os.path.join(folder, ".meta.json"), "w") as f:
            json.dump(info, f)
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                p = os.path.join(root, name)
                if not os.path.islink(p):
                    os.chown(p, 0, 0) if os.geteuid() == 0 else None
                    os.chmod(p, 0o755 if os.path.isdir(p) or os.access(p, os.X_OK) else 0o644)
        os.chown(folder, 0, 0) if os.geteuid() == 0 else None
        os.chmod(folder, 0o755)
        try:
            os.rename(folder, self.path(key))
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)  # someone else stored it first
        self._evict()

    def _evict(self) -> None:
        entries = []
        total = 0
        for name in os.listdir(self.root):
            p = os.path.join(self.root, name)
            if name.startswith(".") or not os.path.isdir(p):
                continue
            size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)
            try:
                mtime = os.path.getmtime(os.path.join(p, ".meta.json"))
            except OSError:
                mtime = 0
            entries.append((mtime, size, p))
            total += size
        if total <= self.max_bytes:
            return
        for _mtime, size, p in sorted(entries):
            if total <= self.max_bytes:
                break
            # Rename first so a reader never sees a half-deleted entry.
            trash = p + f".del{time.monotonic_ns()}"
            try:
                os.rename(p, trash)
            except OSError:
                continue
            shutil.rmtree(trash, ignore_errors=True)
            total -= size
