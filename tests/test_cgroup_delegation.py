"""A host whose cgroup v2 does not pass memory and pids down to the service (a VM's init put the
service in a cgroup of its own without them: seen on this workplace's GPU machine) gets a
message that says which controllers are missing and what the operator can do, not only that
delegation failed. The folder here is a plain directory laid out as cgroupfs shows one (its
cgroup.controllers offering what the parent passes down)."""

from __future__ import annotations

from pathlib import Path

from sandbox.backends.native import cgroups


def _cgroup(folder: Path, offered: str) -> str:
    folder.mkdir()
    (folder / "cgroup.controllers").write_text(offered + "\n")
    (folder / "cgroup.subtree_control").write_text("")
    (folder / "cgroup.procs").write_text("")
    return str(folder)


def test_a_parent_that_withholds_memory_and_pids_is_named_with_the_way_out(tmp_path: Path) -> None:
    parent, why = cgroups._v2_delegate(_cgroup(tmp_path / "process_api", "cpu io"))
    assert parent is None
    assert "does not pass down memory and pids" in why and "CODETEST_CGROUP_ROOT" in why, why


def test_only_the_missing_controller_is_named(tmp_path: Path) -> None:
    parent, why = cgroups._v2_delegate(_cgroup(tmp_path / "svc", "cpu memory"))
    assert parent is None and "does not pass down pids;" in why, why
