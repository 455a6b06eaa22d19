"""The native backend as an ordinary user: a user-namespace jail, fail-closed without cgroups."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
NOBODY = 65534

PROBE = textwrap.dedent("""
    import json, sys
    from sandbox import RunRequest, Sandbox, SandboxConfig, SandboxUnavailable, TestCase
    state = sys.argv[1]
    strict = Sandbox(SandboxConfig(slots=1, state_dir=state + "/strict"))
    try:
        strict.run(RunRequest(language="python", code="print(1)"))
        refused = False
    except SandboxUnavailable as e:
        refused = "cgroups" in str(e)
    strict.close()
    sb = Sandbox(SandboxConfig(slots=1, state_dir=state + "/lowered", allow_missing=("cgroups",)))
    code = ("import os\\nst = open('/proc/self/status').read()\\n"
            "print(st.split('CapEff:')[1].split()[0], st.split('NoNewPrivs:')[1].split()[0])\\n"
            "print(sum(1 for d in os.listdir('/proc') if d.isdigit()))\\n"
            "try:\\n    open(%r).read(); print('READ')\\nexcept OSError: print('denied')\\n" % sys.argv[2])
    r = sb.run(RunRequest(language="python", code=code, tests=[TestCase()]))
    h = sb.health()
    sb.close()
    print(json.dumps({"refused": refused, "mode": h["mode"], "verdict": r.verdict.value,
                      "stdout": r.tests[0].stdout, "stderr": r.tests[0].stderr}))
""")


def _can_run_as_nobody() -> str | None:
    if os.geteuid() != 0:
        return "needs root to switch to an ordinary user"
    if not shutil.which("setpriv"):
        return "setpriv missing"
    if not os.path.exists("/usr/bin/python3"):
        return "no system python3"
    ver = subprocess.run(["/usr/bin/python3", "-c", "import sys; print(sys.version_info[:2])"],
                         capture_output=True, text=True).stdout.strip()
    if ver != str(sys.version_info[:2]):
        return f"system python {ver} cannot load this venv's compiled packages"
    return None


@pytest.mark.skipif(_can_run_as_nobody() is not None, reason=str(_can_run_as_nobody()))
def test_ordinary_user_gets_a_user_namespace_jail():
    import pathlib
    import tempfile

    # pytest's tmp_path sits under a root-only folder; the ordinary user needs its own.
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="codetest-userns-"))
    os.chmod(tmp_path, 0o777)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    secret = tmp_path / "owned-by-root.txt"
    secret.write_text("root only")
    os.chmod(secret, 0o644)  # readable on the host by anyone: only the jail hides it
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": f"{REPO}:{site.getsitepackages()[0]}"}
    out = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                          "/usr/bin/python3", str(probe), str(tmp_path / "state"), str(secret)],
                         capture_output=True, text=True, env=env, timeout=120)
    shutil.rmtree(tmp_path, ignore_errors=True)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["refused"], "without cgroups and without the operator's consent it must refuse"
    assert res["mode"] == "userns"
    assert res["verdict"] == "AC", res
    capeff, nnp, nprocs, read = res["stdout"].split()
    assert capeff == "0000000000000000" and nnp == "1"
    assert int(nprocs) <= 3 and read == "denied"
