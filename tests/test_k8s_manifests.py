"""deploy/k8s: every manifest validates against the Kubernetes JSON schemas (offline, strict:
an unknown or misspelt field fails), the committed file is what render.py produces from its one
source, and the pieces fit together (selectors, probes, the HPA's metric, the drain budget)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
kv = pytest.importorskip("kubernetes_validate")

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "deploy" / "k8s"
VERSIONS = ["1.30.0", "1.33.0"]  # appArmorProfile needs >= 1.30


def load_render():
    spec = importlib.util.spec_from_file_location("k8s_render", K8S / "render.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def docs() -> list[dict]:
    return [d for d in yaml.safe_load_all((K8S / "codetest.yaml").read_text()) if d]


def by_kind() -> dict[str, dict]:
    return {d["kind"]: d for d in docs()}


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_validates_strictly(version):
    kinds = []
    for d in docs():
        kv.validate(d, version, strict=True)  # raises ValidationError on any schema error
        kinds.append(d["kind"])
    assert set(kinds) >= {"Deployment", "Service", "RuntimeClass", "HorizontalPodAutoscaler", "PodDisruptionBudget"}


def test_a_broken_manifest_is_caught():
    dep = by_kind()["Deployment"]
    dep["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] = {"many": 2}
    dep["spec"]["replicas"] = "two"
    with pytest.raises(kv.ValidationError):
        kv.validate(dep, VERSIONS[0], strict=True)
    svc = by_kind()["Service"]
    svc["spec"]["portz"] = []  # a typo
    with pytest.raises(kv.ValidationError):
        kv.validate(svc, VERSIONS[0], strict=True)


def test_committed_manifests_are_the_rendered_ones():
    out = subprocess.run([sys.executable, str(K8S / "render.py")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == (K8S / "codetest.yaml").read_text(), \
        "deploy/k8s/codetest.yaml is stale: python deploy/k8s/render.py > deploy/k8s/codetest.yaml"


def test_render_takes_overrides_and_refuses_nonsense():
    out = subprocess.run([sys.executable, str(K8S / "render.py"), "--image", "reg.example/codetest:1", "--max-replicas",
                          "7"], capture_output=True, text=True, timeout=60)
    rendered = {d["kind"]: d for d in yaml.safe_load_all(out.stdout) if d}
    assert rendered["Deployment"]["spec"]["template"]["spec"]["containers"][0]["image"] == "reg.example/codetest:1"
    assert rendered["HorizontalPodAutoscaler"]["spec"]["maxReplicas"] == 7
    bad = subprocess.run([sys.executable, str(K8S / "render.py"), "--min-replicas", "9", "--max-replicas", "3"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "min-replicas" in bad.stderr


def test_the_pieces_fit_together():
    k = by_kind()
    dep, svc, hpa, pdb, rc = (k[x] for x in ("Deployment", "Service", "HorizontalPodAutoscaler",
                                             "PodDisruptionBudget", "RuntimeClass"))
    labels = dep["spec"]["template"]["metadata"]["labels"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert svc["spec"]["selector"].items() <= labels.items()
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert rc["handler"] == "runsc" and dep["spec"]["template"]["spec"]["runtimeClassName"] == rc["metadata"]["name"]
    assert hpa["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"]
    # the HPA's metric is one the service exports
    from api.metrics import Metrics

    exported = {m.name for m in Metrics().registry.collect()}
    assert hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] in exported
    pod = dep["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz" and c["livenessProbe"]["httpGet"]["path"] == "/livez"
    # kubelet waits for the drain: grace period > drain timeout + grace
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert pod["terminationGracePeriodSeconds"] > float(env["CODETEST_DRAIN_TIMEOUT_S"]) + float(
        env["CODETEST_DRAIN_GRACE_S"])
    # the slots the service runs match the CPUs it is given
    assert int(env["CODETEST_SLOTS"]) == int(c["resources"]["limits"]["cpu"])
    assert c["resources"]["requests"]["cpu"] == c["resources"]["limits"]["cpu"]  # Guaranteed CPU


def test_security_context_is_the_documented_minimum():
    render = load_render()
    c = by_kind()["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    sc = c["securityContext"]
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert set(sc["capabilities"]["add"]) == set(render.CAPABILITIES)  # each one has its reason
    assert all(len(why) > 20 for why in render.CAPABILITIES.values())
    assert sc["privileged"] is False and sc["allowPrivilegeEscalation"] is False
    assert sc["readOnlyRootFilesystem"] is True
    pod = by_kind()["Deployment"]["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert not any(v.get("hostPath") for v in pod["volumes"])
    assert not pod.get("hostNetwork") and not pod.get("hostPID")
    doc = (ROOT / "docs" / "scale.md").read_text()
    for cap in render.CAPABILITIES:
        assert cap in doc, f"docs/scale.md does not explain {cap}"
