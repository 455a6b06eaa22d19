"""codetest-pod-init's rule: remount read-write only a cgroup mount that shows this container's
own cgroup and nothing above it (docs/scale.md, "The cgroup mount")."""

from __future__ import annotations

from codetest.podinit import plan

# A private cgroup namespace (cgroup v1, as docker run --cgroupns private shows it).
PRIVATE_MOUNTS = """\
85 84 0:46 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755
86 85 0:29 / /sys/fs/cgroup/cpu,cpuacct ro,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu,cpuacct
89 85 0:32 / /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime - cgroup cgroup rw,memory
94 85 0:37 / /sys/fs/cgroup/systemd ro,nosuid,nodev,noexec,relatime - cgroup systemd rw,xattr,name=systemd
"""
PRIVATE_CGROUP = "9:name=systemd:/\n4:memory:/\n2:cpu,cpuacct:/\n0::/\n"


def test_private_namespace_mounts_are_remounted():
    todo, notes = plan(PRIVATE_MOUNTS, PRIVATE_CGROUP)
    assert [m["mountpoint"] for m in todo] == ["/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/memory",
                                              "/sys/fs/cgroup/systemd"]
    assert notes == []
    assert all({"nosuid", "nodev", "noexec"} <= set(m["opts"]) for m in todo)  # kept on remount


def test_host_namespace_bind_of_the_own_cgroup_is_remounted():
    mounts = ("89 85 0:32 /kubepods/pod1/c1 /sys/fs/cgroup/memory ro,nosuid,nodev,noexec - cgroup cgroup rw,memory\n"
              "93 85 0:36 /kubepods/pod1/c1 /sys/fs/cgroup/pids ro,nosuid,nodev,noexec - cgroup cgroup rw,pids\n")
    todo, _ = plan(mounts, "4:memory:/kubepods/pod1/c1\n8:pids:/kubepods/pod1/c1\n")
    assert len(todo) == 2


def test_a_mount_showing_more_than_the_own_cgroup_stays_read_only():
    # The whole hierarchy (root "/") while the process sits in a sub-cgroup: writable, it would
    # let the pod write its parents' limits.
    mounts = "89 85 0:32 / /sys/fs/cgroup/memory ro,nosuid,nodev,noexec - cgroup cgroup rw,memory\n"
    todo, notes = plan(mounts, "4:memory:/kubepods/pod1/c1\n")
    assert todo == [] and "left read-only" in notes[0]
    # A parent of the own cgroup: left alone too.
    mounts = "89 85 0:32 /kubepods /sys/fs/cgroup/memory ro,nosuid,nodev,noexec - cgroup cgroup rw,memory\n"
    assert plan(mounts, "4:memory:/kubepods/pod1/c1\n")[0] == []


def test_cgroup2_private_namespace_and_writable_mounts():
    todo, _ = plan("30 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n", "0::/\n")
    assert [m["mountpoint"] for m in todo] == ["/sys/fs/cgroup"]
    # Already writable: nothing to do.
    assert plan("30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n", "0::/\n") == ([], [])
