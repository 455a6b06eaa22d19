"""The jail's own cost: CPU per execution of one native slot, nothing else in the way.

    python bench/jail_cpu.py [N]        # N executions of /bin/true, then N of a Python `pass`

One slot, one execution at a time, straight through ``backend.execute`` (no HTTP, no judge):
prints wall and CPU milliseconds per execution, the CPU counted over the slot's whole process
tree (its long-lived processes and everything they forked and reaped) plus this process. Run it
in two checkouts one after the other to compare jail designs on the same machine; the same file
runs on older trees (it falls back to their limits type).
"""

from __future__ import annotations

import os
import resource
import sys
import time

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

os.environ.setdefault("CODETEST_SLOTS", "1")

from bench import cpu  # noqa: E402
from sandbox.backends.base import ExecSpec  # noqa: E402
from sandbox.engine import Sandbox  # noqa: E402

try:
    from sandbox.jail.protocol import Limits  # noqa: E402
except ImportError:  # trees before the jail package
    from sandbox.backends.base import ExecLimits as Limits  # noqa: E402

LIMITS = Limits(cpu_s=2, wall_s=5, memory_bytes=256 << 20, output_bytes=1 << 20, processes=16,
                file_size_bytes=1 << 20)


def measure(backend, spec: ExecSpec, n: int) -> dict:
    backend.execute(spec)  # warm
    me = os.getpid()
    before = cpu.snapshot()
    own0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    for _ in range(n):
        facts = backend.execute(spec)
        if facts.error:
            raise SystemExit(f"sandbox error: {facts.error}")
    wall = time.monotonic() - t0
    after = cpu.snapshot()
    own1 = resource.getrusage(resource.RUSAGE_SELF)
    jail = 0.0
    for pid, (_cat, own, reaped) in after.items():
        if pid == me:
            continue
        b = before.get(pid)
        jail += (own - (b[1] if b else 0.0)) + (reaped - (b[2] if b else 0.0))
    host = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
    return {"wall_ms": 1000 * wall / n, "jail_cpu_ms": 1000 * jail / n, "host_cpu_ms": 1000 * host / n}


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with Sandbox() as sb:
        time.sleep(2)  # let start-up probes finish
        for name, spec in (("/bin/true", ExecSpec(argv=["/bin/true"], limits=LIMITS)),
                           ("python pass", ExecSpec(argv=["python3", "prog.py"], limits=LIMITS,
                                                    python_inline="pass\n"))):
            r = measure(sb.backend, spec, n)
            print(f"{name:12} wall {r['wall_ms']:5.1f} ms/exec  jail cpu {r['jail_cpu_ms']:5.2f} ms/exec  "
                  f"caller cpu {r['host_cpu_ms']:4.2f} ms/exec  (n={n}, load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
