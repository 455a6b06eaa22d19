"""Issue 11, finding 11: the operator's limits bound the jails.

The sandbox is started from a process placed in a cgroup the test creates (what systemd's
``MemoryMax=`` or a Kubernetes pod gives a service). Every jailed process must live below that
cgroup (read from the host: ``/proc/PID/cgroup``), and a memory limit set on it must bound the
programs: a program allowed 2 GiB by its own limits cannot use 1 GiB under a 400 MiB parent.
Native backend (the Docker backend's containers belong to dockerd's tree).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from conftest import BACKENDS, REPO, UID_BASE, processes_of

SCRIPT = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {repo!r})
    from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase
    cfg = SandboxConfig(backend="native", slots=2, state_dir={state!r}, uid_base={uid_base})
    out = {{}}
    with Sandbox(cfg) as sb:
        print("started", flush=True)
        r = sb.run(RunRequest(language="python", code="import time\\nprint('up', flush=True)\\ntime.sleep(6)\\n",
                              tests=[TestCase(stdin="")], limits=Limits(time_s=2, wall_time_s=10)))
        out["sleeper"] = r.tests[0].verdict.value
        r = sb.run(RunRequest(language="python",
                              code="b = bytearray(1 << 30)\\nfor i in range(0, len(b), 4096):\\n    b[i] = 1\\nprint('got 1 GiB')\\n",
                              tests=[TestCase(stdin="")], limits=Limits(time_s=60, wall_time_s=120, memory_mb=2048)))
        out["hog"] = r.tests[0].verdict.value
        out["hog_stdout"] = r.tests[0].stdout
        r = sb.run(RunRequest(language="python", code="print(6 * 7)", tests=[TestCase(stdin="", expected_stdout="42")]))
        out["after"] = r.tests[0].verdict.value
    print(json.dumps(out), flush=True)
""")


def _cgroup_lines(pid: int) -> dict[str, str]:
    out = {}
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            _id, ctrls, path = line.rstrip("\n").split(":", 2)
            for c in (ctrls.split(",") if ctrls else ["unified"]):
                out[c] = path
    return out


@pytest.mark.skipif("native" not in BACKENDS, reason="native backend")
def test_jails_live_below_the_service_cgroup_and_obey_its_limit(test_cgroup):
    cg = test_cgroup()
    cg.set_memory_limit(400 << 20)
    state = tempfile.mkdtemp(prefix="codetest-cgtree-")
    uid_base = UID_BASE + 14  # within this session's 16 jail uids (see conftest)
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT.format(repo=REPO, state=state, uid_base=uid_base)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            preexec_fn=cg.preexec())
    try:
        assert proc.stdout.readline().strip() == "started", proc.stderr.read()[-3000:]
        # While the sleeper runs, look at every process of the jail uids from the host.
        seen: dict[int, dict[str, str]] = {}
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for pid in processes_of(range(uid_base, uid_base + 2)):
                try:
                    seen[pid] = _cgroup_lines(pid)
                except OSError:
                    pass
            time.sleep(0.2)
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(state, ignore_errors=True)
    assert proc.returncode == 0, err[-3000:]
    res = json.loads(out.strip().splitlines()[-1])
    assert seen, "no jailed process was seen running"
    key = "unified" if cg.version == "v2" else "memory"
    outside = {pid: lines.get(key) for pid, lines in seen.items()
               if not (lines.get(key) or "").startswith(cg.relative(key) + "/")}
    assert not outside, f"jailed processes outside the service's cgroup {cg.relative(key)}: {outside}"
    if cg.version == "v1":
        pids_out = {pid: lines.get("pids") for pid, lines in seen.items()
                    if not (lines.get("pids") or "").startswith(cg.relative("pids") + "/")}
        assert not pids_out, f"pids controller: outside {cg.relative('pids')}: {pids_out}"
    assert res["sleeper"] == "AC", res
    assert res["hog"] != "AC" and "got 1 GiB" not in res["hog_stdout"], \
        f"a program used 1 GiB under a 400 MiB service cgroup: {res}"
    assert res["hog"] in ("MLE", "RE"), res
    assert res["after"] == "AC", res
