"""CPU per execution of a Java program under this checkout's JVM flags (``sandbox/languages.py``).

    python bench/jvm_cpu.py [--tiny N] [--heavy N]

Through the library on the native backend (a state folder of its own), three programs: a tiny
one (read three numbers, print their sum: what a reward request runs), N times; a tight double
loop over an array (2 * 10^8 steps), and a CPU-bound one (a jury solution of stdio-contest, ``decryptingzodiac/PaulOptimized.java``, on a random input of
the stated maximum, n = 1.5 * 10^5; from ``../shared/data``, skipped when that is absent), N
times. Prints the median and the spread of each one's CPU time as the sandbox measures it (every
thread of the JVM: what a time limit counts). Run it in two checkouts alternately to compare JVM
flags; the numbers move with the machine's load, so compare rounds run side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

from sandbox import Limits, RunRequest, Sandbox, SandboxConfig, TestCase, Verdict  # noqa: E402

TINY = ("import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
        "  Scanner s = new Scanner(System.in); long t = 0;\n"
        "  while (s.hasNextInt()) t += s.nextInt();\n  System.out.println(t); } }\n")
LOOP = ("public class Main { public static void main(String[] a) {\n"
        "  int n = 20000; long[] v = new long[n]; long t = 0;\n"
        "  for (int i = 0; i < n; i++) v[i] = (i * 2654435761L) % 1000003;\n"
        "  for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (((v[i] ^ v[j]) & 7) == 3) t += v[i] * v[j] % 7;\n"
        "  System.out.println(t); } }\n")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "stdio-contest",
                    "problems.jsonl")
HEAVY_ID, HEAVY_PATH = "gcpc2021/decryptingzodiac", "accepted/PaulOptimized.java"


def heavy_program() -> tuple[str, str] | None:
    """The CPU-bound jury solution and a maximum-size input for it, or None without the data."""
    if not os.path.isfile(DATA):
        return None
    with open(DATA) as f:
        for line in f:
            rec = json.loads(line)
            if rec["id"] == HEAVY_ID:
                code = next(g["code"] for g in rec["gold_solutions"] if g["source_path"].endswith(HEAVY_PATH))
                rng = random.Random(0)
                n = 150_000
                words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)) for _ in range(2)]
                return code, f"{n}\n{words[0]}\n{words[1]}\n"
    return None


def cpu_times(sb: Sandbox, code: str, stdin: str, n: int) -> list[float]:
    lim = Limits(time_s=20, wall_time_s=60, memory_mb=1024)
    res = sb.run(RunRequest(language="java", code=code, tests=[TestCase(stdin=stdin)] * n, limits=lim))
    bad = [t.verdict.value for t in res.tests if t.verdict != Verdict.AC]
    if bad or res.compile is None or not res.compile.ok:
        sys.exit(f"jvm_cpu: the program did not run cleanly: {bad or res.compile}")
    return [t.time_s for t in res.tests]


def show(name: str, times: list[float]) -> None:
    print(f"{name:28s} median {statistics.median(times) * 1000:8.1f} ms CPU  "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}, {len(times)} runs)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", type=int, default=30, help="runs of the tiny program")
    ap.add_argument("--heavy", type=int, default=3, help="runs of the CPU-bound program (0: skip)")
    args = ap.parse_args()
    state = tempfile.mkdtemp(prefix="codetest-jvm-cpu-")
    os.chmod(state, 0o755)
    sb = Sandbox(SandboxConfig(state_dir=state))
    try:
        show("tiny (sum of 3 numbers)", cpu_times(sb, TINY, "1 2 3\n", args.tiny))
        if args.heavy:
            show("tight loop, 2e8 steps", cpu_times(sb, LOOP, "", args.heavy))
        heavy = heavy_program() if args.heavy else None
        if heavy:
            show("decryptingzodiac, n=1.5e5", cpu_times(sb, heavy[0], heavy[1], args.heavy))
        elif args.heavy:
            print(f"CPU-bound program skipped: {DATA} is not here")
    finally:
        sb.close()


if __name__ == "__main__":
    main()
