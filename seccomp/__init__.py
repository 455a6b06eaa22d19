"""The syscall policy as data, and its compiler to a BPF program.

``policy.json`` is a Docker seccomp profile: the Docker backend hands the file to the
engine as it is (``--security-opt seccomp=...``), and the native backend compiles the same
rules with libseccomp into classic BPF once, then every jailed process loads that program
with one ``prctl`` call just before it runs untrusted code.
"""

from __future__ import annotations

import errno as _errno
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

_POLICY = Path(__file__).with_name("policy.json")

_OPS = {
    "SCMP_CMP_EQ": "EQ", "SCMP_CMP_NE": "NE", "SCMP_CMP_LT": "LT", "SCMP_CMP_LE": "LE",
    "SCMP_CMP_GT": "GT", "SCMP_CMP_GE": "GE", "SCMP_CMP_MASKED_EQ": "MASKED_EQ",
}


def policy_path() -> str:
    """Absolute path of the policy file (Docker's ``--security-opt seccomp=<path>``)."""
    return str(_POLICY)


def load_policy(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    with open(path or _POLICY, encoding="utf-8") as f:
        return json.load(f)


def _action(seccomp: Any, name: str, errno_ret: int | None) -> Any:
    if name == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if name == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(errno_ret if errno_ret is not None else _errno.EPERM)
    if name in ("SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD"):
        return seccomp.KILL
    if name == "SCMP_ACT_KILL_PROCESS":
        return seccomp.KILL_PROCESS
    raise ValueError(f"unsupported seccomp action {name!r}")


def _arg(seccomp: Any, spec: dict[str, Any]) -> Any:
    op = getattr(seccomp, _OPS[spec["op"]])
    if spec["op"] == "SCMP_CMP_MASKED_EQ":
        # Docker's convention: (arg & value) == valueTwo.
        return seccomp.Arg(spec["index"], op, spec["value"], spec.get("valueTwo", 0))
    return seccomp.Arg(spec["index"], op, spec["value"])


def build_filter(policy: dict[str, Any]) -> Any:
    """A libseccomp filter (pyseccomp) for the native architecture."""
    import pyseccomp as seccomp

    flt = seccomp.SyscallFilter(_action(seccomp, policy["defaultAction"], policy.get("defaultErrnoRet")))
    try:  # a binary tree of syscall numbers instead of a linear chain (libseccomp >= 2.5): the
        # kernel emulates the filter for every syscall number when it is loaded (its allow-cache),
        # once per execution, so a shorter path per number makes each execution cheaper
        flt.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    except (RuntimeError, OSError, ValueError, AttributeError):
        pass  # an older libseccomp: the same filter, in a linear chain
    for rule in policy["syscalls"]:
        action = _action(seccomp, rule["action"], rule.get("errnoRet"))
        args = [_arg(seccomp, a) for a in rule.get("args", [])]
        for name in rule["names"]:
            try:
                flt.add_rule(action, name, *args)
            except (RuntimeError, OSError, ValueError):
                # A name this libseccomp or architecture does not know: nothing to allow.
                continue
    return flt


@lru_cache(maxsize=4)
def compile_bpf(path: str | None = None) -> bytes:
    """The policy as a classic BPF program (an array of ``struct sock_filter``)."""
    flt = build_filter(load_policy(path))
    with tempfile.TemporaryFile() as f:
        flt.export_bpf(f)
        f.seek(0)
        data = f.read()
    if not data or len(data) % 8:
        raise RuntimeError("libseccomp produced no BPF program")
    return data
