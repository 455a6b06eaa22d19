"""Shared fixtures: a real sandbox per backend under test.

``CODETEST_TEST_BACKENDS`` (comma-separated: native, docker:runc, docker:runsc) chooses the
backends the backend-independent suites (attacks, verdicts) run against; default native.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time

import pytest

from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase
from sandbox.backends.native.cgroups import remove_tree

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


def skip_without_engine(backend: str) -> None:
    """Skip the test when ``backend`` is a Docker one and no Docker engine answers here (the
    docker suites are CI's job: it always has one, ``scripts/setup.sh --docker``)."""
    if not backend.startswith("docker"):
        return
    docker = pytest.importorskip("docker")
    try:
        docker.from_env().ping()
    except Exception as e:
        pytest.skip(f"no Docker engine reachable: {e}")


@pytest.fixture(scope="session", params=BACKENDS)
def sandbox(request):
    state = tempfile.mkdtemp(prefix="codetest-test-")
    backend = request.param
    skip_without_engine(backend)
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


def assert_quick_program_passes_sleepers(sb: Sandbox, sleepers: int) -> None:
    """Start ``sleepers`` programs that sleep 6 s, then judge a quick one: AC while they sleep
    (it did not wait for them to end)."""
    sleeper = RunRequest(language="python", code="import time\ntime.sleep(6)\n", limits=Limits(time_s=1, wall_time_s=8))
    quick = RunRequest(language="python", code="print(1)\n", tests=[TestCase(stdin="", expected_stdout="1\n")])
    threads = [threading.Thread(target=sb.run, args=(sleeper,)) for _ in range(sleepers)]
    for t in threads:
        t.start()
    time.sleep(1.5)  # all started, and asleep
    assert sb.run(quick).verdict.value == "AC"
    assert any(t.is_alive() for t in threads), "the quick program waited for the sleepers to end"
    for t in threads:
        t.join(timeout=30)


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


# --- shared helpers of the attack suites (tests/test_attacks_*.py) ------------------------

import contextlib
import signal
import socket
import subprocess
import sys
import uuid

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
VENV_BIN = os.path.dirname(sys.executable)


def run_one(sb: Sandbox, code: str, stdin: str = "", language: str = "python", expected: str | None = None,
            **limits):
    """One test of one program on ``sb``: the TestResult."""
    res = sb.run(RunRequest(language=language, code=code, tests=[TestCase(stdin=stdin, expected_stdout=expected)],
                            limits=Limits(**limits)))
    assert res.tests, res
    return res.tests[0]


def counter_total(metrics_text: str, name: str, unless: str = "") -> float:
    """A Prometheus counter summed over its series in a ``/metrics`` text; a series whose line
    holds ``unless`` (a label, ``verdict="error"``) is left out."""
    return sum(float(line.split()[-1]) for line in metrics_text.splitlines()
               if line.startswith(name) and not (unless and unless in line))


def fresh_sandbox(backend: str, **kw) -> tuple[Sandbox, str]:
    """A sandbox of its own (own state dir) for tests that need a special configuration; close it."""
    skip_without_engine(backend)
    state = tempfile.mkdtemp(prefix="codetest-test-")
    slots = kw.pop("slots", 2)
    cfg = make_config(backend, state, **kw)
    cfg.slots = slots
    return Sandbox(cfg), state


@pytest.fixture(scope="module")
def runner():
    """testgen's LocalRunner on a native sandbox of the module's own, in a state folder the jail
    users can traverse (pytest's tmp folders are 0700). Modules that judge on the session's
    backends define their own ``runner(sandbox)`` instead."""
    from testgen.runner import LocalRunner

    d = tempfile.mkdtemp(prefix="codetest-tg-")
    os.chmod(d, 0o755)
    sb = Sandbox(SandboxConfig(state_dir=d))
    yield LocalRunner(sb)
    sb.close()
    shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def own_sandbox(backend: str, **kw):
    sb, state = fresh_sandbox(backend, **kw)
    try:
        yield sb
    finally:
        sb.close()
        shutil.rmtree(state, ignore_errors=True)


# cgroup v1 helpers: a throw-away group in the memory and pids hierarchies, for tests that put a
# process (a service, a sandbox) under limits of their own. Removed bottom-up afterwards.

def v1_mount(controller: str) -> str | None:
    with open("/proc/self/mounts") as f:
        for line in f:
            dev, target, fstype, opts = line.split()[:4]
            if fstype == "cgroup" and controller in opts.split(","):
                return target
    return None


def v2_mount() -> str | None:
    """The cgroup2 mount if it is the unified hierarchy with controllers (a v2 host), else None."""
    with open("/proc/self/mounts") as f:
        for line in f:
            dev, target, fstype = line.split()[:3]
            if fstype == "cgroup2":
                try:
                    with open(os.path.join(target, "cgroup.controllers")) as c:
                        if "memory" in c.read().split():
                            return target
                except OSError:
                    pass
    return None


class TestCgroup:
    """A cgroup (v1: one folder per controller; v2: one folder) that a test creates and removes."""

    __test__ = False

    def __init__(self, name: str):
        self.name = name
        self.dirs: dict[str, str] = {}
        v2 = v2_mount()
        if v2 and not v1_mount("memory"):
            self.version = "v2"
            d = os.path.join(v2, name)
            os.makedirs(d)
            # Controllers for this group come from its parent. Its own subtree_control stays empty:
            # a process placed here is the delegate, and it is the delegate's job to move itself to
            # a leaf before enabling controllers below (cgroup v2's no-internal-processes rule).
            self._enable(v2)
            self.dirs["unified"] = d
        else:
            self.version = "v1"
            for ctrl in ("memory", "pids", "cpuacct"):
                mnt = v1_mount(ctrl)
                if mnt:
                    d = os.path.join(mnt, name)
                    os.makedirs(d)
                    self.dirs[ctrl] = d

    @staticmethod
    def _enable(d: str) -> None:
        for ctrl in ("memory", "pids", "cpu"):
            try:
                with open(os.path.join(d, "cgroup.subtree_control"), "w") as f:
                    f.write("+" + ctrl)
            except OSError:
                pass

    def set_memory_limit(self, nbytes: int) -> None:
        if self.version == "v2":
            with open(os.path.join(self.dirs["unified"], "memory.max"), "w") as f:
                f.write(str(nbytes))
        else:
            with open(os.path.join(self.dirs["memory"], "memory.limit_in_bytes"), "w") as f:
                f.write(str(nbytes))

    def add(self, pid: int) -> None:
        for d in self.dirs.values():
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write(str(pid))

    def preexec(self):
        """A preexec_fn that moves the child into this group before it execs."""
        dirs = list(self.dirs.values())

        def go():
            for d in dirs:
                with open(os.path.join(d, "cgroup.procs"), "w") as f:
                    f.write(str(os.getpid()))
        return go

    def relative(self, key: str) -> str:
        """This group's path as /proc/PID/cgroup writes it (relative to the hierarchy root)."""
        return "/" + self.name

    def oom_killed(self) -> int:
        """How many processes the kernel OOM-killed in this group (v1: memory.oom_control)."""
        if self.version == "v2":
            path = os.path.join(self.dirs["unified"], "memory.events")
        else:
            path = os.path.join(self.dirs["memory"], "memory.oom_control")
        with open(path) as f:
            for line in f:
                k, _, v = line.partition(" ")
                if k == "oom_kill":
                    return int(v)
        return 0

    def remove(self) -> None:
        for d in self.dirs.values():
            remove_tree(d)


@pytest.fixture
def test_cgroup():
    """test_cgroup() -> a fresh TestCgroup (root only), removed after the test."""
    made: list[TestCgroup] = []

    def make() -> TestCgroup:
        if os.geteuid() != 0:
            pytest.skip("creating cgroups needs root")
        cg = TestCgroup(f"codetest-test-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        made.append(cg)
        return cg

    yield make
    for cg in made:
        cg.remove()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def service_process(backend: str, *, slots: int = 2, uid_offset: int = 0, extra_env: dict | None = None,
                    preexec_fn=None, args: tuple[str, ...] = ()):
    """``codetest serve`` (a real uvicorn) on 127.0.0.1 as a child process: yields (url, Popen)."""
    import httpx

    skip_without_engine(backend)
    name, _, runtime = backend.partition(":")
    state = tempfile.mkdtemp(prefix="codetest-svc-")
    env = dict(os.environ, CODETEST_STATE_DIR=state, CODETEST_UID_BASE=str(UID_BASE + 4 + uid_offset))
    if runtime:
        env["CODETEST_DOCKER_RUNTIME"] = runtime
    env.update(extra_env or {})
    port = free_port()
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([os.path.join(VENV_BIN, "codetest"), "serve", "--port", str(port), "--backend", name,
                             "--slots", str(slots), "--log-level", "warning", *args],
                            env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=preexec_fn, cwd=REPO)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"service exited ({proc.returncode}): {log.read()[-3000:].decode(errors='replace')}")
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("service did not start")
            time.sleep(0.2)
        proc.log = log  # type: ignore[attr-defined]
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        shutil.rmtree(state, ignore_errors=True)


def service_log(proc) -> str:
    try:
        proc.log.seek(0)
        return proc.log.read()[-4000:].decode(errors="replace")
    except (AttributeError, ValueError, OSError):
        return ""


def cache_entry(tmp: str, name: str, size: int) -> str:
    """A finished folder of ``size`` bytes, as a compile leaves it, for CompileCache.put."""
    d = os.path.join(tmp, "tmp-" + name)
    os.makedirs(d)
    with open(os.path.join(d, "blob"), "wb") as f:
        f.write(b"x" * size)
    return d


# --- Docker: one engine client, one way to make a backend, one API image from this checkout ---
# (tests/test_docker_*.py, test_compose_replicas.py, test_k8s_pod_docker.py)

DOCKER_IMAGE = os.environ.get("CODETEST_DOCKER_IMAGE", "codetest-runtime:latest")
# The API image the tests run: built from this checkout once per session (the runtime image's
# layers and the dependency layer are reused, so a rebuild after a code change takes seconds).
TEST_API_IMAGE = os.environ.get("CODETEST_TEST_API_IMAGE", "codetest-api:scale-test")
# The docker backend keeps nothing on the host: its tests never create this folder.
NO_STATE = os.path.join(tempfile.gettempdir(), "codetest-docker-backend-unused")


@pytest.fixture(scope="module")
def docker_client():
    """A client of the Docker engine that has the runtime image; the test skips without one
    (CI, as root, always has both: scripts/setup.sh --docker)."""
    docker = pytest.importorskip("docker")
    try:
        c = docker.from_env(timeout=30)
        c.ping()
        c.images.get(DOCKER_IMAGE)
    except Exception as e:
        pytest.skip(f"no Docker engine or no {DOCKER_IMAGE}: {e}")
    yield c
    c.close()


def docker_runtimes(client) -> list[str]:
    return ["runc"] + (["runsc"] if "runsc" in (client.info().get("Runtimes") or {}) else [])


def make_docker_backend(runtime: str = "runc", **settings):
    """A DockerBackend of 2 containers on ``runtime``; ``settings`` override DockerSettings fields."""
    from sandbox.backends.docker import DockerBackend
    from sandbox.backends.docker.settings import DockerSettings

    cfg = SandboxConfig(backend="docker", slots=2, docker_runtime=runtime, state_dir=NO_STATE)
    s = DockerSettings.from_config(cfg)
    for k, v in settings.items():
        setattr(s, k, v)
    return DockerBackend(cfg, settings=s)


def pool_container_ids(client, backend) -> list[str]:
    """Ids of the backend's containers, as the engine lists them (running or not)."""
    return [c["Id"] for c in client.api.containers(all=True, filters={"label": f"codetest.pool={backend.pool_id}"})]


@pytest.fixture(scope="session")
def api_image() -> str:
    """TEST_API_IMAGE built from this checkout (docker/build-images.sh --api-only), once per session."""
    env = dict(os.environ, CODETEST_API_IMAGE=TEST_API_IMAGE)
    r = subprocess.run([os.path.join(REPO, "docker", "build-images.sh"), "--api-only"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, r.stdout + r.stderr
    return TEST_API_IMAGE


@pytest.fixture
def cli_state_env():
    """The environment for a ``codetest`` CLI run with a sandbox state folder of its own that the
    jail users can traverse."""
    d = tempfile.mkdtemp(prefix="codetest-cli-")
    os.chmod(d, 0o755)
    yield dict(os.environ, CODETEST_STATE_DIR=d)
    shutil.rmtree(d, ignore_errors=True)


def codetest_cli(env: dict, *args: str, timeout: int = 300) -> None:
    """``python -m codetest.cli ARGS`` from the checkout's root; it must exit 0."""
    r = subprocess.run([sys.executable, "-m", "codetest.cli", *args], cwd=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr


def assert_round_judged(report: dict, by_id: dict, problems: int, correct: int, rejected_at_least: int) -> None:
    """A held-out round's ``codetest evaluate`` report: every problem judged, every correct program
    accepted, and at least ``rejected_at_least`` incorrect ones rejected (the misses named)."""
    assert len(by_id) == problems and not report["pooled"]["unjudged_programs"]
    assert report["pooled"]["accepted"] == report["pooled"]["correct"] == correct, \
        {k: p["false_rejects"] for k, p in by_id.items() if p["false_rejects"]}
    assert report["pooled"]["rejected"] >= rejected_at_least, {k: p["missed"] for k, p in by_id.items() if p["missed"]}


def synthesize_and_judge(env: dict, data: str, out_dir, *testgen_args: str) -> tuple[dict, dict, dict]:
    """``codetest testgen`` on ``tests/data/<data>`` (with ``testgen_args``: ``--only ID``, ...) then
    ``codetest evaluate`` on its suites: (the evaluate report, its problems by id, the suites by id)."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", data)
    out, rep = out_dir / "suites.jsonl", out_dir / "report.json"
    codetest_cli(env, "testgen", src, "-o", str(out), "--quiet", *testgen_args)
    codetest_cli(env, "evaluate", str(out), "--json", str(rep))
    report = json.loads(rep.read_text())
    suites = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    return report, {p["id"]: p for p in report["problems"]}, suites

