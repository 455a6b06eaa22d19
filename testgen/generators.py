"""Generator families that need no LLM: regular, boundary, special, stress, mutation.

Each family is a function (model, rng, count) -> candidates. Function-call problems use
``FunctionModel``; stdin/stdout problems use ``StdioModel``. All are deterministic under
``seed``. ``generate`` runs every family and returns the pool in a fixed order (seeds
first, so deduplication keeps them).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .candidates import Candidate
from .inputs import FunctionModel, size_ok
from .rng import stream
from .smodel import StdioModel


@dataclass
class Budget:
    """How many candidates each family may propose (before validation and dedupe)."""

    regular: int = 40
    boundary: int = 40
    special: int = 30
    stress: int = 10
    mutation: int = 100
    widen: int = 30

    def scaled(self, factor: float) -> "Budget":
        return Budget(*(max(1, int(getattr(self, f) * factor)) for f in ("regular", "boundary", "special", "stress",
                                                                           "mutation", "widen")))


# ---------------------------------------------------------------- function-call problems


def f_regular(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    return [Candidate("regular", args=[sp.random(rng) for sp in m.specs]) for _ in range(n)]


def f_boundary(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    """One argument at a boundary value, the others from a seed (one at a time), then all at once."""
    out: list[Candidate] = []
    for i, sp in enumerate(m.specs):
        for b in sp.boundary():
            args = m.base(rng)
            args[i] = b
            out.append(Candidate("boundary", args=args, note=f"arg{i}={b!r}"[:60]))
    bounds = [sp.boundary() for sp in m.specs]
    if all(bounds):
        for k in range(max(len(b) for b in bounds)):
            out.append(Candidate("boundary", args=[b[min(k, len(b) - 1)] for b in bounds], note="all"))
    rng.shuffle(out)
    return out[:n]


def f_special(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    out: list[Candidate] = []
    for i, sp in enumerate(m.specs):
        for v in sp.special(rng):
            args = m.base(rng)
            args[i] = v
            out.append(Candidate("special", args=args))
    rng.shuffle(out)
    return out[:n]


def f_stress(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    """Max-size inputs: each argument big in turn, then all of them big."""
    out: list[Candidate] = []
    for i, sp in enumerate(m.specs):
        for v in sp.stress(rng):
            args = m.base(rng)
            args[i] = v
            out.append(Candidate("stress", args=args, note=f"arg{i}"))
    out.append(Candidate("stress", args=[sp.random(rng, big=True) for sp in m.specs], note="all"))
    rng.shuffle(out)
    return out[:n]


def f_mutation(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    """Type-aware mutations of the seeds: 1-3 edits of one seed's arguments."""
    pool = [s for s in m.seeds if len(s) == m.arity]
    if not pool:
        return []
    out: list[Candidate] = []
    for _ in range(n):
        args = list(rng.choice(pool))
        for _ in range(rng.choice((1, 1, 2, 3))):
            i = rng.randrange(m.arity)
            args[i] = m.specs[i].mutate(args[i], rng)
        out.append(Candidate("mutation", args=args))
    return out


def f_widen(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    """Seeds with one argument pushed just outside the seen domain (negative, zero, empty)."""
    out: list[Candidate] = []
    pool = [s for s in m.seeds if len(s) == m.arity]
    for s in pool:
        for i, sp in enumerate(m.specs):
            for v in sp.widen(s[i], rng):
                args = list(s)
                args[i] = v
                out.append(Candidate("widen", args=args, note=f"arg{i}"))
    rng.shuffle(out)
    return out[:n]


# Families that only run when asked for by name: `widen` steps outside the domain the seeds
# show, and on HumanEval it cost TPR (golds agree on inputs the contract excludes, other correct
# programs do not), so it is off by default.
OPT_IN = ("widen",)

FUNCTION_FAMILIES: dict[str, Callable[[FunctionModel, random.Random, int], list[Candidate]]] = {
    "regular": f_regular, "boundary": f_boundary, "special": f_special, "stress": f_stress,
    "mutation": f_mutation, "widen": f_widen,
}


# ---------------------------------------------------------------- stdin/stdout problems


def s_family(kind: str) -> Callable[[StdioModel, random.Random, int], list[Candidate]]:
    def gen(m: StdioModel, rng: random.Random, n: int) -> list[Candidate]:
        return [Candidate(kind, stdin=s) for s in m.draw(kind, rng, n)]

    return gen


STDIO_FAMILIES = {k: s_family(k) for k in ("regular", "boundary", "special", "stress", "mutation")}


def generate(problem_io: str, model: Any, seeds: list[dict[str, Any]], seed: int, pid: str,
             budget: Optional[Budget] = None, families: Optional[list[str]] = None) -> list[Candidate]:
    """Seeds first, then every family's proposals; values too big to be sane are dropped."""
    budget = budget or Budget()
    out: list[Candidate] = []
    for t in seeds:
        if problem_io == "function":
            out.append(Candidate("seed", args=list(t["args"])))
        else:
            out.append(Candidate("seed", stdin=t["stdin"]))
    table = FUNCTION_FAMILIES if problem_io == "function" else STDIO_FAMILIES
    for name, fam in table.items():
        if families is not None and name not in families:
            continue
        if families is None and name in OPT_IN:
            continue
        if model is None:
            continue
        rng = stream(seed, pid, name)
        for c in fam(model, rng, getattr(budget, name)):
            if c.args is not None:
                c.args = model.fix(c.args, rng)
                if not size_ok(c.args):
                    continue
            if c.stdin is not None and len(c.stdin) > 4_000_000:
                continue
            out.append(c)
    return out
