"""Issue 11, findings 2 and 11 on a real cgroup v2 (unified) hierarchy.

Runs where the memory controller lives on cgroup2 (the KVM/TCG guest of scripts/cgroup2-vm.sh;
a v2 host); skipped on a v1 host such as the project's CI machine, where tests/test_cgroup2_vm.py
boots the guest and runs this file inside it. What it shows, from outside the jail:
- every execution gets a cgroup of its own (two executions on one slot: two different groups),
  removed when the execution ends;
- the groups are below the cgroup of the process that runs the sandbox (the delegated subtree);
- memory is measured per execution (memory.peak): a small program after a big one on the same
  slot reports its own peak; a memory bomb is MLE;
- the whole group is killed at the end (cgroup.kill): a daemonized grandchild does not survive.
"""

from __future__ import annotations

import os
import time

import pytest

from sandbox import Verdict
from conftest import BACKENDS, own_sandbox, processes_of, run_one, v1_mount, v2_mount

pytestmark = [
    pytest.mark.skipif(v2_mount() is None or v1_mount("memory") is not None,
                       reason="needs the memory controller on cgroup v2 (see scripts/cgroup2-vm.sh)"),
    pytest.mark.skipif("native" not in BACKENDS, reason="native backend"),
]


def _unified(pid: int) -> str:
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            if line.startswith("0::"):
                return line[3:].strip()
    raise AssertionError(f"no unified cgroup line for {pid}")


def _watch(sb, code: str, seconds: float) -> tuple[object, dict[int, str]]:
    """Run code on sb in a thread while recording the cgroup of every jailed process."""
    import threading

    uids = range(sb.config.uid_base, sb.config.uid_base + sb.backend.slots)
    before = set(processes_of(uids))  # the slots' long-lived servers, if they run as the jail uid
    out: dict = {}
    th = threading.Thread(target=lambda: out.setdefault("t", run_one(sb, code, time_s=5, wall_time_s=10)))
    th.start()
    seen: dict[int, str] = {}
    deadline = time.monotonic() + seconds
    while th.is_alive() and time.monotonic() < deadline:
        for pid in processes_of(uids):
            if pid not in before:
                try:
                    seen[pid] = _unified(pid)
                except (OSError, AssertionError):
                    pass
        time.sleep(0.05)
    th.join()
    return out["t"], seen


# Generous CPU limits: the guest may run emulated (TCG), many times slower than the host.
SLOW = {"time_s": 60, "wall_time_s": 120}

SLEEPER = "import time\nprint('up', flush=True)\ntime.sleep(1.5)\nprint('done')\n"


def test_each_execution_has_its_own_cgroup_below_ours():
    mine = _unified(os.getpid())
    root = v2_mount()
    with own_sandbox("native", slots=1) as sb:
        t1, seen1 = _watch(sb, SLEEPER, 8)
        t2, seen2 = _watch(sb, SLEEPER, 8)
        assert t1.verdict == Verdict.AC and t2.verdict == Verdict.AC
        assert seen1 and seen2, "no jailed process seen"
        groups1, groups2 = set(seen1.values()), set(seen2.values())
        assert not groups1 & groups2, f"two executions on one slot shared a cgroup: {groups1 & groups2}"
        for g in groups1 | groups2:
            assert g.startswith(mine.rstrip("/") + "/"), f"jail cgroup {g} is not below ours ({mine})"
        time.sleep(0.5)
        for g in groups1:
            assert not os.path.exists(root + g), f"execution cgroup {g} left behind"


def test_memory_peak_and_mle_per_execution_on_v2():
    with own_sandbox("native", slots=1) as sb:
        big = run_one(sb, "b = bytearray(150 << 20)\nfor i in range(0, len(b), 4096):\n    b[i] = 1\nprint('ok')\n",
                      memory_mb=512, **SLOW)
        assert big.verdict == Verdict.AC and big.memory_kb >= 140 << 10, (big.verdict, big.memory_kb)
        small = run_one(sb, "print(1)\n", memory_mb=512, **SLOW)
        assert small.verdict == Verdict.AC and small.memory_kb < 100 << 10, small.memory_kb
        bomb = run_one(sb, "s = b'a' * (512 << 20)\nprint(len(s))\n", memory_mb=64, **SLOW)
        assert bomb.verdict == Verdict.MLE, (bomb.verdict, bomb.stderr[-500:])
        after = run_one(sb, "print(2)\n", memory_mb=64)
        assert after.verdict == Verdict.AC, after


def test_whole_group_is_killed_at_the_end_on_v2():
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            "        time.sleep(60)\n"
            "    os._exit(0)\n"
            "print('parent leaves')\n")
    with own_sandbox("native", slots=1) as sb:
        uids = range(sb.config.uid_base, sb.config.uid_base + 1)
        before = set(processes_of(uids))
        t = run_one(sb, code)
        assert t.verdict == Verdict.AC
        deadline = time.monotonic() + 3
        while set(processes_of(uids)) - before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not set(processes_of(uids)) - before, "a daemonized grandchild survived its execution"


def test_kernel_held_memory_is_not_charged_to_the_next_program_on_v2():
    from test_attacks_accounting import LEAVE_KERNEL_MEMORY, NEEDS_MEMORY

    with own_sandbox("native", slots=1) as sb:
        for _ in range(2):
            t = run_one(sb, LEAVE_KERNEL_MEMORY, stdin="200\n", memory_mb=512, file_size_kb=256 << 10, **SLOW)
            assert t.verdict == Verdict.AC, t.stderr[-1000:]
            t = run_one(sb, NEEDS_MEMORY, stdin="160\n", memory_mb=256, **SLOW)
            assert t.verdict == Verdict.AC, (t.verdict, t.memory_kb)


SECOND_INSTANCE = """
import json, sys
from sandbox import Limits, RunRequest, Sandbox, TestCase
with Sandbox() as sb:
    layer = sb.health()["layers"]["cgroups"]
    r = sb.run(RunRequest(language="python", code="print(6 * 7)", tests=[TestCase(stdin="", expected_stdout="42\\n")],
                          limits=Limits(time_s=60, wall_time_s=120)))
    print(json.dumps({"cgroups": layer, "verdict": r.verdict.value}))
"""


def test_second_instance_inside_the_first_ones_service_leaf_gets_cgroups(tmp_path):
    # The first instance moved this process into its service leaf (no internal processes in
    # v2); a second instance started from here (a CLI batch run by a service) must still get a
    # subtree, beside the first one's jails and under the same delegated cgroup.
    import json
    import subprocess
    import sys

    with own_sandbox("native", slots=1) as sb:
        assert run_one(sb, "print(1)", **SLOW).verdict == Verdict.AC
        leaf = _unified(os.getpid())
        env = dict(os.environ, CODETEST_STATE_DIR=str(tmp_path / "second"),
                   CODETEST_UID_BASE=str(sb.config.uid_base + 500), CODETEST_SLOTS="1")
        out = subprocess.run([sys.executable, "-c", SECOND_INSTANCE], env=env, capture_output=True, text=True,
                             timeout=600, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        assert out.returncode == 0, out.stderr[-3000:]
        got = json.loads(out.stdout.strip().splitlines()[-1])
        assert got["cgroups"]["active"], got
        assert got["verdict"] == "AC", got
        assert _unified(os.getpid()) == leaf  # the first instance's processes were not moved
        assert run_one(sb, "print(2)", **SLOW).verdict == Verdict.AC  # and it still works
