"""Per-execution overhead of the docker backend, next to `docker run` and the native backend.

    python bench/docker_overhead.py                     # all that this host has, ~1-2 minutes
    python bench/docker_overhead.py --n 100 --json /tmp/overhead.json

Every row runs the same tiny programs, in one process, one after another (no
concurrency): `/bin/true` (pure overhead: the jail and the round trip) and a Python
`print` (what a Python test costs; the backends' fork-server fast path). Rows:

  docker run (runc|runsc)   a fresh hardened container per execution, the naive way
  docker backend (runc|runsc)  the warm pool: one request on an open attach stream
  native backend            namespaces + cgroups + seccomp on this host, no container

Times are wall clock as the caller sees them (median, p90, mean, in milliseconds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

from sandbox import SandboxConfig  # noqa: E402
from sandbox.backends.base import ExecLimits, ExecSpec  # noqa: E402

IMAGE = os.environ.get("CODETEST_DOCKER_IMAGE", "codetest-runtime:latest")
LIM = ExecLimits(cpu_s=5, wall_s=10, memory_bytes=256 << 20, output_bytes=1 << 16, processes=32,
                 file_size_bytes=1 << 20)
PY_SOURCE = "print('hi')\n"


def stats(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {"n": len(s), "median_ms": 1000 * statistics.median(s), "p90_ms": 1000 * s[int(0.9 * (len(s) - 1))],
            "mean_ms": 1000 * statistics.fmean(s), "min_ms": 1000 * s[0]}


def time_calls(fn: Callable[[], Any], n: int, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def docker_cli() -> Optional[str]:
    for cand in ("/usr/bin/docker", "docker"):
        try:
            subprocess.run([cand, "version"], capture_output=True, timeout=20, check=True)
            return cand
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def docker_run_fn(cli: str, runtime: str, argv: list[str]) -> Callable[[], None]:
    import seccomp

    cmd = [cli, "run", "--rm", "--runtime", runtime, "--network", "none", "--read-only", "--cap-drop", "ALL",
           "--security-opt", "no-new-privileges", "--security-opt", f"seccomp={seccomp.policy_path()}",
           "--pids-limit", "512", "--memory", "512m", "--user", "65534:65534", "--tmpfs", "/work", "--log-driver",
           "none", IMAGE, *argv]

    def go() -> None:
        r = subprocess.run(cmd, capture_output=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.decode(errors="replace")[-500:])
    return go


def backend_fns(backend: Any, prog_dir: str) -> dict[str, Callable[[], None]]:
    def true() -> None:
        r = backend.execute(ExecSpec(argv=["/bin/true"], limits=LIM))
        if r.error or r.exit_code != 0:
            raise RuntimeError(r.error or r.stderr)

    def py() -> None:
        r = backend.execute(ExecSpec(argv=["/usr/bin/python3", "/prog/main.py"], limits=LIM, program_dir=prog_dir,
                                     python_inline=PY_SOURCE))
        if r.error or r.stdout != b"hi\n":
            raise RuntimeError(r.error or r.stderr)
    return {"true": true, "python": py}


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40, help="timed executions per row for the backends")
    ap.add_argument("--n-docker-run", type=int, default=8, help="timed executions per `docker run` row")
    ap.add_argument("--json", help="write the results here as JSON")
    ap.add_argument("--skip", default="", help="comma-separated rows to skip: docker-run,runsc,native")
    args = ap.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}

    work = tempfile.mkdtemp(prefix="codetest-dkbench-")
    prog_dir = os.path.join(work, "prog")
    os.mkdir(prog_dir)
    with open(os.path.join(prog_dir, "main.py"), "w") as f:
        f.write(PY_SOURCE)
    os.chmod(prog_dir, 0o755)
    rows: list[dict[str, Any]] = []
    notes: list[str] = []

    def add(name: str, program: str, samples: list[float]) -> None:
        row = {"row": name, "program": program, **stats(samples)}
        rows.append(row)
        print(f"  {name:<24} {program:<7} median {row['median_ms']:8.1f} ms   p90 {row['p90_ms']:8.1f} ms",
              flush=True)

    runtimes: list[str] = []
    try:
        import docker

        client = docker.from_env(timeout=30)
        client.ping()
        client.images.get(IMAGE)
        registered = set((client.info().get("Runtimes") or {}).keys())
        runtimes = [r for r in ("runc", "runsc") if r in registered and not (r == "runsc" and "runsc" in skip)]
        client.close()
    except Exception as e:
        notes.append(f"docker rows skipped: {e}")

    cli = docker_cli() if runtimes else None
    for rt in runtimes:
        if cli and "docker-run" not in skip:
            print(f"docker run ({rt}) ...", flush=True)
            add(f"docker run ({rt})", "true", time_calls(docker_run_fn(cli, rt, ["/bin/true"]), args.n_docker_run, 1))
            add(f"docker run ({rt})", "python",
                time_calls(docker_run_fn(cli, rt, ["python3", "-c", PY_SOURCE]), args.n_docker_run, 1))
        from sandbox.backends.docker import DockerBackend

        print(f"docker backend ({rt}) ...", flush=True)
        t0 = time.perf_counter()
        b = DockerBackend(SandboxConfig(backend="docker", slots=1, docker_runtime=rt,
                                        state_dir=os.path.join(work, "docker")))
        notes.append(f"docker backend ({rt}): pool of 1 warm in {time.perf_counter() - t0:.2f} s (paid once)")
        try:
            for prog, fn in backend_fns(b, prog_dir).items():
                add(f"docker backend ({rt})", prog, time_calls(fn, args.n))
        finally:
            b.close()

    if "native" not in skip:
        print("native backend ...", flush=True)
        try:
            from sandbox import Sandbox

            sb = Sandbox(SandboxConfig(backend="native", slots=1,
                                       state_dir=os.path.join(work, "native")))
            try:
                for prog, fn in backend_fns(sb.backend, prog_dir).items():
                    add("native backend", prog, time_calls(fn, args.n))
            finally:
                sb.close()
        except Exception as e:
            notes.append(f"native row skipped: {type(e).__name__}: {e}")

    # The headline: how much cheaper the pool is than a container per execution.
    by = {(r["row"], r["program"]): r["median_ms"] for r in rows}
    for rt in runtimes:
        for prog in ("true", "python"):
            run, pool = by.get((f"docker run ({rt})", prog)), by.get((f"docker backend ({rt})", prog))
            if run and pool:
                notes.append(f"{rt} {prog}: docker run {run:.0f} ms vs pool {pool:.1f} ms -> {run / pool:.0f}x cheaper")
    print()
    for n in notes:
        print("note:", n)
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "notes": notes, "cpus": os.cpu_count(), "image": IMAGE,
                       "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
