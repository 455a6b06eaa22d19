"""A rooted tree given as a line of its nodes' parents.

"The second line contains n − 1 integers p_2, p_3, …, p_n": the parents of nodes 2..n (the list's
first name gives the first node, ``p_2``), the root the one node not listed. Drawn as a tree in
the tree shapes (``structures.TREE_SHAPES``: random, path, star, caterpillar, binary): a path is
the deepest tree (a recursive walk's stack, a walk up the ancestors), a star the widest. A list of
labels in 1..n alone draws parents that make cycles, which the input validator rejects. Two
kinds, each read only where every sample keeps it:

* ``IndexBound``: the statement bounds each value by its own index ("1 ≤ p_i < i", "0 ≤ p_i ≤
  i - 1"): each parent an earlier node;
* ``RootedParents``: the values are labels of the nodes and the statement speaks of a tree or a
  root ("It is guaranteed that the parents describe a rooted tree with root 1"): any tree, its
  labels shuffled, the root kept.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from .constraints import _NUM, indexed_name, normalize, parse_number
from .structures import tree_parents


@dataclass(frozen=True)
class IndexBound:
    start: int  # the index of the list's first value (p_2: 2)
    lo: int  # the least value
    delta: int  # each value <= its index + delta (p_i < i: -1; p_i <= i: 0)

    def top(self, k: int) -> int:
        """The largest value the ``k``-th element (from 0) may take."""
        return self.start + k + self.delta

    def holds(self, values: Sequence[int]) -> bool:
        return all(self.lo <= v <= self.top(k) for k, v in enumerate(values))

    def draw(self, n: int, shape: str, rng: random.Random) -> list[int]:
        """``n`` values in the tree shape ``shape`` (``structures.tree_parents``: node t of the
        tree is label t + start - 2, its root start - 1), inside the bound."""
        return [min(self.top(k), max(self.lo, p + self.start - 2))
                for k, p in enumerate(tree_parents(n + 1, shape, rng))]


def index_bound(statement: str, name: Optional[str], samples: list[list[int]]) -> Optional[IndexBound]:
    """The bound the statement states of list ``name``'s values by their index ("1 ≤ p_i < i",
    "p_i ≤ i - 1", "0 ≤ p_i < i"), where the name gives the first index (``p_2``) and every sample's
    list keeps it; else None."""
    first = indexed_name(name or "")
    if first is None or not first[1].isdigit():
        return None
    stem = re.escape(first[0])
    pat = re.compile(rf"(?:({_NUM})\s*(≤|<)\s*)?\b{stem}_\{{?([ijk])\}}?\s*(≤|<)\s*\3(?:\s*-\s*(\d))?(?![\w^])")
    for m in pat.finditer(normalize(statement)):
        lo = parse_number(m.group(1)) if m.group(1) else None
        if lo is None:
            continue  # the least value unstated: a 0- or 1-based tree, unknown
        bound = IndexBound(start=int(first[1]), lo=int(lo) + (1 if m.group(2) == "<" else 0),
                           delta=-(1 if m.group(4) == "<" else 0) - int(m.group(5) or 0))
        if bound.lo <= bound.top(0) and all(bound.holds(s) for s in samples):
            return bound
    return None


@dataclass(frozen=True)
class RootedParents:
    start: int  # the node of the list's first value (p_2: 2); the root is start - 1
    lo: int  # the least label

    def draw(self, n: int, shape: str, rng: random.Random) -> list[int]:
        """The parents of nodes start..start+n-1 of a tree on lo..start+n-1 in shape ``shape``
        (``structures.tree_parents``), its nodes but the root labelled at random."""
        root = self.start - 1
        others = [v for v in range(self.lo, self.start + n) if v != root]
        rng.shuffle(others)
        label = [0, root] + others  # tree node t (from 1) is label[t]
        parent_of = {label[t]: label[p] for t, p in enumerate(tree_parents(n + 1, shape, rng), 2)}
        return [parent_of[self.start + k] for k in range(n)]


def rooted_parents(statement: str, name: Optional[str], lo: int, samples: list[list[int]]) -> Optional[RootedParents]:
    """Parents of nodes named from ``name``'s index (``p_2``: nodes 2, 3, ...), labels from ``lo``,
    where the statement speaks of a tree or a root and every sample's parents lead each node to the
    root (start - 1) without a cycle; else None."""
    first = indexed_name(name or "")
    if first is None or not first[1].isdigit() or not re.search(r"\b(?:trees?|root(?:ed)?)\b", statement, re.I):
        return None
    tree = RootedParents(start=int(first[1]), lo=lo)
    if tree.start - 1 < lo or not samples or not all(_leads_to_root(s, tree) for s in samples):
        return None
    return tree


def _leads_to_root(parents: list[int], tree: RootedParents) -> bool:
    root = tree.start - 1
    of = {tree.start + k: p for k, p in enumerate(parents)}
    if any(not tree.lo <= p <= tree.start + len(parents) - 1 for p in parents):
        return False
    for v in of:
        seen = 0
        while v != root:
            v, seen = of.get(v, -1), seen + 1
            if v == -1 or seen > len(of):
                return False
    return True
