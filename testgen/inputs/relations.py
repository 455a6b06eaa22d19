"""Relations between arguments that every seed satisfies (Daikon-style), kept in generated inputs."""

from __future__ import annotations

import math
from random import Random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..distinct_rows import says_distinct_values
from .fields import FieldRules
from .size_bounds import SizeBounds
from .guarantees import Guarantees, Promised, hashable, observations, tree_size


@dataclass
class Invariants:
    """Relations every seed satisfies, kept in generated inputs (Daikon-style, checked on >= 2 seeds).

    * ``same_len``: groups of sequence arguments that always have equal length;
    * ``index_of``: (int arg, sequence arg) with 0 <= int <= len(sequence) in every seed (a tree's
      node count for a ``TreeNode`` argument, ``trees``), unless the statement gives the int an
      upper bound in numbers of its own (``0 <= k <= 10^5`` beside ``1 <= nums.length <= 10^5``:
      k may pass the length, and a program that forgets ``k %= n`` is wrong there);
    * ``sorted_args`` / ``distinct_args``: list arguments that are always sorted / duplicate-free
      (only when seeds show it on lists long enough for it to mean something);
    * ``distinct_fields``: (list arg, field) of a list of records whose field never repeats
      within a list ("All ages are different" of ``[gender, age]`` pairs), on the same evidence;
    * ``rectangular``: lists of rows (lists or strings) whose rows all have one length in every
      seed, two or more of them with several rows, where the statement speaks of a matrix or a
      grid ("m x n", "grid[i].length", "all rows have the same length");
    * ``square``: those of them with as many rows as each row is long in every seed, where the
      statement says so ("a square grid", "n x n"): drawn square;
    * ``fields``: what the statement says of a record's fields it names (``fields.py``);
    * ``sizes``: an int bounded by another argument's length or number of distinct values, as the
      statement says (``size_bounds.py``);
    * ``guarantees``: shapes of a list's values that a statement promises ("the majority element
      always exists", "exactly one solution"), and ``promised``: what every int list of the seeds
      shows when the statement promises the input more than the model reads (``guarantees.py``)."""

    same_len: list[list[int]] = field(default_factory=list)
    index_of: list[tuple[int, int]] = field(default_factory=list)
    sorted_args: list[int] = field(default_factory=list)
    distinct_args: list[int] = field(default_factory=list)
    distinct_fields: list[tuple[int, int]] = field(default_factory=list)
    guarantees: Guarantees = field(default_factory=Guarantees)
    trees: list[int] = field(default_factory=list)  # TreeNode arguments, as level-order lists
    rectangular: list[int] = field(default_factory=list)
    square: list[int] = field(default_factory=list)
    fields: FieldRules = field(default_factory=FieldRules)
    sizes: SizeBounds = field(default_factory=SizeBounds)
    promised: Promised = field(default_factory=Promised)

    @classmethod
    def mine(cls, seeds: list[list[Any]], arity: int, statement: str = "", trees: Sequence[int] = (),
             stated_hi: Sequence[int] = (), named: Optional[dict[int, list[str]]] = None) -> "Invariants":
        """Sortedness needs the statement's word for it (people write examples in order);
        distinctness needs the statement's word or odds below 1% of it happening by chance.
        ``stated_hi``: the arguments whose upper bound the statement states in numbers. ``named``:
        the field names of list-of-records arguments (``record_fields``): a field the statement
        says is distinct by its name ("the names are distinct") is, however short the seeds."""
        inv = cls(trees=list(trees))
        given = about_the_input(statement)
        words = given.lower()
        says_sorted = bool(re.search(r"\bsorted\b|ascending|increasing order|non-?decreasing", words))
        says_unique = (bool(re.search(r"\bunique\b|\bdistinct\b|duplicate|\bno\b[^.;]*\brepeated\b", words))
                       or says_distinct_values(given))
        says_rectangular = bool(re.search(RECTANGULAR_WORDS, statement, re.I))
        says_square = bool(re.search(SQUARE_WORDS, statement, re.I))
        if len(seeds) < 2:
            return inv
        inv.guarantees = Guarantees.mine(seeds, arity, statement, trees)
        inv.promised = Promised.mine(seeds, arity, statement)
        seqs = [i for i in range(arity) if all(isinstance(s[i], (str, list)) for s in seeds)]
        groups: list[list[int]] = []
        for i in seqs:
            for g in groups:
                j = g[0]
                if type(seeds[0][i]) is type(seeds[0][j]) and all(len(s[i]) == len(s[j]) for s in seeds) \
                        and any(len(s[i]) > 1 for s in seeds):
                    g.append(i)
                    break
            else:
                groups.append([i])
        inv.same_len = [g for g in groups if len(g) > 1]
        ints = [i for i in range(arity) if all(isinstance(s[i], int) and not isinstance(s[i], bool) for s in seeds)]
        for i in (i for i in ints if i not in stated_hi):
            for j in seqs:
                if all(0 <= s[i] <= inv.size(s[j], j) for s in seeds) and len({s[i] for s in seeds}) > 1:
                    inv.index_of.append((i, j))
                    break
        for i in range(arity):
            lists = [s[i] for s in seeds if isinstance(s[i], list)]
            if len(lists) != len(seeds):
                continue
            if says_rectangular and _rectangular(lists):
                inv.rectangular.append(i)
                if says_square and all(len(r) == len(v) for v in lists for r in v):
                    inv.square.append(i)
            longish = [v for v in lists if len(v) >= 3]
            if _distinct_beyond_chance([[hashable(x) for x in v] for v in lists], says_unique):
                inv.distinct_args.append(i)
            if says_sorted and (_all_sorted(longish) if len(longish) >= 2 else _sorted_beyond_chance(lists)):
                inv.sorted_args.append(i)
            k = _record_len(lists)
            if len(longish) >= 2:
                for f in range(k or 0):
                    if _distinct_beyond_chance([[hashable(x[f]) for x in v] for v in lists], says_unique):
                        inv.distinct_fields.append((i, f))
            for f, name in enumerate((named or {}).get(i, [])[:k or 0]):
                if (i, f) not in inv.distinct_fields and _says_distinct_field(given, name) \
                        and all(len({hashable(x[f]) for x in v}) == len(v) for v in lists):
                    inv.distinct_fields.append((i, f))
        return inv

    def group_of(self, i: int) -> list[int]:
        """The arguments whose length argument ``i`` always shares, itself included."""
        return next((g for g in self.same_len if i in g), [i])

    def enforce(self, args: list[Any], rng: Random) -> list[Any]:
        args = self.guarantees.repair(args, rng) if self.guarantees else list(args)
        args = self.fields.repair(args, rng) if self.fields else args
        args = self.sizes.repair(args) if self.sizes else args
        for g in self.same_len:
            if not all(isinstance(args[i], (str, list)) for i in g):
                continue
            n = min(len(args[i]) for i in g)
            if rng.random() < 0.5:
                n = max(len(args[i]) for i in g)
            for i in g:
                args[i] = _resized(args[i], n, args[g[0]])
        for i in self.rectangular:
            rows = args[i]
            if isinstance(rows, list) and all(isinstance(r, (str, list)) for r in rows):
                lens = [len(r) for r in rows]
                if len(set(lens)) > 1:
                    n = min(lens) if rng.random() < 0.5 and min(lens) else max(lens)
                    longest = rows[lens.index(max(lens))]
                    args[i] = [_resized(r, n, longest) for r in rows]
        for i in self.square:
            rows = args[i]
            if isinstance(rows, list) and rows and all(isinstance(r, (str, list)) for r in rows):
                n = len(rows[0]) if rng.random() < 0.5 and rows[0] else len(rows)
                args[i] = [_resized(r, n, rows[0]) for r in _resized(rows, n, rows)]
        for i in self.distinct_args:
            if isinstance(args[i], list):
                args[i] = _first_of_each(args[i], hashable)
        for i, f in self.distinct_fields:
            if isinstance(args[i], list):
                args[i] = _first_of_each(args[i], lambda x, f=f: hashable(_field(x, f)))
        for i in self.sorted_args:
            if isinstance(args[i], list):
                try:
                    args[i] = sorted(args[i])
                except TypeError:
                    pass
        for i, j in self.index_of:
            if isinstance(args[i], int) and isinstance(args[j], (str, list)):
                args[i] = max(0, min(args[i], self.size(args[j], j)))
        return args

    def size(self, value: Any, arg: int) -> int:
        """How many elements argument ``arg`` holds: a tree's nodes ("1 <= k <= n", n the number of
        nodes; not its level order's length), else its length."""
        return tree_size(value) if arg in self.trees and isinstance(value, list) else len(value)


def _all_sorted(lists: list[list[Any]]) -> bool:
    try:
        return all(v == sorted(v) for v in lists)
    except TypeError:
        return False


def _sorted_beyond_chance(lists: list[list[Any]]) -> bool:
    """Every list sorted, where fewer than two seeds hold 3 or more values: two distinct lists or
    more, with 4 or more pairs of neighbours among them (``[2, 3, 10, 11]`` and ``[0, 8]``), which
    random lists would all keep in order once in 16 or less."""
    seen = observations(lists, least=2)
    return _all_sorted(lists) and len(seen) >= 2 and sum(len(v) - 1 for v in seen) >= 4


RECTANGULAR_WORDS = r"\bmatrix\b|\bgrid\b|same length|\bm\s*[x×*]\s*n\b|rectangular|\w\[i\]\.length"
SQUARE_WORDS = r"\bsquare\s+(?:grid|matrix|board|table|array)|\b([a-z])\s*(?:[x×*]|by)\s*\1\b"


def _rectangular(lists: list[list[Any]]) -> bool:
    """Are these lists of rows all rectangular, two or more of them with several rows?"""
    if not all(isinstance(r, (str, list)) for v in lists for r in v):
        return False
    if any(len({len(r) for r in v}) > 1 for v in lists):
        return False
    return len(observations(lists, least=2)) >= 2


def _resized(v: Any, n: int, pad: Any) -> Any:
    """``v`` (a list or a string) cut to length ``n``, or lengthened by repeating its own values
    (``pad``'s, when it has none)."""
    if len(v) >= n:
        return v[:n]
    src = v if v else pad
    while len(v) < n and src:
        v = v + src[: n - len(v)]
    return v


def _first_of_each(values: list[Any], key: Callable[[Any], Any]) -> list[Any]:
    """The values in order, without those whose key an earlier one had."""
    seen: set[Any] = set()
    out: list[Any] = []
    for x in values:
        h = key(x)
        if h not in seen:
            seen.add(h)
            out.append(x)
    return out


def _field(record: Any, f: int) -> Any:
    """Field ``f`` of a record, or the value itself where it is not one."""
    return record[f] if isinstance(record, list) and len(record) > f else record


def _says_distinct_field(given: str, name: str) -> bool:
    """The statement says the field ``name`` never repeats: "the names are distinct", "each id is
    unique", "distinct names"."""
    n = re.escape(name)
    return bool(re.search(rf"\b{n}s?\b\s+(?:are|is|must be|will be)\s+(?:all\s+|pairwise\s+)?(?:\w+\s+)?"
                          rf"(?:distinct|unique|different)\b|\b(?:distinct|unique)\s+{n}s?\b", given, re.I))


def about_the_input(statement: str) -> str:
    """The statement without what it says of the answer: each sentence cut at its first
    "return(s)". "Return sorted unique common elements" says nothing of the lists given; "Given a
    list of distinct integers, return ..." does."""
    parts = re.split(r"(?<=[.;!?])\s+|\n\s*\n", statement)
    return "\n".join(re.split(r"\breturns?\b", p, maxsplit=1, flags=re.I)[0] for p in parts)


def _distinct_beyond_chance(lists: list[list[Any]], says_unique: bool) -> bool:
    """No list repeats a value, and either the statement says so (with a list of 2 or more in a
    seed: "All the pairs of trust are unique" of seeds holding one, two and three pairs) or, with
    lists of 3 or more in two seeds, the odds of it happening by chance (birthday bound over the
    values seen) are below 1 %. A list that several seeds share counts once: it is one
    observation, not several."""
    if any(len(set(v)) != len(v) for v in lists):
        return False
    if says_unique and any(len(v) >= 2 for v in lists):
        return True
    longish = observations(lists)
    if len(longish) < 2:
        return False
    r = max(len({x for v in lists for x in v}), 1)
    return math.exp(-sum(len(v) * (len(v) - 1) / (2 * r) for v in longish)) < 0.01


def _record_len(lists: list[list[Any]]) -> Optional[int]:
    """k when every element of every list is a list of length k (a list of records), else None."""
    elems = [x for v in lists for x in v]
    if not elems or not all(isinstance(x, list) for x in elems):
        return None
    k = len(elems[0])
    return k if k and all(len(x) == k for x in elems) else None

