#!/usr/bin/env python3
"""Render codetest's Kubernetes manifests from one source: the VALUES below (or flags).

    python deploy/k8s/render.py > deploy/k8s/codetest.yaml          # what is committed
    python deploy/k8s/render.py --image registry.example/codetest-api:0.1.0 --max-replicas 40 | kubectl apply -f -

Resources: Namespace, RuntimeClass ``gvisor`` (handler ``runsc``), ServiceAccount (no API
token), Deployment, Service, HorizontalPodAutoscaler (on the pods' queue utilization),
PodDisruptionBudget, NetworkPolicy (no egress). docs/scale.md explains each choice;
tests/test_k8s_manifests.py validates the output against the Kubernetes JSON schemas, offline,
and checks that the committed file is this script's output. Standard library only (PyYAML
for YAML when it is installed, else JSON, which kubectl reads as well).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

VALUES: dict[str, Any] = {
    "namespace": "codetest",
    "name": "codetest",
    "image": "codetest-api:latest",  # docker/build-images.sh --api, pushed to your registry
    "replicas": 2,
    "min_replicas": 2,
    "max_replicas": 20,
    # HPA target: average share of admission capacity in use per pod (codetest_queue_utilization)
    "target_queue_utilization": "500m",
    "slots": 2,  # concurrent executions per pod; match the CPU limit
    "cpu": "2",
    "memory_request": "4Gi",
    "memory_limit": "6Gi",
    "state_size": "4Gi",  # compile cache + scratch (emptyDir)
    "port": 8080,
    "drain_timeout_s": 60,
    "drain_grace_s": 5,
    "api_keys_secret": "codetest-api-keys",  # kubectl create secret generic codetest-api-keys --from-literal=keys=...
    "gvisor_overhead_cpu": "250m",
    "gvisor_overhead_memory": "256Mi",
}

# The capabilities the native backend needs as root inside the (gVisor) pod, and why. Nothing else.
# CHOWN and DAC_OVERRIDE were found by running the API image under exactly this context
# (tests/test_k8s_pod_docker.py): without either, every run fails.
CAPABILITIES = {
    "SYS_ADMIN": "unshare mount/pid/net/ipc/uts namespaces per jail, mount its tmpfs and read-only binds, "
                 "pivot_root, sethostname; and, at start (codetest-pod-init), remount the container's own "
                 "cgroup read-write to create the per-execution cgroups below it",
    "SETUID": "drop each slot's processes to its own unprivileged uid (setresuid)",
    "SETGID": "drop the groups of each slot's processes (setgroups([]), setresgid)",
    "KILL": "kill every process of a finished execution, which runs under another uid than the server",
    "CHOWN": "give each slot's scratch folders to the slot's uid, and a compiled program back to root "
             "before it enters the shared, read-only compile cache",
    "DAC_OVERRIDE": "read and clean the folders a slot's uid owns (its private /work and the compile "
                    "step's output): the server is root but not their owner",
}


def labels(v: dict[str, Any]) -> dict[str, str]:
    return {"app.kubernetes.io/name": v["name"], "app.kubernetes.io/component": "sandbox-api"}


def render(v: dict[str, Any]) -> list[dict[str, Any]]:
    ns, name, lab = v["namespace"], v["name"], labels(v)
    meta = {"name": name, "namespace": ns, "labels": lab}
    port = v["port"]
    env = [
        {"name": "CODETEST_BACKEND", "value": "native"},
        {"name": "CODETEST_SLOTS", "value": str(v["slots"])},
        {"name": "CODETEST_STATE_DIR", "value": "/var/lib/codetest"},
        {"name": "CODETEST_DRAIN_TIMEOUT_S", "value": str(v["drain_timeout_s"])},
        {"name": "CODETEST_DRAIN_GRACE_S", "value": str(v["drain_grace_s"])},
        # Off loopback the service refuses to start without a key: the pod fails closed
        # until the operator has created the secret.
        {"name": "CODETEST_API_KEYS",
         "valueFrom": {"secretKeyRef": {"name": v["api_keys_secret"], "key": "keys", "optional": False}}},
    ]
    http_get = lambda path: {"httpGet": {"path": path, "port": "http"}}  # noqa: E731
    container = {
        "name": "api",
        "image": v["image"],
        "imagePullPolicy": "IfNotPresent",
        # codetest-pod-init: the runtime mounts the cgroup filesystem read-only; it remounts the
        # container's own cgroup (nothing above it) read-write, then execs the service.
        "command": ["codetest-pod-init", "codetest", "serve", "--host", "0.0.0.0", "--port", str(port),
                    "--backend", "native"],
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "env": env,
        "resources": {
            "requests": {"cpu": v["cpu"], "memory": v["memory_request"], "ephemeral-storage": "1Gi"},
            "limits": {"cpu": v["cpu"], "memory": v["memory_limit"], "ephemeral-storage": v["state_size"]},
        },
        "startupProbe": {**http_get("/livez"), "periodSeconds": 2, "failureThreshold": 60},
        "livenessProbe": {**http_get("/livez"), "periodSeconds": 10, "timeoutSeconds": 5, "failureThreshold": 3},
        "readinessProbe": {**http_get("/readyz"), "periodSeconds": 2, "timeoutSeconds": 2, "failureThreshold": 1,
                           "successThreshold": 1},
        "securityContext": {
            # root *inside the gVisor sandbox*, to build each jail; the programs run as other uids
            "runAsUser": 0,
            "runAsNonRoot": False,
            "privileged": False,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"], "add": sorted(CAPABILITIES)},
            # The runtime's default seccomp and AppArmor profiles refuse the jail's own
            # pivot_root/mount/unshare (measured under Docker: EPERM). The jail loads its own
            # seccomp policy (seccomp/policy.json) on every program; the node is shielded by gVisor.
            "seccompProfile": {"type": "Unconfined"},
            "appArmorProfile": {"type": "Unconfined"},
        },
        "volumeMounts": [{"name": "state", "mountPath": "/var/lib/codetest"}, {"name": "tmp", "mountPath": "/tmp"}],
    }
    pod = {
        "metadata": {"labels": lab},
        "spec": {
            "runtimeClassName": "gvisor",
            "serviceAccountName": name,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "terminationGracePeriodSeconds": v["drain_timeout_s"] + v["drain_grace_s"] + 25,
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [container],
            "volumes": [{"name": "state", "emptyDir": {"sizeLimit": v["state_size"]}},
                        {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                           "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": lab}}],
        },
    }
    return [
        # SYS_ADMIN and unconfined profiles are outside the "baseline" Pod Security level: the
        # namespace holds codetest alone, and every pod in it runs under gVisor.
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {
            "pod-security.kubernetes.io/enforce": "privileged", "pod-security.kubernetes.io/warn": "baseline"}}},
        {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "gvisor"}, "handler": "runsc",
         "overhead": {"podFixed": {"cpu": v["gvisor_overhead_cpu"], "memory": v["gvisor_overhead_memory"]}}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta, "automountServiceAccountToken": False},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {
            "replicas": v["replicas"],
            "selector": {"matchLabels": lab},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
            "template": pod}},
        {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": {
            "type": "ClusterIP", "selector": lab,
            "ports": [{"name": "http", "port": port, "targetPort": "http", "protocol": "TCP"}]}},
        {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": meta, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": v["min_replicas"], "maxReplicas": v["max_replicas"],
            "metrics": [{"type": "Pods", "pods": {
                "metric": {"name": "codetest_queue_utilization"},
                "target": {"type": "AverageValue", "averageValue": v["target_queue_utilization"]}}}],
            "behavior": {
                "scaleUp": {"stabilizationWindowSeconds": 0,
                            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 30}]},
                "scaleDown": {"stabilizationWindowSeconds": 300,
                              "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta, "spec": {
            "maxUnavailable": 1, "selector": {"matchLabels": lab}}},
        {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": meta, "spec": {
            "podSelector": {"matchLabels": lab},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [{"ports": [{"port": port, "protocol": "TCP"}]}],
            "egress": []}},
    ]


def dump(docs: list[dict[str, Any]]) -> str:
    header = "# Rendered by deploy/k8s/render.py from its VALUES: edit those, not this file.\n"
    try:
        import yaml
    except ImportError:
        return header + "".join("---\n" + json.dumps(d, indent=2) + "\n" for d in docs)
    return header + "".join("---\n" + yaml.safe_dump(d, sort_keys=False, width=120) for d in docs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for key, default in VALUES.items():
        p.add_argument("--" + key.replace("_", "-"), type=type(default), default=default)
    args = vars(p.parse_args(argv))
    values = {k: args[k] for k in VALUES}
    if values["min_replicas"] > values["max_replicas"] or values["min_replicas"] < 1:
        p.error("need 1 <= --min-replicas <= --max-replicas")
    sys.stdout.write(dump(render(values)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
