"""Page faults per execution (mostly copy-on-write copies) of one native slot's processes.

    python bench/jail_faults.py [N]        # N executions of a Python `pass` (default 500)

A Python test is a fork of the slot's zygote, so every page of the zygote that either side
writes afterwards is copied (copy-on-write), and that copying is most of what an execution
costs the kernel. This counts it with the kernel's own fault counters (``/proc/PID/stat``):
the zygote's own faults (its loop writes pages it now shares with the new process), the
supervisor's, and those of the program processes the zygote reaped. Run it in two checkouts
one after the other to compare jail changes; the counts barely move with the machine's load.
"""

from __future__ import annotations

import os
import sys
import time

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

os.environ.setdefault("CODETEST_SLOTS", "1")

from sandbox.backends.base import ExecSpec  # noqa: E402
from sandbox.engine import Sandbox  # noqa: E402
from sandbox.jail.protocol import Limits  # noqa: E402

LIMITS = Limits(cpu_s=2, wall_s=5, memory_bytes=256 << 20, output_bytes=1 << 20, processes=16,
                file_size_bytes=1 << 20)


def faults(pid: int) -> tuple[int, int]:
    """(own minor faults, minor faults of the children it reaped)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[7]), int(fields[8])


def children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return out


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    spec = ExecSpec(argv=["python3", "prog.py"], limits=LIMITS, python_inline="pass\n")
    with Sandbox() as sb:
        for _ in range(20):  # warm
            sb.backend.execute(spec)
        slot = sb.backend._all[0].proc.pid  # the slot's first process; the zygote is its child
        zygotes = children(slot)
        if len(zygotes) != 1:
            raise SystemExit(f"expected one zygote under the slot's process {slot}, found {zygotes}")
        zygote = zygotes[0]
        others = [p for p in children(zygote)]
        before = {p: faults(p) for p in [zygote, *others]}
        for _ in range(n):
            facts = sb.backend.execute(spec)
            if facts.error:
                raise SystemExit(f"sandbox error: {facts.error}")
        time.sleep(0.2)  # the last program reaped
        after = {p: faults(p) for p in before if os.path.exists(f"/proc/{p}")}
    zyg_own = (after[zygote][0] - before[zygote][0]) / n
    programs = (after[zygote][1] - before[zygote][1]) / n
    rest = sum(after[p][0] - before[p][0] for p in after if p != zygote) / n
    print(f"page faults per execution: {zyg_own + programs + rest:.0f}  (zygote {zyg_own:.0f}, "
          f"program processes {programs:.0f}, supervisor {rest:.0f}; n={n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
