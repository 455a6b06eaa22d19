#!/bin/sh
# Run a part of the test suite on a real cgroup v2 (unified) hierarchy, in a small KVM guest.
#
#   scripts/cgroup2-vm.sh [--timeout SECONDS] [--memory MB] [--cpus N] [-- PYTEST ARGS...]
#
# The guest boots Debian's stock kernel (linux-image-amd64) with a tiny busybox initramfs, mounts
# this machine's root file system read-only over 9p (so the checkout, its .venv and every
# toolchain are the ones of the host, at the same paths), puts tmpfs on /tmp, /run and /var/tmp,
# mounts cgroup2 alone at /sys/fs/cgroup (no v1 hierarchy at all) and runs
#   .venv/bin/python -m pytest -p no:cacheprovider <PYTEST ARGS>
# as root with CODETEST_TEST_BACKENDS=native. Default PYTEST ARGS: the attack suites whose subject
# is the cgroup layer (v2 groups, accounting, the service's subtree, instances, tests/test_attacks.py).
# The pytest output comes back on the serial console (this script's stdout) and in
# $OUT_DIR/pytest.log (OUT_DIR: a fresh temporary folder unless set); the exit status is pytest's.
# Exit 77: this machine cannot run the guest (no usable /dev/kvm, no qemu): the reason is printed.
#
# Needs root, /dev/kvm, and the packages qemu-system-x86, linux-image-amd64, busybox-static
# (installed on first use with apt-get when missing). The kernel + initramfs are built once and
# cached under /var/cache/codetest/cgroup2-vm. Nothing of the host's cgroup setup is changed.
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
TIMEOUT=1500
MEMORY=4096
CPUS=$(nproc)
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) TIMEOUT=$2; shift 2 ;;
        --memory) MEMORY=$2; shift 2 ;;
        --cpus) CPUS=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "cgroup2-vm.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ $# -eq 0 ]; then
    # The suites whose subject is the cgroup layer; any pytest arguments run instead when given.
    # (From tests/test_attacks.py the cgroup-layer attacks only: its CPU-time-bound ones would be
    # TLE on an emulated guest.)
    set -- tests/test_attacks_cgroup2.py tests/test_attacks_cgroup_tree.py tests/test_attacks_accounting.py \
        tests/test_attacks_instances.py tests/test_attacks.py::test_fork_bomb_is_contained \
        tests/test_attacks.py::test_fork_bomb_cgroup_pids_limit_alone tests/test_attacks.py::test_memory_bomb_is_mle \
        tests/test_attacks.py::test_no_state_carries_over_between_executions \
        tests/test_attacks.py::test_nothing_left_behind_after_close
fi

skip() { echo "cgroup2-vm.sh: SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (9p passthrough of the host root)"
# KVM runs a stock kernel only with a hardware-virtualization module (kvm_intel, kvm_amd). A host
# whose /dev/kvm is PVM (kvm_pvm: nested "pagetable" virtualization, as on Firecracker-style
# cloud VMs) runs only PVM-built guest kernels: there, and without /dev/kvm, the guest runs on
# QEMU's TCG emulator instead (several times slower) when CGROUP2_VM_TCG=1, else this skips.
ACCEL=${CGROUP2_VM_ACCEL:-}
if [ -z "$ACCEL" ]; then
    if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then
        ACCEL=kvm
    elif [ "${CGROUP2_VM_TCG:-0}" = 1 ]; then
        ACCEL=tcg
    elif [ -d /sys/module/kvm_pvm ]; then
        skip "/dev/kvm is PVM (kvm_pvm), which cannot boot a stock kernel; CGROUP2_VM_TCG=1 runs the guest emulated (slow)"
    else
        skip "no usable /dev/kvm (kvm_intel/kvm_amd); CGROUP2_VM_TCG=1 runs the guest emulated (slow)"
    fi
fi
case "$ACCEL" in
    kvm) ACCEL_ARGS="-accel kvm -cpu ${QEMU_CPU:-host}" ;;
    tcg) ACCEL_ARGS="-accel tcg,thread=multi -cpu ${QEMU_CPU:-max}" ;;
    *) echo "cgroup2-vm.sh: CGROUP2_VM_ACCEL must be kvm or tcg" >&2; exit 2 ;;
esac

need=""
command -v qemu-system-x86_64 >/dev/null 2>&1 || need="$need qemu-system-x86"
[ -x /bin/busybox ] && file_static=$(/bin/busybox 2>&1 | head -1) || need="$need busybox-static"
ls /boot/vmlinuz-*-amd64 >/dev/null 2>&1 || need="$need linux-image-amd64"
if [ -n "$need" ]; then
    echo "cgroup2-vm.sh: installing$need" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need >&2 \
        || skip "cannot install$need"
fi

KVER=$(ls /boot/vmlinuz-*-amd64 | sort -V | tail -1 | sed 's|/boot/vmlinuz-||')
CACHE=/var/cache/codetest/cgroup2-vm/$KVER
INITRD=$CACHE/initrd.cpio.gz
if [ ! -s "$INITRD" ] || [ "$0" -nt "$INITRD" ]; then
    echo "cgroup2-vm.sh: building the initramfs for $KVER in $CACHE" >&2
    mkdir -p "$CACHE"
    build=$(mktemp -d)
    mkdir -p "$build/bin" "$build/proc" "$build/sys" "$build/dev" "$build/newroot" "$build/mod"
    cp /bin/busybox "$build/bin/busybox"
    # The modules for a 9p root over virtio-pci, in dependency order.
    for m in virtio_pci 9pnet_virtio 9p; do modprobe --show-depends -S "$KVER" "$m"; done | awk '$1 == "insmod" {print $2}' |
        awk '!seen[$0]++' > "$build/mod/order.host"
    : > "$build/mod/order"
    while read -r ko; do
        base=$(basename "$ko")
        case "$ko" in
            *.xz) xz -dc "$ko" > "$build/mod/${base%.xz}"; base=${base%.xz} ;;
            *.zst) zstd -qdc "$ko" > "$build/mod/${base%.zst}"; base=${base%.zst} ;;
            *) cp "$ko" "$build/mod/$base" ;;
        esac
        echo "/mod/$base" >> "$build/mod/order"
    done < "$build/mod/order.host"
    cat > "$build/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r m; do insmod "$m" || echo "cgroup2-vm init: insmod $m failed"; done < /mod/order
guest=""
for w in $(cat /proc/cmdline); do
    case "$w" in ct.guest=*) guest=${w#ct.guest=} ;; esac
done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /newroot || {
    echo "cgroup2-vm init: cannot mount the host root over 9p"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
# The guest half lives in the checkout (read-only, the host's own path).
exec switch_root /newroot /bin/sh "$guest"
INIT
    chmod +x "$build/init"
    (cd "$build" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD.tmp"
    mv "$INITRD.tmp" "$INITRD"
    cp "/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"
    rm -rf "$build"
fi

OUT_DIR=${OUT_DIR:-$(mktemp -d /tmp/cgroup2-vm-out.XXXXXX)}
mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR/exit" "$OUT_DIR/pytest.log"
printf '%s\n' "$@" > "$OUT_DIR/args"

echo "cgroup2-vm.sh: booting $KVER on $ACCEL ($CPUS CPUs, $MEMORY MiB), pytest $*; output in $OUT_DIR" >&2
set +e
timeout --foreground -k 10 "$TIMEOUT" qemu-system-x86_64 \
    $ACCEL_ARGS -smp "$CPUS" -m "$MEMORY" -nographic -no-reboot \
    -kernel "$CACHE/vmlinuz" -initrd "$INITRD" \
    -append "console=ttyS0 ${GUEST_QUIET-quiet} panic=-1 systemd.unified_cgroup_hierarchy=1 cgroup_no_v1=all ct.guest=$REPO/scripts/cgroup2-vm-guest.sh ct.repo=$REPO ct.out=/out" \
    -virtfs "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,id=hostroot,multidevs=remap" \
    -virtfs "local,path=$OUT_DIR,mount_tag=out,security_model=passthrough,id=out" \
    -nic none -serial mon:stdio -monitor none </dev/null
rc=$?
set -e
if [ $rc -eq 124 ]; then
    echo "cgroup2-vm.sh: the guest ran past ${TIMEOUT}s and was stopped" >&2
    exit 124
fi
if [ ! -f "$OUT_DIR/exit" ]; then
    echo "cgroup2-vm.sh: the guest stopped without a result (qemu exit $rc)" >&2
    exit 1
fi
exit "$(cat "$OUT_DIR/exit")"
