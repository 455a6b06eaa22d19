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

import json
import os
import random
import sys

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

from bench.program_cpu import language_bench, run_counts  # noqa: E402

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


def main() -> None:
    tiny, heavy = run_counts(__doc__)
    with language_bench("java", "jvm_cpu") as measure:
        measure("tiny (sum of 3 numbers)", TINY, "1 2 3\n", tiny)
        if heavy:
            measure("tight loop, 2e8 steps", LOOP, "", heavy)
        program = heavy_program() if heavy else None
        if program:
            measure("decryptingzodiac, n=1.5e5", program[0], program[1], heavy)
        elif heavy:
            print(f"CPU-bound program skipped: {DATA} is not here")


if __name__ == "__main__":
    main()
