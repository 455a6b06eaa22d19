"""A problem's grammar family: every script's inputs, drawn in a bounded child process.

    python -m testgen.grammar.family   # the child: a job as JSON on stdin, JSON lines out
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from typing import Iterator

from ..input_caps import InputCaps, caps, caps_in_force
from ..rng import stream
from .generator import Grammar, plans
from .script import GrammarError

FAMILY_SECONDS = 240.0  # the child process that draws a problem's family: killed past this
FAMILY_MEMORY = 4 << 30  # ... or its address space past this


def draw_family(grammars: list[str], seen: str, seed: int, pid: str, n: int,
                stress_only: bool = False) -> Iterator[tuple[str, str, str]]:
    """(family, input, note) for each input drawn from each script, as it is drawn: half of ``n``
    small and medium ones and a sixth at the boundaries (family ``grammar``; a script with no
    loop has the whole grid of its integers' ends instead, family ``corner``), a third in the
    stress shapes and, where values number things, one along a path and one around a star
    (family ``stress``, note ``shape:grammar-<shape>``; only these with ``stress_only``); a
    script that gives nothing yields ("note", why, "")."""
    for k, source in enumerate(grammars):
        try:
            grammar = Grammar(source, seen)
        except GrammarError as e:
            yield "note", f"no inputs drawn from checktestdata script {k + 1}: {e}", ""
            continue
        rng = stream(seed, pid, f"grammar{k}")
        stress = plans("stress", max(1, n // 3), labels=bool(grammar.labels))
        boundary = grammar.corner_plans() or plans("boundary", max(1, n // 6))
        for plan in stress if stress_only else plans("small", max(1, n // 2)) + boundary + stress:
            try:
                text = grammar.draw(plan, rng)
            except GrammarError as e:
                yield "note", f"no inputs drawn from checktestdata script {k + 1}: {e}", ""
                break
            if text is None:
                continue
            if plan.kind == "stress":
                yield "stress", text, f"shape:grammar-{plan.shape}"
            elif plan.corner is not None:
                yield "corner", text, plan.note
            else:
                yield "grammar", text, plan.note


def draw_family_bounded(grammars: list[str], seen: str, seed: int, pid: str, n: int,
                        timeout_s: float = FAMILY_SECONDS, stress_only: bool = False
                        ) -> tuple[list[tuple[str, str, str]], list[str]]:
    """``draw_family`` in a child process (``python -m testgen.grammar.family``) that is killed past
    ``timeout_s`` (what it drew by then is kept) and limits its own memory: the script is the
    problem's data, and what it asks for must not hang or exhaust the caller. The child draws
    under the caller's input caps. Returns the inputs and the notes."""
    job = json.dumps({"grammars": grammars, "seen": seen, "seed": seed, "pid": pid, "n": n,
                      "stress_only": stress_only, "caps": asdict(caps())})
    notes: list[str] = []
    try:
        p = subprocess.run([sys.executable, "-m", "testgen.grammar.family"], input=job.encode(), capture_output=True,
                           timeout=timeout_s)
        out = p.stdout
        if p.returncode != 0:
            last = p.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {p.returncode}"]
            notes.append(f"drawing from the checktestdata scripts failed: {last[0][:300]}")
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b""
        notes.append(f"drawing from the checktestdata scripts stopped after {timeout_s:.0f} s")
    drawn: list[tuple[str, str, str]] = []
    for line in out.decode(errors="replace").splitlines():
        try:
            family, text, note = json.loads(line)
        except ValueError:
            continue  # the line being written when the child was stopped
        if family == "note":
            notes.append(text)
        else:
            drawn.append((family, text, note))
    return drawn, notes


def main() -> int:
    """The child of ``draw_family_bounded``: a job as JSON on stdin, one JSON line per input out."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (FAMILY_MEMORY, FAMILY_MEMORY))
    job = json.load(sys.stdin)
    with caps_in_force(InputCaps(**job["caps"])):
        for item in draw_family(job["grammars"], job["seen"], job["seed"], job["pid"], job["n"], job["stress_only"]):
            sys.stdout.write(json.dumps(item) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
