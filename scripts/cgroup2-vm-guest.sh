#!/bin/sh
# PID 1 of the cgroup v2 guest started by scripts/cgroup2-vm.sh (not for use on a host).
# The root is the host's, read-only over 9p; this makes the few writable places, mounts the
# unified cgroup hierarchy alone, runs pytest in a delegated cgroup (as a systemd service with
# Delegate=yes would be) and powers the guest off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=755 run /run
mount -t tmpfs -o mode=1777 vartmp /var/tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
mkdir -p /tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L out /tmp/out

repo=""
for w in $(cat /proc/cmdline); do
    case "$w" in ct.repo=*) repo=${w#ct.repo=} ;; esac
done

finish() {
    echo "$1" > /tmp/out/exit
    sync
    echo o > /proc/sysrq-trigger
    sleep 10
}

{
    echo "guest: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB"
    echo "guest: cgroup mounts:"; grep cgroup /proc/mounts
    echo "guest: root controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
} | tee /tmp/out/guest.log > /dev/console

# The controllers delegated to a service cgroup, as systemd does for Delegate=yes.
for c in $(cat /sys/fs/cgroup/cgroup.controllers); do
    echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
mkdir -p /sys/fs/cgroup/ci.service
echo $$ > /sys/fs/cgroup/ci.service/cgroup.procs

export HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export CODETEST_TEST_BACKENDS=native CODETEST_STATE_DIR=/tmp/ct-state CODETEST_UID_BASE=330000
export CODETEST_IN_CGROUP2_VM=1
cd "$repo" || finish 3
set --
while IFS= read -r a; do set -- "$@" "$a"; done < /tmp/out/args
"$repo/.venv/bin/python" -m pytest -p no:cacheprovider -q -rfEs "$@" > /tmp/out/pytest.log 2>&1 &
pid=$!
tail -f /tmp/out/pytest.log --pid=$pid > /dev/console 2>/dev/null &
wait $pid
rc=$?
sleep 1
echo "guest: pytest exit $rc" | tee -a /tmp/out/guest.log > /dev/console
finish $rc
