"""deploy/k8s's pod, reproduced on this machine's Docker engine: the API image (built from this
checkout) started with exactly the security context, command, environment, volumes and limits
of the rendered Deployment (read from deploy/k8s/codetest.yaml, never copied here), then a
program run through ``/v1/run``.

No cluster exists here, so the kubelet's part is played by ``docker run``:
  - the container's ``securityContext``: user, capabilities (drop ALL, add the listed ones),
    ``allowPrivilegeEscalation: false`` (no-new-privileges), read-only root, the seccomp and
    AppArmor profiles (the container's override the pod's);
  - a private cgroup namespace, as Kubernetes gives every container on a cgroup v2 node, and
    the host's (a cgroup v1 node: the runtime binds the container's own cgroup folder);
  - each ``emptyDir`` as a tmpfs of its size limit (exec, as an emptyDir is);
  - the pod's own network namespace (``--network none``: loopback only) with the service on
    127.0.0.1, reached with ``docker exec`` (which inherits the same context);
  - the RuntimeClass's handler (runsc) for gVisor, and runc as a node without it.

Every securityContext field is translated or the test fails: a field added to the manifest
and not reproduced here cannot pass unnoticed.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import UID_BASE

yaml = pytest.importorskip("yaml")
pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(300)]

MANIFEST = Path(__file__).resolve().parents[1] / "deploy" / "k8s" / "codetest.yaml"
API_KEY = "k8s-pod-test-key"
RUN = {"language": "cpp",
       "code": "#include <cstdio>\nint main(){long a,b;scanf(\"%ld %ld\",&a,&b);printf(\"%ld\\n\",a+b);}",
       "tests": [{"stdin": "1 2\n", "expected_stdout": "3\n"}, {"stdin": "2 2\n", "expected_stdout": "5\n"}]}
RUNSC_GAP = ("Debian's runsc (0.0~20221219) implements no PR_SET_CHILD_SUBREAPER (the jail's slot entry, "
             "sandbox/jail/native.py, gets EINVAL from prctl 36) and mounts no usable cgroup filesystem in the "
             "sandbox: the service refuses to run code (fail closed)")


def manifest() -> tuple[dict, dict, str]:
    """(pod spec, the api container, the RuntimeClass handler) of the rendered manifest."""
    docs = [d for d in yaml.safe_load_all(MANIFEST.read_text()) if d]
    deploy = next(d for d in docs if d["kind"] == "Deployment")
    pod = deploy["spec"]["template"]["spec"]
    rc = next(d for d in docs if d["kind"] == "RuntimeClass" and d["metadata"]["name"] == pod["runtimeClassName"])
    return pod, next(c for c in pod["containers"] if c["name"] == "api"), rc["handler"]


def security_args(pod: dict, container: dict) -> list[str]:
    """docker run flags for the container's securityContext (the pod's where the container sets none)."""
    sc = dict(container.get("securityContext") or {})
    pod_sc = pod.get("securityContext") or {}
    unknown = set(pod_sc) - {"seccompProfile", "appArmorProfile"}
    assert not unknown, f"pod securityContext fields this test does not reproduce: {unknown}"
    for k in ("seccompProfile", "appArmorProfile"):
        sc.setdefault(k, pod_sc.get(k))
    args: list[str] = []
    for key, value in sc.items():
        if key == "runAsUser":
            args += ["--user", str(value)]
        elif key == "runAsNonRoot":
            assert value is False or sc.get("runAsUser", 0) != 0
        elif key == "privileged":
            assert value is False, "a privileged pod is not what this test reproduces"
        elif key == "allowPrivilegeEscalation":
            if value is False:
                args += ["--security-opt", "no-new-privileges"]
        elif key == "readOnlyRootFilesystem":
            if value:
                args.append("--read-only")
        elif key == "capabilities":
            args += [f"--cap-drop={c}" for c in value.get("drop", [])]
            args += [f"--cap-add={c}" for c in value.get("add", [])]
        elif key == "seccompProfile":
            kind = (value or {}).get("type", "RuntimeDefault")
            assert kind in ("Unconfined", "RuntimeDefault"), kind
            if kind == "Unconfined":
                args += ["--security-opt", "seccomp=unconfined"]
        elif key == "appArmorProfile":
            kind = (value or {}).get("type", "RuntimeDefault")
            assert kind in ("Unconfined", "RuntimeDefault"), kind
            if kind == "Unconfined":
                args += ["--security-opt", "apparmor=unconfined"]
        else:
            raise AssertionError(f"securityContext field this test does not reproduce: {key}")
    return args


def volume_args(pod: dict, container: dict) -> list[str]:
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    args = []
    for m in container.get("volumeMounts", []):
        v = volumes[m["name"]]
        assert set(v) == {"name", "emptyDir"}, f"volume kind not reproduced: {v}"
        size = v["emptyDir"].get("sizeLimit", "")
        opts = "exec" + (f",size={size.replace('Gi', 'g').replace('Mi', 'm')}" if size else "")
        args += ["--tmpfs", f"{m['mountPath']}:{opts}"]
    return args


def env_args(container: dict) -> list[str]:
    args = []
    for e in container.get("env", []):
        if "value" in e:
            args += ["-e", f"{e['name']}={e['value']}"]
        else:  # a secret the operator creates (the API keys)
            assert e["name"] == "CODETEST_API_KEYS", e
            args += ["-e", f"CODETEST_API_KEYS={API_KEY}"]
    # Several codetest instances share this machine: this pod's jails get uids of their own.
    return args + ["-e", f"CODETEST_UID_BASE={UID_BASE + 512}"]


def command(container: dict) -> tuple[list[str], int]:
    """The container's command with its --host on loopback (the pod's own network namespace)."""
    cmd = list(container["command"])
    cmd[cmd.index("--host") + 1] = "127.0.0.1"
    return cmd, int(cmd[cmd.index("--port") + 1])


def call(name: str, port: int, path: str, body: dict | None = None, timeout: float = 60) -> tuple[int, dict]:
    """An HTTP request from inside the container (its own loopback), with the API key."""
    code = (
        "import sys,urllib.request,urllib.error\n"
        "data=sys.stdin.buffer.read() or None\n"
        f"req=urllib.request.Request('http://127.0.0.1:{port}{path}',data=data,"
        f"headers={{'content-type':'application/json','authorization':'Bearer {API_KEY}'}})\n"
    )
    code += (
        "try:\n"
        f"  r=urllib.request.urlopen(req,timeout={timeout}); print(r.status); print(r.read().decode())\n"
        "except urllib.error.HTTPError as e:\n"
        "  print(e.code); print(e.read().decode())\n"
    )
    r = subprocess.run(["docker", "exec", "-i", name, "python3", "-c", code],
                       input=json.dumps(body).encode() if body is not None else b"",
                       capture_output=True, timeout=timeout + 30)
    if r.returncode != 0:
        return 0, {"error": r.stderr.decode(errors="replace")[-2000:]}
    status, _, text = r.stdout.decode().partition("\n")
    return int(status), json.loads(text)


@pytest.mark.parametrize("runtime,cgroupns", [("runc", "private"), ("runc", "host"), ("runsc", "private")])
def test_the_manifests_pod_runs_a_program(docker_client, api_image, runtime, cgroupns):
    pod, container, handler = manifest()
    if runtime == "runsc":
        assert handler == "runsc"
    if runtime not in (docker_client.info().get("Runtimes") or {}):
        pytest.skip(f"{runtime} is not registered with the engine")
    cmd, port = command(container)
    limits = container["resources"]["limits"]
    name = f"codetest-k8s-pod-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    run = ["docker", "run", "-d", "--name", name, "--label", "codetest.test=k8s-pod", "--runtime", runtime,
           "--network", "none", "--cgroupns", cgroupns,
           "--cpus", str(limits["cpu"]), "--memory", limits["memory"].replace("Gi", "g"),
           *security_args(pod, container), *volume_args(pod, container), *env_args(container),
           api_image, *cmd]
    started = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        deadline = time.monotonic() + 90
        while True:  # the startup probe: /livez
            status, _ = call(name, port, "/livez", timeout=5)
            if status == 200:
                break
            state = docker_client.api.inspect_container(name)["State"]
            assert state["Running"], f"the pod's container exited: {docker_client.api.logs(name)[-3000:]!r}"
            assert time.monotonic() < deadline, "never live"
            time.sleep(1)
        status, health = call(name, port, "/healthz")
        if runtime == "runsc" and "prctl 36" in " ".join(health.get("problems", [])):
            pytest.xfail(RUNSC_GAP)  # this gap and no other: anything else fails
        assert status == 200 and health["ok"], health
        assert all(layer["active"] for k, layer in health["layers"].items() if k != "gvisor"), health["layers"]
        status, res = call(name, port, "/v1/run", RUN, timeout=120)
        assert status == 200, res
        assert res["compile"]["ok"] and [t["verdict"] for t in res["tests"]] == ["AC", "WA"], res
        status, ready = call(name, port, "/readyz", timeout=5)
        assert status == 200, ready
        logs = docker_client.api.logs(name).decode(errors="replace")
        assert "remounted read-write (this container's own cgroup)" in logs, logs[-3000:]
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=120)
    assert not docker_client.api.containers(all=True, filters={"name": name})
