"""Does the input model read a statement written as plain text as it reads the Kattis LaTeX original?

    python bench/statement_reading.py [--datasets stdio-contest,stdio-bapc,stdio-toy] [--caret] [--show N]

Held-out problem sets come as LaTeX (Kattis, BAPC), as plain text copied from a web page
(Codeforces, AtCoder, olympiad archives: `Input` headings, names without `$`, `≤`, `2·10⁵`), or as
Markdown. This rewrites every stdin problem's LaTeX statement of the data sets as such plain text
(``to_plain``: headings on lines of their own, math without delimiters, `\\le` as `≤`, `\\cdot` as
`·`, `a_{i}` as `ai`, powers as superscripts, or as `10^5` with ``--caret``) and infers the input
model from the samples with each statement. It counts the problems whose two readings agree: the
layout, and every slot's kind, range and lengths, the count's range, the sum bound. A reading that
differs is one the plain-text statement loses (narrower or wider ranges, so smaller stress inputs or
inputs outside the domain). Nothing runs in a sandbox; the numbers are the same on every machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

from testgen.problem import load_problem  # noqa: E402
from testgen.smodel import StdioModel  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _math_plain(m: str, caret: bool) -> str:
    m = re.sub(r"\\(?:leq|le)(?![A-Za-z])", "≤", m)
    m = re.sub(r"\\(?:geq|ge)(?![A-Za-z])", "≥", m)
    m = re.sub(r"\\(?:cdot|times)(?![A-Za-z])", "·", m)
    m = re.sub(r"\\ell(?![A-Za-z])", "ℓ", m)
    m = re.sub(r"\\[lc]?dots(?![A-Za-z])", "…", m)
    m = re.sub(r"10\^\{?(-?\d+)\}?", lambda g: "10" + ("^" + g.group(1) if caret else g.group(1).translate(_SUPERSCRIPT)), m)
    m = re.sub(r"([A-Za-z])_\{?([A-Za-z0-9]+)\}?", r"\1\2", m)
    m = re.sub(r"\\(?:,|;|!|quad)", " ", m).replace("\\ ", " ")
    m = re.sub(r"\\(?:text|texttt|mathrm|textrm|mathit)\{([^}]*)\}", r"\1", m)
    m = re.sub(r"(?<![\w)])-(?=\s*\d)", "−", m)
    return m.replace("\\{", "{").replace("\\}", "}")


def to_plain(statement: str, caret: bool = False) -> str:
    """The statement as text copied from a web page."""
    t = re.sub(r"\\begin\{Input\}|\\(?:sub)?section\*?\{Input\}", "\n\nInput\n\n", statement)
    t = re.sub(r"\\begin\{Output\}|\\(?:sub)?section\*?\{Output\}", "\n\nOutput\n\n", t)
    t = re.sub(r"\\end\{(?:Input|Output)\}|\\(?:begin|end)\{itemize\}", "\n", t)
    t = re.sub(r"\\item\b", "\n\n", t)
    t = re.sub(r"\$([^$]+)\$", lambda g: _math_plain(g.group(1), caret), t)
    return re.sub(r"\\emph\{([^}]*)\}|\\textbf\{([^}]*)\}", lambda g: g.group(1) or g.group(2), t)


def reading(m: StdioModel) -> list:
    """What the model read: layout, every slot's domain, counts, the sum bound, the sections."""
    def slots(mm: StdioModel):
        yield from (sl for ln in mm.lines or [] for sl in ln)
        yield from mm.row or []
        if mm.elem is not None:
            yield mm.elem

    out: list = [(m.shape, m.count_lo, m.count_hi)]
    out += [(sl.kind, sl.lo, sl.hi, sl.min_len, sl.max_len) for sl in slots(m)]
    if m.cases is not None:
        inner = m.cases.inner
        out += [("cases", m.cases.total_hi, inner.count_lo, inner.count_hi)]
        out += [(sl.kind, sl.lo, sl.hi, sl.min_len, sl.max_len) for sl in slots(inner)]
    if m.sections is not None:
        out.append(("sections", m.sections.signature()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="stdio-contest,stdio-bapc,stdio-toy")
    ap.add_argument("--data-dir", default=DATA)
    ap.add_argument("--caret", action="store_true", help="powers as 10^5 (default: superscripts, 10⁵)")
    ap.add_argument("--show", type=int, default=10, help="list this many problems whose readings differ")
    args = ap.parse_args()
    agree, differ = 0, []
    for ds in args.datasets.split(","):
        path = os.path.join(args.data_dir, ds, "problems.jsonl")
        if not os.path.exists(path):
            sys.exit(f"statement_reading: no {path} (--data-dir)")
        with open(path, encoding="utf-8") as f:
            for line in f:
                p = load_problem(json.loads(line))
                if p.is_function or p.unsupported or not p.seeds:
                    continue
                seeds = [s["stdin"] for s in p.seeds]
                latex = reading(StdioModel.infer(seeds, p.statement))
                plain = reading(StdioModel.infer(seeds, to_plain(p.statement, args.caret)))
                if latex == plain:
                    agree += 1
                else:
                    differ.append((p.id, [(a, b) for a, b in zip(latex, plain) if a != b][:2]))
    total = agree + len(differ)
    print(f"plain-text statements ({'10^5' if args.caret else '10⁵'}) read as their LaTeX originals: "
          f"{agree}/{total} stdin problems")
    for pid, first in differ[:args.show]:
        print(f"  {pid}: LaTeX vs plain {first}"[:240])


if __name__ == "__main__":
    main()
