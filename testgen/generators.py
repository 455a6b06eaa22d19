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
from .inputs import FloatSpec, FunctionModel, IntSpec, ListSpec, StrSpec, size_ok
from .rng import stream
from .input_caps import caps
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
    relations: int = 30
    structured: int = 40
    grammar: int = 30  # stdin problems with a checktestdata grammar (testgen/grammar/)
    corner: int = 40  # the corner grid of a stdin input of a few values (testgen/corners.py); not scaled

    def scaled(self, factor: float) -> "Budget":
        """Every family's budget times ``factor``, but the corner grid's: a grid is whole or it is
        not a grid (as the grammar's ``CORNER_POINTS``)."""
        return Budget(*(max(1, int(getattr(self, f) * factor)) for f in ("regular", "boundary", "special", "stress",
                                                                           "mutation", "widen", "relations",
                                                                           "structured", "grammar")),
                      corner=self.corner)


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
    """Max-size inputs: each argument big in turn, then all of them big; and every argument's
    worst-case shapes (``Spec.stress_shapes``), which the budget never cuts."""
    out: list[Candidate] = []
    shaped: list[Candidate] = []
    for i, sp in enumerate(m.specs):
        for v in sp.stress(rng):
            args = m.base(rng)
            args[i] = v
            out.append(Candidate("stress", args=args, note=f"arg{i}"))
        for shape, v in sp.stress_shapes().items():
            args = m.base(rng)
            args[i] = v
            shaped.append(Candidate("stress", args=args, note=f"shape:{shape}-arg{i}"))
    out.append(Candidate("stress", args=[sp.random(rng, big=True) for sp in m.specs], note="all"))
    rng.shuffle(out)
    return out[:n] + shaped


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


def _numbers_of(v: Any) -> Optional[list[Any]]:
    if isinstance(v, list) and v and all(type(x) in (int, float) for x in v):
        return v
    return None


def f_relations(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    """Values on both sides of the seeds, inside the domain: a number searched in (compared with)
    a list of numbers gets a value equal to an element, below all, above all and between two
    (absent); an int that indexes a list gets 0 and the list's length. The number and the list's
    elements share a domain, so these stay inside what the problem admits."""
    out: list[Candidate] = []
    pool = [s for s in m.seeds if len(s) == m.arity]
    index_pairs = set(m.invariants.index_of)
    for s in pool:
        for i, sp in enumerate(m.specs):
            if not isinstance(sp, (IntSpec, FloatSpec)) or type(s[i]) not in (int, float):
                continue
            for j in range(m.arity):
                if j == i:
                    continue
                if (i, j) in index_pairs:  # an index or a count into arg j: 0 and its length
                    if isinstance(s[j], (list, str)) and isinstance(sp, IntSpec) and not sp.stated:
                        for v in (0, len(s[j])):
                            if v >= sp.lo or (v == 0 and not sp.lo_stated and not m.hints.positive):
                                args = list(s)
                                args[i] = v
                                # kept by selection as a shape of its own, one per argument (k = 0)
                                out.append(Candidate("relations", args=args,
                                                     note=f"shape:index-{'0' if v == 0 else 'len'}-arg{i}"))
                    continue
                nums = _numbers_of(s[j])
                elem = getattr(m.specs[j], "elem", None)
                if nums is None or not isinstance(elem, (IntSpec, FloatSpec)):
                    continue
                lo_dom = min(elem.lo, sp.lo)  # the elements' domain and the number's: the same kind of value
                if sp.lo_stated:
                    lo_dom = sp.lo  # unless the statement bounds the number apart ("0 <= k <= 10^5")
                srt = sorted(set(nums))
                vals = [rng.choice(nums), srt[0], srt[-1], srt[0] - 1, srt[-1] + 1]
                gaps = [(a, b) for a, b in zip(srt, srt[1:]) if b - a > 1 or isinstance(a, float)]
                if gaps:
                    a, b = rng.choice(gaps)
                    vals.append((a + b) // 2 if isinstance(sp, IntSpec) else (a + b) / 2)
                for v in vals:
                    if v < lo_dom or (getattr(sp, "stated", False) and v > sp.hi):
                        continue
                    args = list(s)
                    args[i] = int(v) if isinstance(sp, IntSpec) else float(v)
                    out.append(Candidate("relations", args=args, note=f"arg{i} vs arg{j}"))
    rng.shuffle(out)
    shaped = _each_shape_in_turn(_emptied(m, pool, rng) + _negated(m, pool, rng) + _overlapping(m, pool, rng)
                                  + _tied(m, pool, rng) + _empty_word(m, pool, rng)
                                  + _runs_of(m, pool, index_pairs, rng) + _extremes(m, pool, index_pairs, rng))
    return (shaped[: n // 2] + out)[:n]


def _each_shape_in_turn(cands: list[Candidate]) -> list[Candidate]:
    """The first candidate of every shape, then every shape's second, ...: a budget that cuts the
    list keeps one of each."""
    by_note: dict[str, list[Candidate]] = {}
    for c in cands:
        by_note.setdefault(c.note, []).append(c)
    rounds = max((len(v) for v in by_note.values()), default=0)
    return [v[k] for k in range(rounds) for v in by_note.values() if k < len(v)]


def _negated(m: FunctionModel, pool: list[list[Any]], rng: random.Random) -> list[Candidate]:
    """Each seed with one list of numbers negated, and with all of them at once where there are
    several (their common values stay common), where every seed's elements are >= 0 and the
    statement bounds them nowhere ("positive", "non-negative", ``0 <= arr[i]``): a list of
    integers holds negative ones too, and a list of them all below zero is where a running
    maximum started at 0, or a sum compared with 0, goes wrong."""
    out: list[Candidate] = []
    for s in pool:
        which = [i for i, sp in enumerate(m.specs) if _unbounded_numbers(sp, s[i])]
        for i in which:
            args = list(s)
            args[i] = [-x for x in s[i]]
            out.append(Candidate("relations", args=m.fix(args, rng), note=f"shape:negated-arg{i}"))
        if len(which) > 1:
            args = [[-x for x in v] if i in which else v for i, v in enumerate(s)]
            out.append(Candidate("relations", args=m.fix(args, rng), note="shape:negated-all"))
    return out


def _unbounded_numbers(sp: Any, value: Any) -> bool:
    """A list of numbers, not all zero, whose elements the seeds show >= 0 and no statement bounds
    (``lo_stated``: "positive", "non-negative", ``0 <= arr[i]``)."""
    elem = getattr(sp, "elem", None)
    return (isinstance(elem, (IntSpec, FloatSpec)) and elem.lo >= 0 and not elem.lo_stated
            and _numbers_of(value) is not None and any(value))


def _shape(m: FunctionModel, args: list[Any], rng: random.Random, note: str, family: str = "relations"
           ) -> list[Candidate]:
    """``args`` brought back inside the seeds' relations as a candidate of a shape of its own
    (selection keeps one of each, the largest, as it keeps stress shapes), or none where that puts
    an argument outside its domain (an index into an emptied list may not go to 0)."""
    args = m.fix(args, rng)
    return [Candidate(family, args=args, note=note)] if all(sp.accepts(v) for sp, v in zip(m.specs, args)) else []


def _overlapping(m: FunctionModel, pool: list[list[Any]], rng: random.Random) -> list[Candidate]:
    """Each seed whose two lists hold one kind of value, made to share values, each shared value
    twice in both (once where a list's values are distinct, ``Invariants.distinct_args``): where
    one list is compared with another (common elements, a union, an exchange), random draws from
    a wide domain rarely share any, and duplicates of a shared value are where "unique" goes
    wrong."""
    out: list[Candidate] = []
    lists = [i for i, sp in enumerate(m.specs) if isinstance(getattr(sp, "elem", None), (IntSpec, FloatSpec, StrSpec))]
    for s in pool:
        for a, b in ((a, b) for a in lists for b in lists if a < b):
            if not s[a] or type(m.specs[a].elem) is not type(m.specs[b].elem):
                continue
            shared = rng.sample(s[a], max(1, len(s[a]) // 2))
            args = list(s)
            args[a] = s[a] + shared
            args[b] = list(s[b]) + shared * 2
            rng.shuffle(args[b])
            out += _shape(m, args, rng, f"shape:overlap-arg{a}-arg{b}")
    return out


def _runs_of(m: FunctionModel, pool: list[list[Any]], index_pairs: set[tuple[int, int]], rng: random.Random
             ) -> list[Candidate]:
    """Each seed whose number is searched in (compared with) its list of numbers, with the list made
    a run of that number: every element equal to it, and (for the seeds whose list is sorted) a run
    of it from the first place followed by the larger elements. A search that finds one place of the
    number and walks from there, or halves a range whose ends are equal, goes wrong on a run that
    starts at index 0, and random lists from a wide domain never hold one."""
    out: list[Candidate] = []
    for s in pool:
        for i, sp in enumerate(m.specs):
            if not isinstance(sp, (IntSpec, FloatSpec)) or type(s[i]) not in (int, float):
                continue
            for j in range(m.arity):
                nums = _numbers_of(s[j]) if j != i and (i, j) not in index_pairs else None
                if nums is None or not isinstance(getattr(m.specs[j], "elem", None), type(sp)) or len(nums) < 2:
                    continue
                v = s[i]
                args = list(s)
                args[j] = [v] * len(nums)
                out += _shape(m, args, rng, f"shape:run-arg{i}-in-arg{j}")
                if nums == sorted(nums) and v in nums:
                    args = list(s)
                    args[j] = [v] * (nums.count(v) + 1) + [x for x in nums if x > v]
                    out += _shape(m, args, rng, f"shape:run-first-arg{i}-in-arg{j}")
    return out


EXTREME_MAX = 10**6  # a stated maximum above this is a size no gold walks one step at a time


def _extremes(m: FunctionModel, pool: list[list[Any]], index_pairs: set[tuple[int, int]], rng: random.Random
              ) -> list[Candidate]:
    """Each seed with its list of numbers cut to one element, the least the statement allows, and a
    number the statement bounds at its stated maximum: the fewest, smallest parts against the largest
    whole (one coin of 1 for an amount of 10^4, one step of 1 for 10^5 stairs) gives the largest
    answer the problem has, where a program's "impossible" marker or a fixed-size table is too
    small. Only values the statement bounds on both ends."""
    out: list[Candidate] = []
    for s in pool:
        for i, sp in enumerate(m.specs):
            if not isinstance(sp, IntSpec) or not sp.stated or type(s[i]) is not int or sp.hi > EXTREME_MAX:
                continue
            for j in range(m.arity):
                elem = getattr(m.specs[j], "elem", None)
                if j == i or (i, j) in index_pairs or _numbers_of(s[j]) is None or not isinstance(elem, IntSpec) \
                        or not elem.lo_stated:
                    continue
                args = list(s)
                args[i], args[j] = sp.hi, [elem.lo]
                out += _shape(m, args, rng, f"shape:extreme-arg{i}-arg{j}")
    return out


def _tied(m: FunctionModel, pool: list[list[Any]], rng: random.Random) -> list[Candidate]:
    """Each seed whose list of words has words of several lengths, with every word cut to the
    shortest one's length: where words are picked or ordered by length (the longest, the first of
    the shortest, sorted by length), a tie is where the rule for ties goes wrong, and random words
    rarely tie. Words of free text only (no separator inside, not a category of fixed values)."""
    out: list[Candidate] = []
    words = [i for i, sp in enumerate(m.specs) if isinstance(getattr(sp, "elem", None), StrSpec)
             and sp.elem.sep is None and sp.elem.choices is None]
    for s in pool:
        for i in words:
            lengths = {len(w) for w in s[i] if isinstance(w, str) and w}
            if len(lengths) < 2:
                continue
            args = list(s)
            args[i] = [w[:min(lengths)] for w in s[i]]
            out += _shape(m, args, rng, f"shape:tied-arg{i}")
    return out


def _empty_word(m: FunctionModel, pool: list[list[Any]], rng: random.Random) -> list[Candidate]:
    """Each seed's list of words with an empty word put first, where the seeds never showed an
    empty word and the statement states no minimum length (``StrSpec.empty``) nor says "non-empty"
    of anything (a list of non-empty strings): a best word kept from a score that starts at 0 is
    still None when the next word is compared with it, and ``word[0]`` fails on it. Not the empty
    word alone: there the answer is the empty word itself, and HumanEval+ labels correct a
    ``longest`` that answers None to ``[""]``."""
    out: list[Candidate] = []
    words = [] if m.hints.non_empty else [i for i, sp in enumerate(m.specs)
                                          if isinstance(getattr(sp, "elem", None), StrSpec) and sp.elem.empty() == ""]
    for s in pool:
        for i in words:
            if not s[i] or "" in s[i]:
                continue
            args = list(s)
            args[i] = [""] + list(s[i])
            out += _shape(m, args, rng, f"shape:empty-word-arg{i}")
    return out


def _emptied(m: FunctionModel, pool: list[list[Any]], rng: random.Random) -> list[Candidate]:
    """Each seed with one sequence argument empty (with the whole group whose length it always
    shares), where the seeds never showed it empty and the statement states no minimum length
    (``Spec.empty``): a search in an empty list, an empty word. Not where the arguments tied to it
    then leave their domain (``top_k(lst, k)`` with k positive: k would be 0). Where the statement
    says it may be empty ("s may be empty", "if the list is empty, ...") and no seed shows it, the
    input is a corner case a setter writes by hand: kept whole, as the corner family is."""
    out: list[Candidate] = []
    for s in pool:
        for i in range(m.arity):
            group = m.invariants.group_of(i)
            if i != min(group) or not s[i]:
                continue
            said = all(_said_empty(m, j) for j in group)
            if not said and any(m.specs[j].empty() is None for j in group):
                continue
            args = list(s)
            for j in group:
                args[j] = m.specs[j].empty() if not said else "" if isinstance(m.specs[j], StrSpec) else []
            out += _shape(m, args, rng, f"shape:empty-arg{i}", "corner" if said else "relations")
    return out


def _said_empty(m: FunctionModel, j: int) -> bool:
    """Does the statement allow argument ``j`` empty ("s may be empty", "if the list is empty"; not
    "return an empty list", "an empty cell"), where no seed shows it so?"""
    sp = m.specs[j]
    return (m.hints.input_empty and not m.hints.non_empty and isinstance(sp, (StrSpec, ListSpec))
            and sp.min_len == 0 and not getattr(sp, "choices", None)
            and all(isinstance(s[j], (str, list)) and s[j] for s in m.seeds if len(s) == m.arity))


def f_widen(m: FunctionModel, rng: random.Random, n: int) -> list[Candidate]:
    """Seeds with one argument pushed just outside the seen domain (negative, zero, empty), never
    past a bound the statement states (the specs' own ``widen``) nor out of the seeds' relations:
    an argument of a group of equal length is emptied with its whole group, or not at all."""
    out: list[Candidate] = []
    pool = [s for s in m.seeds if len(s) == m.arity]
    for s in pool:
        for i, sp in enumerate(m.specs):
            group = m.invariants.group_of(i)
            for v in sp.widen(s[i], rng):
                args = list(s)
                args[i] = v
                if isinstance(v, (str, list)) and len(v) != len(s[i]):
                    if len(v) or any(not isinstance(args[j], (str, list)) for j in group):
                        continue  # a length the rest of its group does not share
                    for j in group:
                        args[j] = args[j][:0]
                out.append(Candidate("widen", args=m.fix(args, rng), note=f"arg{i}"))
    rng.shuffle(out)
    return out[:n]


# Families that only run when asked for by name: `widen` steps outside the domain the seeds
# show, and on HumanEval it cost TPR (golds agree on inputs the contract excludes, other correct
# programs do not), so it is off by default.
OPT_IN = ("widen",)

FUNCTION_FAMILIES: dict[str, Callable[[FunctionModel, random.Random, int], list[Candidate]]] = {
    "regular": f_regular, "boundary": f_boundary, "special": f_special, "stress": f_stress,
    "mutation": f_mutation, "relations": f_relations, "widen": f_widen,
}


# ---------------------------------------------------------------- stdin/stdout problems


def s_family(kind: str) -> Callable[[StdioModel, random.Random, int], list[Candidate]]:
    def gen(m: StdioModel, rng: random.Random, n: int) -> list[Candidate]:
        return [Candidate(kind, stdin=s, note=note) for s, note in m.draw_noted(kind, rng, n)]

    return gen


# ``corner`` first: a grid row that another family also draws keeps the corner's name (and so its
# place in the suite) when duplicates are dropped
STDIO_FAMILIES = {k: s_family(k) for k in ("corner", "regular", "boundary", "special", "stress", "mutation",
                                           "structured")}


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
                if not size_ok(c.args) or not model.admits(c.args):
                    continue
            if c.stdin is not None and len(c.stdin) > caps().chars:
                continue
            out.append(c)
    return out


def grammar_family(grammars: list[str], seen: str, seed: int, pid: str, n: int, stress_only: bool = False
                   ) -> tuple[list[Candidate], list[str]]:
    """Inputs drawn from the problem's checktestdata scripts (``testgen.grammar``, in a child
    process bounded in time and memory): family ``grammar``, ``corner`` for the corner grid of a
    script with no loop (kept whole by selection), and ``stress`` for the stress shapes (each
    shape kept by selection like the input model's). Returns them and, per script that could not
    be used, why."""
    from .grammar import draw_family_bounded

    drawn, notes = draw_family_bounded(grammars, seen, seed, pid, n, stress_only=stress_only)
    out = [Candidate(family, stdin=text, note=note) for family, text, note in drawn]
    return out, notes
