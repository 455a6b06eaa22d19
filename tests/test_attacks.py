"""Attacks on the sandbox, one or more per isolation layer; every one must be contained.

Where a layer can be switched off (seccomp, cgroups, rlimits), an attack is also run with it
off to show which layer stops it on its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import textwrap
import time

import pytest

from sandbox import Limits, RunRequest, Sandbox, TestCase, Verdict
from conftest import BACKENDS, jail_uids, make_config, processes_of

PROJECT_FILE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml"))


def _native(sandbox) -> bool:
    return sandbox.backend.name == "native"


def assert_no_leftovers(sandbox, timeout: float = 2.0) -> None:
    if not _native(sandbox):
        return
    deadline = time.monotonic() + timeout
    while processes_of(jail_uids(sandbox)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_of(jail_uids(sandbox)) == []


@pytest.fixture
def weakened(request):
    """A native sandbox with some layers switched off (and allowed missing): weakened(("seccomp",))."""
    made = []

    def make(disable: tuple[str, ...]) -> Sandbox:
        if "native" not in BACKENDS:
            pytest.skip("layer switches are native-backend diagnostics")
        state = tempfile.mkdtemp(prefix="codetest-weak-")
        sb = Sandbox(make_config("native", state, disable=disable, allow_missing=disable))
        sb.config.slots = 1
        made.append((sb, state))
        return sb

    yield make
    for sb, state in made:
        sb.close()
        shutil.rmtree(state, ignore_errors=True)


def run1(sb: Sandbox, code: str, stdin: str = "", language: str = "python", **limits):
    res = sb.run(RunRequest(language=language, code=code, tests=[TestCase(stdin=stdin)], limits=Limits(**limits)))
    return res.tests[0]


# --- processes: fork bombs, threads, leftovers (pid namespace + cgroup pids) ---------------

def test_fork_bomb_is_contained(sandbox):
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    t0 = time.monotonic()
    t = run1(sandbox, code, time_s=1, wall_time_s=2)
    # Contained and charged to the program: the CPU or wall limit, the process limit, or (the
    # bomb's copies together over the memory limit, which one verdict function calls MLE
    # whichever kill came first) the memory limit. Never AC, never SE.
    assert t.verdict in (Verdict.TLE, Verdict.RE, Verdict.MLE), (t.verdict, t.message)
    assert time.monotonic() - t0 < 15
    assert_no_leftovers(sandbox)


def test_fork_bomb_cgroup_pids_limit_alone(weakened):
    # rlimits off: only the cgroup's pids.max stops the bomb; the count of live processes stays at the limit.
    sb = weakened(("rlimits",))
    code = textwrap.dedent("""
        import os, time
        n = 0
        for _ in range(500):
            try:
                if os.fork() == 0:
                    time.sleep(5); os._exit(0)
                n += 1
            except OSError:
                break
        print(n)
    """)
    t = run1(sb, code, processes=20, time_s=2, wall_time_s=3)
    assert int(t.stdout.split()[0]) < 20


def test_thread_bomb_is_contained(sandbox):
    code = textwrap.dedent("""
        import threading, time
        n = 0
        try:
            while True:
                threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
                n += 1
        except RuntimeError:
            print("stopped at", n)
    """)
    t = run1(sandbox, code, time_s=1, wall_time_s=3, processes=32)
    assert t.verdict == Verdict.AC and int(t.stdout.split()[-1]) < 32
    assert_no_leftovers(sandbox)


def test_background_process_does_not_survive(sandbox):
    code = textwrap.dedent("""
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            os._exit(0)
        print("parent leaves")
    """)
    t = run1(sandbox, code)
    assert t.verdict == Verdict.AC
    assert_no_leftovers(sandbox, timeout=1.0)


# --- memory, disk, output, CPU, wall ----------------------------------------------------

def test_memory_bomb_is_mle(sandbox):
    t = run1(sandbox, "s = b'a' * (512 << 20)\nprint(len(s))\n", memory_mb=64)
    assert t.verdict == Verdict.MLE


def test_memory_bomb_without_cgroups_is_not_contained_by_them(weakened):
    # With the cgroup layer off nothing caps memory the same way: the program gets its 128 MiB.
    sb = weakened(("cgroups",))
    t = run1(sb, "s = b'a' * (128 << 20)\nprint(len(s))\n", memory_mb=64)
    assert t.verdict == Verdict.AC  # proves the MLE above comes from the cgroup layer


def test_disk_fill_is_stopped(sandbox):
    code = textwrap.dedent("""
        with open("/work/fill", "wb") as f:
            while True:
                f.write(b"x" * (1 << 20))
                f.flush()
    """)
    t = run1(sandbox, code, file_size_kb=8192)
    assert t.verdict == Verdict.RE
    # RLIMIT_FSIZE: SIGXFSZ, or EFBIG where the runtime ignores the signal (CPython does).
    assert t.signal == signal.SIGXFSZ or "File too large" in t.stderr, t.stderr


def test_disk_fill_tmpfs_cap_alone(weakened):
    sb = weakened(("rlimits",))
    code = textwrap.dedent("""
        import errno
        try:
            with open("/tmp/fill", "wb") as f:
                for _ in range(64):
                    f.write(b"x" * (1 << 20)); f.flush()
        except OSError as e:
            print(errno.errorcode[e.errno])
    """)
    t = run1(sb, code, file_size_kb=8192, memory_mb=256)
    assert t.stdout.strip() == "ENOSPC"


def test_output_flood_is_ole(sandbox):
    t = run1(sandbox, "while True:\n    print('x' * 1000)\n", output_kb=64)
    assert t.verdict == Verdict.OLE
    assert t.truncated and len(t.stdout) <= 64 * 1024


def test_busy_loop_is_tle_on_cpu(sandbox):
    t = run1(sandbox, "while True:\n    pass\n", time_s=1)
    assert t.verdict == Verdict.TLE
    assert t.time_s >= 0.9 or t.wall_time_s >= 2.9  # CPU limit, or the wall limit on a loaded machine


def test_sleep_is_tle_on_wall(sandbox):
    t0 = time.monotonic()
    t = run1(sandbox, "import time\ntime.sleep(100)\n", time_s=1, wall_time_s=1.5)
    assert t.verdict == Verdict.TLE
    assert t.time_s < 0.5 and 1.4 <= t.wall_time_s < 5
    assert time.monotonic() - t0 < 10


# --- network (net namespace + seccomp) ---------------------------------------------------

NET_PROBE = textwrap.dedent("""
    import socket, sys
    port = int(sys.argv[1]) if len(sys.argv) > 1 else int(input())
    out = []
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(("127.0.0.1", port))
        out.append("tcp-connected")
    except OSError as e:
        out.append("tcp-blocked")
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.sendto(b"leak", ("127.0.0.1", port))
        out.append("udp-sent")
    except OSError as e:
        out.append("udp-blocked")
    try:
        socket.getaddrinfo("example.com", 53)
        out.append("dns-resolved")
    except OSError:
        out.append("dns-blocked")
    print(" ".join(out))
""")


def _listeners():
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(4)
    tcp.settimeout(0.3)
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    udp.settimeout(0.3)
    return tcp, udp, port


def _assert_nothing_arrived(tcp, udp):
    with pytest.raises(socket.timeout):
        tcp.accept()
    with pytest.raises(socket.timeout):
        udp.recvfrom(100)
    tcp.close(), udp.close()


def test_network_is_unreachable(sandbox):
    # A run has a loopback of its own (SandboxFusion's contract: a program may serve and call
    # itself on 127.0.0.1), so internet sockets exist; the host's 127.0.0.1 is not that one.
    tcp, udp, port = _listeners()
    t = run1(sandbox, NET_PROBE, stdin=f"{port}\n")
    words = t.stdout.split()
    assert words[0] == "tcp-blocked" and words[2] == "dns-blocked", t.stdout + t.stderr
    _assert_nothing_arrived(tcp, udp)


LOOPBACK_SERVER = textwrap.dedent("""
    import socket, threading
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    def answer():
        conn, _ = srv.accept()
        conn.sendall(conn.recv(100).upper())
        conn.close()
    threading.Thread(target=answer).start()
    c = socket.create_connection(srv.getsockname(), timeout=5)
    c.sendall(b"ping")
    print(c.recv(100).decode())
""")


def test_program_serves_itself_on_its_own_loopback(sandbox):
    # Every run, on every backend: a server on 127.0.0.1 that the program itself talks to.
    t = run1(sandbox, LOOPBACK_SERVER)
    assert t.verdict == Verdict.AC and t.stdout.strip() == "PING", (t.verdict, t.stdout, t.stderr)


def test_loopback_is_not_shared_between_runs(sandbox):
    # A listener left by one run is gone for the next (its processes were killed; a native
    # slot's loopback is reused only after that): the next run's connect is refused.
    leave = textwrap.dedent("""
        import os, socket
        s = socket.socket(); s.bind(("127.0.0.1", 45678)); s.listen(5)
        if os.fork() == 0:
            import time; time.sleep(30)
        print("listening")
    """)
    probe = textwrap.dedent("""
        import socket
        try:
            socket.create_connection(("127.0.0.1", 45678), timeout=2); print("connected")
        except OSError:
            print("refused")
    """)
    first = run1(sandbox, leave)
    assert first.stdout.strip() == "listening", (first.stdout, first.stderr)
    for _ in range(3 * max(1, sandbox.backend.slots)):
        assert run1(sandbox, probe).stdout.strip() == "refused"


def test_network_namespace_alone(weakened):
    # seccomp off: internet sockets can be created, but the empty namespace has no route out.
    sb = weakened(("seccomp",))
    tcp, udp, port = _listeners()
    t = run1(sb, NET_PROBE, stdin=f"{port}\n")
    words = t.stdout.split()
    assert words[0] == "tcp-blocked" and words[2] == "dns-blocked", t.stdout + t.stderr
    _assert_nothing_arrived(tcp, udp)


# --- the file system (mount namespace, read-only binds, pivot) ---------------------------

def test_host_files_are_not_visible(sandbox):
    code = textwrap.dedent(f"""
        import os
        for p in [{PROJECT_FILE!r}, "/etc/shadow", "/root/.bashrc", {sandbox.config.state_dir!r},
                  "/proc/{os.getpid()}/environ", "/sys/kernel", "/home"]:
            try:
                with open(p, "rb") as f:
                    f.read(1)
                print("READ", p)
            except OSError as e:
                print("denied", p, type(e).__name__)
        print("procs", len([d for d in os.listdir("/proc") if d.isdigit()]))
    """)
    t = run1(sandbox, code)
    assert "READ" not in t.stdout, t.stdout
    procs = int(t.stdout.split("procs")[1])
    # Only the jail's own processes: natively the slot's PID namespace with hidepid shows the
    # program and its child; a container also shows the zygote (PID 1, holding no job) and the
    # supervisor (root: its memory is out of the program uid's reach), as hidepid cannot be
    # mounted there. Never a host process.
    assert procs <= (3 if sandbox.config.backend == "docker" else 2), t.stdout


def test_cannot_write_outside_work_dir(sandbox):
    code = textwrap.dedent("""
        import os
        for d in ["/usr", "/etc", "/prog", "/", "/dev", "/bin", "/lib"]:
            try:
                with open(os.path.join(d, "evil"), "w") as f:
                    f.write("x")
                print("WROTE", d)
            except OSError:
                print("denied", d)
        for d in ["/work", "/tmp"]:
            with open(os.path.join(d, "ok"), "w") as f:
                f.write("x")
            print("ok", d)
    """)
    t = run1(sandbox, code)
    assert "WROTE" not in t.stdout and t.stdout.count("ok ") == 2, t.stdout + t.stderr


def test_symlink_tricks_stay_inside(sandbox):
    code = textwrap.dedent(f"""
        import os
        os.symlink("/etc/shadow", "/work/a")
        os.symlink({PROJECT_FILE!r}, "/work/b")
        os.symlink("/proc/1/root/../../../../" + {PROJECT_FILE!r}.lstrip("/"), "/work/c")
        os.symlink("/proc/self/cwd/../../../..{sandbox.config.state_dir}", "/tmp/d")
        for p in ["/work/a", "/work/b", "/work/c", "/tmp/d"]:
            try:
                open(p).read()
                print("READ", p)
            except OSError:
                print("denied", p)
    """)
    t = run1(sandbox, code)
    assert "READ" not in t.stdout and t.stdout.count("denied") == 4, t.stdout + t.stderr


def test_no_state_carries_over_between_executions(sandbox):
    writer = textwrap.dedent("""
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.shmget(0x1234, 4096, 0o1666) >= 0  # IPC_CREAT | 0666: a SysV segment outlives its maker
        open("/tmp/marker", "w").write("left")
        open("/work/marker", "w").write("left")
        os.environ["LEFT"] = "1"
        import sysconfig; sysconfig.LEFT_BEHIND = True
    """)
    reader = textwrap.dedent("""
        import ctypes, os, sysconfig
        libc = ctypes.CDLL(None, use_errno=True)
        print(os.path.exists("/tmp/marker"), os.path.exists("/work/marker"), "LEFT" in os.environ,
              hasattr(sysconfig, "LEFT_BEHIND"), libc.shmget(0x1234, 0, 0) >= 0)
    """)
    for _ in range(4):  # every slot gets a turn
        assert run1(sandbox, writer).verdict == Verdict.AC
    for _ in range(4):
        t = run1(sandbox, reader)
        assert t.stdout.split() == ["False"] * 5, t.stdout + t.stderr


def _shmem_mb() -> float:
    with open("/proc/meminfo") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Shmem:")) / 1024


def test_the_files_a_run_writes_are_freed_with_it(sandbox):
    # A policy that fills its /tmp every run must not pile memory up across runs: whatever holds
    # a run's tmpfs (its mount namespace, a descriptor, the container's folder) lets go of it once
    # the verdict is out. 10 runs of 48 MB each would leave 480 MB behind.
    code = textwrap.dedent("""
        with open("/tmp/fill", "wb") as f:
            for _ in range(48):
                f.write(b"x" * (1 << 20))
        print("written")
    """)
    before = _shmem_mb()
    for _ in range(10):
        t = run1(sandbox, code, file_size_kb=64 << 10, memory_mb=512)
        assert t.verdict == Verdict.AC and t.stdout.strip() == "written", (t.verdict, t.stdout, t.stderr)
    deadline = time.monotonic() + 10
    while _shmem_mb() - before > 150 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _shmem_mb() - before < 150, f"{_shmem_mb() - before:.0f} MB of shared memory more than before the runs"


_OPEN_FDS_PY = textwrap.dedent("""
    import os
    held = []
    for fd in range(4096):
        try:
            os.fstat(fd)
        except OSError:
            continue
        held.append(fd)
    print(*held)
""")
_OPEN_FDS_C = textwrap.dedent("""
    #include <fcntl.h>
    #include <stdio.h>
    int main(void) {
        for (int fd = 0; fd < 4096; fd++)
            if (fcntl(fd, F_GETFD) != -1) printf("%d ", fd);
        printf("\\n");
        return 0;
    }
""")


@pytest.mark.parametrize("language", ["python", "c"])
def test_the_program_holds_no_descriptor_of_the_jail(sandbox, language):
    # The jail's own descriptors (the status pipe that carries the start stamp and set-up errors,
    # the job's channel to the supervisor, the program's files, the cgroup, the mount namespace
    # lent to the supervisor) must all be gone before untrusted code runs: one left open would let
    # a program forge its clock, or write a "set-up failure" that turns its verdict into SE.
    # Python runs in the warm interpreter's process (closed by hand), C through execve (close-on-exec).
    # Descriptor 3 is the program's by design: the result descriptor (protocol.RESULT_FD) that a
    # function-call harness writes its value on; what a stdin program writes there is never judged.
    code = _OPEN_FDS_PY if language == "python" else _OPEN_FDS_C
    for _ in range(3):
        t = run1(sandbox, code, language=language)
        assert t.verdict == Verdict.AC, (t.verdict, t.stdout, t.stderr)
        assert t.stdout.split() == ["0", "1", "2", "3"], t.stdout + t.stderr


# --- other processes, privileges, dangerous syscalls (pid ns, uid, seccomp) --------------

def test_cannot_signal_or_trace_host_processes(sandbox):
    victim = subprocess.Popen(["sleep", "30"])
    try:
        code = textwrap.dedent(f"""
            import ctypes, os, signal
            libc = ctypes.CDLL(None, use_errno=True)
            for pid in ({victim.pid}, 1, -1):
                try:
                    os.kill(pid, signal.SIGKILL) if pid != 1 else None
                    print("kill", pid, "returned")
                except OSError as e:
                    print("kill", pid, type(e).__name__)
            r = libc.ptrace(16, {victim.pid}, 0, 0)  # PTRACE_ATTACH
            print("ptrace", r, ctypes.get_errno())
        """)
        t = run1(sandbox, code)
        assert victim.poll() is None, "a jailed program killed a host process"
        assert "ptrace -1" in t.stdout, t.stdout + t.stderr
    finally:
        victim.kill()
        victim.wait()


SYSCALLS = textwrap.dedent("""
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    calls = {
        "mount": (165, b"none", b"/tmp", b"tmpfs", 0, 0),
        "unshare_user": (272, 0x10000000),
        "keyctl": (250, 0, 0, 0, 0, 0),
        "bpf": (321, 0, 0, 0),
        "ptrace_traceme": (101, 0, 0, 0, 0),
        "perf_event_open": (298, 0, 0, -1, -1, 0),
        "io_uring_setup": (425, 1, 0),
        "userfaultfd": (323, 0),
        "setns": (308, 0, 0),
        "clone_newns": (56, 0x00020000 | 17, 0, 0, 0, 0),
        "clone3": (435, 0, 0),
    }
    for name, args in calls.items():
        args = [ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a) for a in args]
        r = libc.syscall(*args)
        print(name, r, ctypes.get_errno())
""")


def _syscall_results(sb) -> dict:
    t = run1(sb, SYSCALLS)
    out = {}
    for line in t.stdout.splitlines():
        name, r, err = line.split()
        out[name] = (int(r), int(err))
    assert out, t.stderr
    return out


@pytest.mark.skipif("native" not in BACKENDS, reason="syscall numbers checked on x86_64 native")
def test_dangerous_syscalls_are_denied(sandbox):
    if os.uname().machine != "x86_64":
        pytest.skip("syscall numbers are x86_64")
    res = _syscall_results(sandbox)
    for name, (r, err) in res.items():
        assert r == -1, f"{name} succeeded"
        if name == "clone3":
            assert err == 38  # ENOSYS, so libc falls back to clone, whose flags the filter checks
        else:
            assert err == 1, f"{name}: errno {err}, wanted EPERM from seccomp"


def test_seccomp_alone_stops_user_namespaces(weakened):
    # Without seccomp an unprivileged user may create a user namespace here; with it, not.
    if os.uname().machine != "x86_64":
        pytest.skip("syscall numbers are x86_64")
    res = _syscall_results(weakened(("seccomp",)))
    assert res["unshare_user"][0] == 0 or res["keyctl"][1] != 1  # the kernel allows what seccomp stops


def test_identity_is_unprivileged(sandbox):
    code = textwrap.dedent("""
        import ctypes, os
        st = dict(line.split(":", 1) for line in open("/proc/self/status"))
        # gVisor's /proc has no NoNewPrivs line: ask the kernel (PR_GET_NO_NEW_PRIVS) there.
        nnp = st["NoNewPrivs"].strip() if "NoNewPrivs" in st else str(ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))
        secc = st["Seccomp"].strip() if "Seccomp" in st else str(ctypes.CDLL(None).prctl(21, 0, 0, 0, 0))
        print(os.getuid(), os.geteuid(), st["CapEff"].strip(), st["CapBnd"].strip(), nnp, secc)
        try:
            os.setuid(0); print("became root")
        except PermissionError:
            print("setuid denied")
    """)
    t = run1(sandbox, code)
    uid, euid, capeff, capbnd, nnp, secc = t.stdout.split()[:6]
    assert capeff == "0000000000000000" and nnp == "1" and secc == "2", t.stdout
    assert "setuid denied" in t.stdout
    if _native(sandbox) and os.geteuid() == 0:
        assert int(uid) in jail_uids(sandbox) and uid == euid


def test_parent_environment_is_not_visible(tmp_path):
    if "native" not in BACKENDS:
        pytest.skip("native")
    os.environ["CODETEST_TEST_SECRET"] = "hunter2-secret"
    try:
        sb = Sandbox(make_config("native", str(tmp_path)))
        try:
            code = ("import os\nprint(dict(os.environ))\nprint(open('/proc/self/environ','rb').read())\n"
                    "for p in os.listdir('/proc'):\n"
                    "    if p.isdigit():\n"
                    "        try:\n            print(open(f'/proc/{p}/environ','rb').read())\n"
                    "        except OSError as e:\n            print(p, 'unreadable')\n")
            t = run1(sb, code)
        finally:
            sb.close()
    finally:
        del os.environ["CODETEST_TEST_SECRET"]
    assert t.verdict == Verdict.AC, t.stderr
    assert "hunter2" not in t.stdout and "hunter2" not in t.stderr
    assert "PATH" in t.stdout  # the scrubbed environment is there, the parent's is not


# --- refusing to run weakly -----------------------------------------------------------------

def test_missing_layer_refuses_unless_allowed(tmp_path):
    if "native" not in BACKENDS:
        pytest.skip("native")
    from sandbox import SandboxUnavailable

    sb = Sandbox(make_config("native", str(tmp_path), disable=("seccomp",)))
    try:
        h = sb.health()
        assert not h["ok"] and h["missing_layers"] == ["seccomp"]
        with pytest.raises(SandboxUnavailable, match="seccomp"):
            run1(sb, "print(1)")
    finally:
        sb.close()


# --- after everything: nothing left behind -------------------------------------------------

def test_nothing_left_behind_after_close(tmp_path):
    if "native" not in BACKENDS:
        pytest.skip("native")
    sb = Sandbox(make_config("native", str(tmp_path)))
    run1(sb, "import os\nwhile True:\n    try: os.fork()\n    except OSError: pass\n", time_s=1, wall_time_s=1.5)
    run1(sb, "import os, time\nif os.fork() == 0:\n    os.setsid(); time.sleep(60)\n")
    run1(sb, '#include <stdio.h>\nint main(){puts("hi");}', language="c")
    instance = sb.backend.instance
    uids = jail_uids(sb)
    cg_dirs = [d for d in (sb.backend.cgroup.bases.values() if sb.backend.cgroup else [])]
    run_dir = sb.backend.run_dir
    scratch = sb.scratch
    sb.close()
    assert processes_of(uids) == []
    for d in cg_dirs:
        assert not os.path.exists(d), f"cgroup {d} left behind"
    assert not os.path.exists(run_dir)
    assert not os.path.exists(scratch)
    with open("/proc/self/mounts") as f:
        assert instance not in f.read()
