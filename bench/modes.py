"""The ways a user reaches codetest, each measured on the same submissions.

- library: ``Sandbox.run`` in-process, one RunRequest per submission with all its tests, a few callers at once;
- library-many: ``Sandbox.run_many`` over chunks of the workload, as a trainer batching a step would;
- cli: ``codetest run FILE --tests T --json``, one process per submission;
- http-run: ``POST /v1/run`` on a real uvicorn, one request per submission, tests batched;
- http-run-code: ``POST /run_code``, one request per test, 32 at once, as verl's sandbox_fusion client does;
- docker: the library on the Docker backend (skipped with a note when no engine is up).

Each mode gets its own state directory (so a cold compile cache) and its own jail uids.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any, Optional, Sequence

from .keepalive import KeepAliveClient
from .measure import ERROR, Item, ItemResult, Measurement, drive, judge
from .results import from_fusion, from_run_result, fusion_body, run_body
from .server import Server, ServerError
from .workloads import REPO_ROOT, Submission


class ModeUnavailable(Exception):
    """This mode cannot run here (no Docker engine, isolation below minimum): skipped with this note."""


class Context:
    """Scratch space and jail uids for the modes of one bench run."""

    def __init__(self, scratch: str):
        self.scratch = scratch
        # Jail uids apart from every other sandbox on this shared machine (tests use 200000+).
        self._uid = 400000 + (os.getpid() % 1000) * 512
        self._lock = threading.Lock()

    def state_dir(self, name: str) -> str:
        d = os.path.join(self.scratch, f"state-{name}")
        os.makedirs(d, exist_ok=True)
        return d

    def uid_base(self) -> int:
        with self._lock:
            self._uid += 16
            return self._uid


class Mode:
    name = ""
    per_test = False
    concurrency = 1

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def profile_pid(self) -> Optional[int]:
        return os.getpid()

    def diagnostics(self) -> Optional[str]:
        """Where to look when items failed (the service's log tail), if this mode has such a place."""
        return None

    def run_item(self, item: Item) -> ItemResult:
        raise NotImplementedError

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        return drive(self.name, workload, subs, self.run_item, per_test=self.per_test,
                     concurrency=self.concurrency, budget_s=budget_s)


def _result_json(res: Any) -> dict[str, Any]:
    """The few fields of a RunResult the bench reads, without dumping every output."""
    comp = res.compile
    return {
        "verdict": res.verdict.value, "message": res.message,
        "compile": None if comp is None else {"cached": comp.cached, "time_s": comp.time_s, "stderr": comp.stderr},
        "tests": [{"verdict": t.verdict.value, "message": t.message, "stderr": t.stderr[-200:]} for t in res.tests],
    }


class LibraryMode(Mode):
    def __init__(self, ctx: Context, name: str = "library", backend: str = "native", concurrency: int = 4):
        self.ctx, self.name, self.backend, self.concurrency = ctx, name, backend, concurrency
        self.sb: Any = None

    def open(self) -> None:
        from sandbox import Sandbox, SandboxConfig, SandboxUnavailable

        cfg = SandboxConfig(backend=self.backend, state_dir=self.ctx.state_dir(self.name),
                            uid_base=self.ctx.uid_base())
        try:
            self.sb = Sandbox(cfg)
            self.sb.check_isolation()
        except SandboxUnavailable as e:
            self.close()
            raise ModeUnavailable(f"sandbox refuses to run: {e}") from None
        except Exception as e:  # noqa: BLE001 - e.g. the Docker backend without an image
            self.close()
            raise ModeUnavailable(f"{self.backend} backend did not start: {type(e).__name__}: {e}") from None

    def close(self) -> None:
        if self.sb is not None:
            self.sb.close()
            self.sb = None

    def run_item(self, item: Item) -> ItemResult:
        from sandbox import RunRequest

        s = item.submission
        res = self.sb.run(RunRequest.model_validate(run_body(s)))
        return from_run_result(_result_json(res), s)

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        before = self.sb.stats.get("compiles", 0)
        m = super().measure(workload, subs, budget_s)
        m.extra["engine_compiles"] = self.sb.stats.get("compiles", 0) - before
        m.extra["slots"] = getattr(self.sb.backend, "slots", None)
        return m


class LibraryManyMode(LibraryMode):
    """``run_many`` on chunks of the workload; per-request latency is not observable through it."""

    chunk = 64

    def __init__(self, ctx: Context):
        super().__init__(ctx, name="library-many", concurrency=1)

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        from sandbox import RunRequest

        m = Measurement(mode=self.name, workload=workload, latency_unit="none", concurrency=self.chunk,
                        planned_executions=sum(s.executions for s in subs))
        got: list[list[Optional[str]]] = [[None] * len(s.tests) for s in subs]
        notes: dict[tuple[int, int], str] = {}
        before = self.sb.stats.get("compiles", 0)
        start = time.perf_counter()
        for lo in range(0, len(subs), self.chunk):
            if time.perf_counter() - start > budget_s:
                m.partial = True
                break
            part = subs[lo:lo + self.chunk]
            outs = self.sb.run_many([RunRequest.model_validate(run_body(s)) for s in part])
            for k, (s, out) in enumerate(zip(part, outs)):
                if isinstance(out, BaseException):
                    r = ItemResult(verdicts=[ERROR] * len(s.tests), notes=[f"{type(out).__name__}: {out}"] * len(s.tests))
                else:
                    r = from_run_result(_result_json(out), s)
                m.compiles += r.compiles
                m.compile_s += r.compile_s
                got[lo + k] = list(r.verdicts)
                for j, note in enumerate(r.notes):
                    if note:
                        notes[(lo + k, j)] = note
        m.wall_s = time.perf_counter() - start
        judge(m, subs, got, notes)
        m.extra["engine_compiles"] = self.sb.stats.get("compiles", 0) - before
        return m


class CliMode(Mode):
    """One ``codetest run`` process per submission, two at a time (one per core)."""

    name = "cli"

    def __init__(self, ctx: Context, concurrency: int = 2):
        self.ctx, self.concurrency = ctx, concurrency
        self.dir = os.path.join(ctx.scratch, "cli")
        self.env: dict[str, str] = {}

    def open(self) -> None:
        os.makedirs(self.dir, exist_ok=True)
        self.env = dict(os.environ, CODETEST_STATE_DIR=self.ctx.state_dir(self.name),
                        PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self._bases = [self.ctx.uid_base() for _ in range(64)]
        self._calls = 0
        self._lock = threading.Lock()

    def _files(self, s: Submission) -> tuple[str, str]:
        ext = ".py" if s.language == "python" else ".cpp"
        src = os.path.join(self.dir, s.id + ext)
        tests = os.path.join(self.dir, s.id + ".tests.jsonl")
        if not os.path.exists(tests):
            with open(src, "w", encoding="utf-8") as f:
                f.write(s.code)
            with open(tests, "w", encoding="utf-8") as f:
                for t in s.tests:
                    f.write(json.dumps({"stdin": t.stdin, "expected_stdout": t.expected_stdout}) + "\n")
        return src, tests

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        for s in subs:  # files are written before the clock starts
            self._files(s)
        return super().measure(workload, subs, budget_s)

    def run_item(self, item: Item) -> ItemResult:
        s = item.submission
        src, tests = self._files(s)
        with self._lock:  # concurrent processes get different jail uids
            base = self._bases[self._calls % len(self._bases)]
            self._calls += 1
        env = dict(self.env, CODETEST_UID_BASE=str(base))
        argv = [sys.executable, "-m", "codetest", "run", src, "--tests", tests, "--json",
                "--time-limit", str(s.time_limit_s), "--memory-limit", str(s.memory_limit_mb)]
        timeout = 60 + len(s.tests) * (2 * s.time_limit_s + 1)
        p = subprocess.run(argv, capture_output=True, env=env, cwd=REPO_ROOT, timeout=timeout)
        try:
            if p.returncode not in (0, 1):
                raise ValueError("not a verdict exit status")
            res = json.loads(p.stdout)
        except ValueError:  # a crash (a traceback exits 1 too) or usage error: the CLI failed, not the program
            msg = f"exit {p.returncode}: {p.stderr.decode(errors='replace').strip()[-300:]}"
            return ItemResult(verdicts=[ERROR] * len(s.tests), notes=[msg] * len(s.tests))
        return from_run_result(res, s)


class _HttpMode(Mode):
    retry_limit = 50

    def __init__(self, ctx: Context, concurrency: int):
        self.ctx, self.concurrency = ctx, concurrency
        self.server: Optional[Server] = None
        self.http: Optional[KeepAliveClient] = None

    def open(self) -> None:
        log = os.path.join(self.ctx.scratch, f"server-{self.name}.log")
        self.server = Server(self.ctx.state_dir(self.name), self.ctx.uid_base(), log)
        try:
            url = self.server.start()
        except ServerError as e:
            self.server = None
            raise ModeUnavailable(str(e)) from None
        self.http = KeepAliveClient(url)

    def close(self) -> None:
        if self.http is not None:
            self.http.close()
            self.http = None
        if self.server is not None:
            self.server.stop()
            self.server = None

    def profile_pid(self) -> Optional[int]:
        return self.server.pid if self.server else None

    def diagnostics(self) -> Optional[str]:
        return self.server.log_tail() if self.server else None

    def post(self, path: str, body: dict[str, Any]) -> tuple[Optional[dict[str, Any]], int, str]:
        """JSON answer (or None), retries spent on 429, and an error line when it failed."""
        assert self.http is not None
        retries = 0
        while True:
            status, payload = self.http.post(path, body)
            if status == 429 and retries < self.retry_limit:
                retries += 1
                time.sleep(0.05)  # a short pause, counted: a trainer would see this as back-pressure
                continue
            if status != 200:
                return None, retries, f"HTTP {status}: {payload[:300].decode(errors='replace')}"
            return json.loads(payload), retries, ""


class HttpRunMode(_HttpMode):
    name = "http-run"

    def __init__(self, ctx: Context, concurrency: int = 4):
        super().__init__(ctx, concurrency)

    def run_item(self, item: Item) -> ItemResult:
        s = item.submission
        res, retries, err = self.post("/v1/run", run_body(s))
        if res is None:
            return ItemResult(verdicts=[ERROR] * len(s.tests), retries=retries, notes=[err] * len(s.tests))
        out = from_run_result(res, s)
        out.retries = retries
        return out


class HttpRunCodeMode(_HttpMode):
    name = "http-run-code"
    per_test = True

    def __init__(self, ctx: Context, concurrency: int = 32):
        super().__init__(ctx, concurrency)

    def run_item(self, item: Item) -> ItemResult:
        s, j = item.submission, item.test_index
        assert j is not None
        t = s.tests[j]
        res, retries, err = self.post("/run_code", fusion_body(s, t))
        if res is None:
            return ItemResult(verdicts=[ERROR], retries=retries, notes=[err])
        verdict, note = from_fusion(res, t)
        return ItemResult(verdicts=[verdict], retries=retries, notes=[note])

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        m = super().measure(workload, subs, budget_s)
        m.extra["compiles_unknown"] = True
        return m


def docker_engine_problem() -> Optional[str]:
    """None when a Docker engine answers, else why not."""
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env(timeout=10).ping()
    except Exception as e:  # noqa: BLE001 - any failure means: no engine to measure
        return f"no Docker engine reachable ({type(e).__name__}: {str(e)[:120]})"
    return None


def docker_run_cost(image: str, samples: int = 3) -> dict[str, Any]:
    """What one ``docker run --rm`` of a trivial Python costs here: the per-execution price without a pool."""
    argv = ["docker", "run", "--rm", "--network", "none", image, "python3", "-c", "pass"]
    times: list[float] = []
    error = ""
    for _ in range(samples):
        t0 = time.perf_counter()
        try:
            p = subprocess.run(argv, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            error = "docker run took more than 120 s"
            break
        if p.returncode != 0:
            error = p.stderr.decode(errors="replace").strip()[-300:]
            break
        times.append(time.perf_counter() - t0)
    times.sort()
    return {"argv": " ".join(argv), "samples_s": [round(t, 4) for t in times],
            "median_s": times[len(times) // 2] if times else None, "error": error or None}


class DockerMode(LibraryMode):
    def __init__(self, ctx: Context, concurrency: int = 4):
        super().__init__(ctx, name="docker", backend="docker", concurrency=concurrency)
        self.reference: dict[str, Any] = {}

    def open(self) -> None:
        problem = docker_engine_problem()
        if problem:
            raise ModeUnavailable(problem)
        super().open()
        image = getattr(self.sb.config, "docker_image", "codetest-runtime:latest")
        self.reference = docker_run_cost(image)

    def measure(self, workload: str, subs: Sequence[Submission], budget_s: float) -> Measurement:
        m = super().measure(workload, subs, budget_s)
        m.extra["docker_run"] = self.reference
        return m


MODES = ("floor", "library", "library-many", "cli", "http-run", "http-run-code", "docker")
# Most telling first: if the run's time budget runs out, the slow ways in are what is skipped.
DEFAULT_MODES = ("floor", "http-run", "http-run-code", "docker", "library", "cli")


def make_mode(name: str, ctx: Context, run_concurrency: int, run_code_concurrency: int) -> Mode:
    if name == "library":
        return LibraryMode(ctx, concurrency=run_concurrency)
    if name == "library-many":
        return LibraryManyMode(ctx)
    if name == "cli":
        return CliMode(ctx)
    if name == "http-run":
        return HttpRunMode(ctx, concurrency=run_concurrency)
    if name == "http-run-code":
        return HttpRunCodeMode(ctx, concurrency=run_code_concurrency)
    if name == "docker":
        return DockerMode(ctx, concurrency=run_concurrency)
    raise ValueError(f"unknown mode {name!r}; choose from {', '.join(MODES)}")
