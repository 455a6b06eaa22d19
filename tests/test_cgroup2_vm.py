"""The attack suites on a real cgroup v2 hierarchy: boots the guest of scripts/cgroup2-vm.sh.

This machine class (and the project's CI) mounts cgroup v1; the per-execution cgroups,
memory.peak, cgroup.kill and the delegated subtree of the v2 code path are exercised in a small
guest whose only cgroup hierarchy is the unified one (see docs/testing.md). Runs when /dev/kvm can
boot a stock kernel (kvm_intel/kvm_amd), or anywhere with CGROUP2_VM_TCG=1 (QEMU's emulator, slow);
otherwise skipped with the script's reason.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import REPO

SCRIPT = os.path.join(REPO, "scripts", "cgroup2-vm.sh")
TIMEOUT = int(os.environ.get("CGROUP2_VM_TIMEOUT", "2400"))


@pytest.mark.timeout(TIMEOUT + 600)  # the suite-wide per-test timeout is far shorter than a guest run
def test_attack_suites_pass_on_a_cgroup_v2_guest(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the guest shares the host root over 9p as root")
    env = dict(os.environ, OUT_DIR=str(tmp_path))
    try:
        proc = subprocess.run([SCRIPT, "--timeout", str(TIMEOUT)], env=env, capture_output=True, text=True,
                              timeout=TIMEOUT + 300, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"scripts/cgroup2-vm.sh did not stop within {TIMEOUT + 300}s")
    if proc.returncode == 77:
        pytest.skip(proc.stderr.strip().splitlines()[-1])
    log_path = tmp_path / "pytest.log"
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    guest = (tmp_path / "guest.log").read_text(errors="replace") if (tmp_path / "guest.log").exists() else ""
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-2000:]}\n{guest}\n{log[-6000:]}"
    # It really ran on v2 only, and the v2 tests ran rather than skipped.
    assert re.search(r"^cgroup2 /sys/fs/cgroup cgroup2 ", guest, re.M), guest
    assert not re.search(r"^cgroup /", guest, re.M), "a v1 hierarchy was mounted in the guest"
    assert re.search(r"\d+ passed", log), log[-3000:]
    skipped_v2 = [line for line in log.splitlines() if line.startswith("SKIPPED") and
                  ("test_attacks_cgroup2" in line or "test_attacks_cgroup_tree" in line)]
    assert not skipped_v2, skipped_v2
