"""Issue 11, finding 2: every execution is charged alone.

A program that leaves memory referenced only by the kernel when it exits (a memfd whose pages it
touched, sent with SCM_RIGHTS into a socketpair cycle and then closed: only the unix-socket
garbage collector frees it) must not make the next program on the same slot, another tenant's,
MLE. One slot, so that every execution lands on it.
"""

from __future__ import annotations

import pytest

from sandbox import Verdict
from conftest import BACKENDS, own_sandbox, run_one

LEAVE_KERNEL_MEMORY = r'''
import array, mmap, os, socket
MB = int(input())
fd = os.memfd_create("left")
os.ftruncate(fd, MB << 20)
m = mmap.mmap(fd, MB << 20)
for off in range(0, MB << 20, 4096):
    m[off] = 1  # fault every page in: shmem charged to this execution's cgroup
m.close()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
# Each socket carries the other (and the memfd) in flight: a cycle only the GC can free.
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd, a.fileno(), b.fileno()]))])
b.sendmsg([b"y"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd, a.fileno(), b.fileno()]))])
os.close(fd)
a.close(); b.close()
print("left", MB)
'''

NEEDS_MEMORY = "b = bytearray(int(input()) << 20)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint('ok', len(b) >> 20)\n"


@pytest.mark.parametrize("backend", BACKENDS)
def test_kernel_held_memory_is_not_charged_to_the_next_program(backend):
    with own_sandbox(backend, slots=1) as sb:
        for round_ in range(3):
            t = run_one(sb, LEAVE_KERNEL_MEMORY, stdin="200\n", memory_mb=512, time_s=30, wall_time_s=90,
                        file_size_kb=256 << 10)
            assert t.verdict == Verdict.AC and "left 200" in t.stdout, (t.verdict, t.stderr[-2000:])
            # Another tenant on the same slot: 160 MiB of its own under a 256 MiB limit.
            t = run_one(sb, NEEDS_MEMORY, stdin="160\n", memory_mb=256, time_s=30, wall_time_s=90)
            assert t.verdict == Verdict.AC, (round_, t.verdict, t.memory_kb, t.stderr[-2000:])
            assert t.memory_kb < 250 << 10, f"charged {t.memory_kb} KiB for a 160 MiB program"


@pytest.mark.parametrize("backend", BACKENDS)
def test_memory_peak_is_per_execution(backend):
    # A big program then a small one on one slot: the small one's reported peak is its own.
    with own_sandbox(backend, slots=1) as sb:
        big = run_one(sb, NEEDS_MEMORY, stdin="200\n", memory_mb=512, time_s=30, wall_time_s=90)
        assert big.verdict == Verdict.AC and big.memory_kb >= 190 << 10, (big.verdict, big.memory_kb)
        small = run_one(sb, "print(1)\n", memory_mb=512)
        assert small.verdict == Verdict.AC
        assert small.memory_kb < 100 << 10, f"a print(1) reported {small.memory_kb} KiB after a 200 MiB program"
