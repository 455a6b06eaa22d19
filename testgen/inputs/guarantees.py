"""What a statement guarantees of a list's values, learned from the seeds: kept in every input.

LeetCode-style problems promise their inputs a shape that no type or range says: "you may
assume that each input would have exactly one solution", "the majority element always
exists", "every element appears twice except for one", "n distinct numbers in the range
[0, n]". A list drawn from the values' ranges almost never has that shape, and on such an
input the one gold answers something (the XOR of a list without a single element, the
Boyer-Moore candidate of a list without a majority) that a correct program written another way
does not: every correct program but the gold's twin fails the suite.

Five shapes, each mined Daikon-style: every seed shows it, at least ``MIN_SEEDS`` distinct seeds
of ``MIN_LEN`` or more values (or nodes) do, and the statement has the words for it (``WORDS``). Small
numbers show such shapes by chance (HumanEval/62's coefficients ``[3, 1, 2, 4, 5]``, ``[3, 2, 1,
0, 4]`` are distinct values of 0..n; a top-k task's ``k`` is the sum of one pair of its list), so
the seeds alone are no evidence, as "sorted" needs the statement's word too:

* ``majority``: one value occurs more than half the time, and some seed holds other values
  ("majority", "more than half");
* ``repeated_but_singles``: every value occurs exactly ``c`` >= 2 times but ``m`` >= 1 of them,
  which occur once, ``m`` the same in every seed ("appears twice except for one", "exactly two
  elements appear only once and all the others twice");
* ``range_but_one``: ``n`` distinct values of ``base..base + n`` (base 0 when a seed holds 0,
  else 1), not all of them the first ``n`` (a permutation, kept elsewhere) ("distinct" or
  "unique", and "range" or "missing");
* ``one_pair_sum``: (list, int) arguments where exactly one pair of positions sums to the int
  ("sum" or "add up", and "exactly one", "only one", "one solution").
* ``bst``: a ``TreeNode`` argument (its level-order list) that is a binary search tree ("binary
  search tree", "BST"): the drawn shape keeps its own values, distinct, in rising in-order.

A generated input is repaired to hold each shape (values of its own list, a drawn index pair)
and dropped when it cannot be (``holds``). This only narrows what is generated: a shape the
seeds show by chance costs some inputs, never one outside the problem's domain.

``Promised`` is the fallback for the promises these four do not name ("nums is possibly
rotated", "there is only one repeated number"): where the statement promises the input
something, every shape of an int list that all seeds show is kept, and a draw without one is
dropped (no repair: the model does not know which shape is the promise).
"""

from __future__ import annotations

from collections import Counter
import re
from dataclasses import dataclass, field
from random import Random
from typing import Any, Callable, Optional, Sequence

WORDS = {
    "majority": r"\bmajority\b|more than half",
    "repeated_but_singles": (r"\bexcept\b.*\b(?:once|one)\b|\b(?:twice|thrice|times)\b.*\bexcept\b"
                             r"|\bonce\b.*\b(?:twice|thrice)\b|\b(?:twice|thrice)\b.*\bonce\b"),
    "range_but_one": r"(?=.*\b(?:distinct|unique)\b)(?=.*\b(?:range|missing)\b)",
    "one_pair_sum": r"(?=.*\b(?:sums?|add(?:s)? up)\b)(?=.*\b(?:exactly one|only one|one solution|one valid)\b)",
    "bst": r"binary search tree|\bbsts?\b",
}
MIN_SEEDS = 2  # distinct seeds of MIN_LEN or more values that must show a shape
MIN_LEN = 3
REPAIR_TRIES = 30  # redraws of one value that would make a second pair


def _ints(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


def _scalars(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, (int, str, float)) and not isinstance(x, bool) for x in v)


def has_majority(v: list[Any]) -> bool:
    return bool(v) and Counter(v).most_common(1)[0][1] * 2 > len(v)


def repeat_profile(v: list[Any]) -> Optional[tuple[int, int]]:
    """(c, m) when every value of ``v`` occurs exactly c >= 2 times but m >= 1 of them, which occur
    once; c is 0 when every value occurs once."""
    counts = sorted(Counter(v).values())
    m = counts.count(1)
    rest = set(counts[m:])
    if not m or len(rest) > 1:
        return None
    return (rest.pop() if rest else 0), m


def in_range_but_one(v: list[Any], base: int) -> bool:
    """Are the values of ``v`` len(v) distinct ints of base..base + len(v)?"""
    return _ints(v) and len(set(v)) == len(v) and all(base <= x <= base + len(v) for x in v)


def _range_base(values: list[list[Any]]) -> Optional[int]:
    """0 when some list holds 0, else 1, if every list is distinct values of base..base + its
    length and not every one is base..base + length - 1 exactly (a permutation, missing the top)."""
    if not all(_ints(v) for v in values):
        return None
    base = 0 if any(0 in v for v in values) else 1
    if not all(in_range_but_one(v, base) for v in values):
        return None
    if all(sorted(v) == list(range(base, base + len(v))) for v in values):
        return None
    return base


def sum_pairs(v: list[int], t: int) -> int:
    """How many pairs of positions of ``v`` sum to ``t``."""
    seen: Counter = Counter()
    n = 0
    for x in v:
        n += seen[t - x]
        seen[x] += 1
    return n


@dataclass
class Guarantees:
    majority: list[int] = field(default_factory=list)
    repeated_but_singles: list[tuple[int, int, int]] = field(default_factory=list)  # (arg, c, m)
    range_but_one: list[tuple[int, int]] = field(default_factory=list)  # (arg, base)
    one_pair_sum: list[tuple[int, int]] = field(default_factory=list)  # (list arg, int arg)
    bst: list[int] = field(default_factory=list)  # TreeNode args (level order) that are search trees

    def __bool__(self) -> bool:
        return bool(self.majority or self.repeated_but_singles or self.range_but_one or self.one_pair_sum or self.bst)

    @classmethod
    def mine(cls, seeds: list[list[Any]], arity: int, statement: str = "", trees: Sequence[int] = ()
             ) -> "Guarantees":
        """``trees``: the arguments annotated ``TreeNode``, given as their level-order lists."""
        g = cls()
        text = " ".join(statement.lower().split())
        said = {k: bool(re.search(w, text)) for k, w in WORDS.items()}
        if not any(said.values()):
            return g
        for i in trees if said["bst"] else ():
            values = [s[i] for s in seeds]
            sized = observations([v for v in values if isinstance(v, list)], tree_size)
            if len(sized) >= MIN_SEEDS and all(isinstance(v, list) and is_search_tree(v) for v in values):
                g.bst.append(i)
        for i in range(arity):
            values = [s[i] for s in seeds]
            if not all(_scalars(v) for v in values):
                continue
            longish = observations(values)
            if len(longish) < MIN_SEEDS:
                continue
            if said["majority"] and all(has_majority(v) for v in values) and any(len(set(v)) > 1 for v in longish):
                g.majority.append(i)
            profiles = {repeat_profile(v) for v in values}
            cs = {p[0] for p in profiles if p} - {0}
            if said["repeated_but_singles"] and None not in profiles and len(cs) == 1 \
                    and len({p[1] for p in profiles if p}) == 1:
                g.repeated_but_singles.append((i, cs.pop(), profiles.pop()[1]))
            base = _range_base(values) if said["range_but_one"] else None
            if base is not None:
                g.range_but_one.append((i, base))
            if said["one_pair_sum"] and _ints(values[0]):
                for j in range(arity):
                    ts = [s[j] for s in seeds]
                    if j != i and all(isinstance(t, int) and not isinstance(t, bool) for t in ts) \
                            and all(_ints(s[i]) and sum_pairs(s[i], s[j]) == 1 for s in seeds):
                        g.one_pair_sum.append((i, j))
        return g

    def repair(self, args: list[Any], rng: Random) -> list[Any]:
        """``args`` brought inside every shape where that is possible (``holds`` says whether it was)."""
        args = list(args)
        for i in self.majority:
            v = args[i]
            if isinstance(v, list) and v and not has_majority(v):
                m = rng.choice(v)
                others = [k for k, x in enumerate(v) if x != m]
                rng.shuffle(others)
                need = len(v) // 2 + 1 - (len(v) - len(others))
                v = list(v)
                for k in others[:need]:
                    v[k] = m
                args[i] = v
        for i, c, m in self.repeated_but_singles:
            v = args[i]
            if isinstance(v, list) and len(set(v)) >= m and repeat_profile(v) not in ((c, m), (0, m)):
                distinct = list(dict.fromkeys(v))
                k = min(len(distinct) - m, (len(v) - m) // c)
                out = distinct[:m] + [x for x in distinct[m:m + k] for _ in range(c)]
                rng.shuffle(out)
                args[i] = out
        for i, base in self.range_but_one:
            v = args[i]
            if isinstance(v, list) and not in_range_but_one(v, base):
                out = list(range(base, base + len(v) + 1))
                out.remove(rng.choice(out))
                rng.shuffle(out)
                args[i] = out
        for i, j in self.one_pair_sum:
            v, t = args[i], args[j]
            if _ints(v) and len(v) >= 2 and isinstance(t, int) and sum_pairs(v, t) != 1:
                args[i], args[j] = _one_pair(list(v), rng)
        for i in self.bst:
            v = args[i]
            if isinstance(v, list) and not is_search_tree(v):
                args[i] = _as_search_tree(v)
        return args

    def holds(self, args: list[Any]) -> bool:
        return (all(isinstance(args[i], list) and has_majority(args[i]) for i in self.majority)
                and all(isinstance(args[i], list) and repeat_profile(args[i]) in ((c, m), (0, m))
                        for i, c, m in self.repeated_but_singles)
                and all(isinstance(args[i], list) and in_range_but_one(args[i], b) for i, b in self.range_but_one)
                and all(_ints(args[i]) and isinstance(args[j], int) and sum_pairs(args[i], args[j]) == 1
                        for i, j in self.one_pair_sum)
                and all(isinstance(args[i], list) and is_search_tree(args[i]) for i in self.bst))


def _in_order(level: list[Any]) -> Optional[list[int]]:
    """The positions of a level-order list's nodes (LeetCode's encoding, ``None`` for no child)
    in in-order; None when it encodes no tree (a value that is not a number)."""
    if not level or level[0] is None:
        return []
    kids: dict[int, list[Optional[int]]] = {0: [None, None]}
    queue, k = [0], 1
    while queue and k < len(level):
        node = queue.pop(0)
        for side in (0, 1):
            if k < len(level) and level[k] is not None:
                kids[node][side] = k
                kids[k] = [None, None]
                queue.append(k)
            k += 1
    out: list[int] = []
    stack: list[int] = []
    cur: Optional[int] = 0
    while stack or cur is not None:
        while cur is not None:
            stack.append(cur)
            cur = kids[cur][0]
        cur = stack.pop()
        out.append(cur)
        cur = kids[cur][1]
    if not all(isinstance(level[p], (int, float)) and not isinstance(level[p], bool) for p in out):
        return None
    return out


def observations(values: list[list[Any]], size: Callable[[list[Any]], int] = len, least: int = MIN_LEN
                 ) -> list[list[Any]]:
    """The values of ``least`` or more elements (``size``), each once: a value several seeds
    share is one observation, not several."""
    return list({hashable(v): v for v in values if size(v) >= least}.values())


def hashable(x: Any) -> Any:
    """A key for a JSON value that tells 1, 1.0 and True apart."""
    if isinstance(x, list):
        return tuple(hashable(y) for y in x)
    if isinstance(x, dict):
        return tuple(sorted((k, hashable(v)) for k, v in x.items()))
    return (type(x).__name__, x)


def tree_size(level: list[Any]) -> int:
    """How many nodes a level-order list encodes (none when its root is null, whatever follows)."""
    return len(_in_order(level) or [])


def is_search_tree(level: list[Any]) -> bool:
    """Does the level-order list encode a binary search tree (values rising in in-order)?"""
    order = _in_order(level)
    return order is not None and all(level[a] < level[b] for a, b in zip(order, order[1:]))


def _as_search_tree(level: list[Any]) -> list[Any]:
    """The same tree shape with its own values, made distinct (counting up past the largest where
    too few), placed in rising in-order: a binary search tree."""
    order = _in_order(level)
    if not order:
        return level
    values = sorted({level[p] for p in order})
    while len(values) < len(order):
        values.append(values[-1] + 1)
    out = list(level)
    for p, v in zip(order, values):
        out[p] = v
    return out


def _one_pair(v: list[int], rng: Random) -> tuple[list[int], int]:
    """``v`` and a target that exactly one pair of its positions sums to: a drawn pair's sum, the
    other values redrawn (within the list's own range) where they would make a second pair."""
    p, q = sorted(rng.sample(range(len(v)), 2))
    t = v[p] + v[q]
    lo, hi = min(v), max(v)
    placed: Counter = Counter([v[p], v[q]])
    for k in range(len(v)):
        if k in (p, q):
            continue
        x = v[k]
        for _ in range(REPAIR_TRIES):
            if placed[t - x] == 0:
                break
            x = rng.randint(lo, hi) if lo < hi else x + rng.choice((-1, 1)) * rng.randint(1, 10)
        v[k] = x
        placed[x] += 1
    return v, t


# "You may assume ...", "it is guaranteed ...": the statement promises the input something. Not
# when the sentence is about the answer ("it is guaranteed that the answer is unique", "fits in
# a 32-bit integer").
PROMISE = (r"you (?:may|can) assume|(?:is|are) guaranteed|guaranteed that|there is only one|there is exactly one"
           r"|possibly rotated|always exists?")
ABOUT_THE_ANSWER = r"\b(?:answer|result|output|fits?|32-bit|64-bit)\b"


# A constraint line the input model reads: a bound ("1 <= nums.length <= 10^4", "n == nums.length",
# "in the range [0, 10^4]").
READ_CONSTRAINT = r"<=|>=|≤|≥|==|<|>|\bin the range\b"
CONSTRAINTS_END = r"^\s*(?:follow[- ]up|example|note|class |def |#|```|\"\"\"|\'\'\')"


def unread_constraints(statement: str) -> list[str]:
    """The lines of a LeetCode-style "Constraints:" section that state no bound ("Only one valid
    answer exists.", "nums is sorted and rotated between 1 and n times.")."""
    m = re.search(r"^\s*constraints\s*:?\s*$", statement, re.I | re.M)
    if not m:
        return []
    out = []
    for line in statement[m.end():].splitlines():
        if re.match(CONSTRAINTS_END, line, re.I):
            break
        line = line.strip().lstrip("-*• ").strip()
        if line and not re.search(READ_CONSTRAINT, line):
            out.append(line)
    return out


def promises(statement: str) -> bool:
    """Does the statement promise the input something the model does not read: a sentence, up to
    its "return", that says so ("you may assume", "it is guaranteed"), or a constraint line that
    is not a bound? Not where it speaks of the answer ("the answer is unique", "fits in a 32-bit
    integer")."""
    text = " ".join(statement.lower().split())
    sentences = [re.split(r"\breturns?\b", s, maxsplit=1)[0] for s in re.split(r"(?<=[.;!?])\s+", text)]
    if any(re.search(PROMISE, s) and not re.search(ABOUT_THE_ANSWER, s) for s in sentences):
        return True
    return any(not re.search(ABOUT_THE_ANSWER, c.lower()) for c in unread_constraints(statement))


# the input said to be valid, a form the model does not know: "The input represents a valid
# arithmetic expression in a reverse polish notation", "you may assume the input is always valid"
VALIDITY = re.compile(r"\brepresents? an? (?:valid|well-formed)\b|\bassume\b[^.]{0,60}\b(?:valid|well-formed)\b"
                      r"|\bguaranteed\b[^.]{0,60}\b(?:valid|well-formed)\b|\b(?:is|are) always (?:valid|well-formed)\b",
                      re.I)


def promises_validity(statement: str) -> bool:
    """Does the statement promise the input is valid in a form it does not spell out?"""
    return bool(VALIDITY.search(" ".join(statement.split())))


def _rotated_ascending(v: list[Any]) -> bool:
    """Distinct values in ascending order, rotated ("[4, 5, 6, 7, 0, 1, 2]")."""
    drops = sum(1 for a, b in zip(v, v[1:]) if a > b)
    return len(set(v)) == len(v) and (drops == 0 or (drops == 1 and v[-1] < v[0]))


def _one_value_repeats(v: list[Any]) -> bool:
    return sum(1 for c in Counter(v).values() if c > 1) == 1


LIST_SHAPES = {
    "distinct": lambda v: len(set(v)) == len(v),
    "ascending": lambda v: v == sorted(v),
    "rotated ascending": _rotated_ascending,
    "one value repeats": _one_value_repeats,
    "majority": has_majority,
    "repeated but one": lambda v: (repeat_profile(v) or (0, 0))[1] == 1,
    "no leading zero": lambda v: v[0] != 0,  # digits of a number ("no leading 0's")
}


@dataclass
class Promised:
    """When the statement promises the input something, every shape of an int list that the seeds
    all show (``LIST_SHAPES``, and values between 0 or 1 and the list's length plus at most one,
    reached by most of the seeds' distinct lists of 3 or more) is kept: a generated input without
    it is dropped. The model cannot tell which shape the promise is ("nums is possibly rotated",
    "only one repeated number"), so it keeps them all: when unsure, narrow."""

    shapes: list[tuple[int, str]] = field(default_factory=list)  # (arg, name in LIST_SHAPES)
    within_length: list[tuple[int, int, int]] = field(default_factory=list)  # (arg, lo, len offset)

    def __bool__(self) -> bool:
        return bool(self.shapes or self.within_length)

    @classmethod
    def mine(cls, seeds: list[list[Any]], arity: int, statement: str = "") -> "Promised":
        p = cls()
        if not promises(statement):
            return p
        for i in range(arity):
            values = [s[i] for s in seeds]
            if not all(_ints(v) for v in values):
                continue
            if not any(len(v) >= MIN_LEN for v in values):
                continue
            p.shapes += [(i, name) for name, shape in LIST_SHAPES.items() if all(shape(v) for v in values if v)]
            nonempty = [v for v in values if v]
            lo = 0 if any(min(v) == 0 for v in nonempty) else 1
            off = max(max(v) - len(v) for v in nonempty)
            longish = observations(values)
            reach = sum(1 for v in longish if max(v) == len(v) + off)
            if all(min(v) >= lo for v in nonempty) and -1 <= off <= 1 and 2 * reach > len(longish):
                p.within_length.append((i, lo, off))
        return p

    def holds(self, args: list[Any]) -> bool:
        for i, name in self.shapes:
            if not (_ints(args[i]) and (not args[i] or LIST_SHAPES[name](args[i]))):
                return False
        return all(_ints(args[i]) and all(lo <= x <= len(args[i]) + off for x in args[i])
                   for i, lo, off in self.within_length)
