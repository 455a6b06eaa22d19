"""CPU per execution of TypeScript programs under this checkout's commands (``sandbox/languages.py``).

    python bench/ts_cpu.py [--tiny N] [--heavy N]

Through the library on the native backend (a state folder of its own), two programs: a tiny one
(read numbers, print their sum: what a reward request runs), N times, and a CPU-bound loop, N
times. Prints the median and the spread of each one's CPU time as the sandbox measures it, which
is what a time limit counts: a runtime's start is paid by every test. Run it in two checkouts
alternately to compare (tsx per test against esbuild once and node per test); the numbers move
with the machine's load, so compare rounds run side by side.
"""

from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

from bench.program_cpu import bench_language  # noqa: E402

TINY = ('const nums: number[] = require("fs").readFileSync(0, "utf8").trim().split(/\\s+/).map(Number);\n'
        'console.log(nums.reduce((a: number, b: number) => a + b, 0));\n')
LOOP = ("let t: number = 0;\nfor (let i = 0; i < 20000; i++) for (let j = i + 1; j < 20000; j++) "
        "if (((i * 7) ^ j) % 8 === 3) t += 1;\nconsole.log(t);\n")


def main() -> None:
    bench_language("typescript", "ts_cpu", __doc__, TINY, [("loop, 2e8 steps", LOOP, "")])


if __name__ == "__main__":
    main()
