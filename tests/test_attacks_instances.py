"""Issue 11, finding 10: codetest instances on one host never break each other.

One instance runs inside a new PID namespace (``unshare --pid --fork --mount-proc``, as a service
or a CLI batch in a container would), another in the host's; both share the machine's cgroup
hierarchy and a state dir. While both run executions, more instances start on either side (a
start is when dead instances' leftovers are swept). No instance may delete, kill or reuse
another's jails, scratch or cgroups: every verdict right, no SE.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading

import pytest

from sandbox import Limits, RunRequest, Sandbox, TestCase, Verdict
from conftest import BACKENDS, REPO, UID_BASE, make_config, skip_without_engine

WORK = "import time\nx = input()\ntime.sleep(0.05)\nprint(x)\n"

INNER = textwrap.dedent("""
    import json, sys, time
    sys.path.insert(0, {repo!r})
    from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase
    cfg = SandboxConfig(backend={backend!r}, slots=2, state_dir={state!r}, uid_base={uid_base})
    if {runtime!r}:
        cfg.docker_runtime = {runtime!r}
    verdicts = []
    with Sandbox(cfg) as sb:
        print("started", flush=True)
        deadline = time.monotonic() + {seconds}
        i = 0
        while time.monotonic() < deadline:
            r = sb.run(RunRequest(language="python", code={work!r}, limits=Limits(time_s=2, wall_time_s=10),
                                  tests=[TestCase(stdin=f"{{i}}\\n", expected_stdout=f"{{i}}\\n") for _ in range(2)]))
            verdicts += [t.verdict.value + (":" + ((t.message or "") + "|" + t.stderr + "|" + str(t.exit_code) + "|" + str(t.signal))[:300] if t.verdict.value != "AC" else "")
                         for t in r.tests]
            i += 1
    print(json.dumps(verdicts), flush=True)
""")


def _free_host_pid() -> int:
    """A pid number below the host's last pid that no host process has (not reused before wrap)."""
    with open("/proc/sys/kernel/ns_last_pid") as f:
        last = int(f.read())
    for pid in range(last - 1, 300, -1):
        if not os.path.exists(f"/proc/{pid}"):
            return pid
    # A young machine (a test guest) has every pid below the last one alive: take one far above.
    with open("/proc/sys/kernel/pid_max") as f:
        return min(last + 5000, int(f.read()) - 1)


def _run_host_instance(backend: str, state: str, uid_base: int, seconds: float, out: list) -> None:
    name, _, runtime = backend.partition(":")
    cfg = make_config(backend, state, uid_base=uid_base)
    try:
        with Sandbox(cfg) as sb:
            import time
            deadline = time.monotonic() + seconds
            i = 0
            while time.monotonic() < deadline:
                r = sb.run(RunRequest(language="python", code=WORK, limits=Limits(time_s=2, wall_time_s=10),
                                      tests=[TestCase(stdin=f"{i}\n", expected_stdout=f"{i}\n") for _ in range(2)]))
                out.extend(t.verdict.value + (":" + ((t.message or "") + "|" + t.stderr + "|" + str(t.exit_code) + "|" + str(t.signal))[:300] if t.verdict != Verdict.AC else "")
                           for t in r.tests)
                i += 1
    except Exception as e:  # an instance that cannot even run is the failure this test looks for
        out.append(f"EXC:{type(e).__name__}: {e}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_instances_in_different_pid_namespaces_do_not_break_each_other(backend):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a PID namespace")
    skip_without_engine(backend)
    name, _, runtime = backend.partition(":")
    state = tempfile.mkdtemp(prefix="codetest-inst-")
    try:
        host_a: list[str] = []
        a = threading.Thread(target=_run_host_instance, args=(backend, state, UID_BASE + 6, 25, host_a))
        a.start()
        script = os.path.join(state, "inner.py")
        with open(script, "w") as f:
            f.write(INNER.format(repo=REPO, backend=name, runtime=runtime, state=state, uid_base=UID_BASE + 8,
                                 seconds=15, work=WORK))
        # The inner instance's pid is a number no host process has: as seen from the host, its
        # owner looks dead; as seen from inside, the host instance's owner does.
        pid = _free_host_pid()
        inner = subprocess.Popen(
            ["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c",
             f'echo {pid - 1} > /proc/sys/kernel/ns_last_pid; "$0" "$1"; exit $?', sys.executable, script],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        try:
            first = inner.stdout.readline()
            assert first.strip() == "started", first + inner.stderr.read()[-3000:]
            # More instances start on the host side while both run: each start sweeps "dead" ones.
            host_c: list[str] = []
            for k in range(2):
                _run_host_instance(backend, state, UID_BASE + 10 + 2 * k, 3, host_c)
            out, err = inner.communicate(timeout=180)
        finally:
            if inner.poll() is None:
                inner.kill()
                inner.wait()
        a.join(timeout=240)
        assert inner.returncode == 0, err[-3000:]
        inner_v = json.loads(out.strip().splitlines()[-1])
        for who, vs in (("host instance", host_a), ("namespaced instance", inner_v), ("later host instances", host_c)):
            bad = [v for v in vs if v != "AC"]
            assert vs and not bad, f"{who}: {len(bad)} of {len(vs)} not AC: {bad[:5]}"
    finally:
        shutil.rmtree(state, ignore_errors=True)
