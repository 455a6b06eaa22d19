"""A content-addressed store of compiled programs, shared by every request of a process.

Keyed by (language, toolchain version, command, source) so a program judged on ten tests,
or sent again, compiles once. Entries are folders made read-only and renamed into place
atomically, so concurrent compiles of the same source are safe: the loser's copy is thrown
away. The store is bounded: the least recently used entries go when it grows past its size.

Shared (``CODETEST_SHARED_CACHE_DIR``, several instances on one volume): the same rules hold
across processes, since an entry is only ever visible whole (a folder staged on the store's
own filesystem, then renamed). An instance cannot see which entries another is running, so
in a shared store it evicts only entries no one has used for ``SHARED_EVICT_GRACE_S``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from typing import Iterator, Optional


SHARED_EVICT_GRACE_S = 600.0
STAGING_PREFIX = ".in-"


class CompileCache:
    def __init__(self, root: str, max_bytes: int, shared: bool = False):
        self.root = root
        self.max_bytes = max_bytes
        self.shared = shared
        # A shared store grows by other instances' entries too: its real size is read from the
        # disk after a put, at most this often (seconds).
        self.shared_rescan_s = 10.0
        self._last_scan = 0.0
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._pins: dict[str, int] = {}
        self._memo: dict[str, tuple[dict, float]] = {}
        os.makedirs(root, mode=0o755, exist_ok=True)
        os.chmod(root, 0o755)
        self._remove_old_staging()
        self._size = sum(_folder_size(os.path.join(root, n)) for n in os.listdir(root))

    @contextlib.contextmanager
    def pinned(self, *keys: str) -> Iterator[None]:
        """Entries in use by a running job are never evicted."""
        with self._lock:
            for k in keys:
                self._pins[k] = self._pins.get(k, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                for k in keys:
                    self._pins[k] -= 1
                    if not self._pins[k]:
                        del self._pins[k]

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
        """The entry's metadata, or None. Hot entries are answered from memory after a stat
        (another process may have evicted the folder); recency is written at most every 30 s."""
        meta = os.path.join(self.path(key), ".meta.json")
        now = time.monotonic()
        memo = self._memo.get(key)
        if memo is not None and os.path.exists(meta):
            info, touched = memo
            if now - touched > 30:
                self._touch(meta)
                self._memo[key] = (info, now)
            return info
        try:
            with open(meta) as f:
                info = json.load(f)
        except (OSError, ValueError):
            self._memo.pop(key, None)
            return None
        self._touch(meta)
        with self._lock:
            self._memo[key] = (info, now)
            while len(self._memo) > 4096:
                self._memo.pop(next(iter(self._memo)))
        return info

    @staticmethod
    def _touch(meta: str) -> None:
        try:
            os.utime(meta)  # recency for eviction
        except OSError:
            pass

    def put(self, key: str, folder: str, info: dict) -> None:
        """Move a finished folder into the store (atomic rename), read-only for everyone."""
        with open(os.path.join(folder, ".meta.json"), "w") as f:
            json.dump(info, f)
        for root, dirs, files in os.walk(folder):
            for name in dirs + files:
                p = os.path.join(root, name)
                if not os.path.islink(p):
                    os.chown(p, 0, 0) if os.geteuid() == 0 else None
                    # The mode bits, not os.access: on a noexec mount (a replica's tmpfs state
                    # folder) access(X_OK) fails for every file, and a binary would lose its x bit.
                    executable = os.lstat(p).st_mode & 0o111
                    os.chmod(p, 0o755 if os.path.isdir(p) or executable else 0o644)
        os.chown(folder, 0, 0) if os.geteuid() == 0 else None
        os.chmod(folder, 0o755)
        size = _folder_size(folder)
        try:
            folder = self._on_store_fs(folder)
        except OSError:
            return  # cannot stage it (the store is full or gone): the program is simply not cached
        try:
            os.rename(folder, self.path(key))
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)  # someone else stored it first
            return
        with self._lock:
            self._size += size
            over = self._size > self.max_bytes
            if self.shared and time.monotonic() - self._last_scan >= self.shared_rescan_s:
                self._last_scan = time.monotonic()
                over = True  # _evict reads the real size, and drops entries only past the bound
        if over:
            self._evict()

    def _on_store_fs(self, folder: str) -> str:
        """``folder``, or a copy of it staged in the store when it lives on another filesystem
        (a shared volume): a rename is atomic only within one filesystem."""
        if os.stat(folder).st_dev == os.stat(self.root).st_dev:
            return folder
        staged = tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.root)
        try:
            os.rmdir(staged)
            shutil.copytree(folder, staged, symlinks=True)
            os.chmod(staged, 0o755)
        except OSError:
            shutil.rmtree(staged, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
            raise
        shutil.rmtree(folder, ignore_errors=True)
        return staged

    def _remove_old_staging(self) -> None:
        """Copies left half-staged by an instance that died (an hour old: no copy takes that long)."""
        now = time.time()
        for name in os.listdir(self.root):
            p = os.path.join(self.root, name)
            try:
                if name.startswith(STAGING_PREFIX) and now - os.lstat(p).st_mtime > 3600:
                    shutil.rmtree(p, ignore_errors=True)
            except OSError:
                pass

    @property
    def size(self) -> int:
        return self._size

    def _evict(self) -> None:
        """Drop least recently used entries (not pinned ones) until the store fits its bound."""
        entries = []
        total = 0
        for name in os.listdir(self.root):
            p = os.path.join(self.root, name)
            if name.startswith(".") or ".del" in name or not os.path.isdir(p):
                continue
            size = _folder_size(p)
            try:
                mtime = os.path.getmtime(os.path.join(p, ".meta.json"))
            except OSError:
                mtime = 0
            entries.append((mtime, size, name, p))
            total += size
        recent = time.time() - SHARED_EVICT_GRACE_S
        for _mtime, size, name, p in sorted(entries):
            if total <= self.max_bytes:
                break
            if self.shared and _mtime > recent:
                break  # another instance may be running it: in a shared store only idle entries go
            with self._lock:
                if name in self._pins:
                    continue
                # Rename first so a reader never sees a half-deleted entry.
                self._memo.pop(name, None)
                trash = p + f".del{time.monotonic_ns()}"
                try:
                    os.rename(p, trash)
                except OSError:
                    continue
            shutil.rmtree(trash, ignore_errors=True)
            total -= size
        with self._lock:
            self._size = total


def _folder_size(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total
