"""Does a change to test synthesis's input models change what they draw? A fingerprint per problem.

    python bench/testgen_fingerprint.py --out before.json                  # in the tree before
    python bench/testgen_fingerprint.py --out after.json --against before.json   # in the tree after

For every problem of the data sets (``--datasets``, from ``--data-dir``; ``--files``: problem
files besides them): the input model inferred from the samples (a function problem's: its seeds'
arguments) and the statement (``pipeline._describe_model`` and the model's own
``repr``), then every candidate of every family at the default budget (``generators.generate``,
seed 0) and the mutation, special and stress families again with seed 7, hashed together (SHA-256,
16 hex digits). A refactor that moves code without changing behaviour leaves every fingerprint as
it was; ``--against`` lists the problems whose fingerprint differs and exits 1 when any does.
Nothing runs in a sandbox; about a minute and a half for the three stdin sets on one core.
Set ``PYTHONHASHSEED`` the same in both runs (the drawing itself does not depend on it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

if __package__ in (None, ""):  # run as a script: the checkout it is in (or the cwd) is importable
    sys.path.insert(0, os.getcwd())

from testgen.generators import Budget, generate  # noqa: E402
from testgen.inputs import FunctionModel  # noqa: E402
from testgen.pipeline import _describe_model  # noqa: E402
from testgen.problem import load_problem  # noqa: E402
from testgen.smodel import StdioModel  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")


def fingerprint(rec: dict) -> str | None:
    """The problem's fingerprint, or None for an unsupported problem."""
    p = load_problem(rec, "cpp20")
    if p.unsupported:
        return None
    h = hashlib.sha256()
    try:
        if p.is_function:
            m = FunctionModel.infer([s["args"] for s in p.seeds], p.statement, p.entry_point or "",
                                    p.gold[0].code if p.gold else "")
        else:
            m = StdioModel.infer([s["stdin"] for s in p.seeds], p.statement)
    except ValueError as e:  # no model: the reason is what is compared
        h.update(f"ValueError {e}".encode())
        return h.hexdigest()[:16]
    h.update(json.dumps(_describe_model(m), sort_keys=True, default=str).encode())
    if not p.is_function:  # a function model's repr names every field of its specs: what it draws is compared
        h.update(repr(m).encode())
    for seed, families in ((0, None), (7, ["mutation", "special", "stress"])):
        for c in generate(p.io, m, p.seeds, seed, p.id, Budget(), families):
            drawn = json.dumps(c.args, default=repr) if p.is_function else (c.stdin or "")
            h.update(f"{c.family}\0{drawn}\0{c.note or ''}\0".encode())
    return h.hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default=DATA)
    ap.add_argument("--datasets", default="stdio-contest,stdio-bapc,stdio-toy",
                    help="data sets under --data-dir (humaneval's are function problems)")
    ap.add_argument("--files", default="", help="problem files (JSONL) besides them, comma-separated")
    ap.add_argument("--out", help="write {problem id: fingerprint} here as JSON")
    ap.add_argument("--against", help="a JSON written by an earlier run: list the problems that differ")
    a = ap.parse_args()
    prints: dict[str, str] = {}
    paths = [os.path.join(a.data_dir, ds, "problems.jsonl") for ds in a.datasets.split(",") if ds]
    for path in paths + [f for f in a.files.split(",") if f]:
        if not os.path.isfile(path):
            print(f"no problem file at {path}", file=sys.stderr)
            return 2
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                fp = fingerprint(rec)
                if fp is not None:
                    prints[rec["id"]] = fp
                    print(f"{rec['id']:55} {fp}", file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(prints, f, indent=1, sort_keys=True)
    print(f"{len(prints)} problems fingerprinted")
    if a.against:
        with open(a.against) as f:
            before = json.load(f)
        differ = sorted(k for k in set(before) | set(prints) if before.get(k) != prints.get(k))
        print(f"{len(differ)} differ from {a.against}" + "".join(f"\n  {k}" for k in differ))
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
