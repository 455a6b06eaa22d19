"""CPU per execution of C++ programs under this checkout's compile flags (``sandbox/languages.py``).

    python bench/cpp_cpu.py [--tiny N] [--heavy N]

Through the library on the native backend (a state folder of its own), three programs: a tiny
one (read three numbers, print their sum: what a reward request runs), N times; one that calls a
function with a stack buffer 2 * 10^7 times (the most the stack protector can cost: a canary set
and checked on every call), and a tight loop over an array (no stack buffer: what it should not
cost), N times each. Prints the median and the spread of each one's CPU time as the sandbox
measures it. Run it in two checkouts alternately to compare compile flags;
the numbers move with the machine's load, so compare rounds run side by side.
"""

from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

from bench.program_cpu import bench_language  # noqa: E402

TINY = ("#include <cstdio>\nint main() { long long t = 0, x; while (scanf(\"%lld\", &x) == 1) t += x;\n"
        "  printf(\"%lld\\n\", t); }\n")
STACK_BUFFERS = ("#include <cstdio>\n#include <cstring>\n"
                 "static int f(int x) { char b[64]; snprintf(b, sizeof b, \"%d\", x); return (int)strlen(b) + b[0]; }\n"
                 "int main() { long long s = 0; for (int i = 0; i < 20000000; i++) s += f(i);\n"
                 "  printf(\"%lld\\n\", s); }\n")
LOOP = ("#include <cstdio>\n#include <vector>\nint main() { int n = 20000; std::vector<long long> v(n); long long t = 0;\n"
        "  for (int i = 0; i < n; i++) v[i] = (i * 2654435761LL) % 1000003;\n"
        "  for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) if (((v[i] ^ v[j]) & 7) == 3) t += v[i] * v[j] % 7;\n"
        "  printf(\"%lld\\n\", t); }\n")


def main() -> None:
    bench_language("cpp", "cpp_cpu", __doc__, TINY,
                   [("stack buffers, 2e7 calls", STACK_BUFFERS, ""), ("tight loop, 2e8 steps", LOOP, "")])


if __name__ == "__main__":
    main()
