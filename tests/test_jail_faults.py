"""A jail that fails is never the program's verdict, on every backend.

The jail's own side of an execution (the supervisor: setting up, watching, cleaning up) can
fail: gVisor's select once failed with EPERM while the zygote was reaping a fork bomb, and
the fork bomb scored SE. Whatever the failure, the program is not charged: the jail that
failed stops (fail closed: nothing is known of what that execution left), a fresh one takes
its place, and the execution runs again there (``backends.base.JAIL_ATTEMPTS``).

Two real faults, injected from outside into a real jail, while it waits for the next job:
  - its supervisor cannot open one more descriptor (RLIMIT_NOFILE lowered to what it has
    open): the next execution fails on the jail's side and the jail says so in its reply;
  - its supervisor is SIGKILLed while the program runs: the jail is gone mid-execution.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time

import pytest

from sandbox import Limits, RunRequest, Sandbox, TestCase, Verdict

from conftest import BACKENDS, fresh_sandbox, pool_container_ids

# Run inside the jail's PID namespace view (a container's /proc, or the host's for a native
# slot): find the supervisor, the oldest child of the zygote ZYGOTE, and act on it.
FIND_SUPERVISOR = """
import os, resource, signal, sys
zygote = sys.argv[1]
def stat(p):
    try:
        with open(f"/proc/{p}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except OSError:  # gone meanwhile
        return None
kids = {}
for p in os.listdir("/proc"):
    st = stat(p) if p.isdigit() and int(p) != os.getpid() else None
    if st and st[1] == zygote.encode():
        kids[int(p)] = int(st[19])  # start time: the supervisor was forked first
supervisor = min(kids, key=kids.get)
if sys.argv[2] == "starve":
    open_fds = {int(fd) for fd in os.listdir(f"/proc/{supervisor}/fd")}
    lowest_free = next(n for n in range(1 << 20) if n not in open_fds)
    hard = resource.prlimit(supervisor, resource.RLIMIT_NOFILE)[1]
    resource.prlimit(supervisor, resource.RLIMIT_NOFILE, (lowest_free, hard))
else:
    os.kill(supervisor, signal.SIGKILL)
print(supervisor)
"""


@pytest.fixture(params=BACKENDS)
def one_jail(request):
    """A sandbox of one jail (so the retry can only run on the jail that replaced it)."""
    sb, state = fresh_sandbox(request.param, slots=1)
    yield sb
    sb.close()
    shutil.rmtree(state, ignore_errors=True)


def hit_supervisor(sb: Sandbox, how: str) -> None:
    """``how``: "starve" (no descriptor left to open) or "kill" (SIGKILL)."""
    b = sb.backend
    if b.name == "native":
        (slot,) = b._all
        waiter = slot.proc.pid  # stays outside the slot's PID namespace; its one child is the zygote
        with open(f"/proc/{waiter}/task/{waiter}/children") as f:
            (zygote,) = f.read().split()
        out = subprocess.run([sys.executable, "-c", FIND_SUPERVISOR, zygote, how], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return
    assert b.pool.wait_ready(1, 90) == 1
    (cid,) = pool_container_ids(b.client, b)
    code, out = b.client.containers.get(cid).exec_run(["python3", "-I", "-c", FIND_SUPERVISOR, "1", how], user="0")
    assert code == 0, out.decode(errors="replace")


def run(sb: Sandbox, code: str, **limits):
    res = sb.run(RunRequest(language="python", code=code, tests=[TestCase(stdin="3 4\n", expected_output="7\n")],
                            limits=Limits(**limits)))
    return res.tests[0]


ADD = "a, b = map(int, input().split())\nprint(a + b)\n"


def test_a_jail_that_fails_on_its_side_is_replaced_and_the_program_judged_on_a_fresh_one(one_jail):
    assert run(one_jail, ADD).verdict == Verdict.AC  # warm: compiled, the jail up
    hit_supervisor(one_jail, "starve")
    t = run(one_jail, ADD)
    assert t.verdict == Verdict.AC and t.stdout == "7\n", (t.verdict, t.message)
    # The jail that failed is gone; the fresh one serves what comes next.
    assert [run(one_jail, ADD).verdict for _ in range(3)] == [Verdict.AC] * 3


def test_a_jail_killed_mid_execution_is_replaced_and_the_program_judged_on_a_fresh_one(one_jail):
    slow_add = "import time\ntime.sleep(1.0)\n" + ADD
    assert run(one_jail, ADD).verdict == Verdict.AC
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("t", run(one_jail, slow_add, time_s=5, wall_time_s=10)))
    t.start()
    time.sleep(0.5)  # the program is sleeping: the jail is watching it
    hit_supervisor(one_jail, "kill")
    t.join(120)
    assert not t.is_alive()
    assert out["t"].verdict == Verdict.AC and out["t"].stdout == "7\n", (out["t"].verdict, out["t"].message)
