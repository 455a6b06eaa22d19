"""A fresh cgroup for one execution, on cgroup v1 (a folder per controller) or v2 (one folder).

Every execution gets its own folder, made before it starts and removed after it ends, on v1
as on v2: its counters start at zero by construction, and memory the kernel still holds for a
finished program (a memfd in an SCM_RIGHTS cycle, page cache) stays charged to that program's
dead group, never to the next one. The slot folders above (``parents``) are the host's.
"""

from __future__ import annotations

import os
import signal
import time


class Cgroup:
    def __init__(self, parents: dict, name: str):
        """``parents`` maps controller -> slot folder ({"unified": folder} on v2)."""
        self.v2 = "unified" in parents
        self.dirs = {c: os.path.join(p, name) for c, p in parents.items()}
        for d in self.dirs.values():
            try:
                os.mkdir(d)
            except FileExistsError:  # a leftover of a crashed supervisor: empty it, start over
                drain(d)
                os.rmdir(d)
                os.mkdir(d)

    def _w(self, ctrl, fname, value):
        with open(os.path.join(self.dirs[ctrl], fname), "w") as f:
            f.write(str(value))

    def _try_w(self, ctrl, fname, value):
        try:
            self._w(ctrl, fname, value)
        except OSError:
            pass  # e.g. no swap accounting

    def _r(self, ctrl, fname):
        try:
            with open(os.path.join(self.dirs[ctrl], fname)) as f:
                return f.read()
        except OSError:
            return ""

    def limit(self, memory_bytes: int, pids: int) -> None:
        if self.v2:
            self._w("unified", "memory.max", memory_bytes)
            self._try_w("unified", "memory.swap.max", 0)
            self._w("unified", "pids.max", pids)
        else:
            # memory+swap may never be below memory: raising needs memsw first, lowering after.
            self._try_w("memory", "memory.memsw.limit_in_bytes", memory_bytes)
            self._w("memory", "memory.limit_in_bytes", memory_bytes)
            self._try_w("memory", "memory.memsw.limit_in_bytes", memory_bytes)
            self._w("pids", "pids.max", pids)

    def enter(self) -> None:
        """Move the calling process into the group (every controller)."""
        for d in self.dirs.values():
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write("0")

    def stats(self):
        """(peak memory bytes, OOM kills, CPU seconds or None): this execution's alone."""
        if self.v2:
            peak = _int(self._r("unified", "memory.peak"))
            oom = _kv(self._r("unified", "memory.events")).get("oom_kill", 0)
            usec = _kv(self._r("unified", "cpu.stat")).get("usage_usec")
            return peak, oom, (usec / 1e6 if usec is not None else None)
        peak = _int(self._r("memory", "memory.max_usage_in_bytes"))
        oom = _kv(self._r("memory", "memory.oom_control")).get("oom_kill", 0)
        cpu = None
        if "cpuacct" in self.dirs:
            ns = self._r("cpuacct", "cpuacct.usage").strip()
            cpu = int(ns) / 1e9 if ns else None
        return peak, oom, cpu

    def kill_all(self) -> None:
        if self.v2:
            try:
                self._w("unified", "cgroup.kill", 1)
            except OSError:
                pass
        for d in self.dirs.values():
            drain(d)

    def remove(self) -> None:
        for d in self.dirs.values():
            remove(d)


def drain(d: str) -> None:
    """SIGKILL whatever is in folder ``d`` until it is empty (bounded)."""
    for _ in range(200):
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                pids = [int(x) for x in f.read().split()]
        except OSError:
            return
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.002)


def remove(d: str) -> None:
    for _ in range(200):
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError:
            drain(d)
            time.sleep(0.002)


def sweep_children(parents: dict) -> None:
    """Remove every execution folder under the slot folders (a crashed supervisor's leftovers)."""
    for p in parents.values():
        try:
            names = os.listdir(p)
        except OSError:
            continue
        for n in names:
            d = os.path.join(p, n)
            if os.path.isdir(d):
                remove(d)


def _int(s):
    try:
        return int(s.strip())
    except ValueError:
        return 0


def _kv(s):
    out = {}
    for line in s.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = int(parts[1])
            except ValueError:
                pass
    return out
