"""CPU seconds spent by the bench's process tree during a measurement, by part.

On a shared machine wall-clock rates move with everyone else's load; CPU time per execution
barely does. So each measurement also says how many CPU milliseconds one execution cost, and
where they went: the bench process itself (client, or the whole engine in library mode), the
HTTP service's own process, the jail slot servers with the programs they forked, and whatever
the bench ran and reaped (floor programs, CLI processes). Linux /proc only; elsewhere, nothing.
"""

from __future__ import annotations

import os
from typing import Optional

_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> Optional[tuple[int, float, float]]:
    """(ppid, own cpu s, reaped children cpu s) of a process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError:
        return None
    rest = raw.rsplit(")", 1)[1].split()
    return int(rest[1]), (int(rest[11]) + int(rest[12])) / _TCK, (int(rest[13]) + int(rest[14])) / _TCK


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _category(pid: int, root: int) -> str:
    if pid == root:
        return "bench"
    cmd = _cmdline(pid)
    if "jail_server" in cmd:
        return "slots"  # the slot servers, and the programs they fork
    if " -m api" in cmd:
        return "service"
    return "other"


def snapshot(root: Optional[int] = None) -> dict[int, tuple[str, float, float]]:
    """pid -> (category, own cpu, reaped cpu) for ``root`` (default: this process) and its descendants."""
    root = root or os.getpid()
    if not os.path.isdir("/proc"):
        return {}
    parents: dict[int, int] = {}
    stats: dict[int, tuple[int, float, float]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                stats[int(name)] = st
                parents[int(name)] = st[0]
    keep: dict[int, tuple[str, float, float]] = {}
    for pid, st in stats.items():
        p, hops = pid, 0
        while p and p != root and hops < 64:
            p, hops = parents.get(p, 0), hops + 1
        if p == root:
            keep[pid] = (_category(pid, root), st[1], st[2])
    return keep


def delta(before: dict[int, tuple[str, float, float]], after: dict[int, tuple[str, float, float]]) -> dict[str, float]:
    """CPU seconds between two snapshots: ``bench`` (this process), ``reaped`` (what it ran and waited
    for: floor programs, CLI processes), ``service`` (the HTTP service's own process), ``jail`` (slot
    servers and the programs they forked; a fork keeps the server's command line), ``other``.
    A process born and reaped in between is counted in its parent's reaped time."""
    out: dict[str, float] = {}

    def add(k: str, v: float) -> None:
        out[k] = out.get(k, 0.0) + max(0.0, v)

    for pid, (cat, own, reaped) in after.items():
        b = before.get(pid)
        d_own, d_reaped = own - (b[1] if b else 0.0), reaped - (b[2] if b else 0.0)
        if cat == "bench":
            add("bench", d_own)
            add("reaped", d_reaped)
        elif cat == "service":
            add("service", d_own)
            add("jail", d_reaped)  # slot servers it restarted
        elif cat == "slots":
            add("jail", d_own + d_reaped)
        else:
            add("other", d_own + d_reaped)
    return {k: round(v, 3) for k, v in out.items() if v > 0}
