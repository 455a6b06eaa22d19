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
from typing import Optional

from .kernel import read_file, write_file


SLOT_REUSED = "run"  # v1 pids and cpuacct: one folder per slot (counters reset or zero)
FRESH_CONTROLLERS = ("memory", "unified")  # a fresh folder per execution
CPU_POLL_S = 0.02  # how often a supervisor samples a cgroup's CPU counter (``cpu_seconds``): one small read


class Cgroup:
    def __init__(self, parents: dict, name: str, held: dict):
        """``parents`` maps controller -> slot folder ({"unified": folder} on v2).

        Memory (v1) and the unified folder (v2) are fresh per execution: that is where
        memory stays charged after a program ends. The v1 pids and cpuacct folders are the
        slot's, reused: pids.current is zero once the execution's processes are gone (checked
        by ``reset``) and cpuacct.usage is reset to zero before each execution.

        ``held``: the slot's open ``cgroup.procs`` descriptors of its reused folders (folder ->
        fd), kept by the caller from one execution to the next, opened here when missing.
        """
        self.v2 = "unified" in parents
        self.held = held
        self.procs_fds: list = []
        self.dirs = {c: os.path.join(p, name if c in FRESH_CONTROLLERS else SLOT_REUSED) for c, p in parents.items()}
        for c, d in self.dirs.items():
            try:
                os.mkdir(d)
            except FileExistsError:
                if c in FRESH_CONTROLLERS:  # a leftover of a crashed supervisor: empty it, start over
                    drain(d)
                    os.rmdir(d)
                    os.mkdir(d)

    def _w(self, ctrl, fname, value):
        write_file(os.path.join(self.dirs[ctrl], fname), value)

    def _try_w(self, ctrl, fname, value):
        try:
            self._w(ctrl, fname, value)
        except OSError:
            pass  # e.g. no swap accounting

    def _r(self, ctrl, fname):
        try:
            return read_file(os.path.join(self.dirs[ctrl], fname))
        except OSError:
            return ""

    def limit(self, memory_bytes: int, pids: int) -> None:
        if self.v2:
            self._w("unified", "memory.max", memory_bytes)
            self._try_w("unified", "memory.swap.max", 0)
            self._w("unified", "pids.max", pids)
        else:
            # memory+swap may never be below memory; both start unlimited in the fresh folder.
            self._w("memory", "memory.limit_in_bytes", memory_bytes)
            self._try_w("memory", "memory.memsw.limit_in_bytes", memory_bytes)
            self._w("pids", "pids.max", pids)

    def reset(self) -> None:
        """Counters of the reused v1 folders back to zero; they must hold no process."""
        if self.v2:
            return
        if "cpuacct" in self.dirs:
            self._w("cpuacct", "cpuacct.usage", 0)
        if "pids" in self.dirs:
            drain(self.dirs["pids"])

    def open_procs(self) -> None:
        """The groups' cgroup.procs, open now so that ``enter`` works from inside the jail's
        root too (after pivot_root the cgroup file system is out of reach): the fresh folders'
        opened for this execution, the reused ones' held by the slot."""
        fds = []
        for c, d in self.dirs.items():
            if c in FRESH_CONTROLLERS:
                fds.append(os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC))
            else:
                if d not in self.held:
                    self.held[d] = os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
                fds.append(self.held[d])
        self.procs_fds = fds

    def close_procs(self) -> None:
        """Close this execution's descriptors (the program's process has its own copies)."""
        held = set(self.held.values())
        for fd in self.procs_fds:
            if fd not in held:
                os.close(fd)
        self.procs_fds = []


    def stats(self):
        """(peak memory bytes, OOM kills, CPU seconds or None): this execution's alone."""
        if self.v2:
            peak = _int(self._r("unified", "memory.peak"))
            oom = _kv(self._r("unified", "memory.events")).get("oom_kill", 0)
        else:
            peak = _int(self._r("memory", "memory.max_usage_in_bytes"))
            oom = _kv(self._r("memory", "memory.oom_control")).get("oom_kill", 0)
        return peak, oom, self.cpu_s()

    @property
    def counts_cpu(self) -> bool:
        return self.v2 or "cpuacct" in self.dirs

    def cpu_s(self) -> Optional[float]:
        """CPU seconds of this execution's processes so far (None: no CPU accounting)."""
        if self.v2:
            return cpu_seconds(self.dirs["unified"], v2=True)
        if "cpuacct" not in self.dirs:
            return None
        return cpu_seconds(self.dirs["cpuacct"], v2=False)

    def remove_fresh(self) -> bool:
        """Remove this execution's own folders (the slot's reused ones stay); True if all went."""
        ok = True
        for c, d in self.dirs.items():
            if c in FRESH_CONTROLLERS:
                remove(d)
                ok = ok and not os.path.isdir(d)
        return ok


class CpuMeter:
    """The execution's CPU so far, sampled by the supervisor (``supervise.py``), which stops a
    program once it passes ``Limits.cpu_s``: without it a CPU-bound program ran on to RLIMIT_CPU's
    backstop, the limit rounded down plus a second (2 s of CPU for a 1 s limit). Memory is
    bounded by the cgroup's own limit (the kernel's OOM kill), so it is not sampled."""

    cpu_poll_s = CPU_POLL_S

    def __init__(self, cg: Cgroup):
        self.cg = cg

    def memory(self) -> int:
        return 0

    def cpu(self) -> float:
        return self.cg.cpu_s() or 0.0


def enter(procs_fds: list) -> None:
    """Move the calling process into the group: ``procs_fds`` are its folders' cgroup.procs,
    opened by the supervisor (``Cgroup.open_procs``) and handed to the program's process."""
    for fd in procs_fds:
        os.write(fd, b"0")
        os.close(fd)


def drain(d: str) -> None:
    """SIGKILL whatever is in folder ``d`` until it is empty (bounded)."""
    for _ in range(200):
        try:
            pids = [int(x) for x in read_file(os.path.join(d, "cgroup.procs")).split()]
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
    """Remove every execution folder under the slot folders; empty the reused ones."""
    for p in parents.values():
        try:
            names = os.listdir(p)
        except OSError:
            continue
        for n in names:
            d = os.path.join(p, n)
            if not os.path.isdir(d):
                continue
            if n == SLOT_REUSED:
                drain(d)
            else:
                remove(d)


def _int(s):
    try:
        return int(s.strip())
    except ValueError:
        return 0


def cpu_seconds(folder: str, v2: bool) -> Optional[float]:
    """CPU seconds a cgroup folder has counted: ``cpu.stat``'s ``usage_usec`` on v2, ``cpuacct.usage``
    (nanoseconds) on v1's cpuacct hierarchy; None when the file cannot be read or holds no count.
    An execution's own folder (``Cgroup.cpu_s``) and a container's root (``container_usage.Meter``)."""
    try:
        if v2:
            usec = _kv(read_file(os.path.join(folder, "cpu.stat"))).get("usage_usec")
            return usec / 1e6 if usec is not None else None
        ns = read_file(os.path.join(folder, "cpuacct.usage")).strip()
        return int(ns) / 1e9 if ns else None
    except (OSError, ValueError):
        return None


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
