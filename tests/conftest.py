"""Shared fixtures: a real sandbox per backend under test.

``CODETEST_TEST_BACKENDS`` (comma-separated: native, docker:runc, docker:runsc) chooses the
backends the backend-independent suites (attacks, verdicts) run against; default native.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase

BACKENDS = [b.strip() for b in os.environ.get("CODETEST_TEST_BACKENDS", "native").split(",") if b.strip()]


# Jail uids of this test session, apart from any other sandbox on the machine, so that
# "no process of a jail uid is left" speaks of this session's sandboxes only.
UID_BASE = 200000 + (os.getpid() % 10000) * 16


def make_config(backend: str, state_dir: str, **kw) -> SandboxConfig:
    name, _, runtime = backend.partition(":")
    kw.setdefault("uid_base", UID_BASE)
    cfg = SandboxConfig(backend=name, slots=2, state_dir=state_dir, **kw)
    if runtime:
        cfg.docker_runtime = runtime
    return cfg


@pytest.fixture(scope="session", params=BACKENDS)
def sandbox(request):
    state = tempfile.mkdtemp(prefix="codetest-test-")
    backend = request.param
    if backend.startswith("docker"):
        docker = pytest.importorskip("docker")
        try:
            docker.from_env().ping()
        except Exception as e:  # no engine here: the docker suite is CI's job
            pytest.skip(f"no Docker engine reachable: {e}")
    sb = Sandbox(make_config(backend, state))
    yield sb
    sb.close()
    shutil.rmtree(state, ignore_errors=True)


@pytest.fixture
def run_code(sandbox):
    """run_code(code, language="python", stdin="", expected=None, **limits) -> TestResult, RunResult."""

    def go(code: str, language: str = "python", stdin: str = "", expected: str | None = None, **limits):
        req = RunRequest(language=language, code=code, tests=[TestCase(stdin=stdin, expected_stdout=expected)],
                         limits=Limits(**limits))
        res = sandbox.run(req)
        return (res.tests[0] if res.tests else None), res

    return go


def jail_uids(sb: Sandbox) -> range:
    return range(sb.config.uid_base, sb.config.uid_base + sb.backend.slots)


def processes_of(uids) -> list[int]:
    """Host PIDs whose real uid is one of the jail uids."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) in uids:
                            out.append(int(pid))
                        break
        except OSError:
            continue
    return out
