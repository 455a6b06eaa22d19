"""Structured rows of stdin layouts: trees, graphs and grids, read from the samples.

A ``counted`` layout (a header holding N, then rows) often hides a structure:

* **labels**: an int column whose values lie in 1..n (or 0..n-1) in every sample, where n is
  a header value that the samples reach: node numbers of a tree or graph, indices of an array;
* **tree**: two label columns and N-1 rows over n = N nodes, the statement says "tree" or
  every sample is a tree: generated as random, path, star and caterpillar trees, relabelled;
* **graph**: two label columns and M rows over n nodes: a spanning tree first when every
  sample is connected (or the statement says so), no self-loops or repeated edges when no
  sample has one, then random edges up to M;
* **grid**: each row one word whose length is a header value (w) in every sample.

All of it narrows what is generated to what the samples show; whatever the statement adds
comes in through the slots' ranges (``constraints.py``) and the input validators.
"""

from __future__ import annotations

import graphlib
import random
import re
from dataclasses import dataclass, field
from typing import Optional

TREE_SHAPES = ("random", "path", "star", "caterpillar", "binary")
LAYER_WIDTH = 2  # nodes per layer of a ``layered_edges`` graph (4 edges between two layers)
# The average degree of a stress input's graph (not a tree) by its stress shape, where its node
# count is a header value of its own: the edges on as many nodes as give that degree (0: the fewest
# nodes they fit on, every pair joined). Left alone, the edge budget leaves a tree (a connected
# graph of as many nodes as edges) or a sparse random graph; cycles, many shortest paths
# (``ascending`` is drawn as ``layered_edges``) and high degrees are what a search that revisits
# nodes or a quadratic scan of neighbours is slow on.
GRAPH_DENSITY = {"equal-min": 0, "ascending": 4, "descending": 8}


@dataclass
class Structure:
    labels: dict[int, int] = field(default_factory=dict)  # row column -> header column bounding it
    base: int = 1  # labels are base..base+n-1
    graph: Optional[str] = None  # "tree" | "graph"
    ends: tuple[int, int] = (0, 1)  # the two label columns of an edge
    connected: bool = False
    simple: bool = True  # no self-loops, no repeated edges
    loops: bool = False  # some sample has an edge from a node to itself (else none is generated)
    width_of: Optional[int] = None  # grid: header column holding each row's length
    max_cells: Optional[int] = None  # grid: the statement's bound on rows x width ("h * w <= 10^5")
    once: str = ""  # grid: cells the statement says appear exactly once ("'S' appears ... exactly once")
    acyclic: bool = False  # graph: directed without a cycle, as the statement says and every sample is
    # grid: each row is width_of values of the one row slot ("n lines, each with m integers"), not a
    # word of that length
    matrix: bool = False

    @property
    def node_col(self) -> Optional[int]:
        return self.labels.get(self.ends[0]) if self.graph else None


def _components(n: int, edges: list[tuple[int, int]]) -> int:
    parent = list(range(n + 1))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    comps = n
    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            comps -= 1
    return comps


def detect(headers: list[list[str]], rows: list[list[list[str]]], row_kinds: tuple[str, ...],
           statement: str, count_at: Optional[int] = None) -> Structure:
    """What the samples (header tokens, rows per sample) show; an empty Structure if nothing."""
    st = Structure()
    words = statement.lower()
    hdr_ints = [j for j, tok in enumerate(headers[0]) if re.fullmatch(r"-?\d+", tok)]
    # grid: one word per row, its length a header value in every sample
    if row_kinds == ("word",):
        for j in sorted(hdr_ints, key=lambda x: x == count_at):  # the row count last: h = w is common
            if all(rs and all(len(r[0]) == int(h[j]) for r in rs) for h, rs in zip(headers, rows)):
                st.width_of = j
                break
    # labels
    for c, kind in enumerate(row_kinds):
        if kind != "int":
            continue
        for j in hdr_ints:
            for base in (1, 0):
                ok, reach = True, False
                for h, rs in zip(headers, rows):
                    if not rs:
                        continue  # a sample with no rows ("1", a tree of one node) says nothing of labels
                    n = int(h[j])
                    vals = [int(r[c]) for r in rs]
                    if n < 2 or any(v < base or v > n - 1 + base for v in vals):
                        ok = False
                        break
                    reach = reach or (bool(vals) and max(vals) >= n - 1 + base - 1)
                if ok and reach and any(rs for rs in rows):
                    st.labels[c] = j
                    st.base = base
                    break
            if c in st.labels:
                break
    pairs = [c for c in sorted(st.labels)]
    if len(pairs) >= 2 and st.labels[pairs[0]] == st.labels[pairs[1]]:
        a, b = pairs[0], pairs[1]
        st.ends = (a, b)
        j = st.labels[a]
        edge_sets = []
        for h, rs in zip(headers, rows):
            n = int(h[j])
            edges = [(int(r[a]) - st.base + 1, int(r[b]) - st.base + 1) for r in rs]
            edge_sets.append((n, edges))
        st.loops = any(u == v for _, es in edge_sets for u, v in es)
        st.simple = not st.loops and all(
            len({frozenset(e) for e in es}) == len(es) for _, es in edge_sets)
        all_trees = all(len(es) == n - 1 and _components(n, es) == 1 for n, es in edge_sets)
        st.connected = all(_components(n, es) == 1 for n, es in edge_sets) or bool(
            re.search(r"\bconnected\b", words) and not re.search(r"not (necessarily )?connected", words))
        if all_trees and (re.search(r"\btrees?\b", words) or len(edge_sets) >= 2):
            st.graph = "tree"
        elif st.simple or st.connected or re.search(r"\b(?:graph|roads?|edges?|vert(?:ex|ices)|nodes?)\b", words):
            st.graph = "graph"  # parallel edges in a sample, not connected: a graph still, if it says so
        st.acyclic = st.graph == "graph" and bool(_SAYS_ACYCLIC.search(statement)) and \
            all(_acyclic(n, es) for n, es in edge_sets)
    return st


# "It is guaranteed that the slopes do not form a directed cycle", "a directed acyclic graph (DAG)"
_SAYS_ACYCLIC = re.compile(r"\bacyclic\b|\bDAG\b|\b(?:do|does|will)\s+not\s+(?:form|contain|have)\s+(?:a|any)\s+"
                           r"(?:directed\s+)?cycles?\b|\bno\s+directed\s+cycles?\b")


def _acyclic(n: int, edges: list[tuple[int, int]]) -> bool:
    """Do these edges over 1..n, each read u -> v, form no directed cycle?"""
    if any(not (1 <= u <= n and 1 <= v <= n) for u, v in edges):
        return False
    order = graphlib.TopologicalSorter({v: set() for v in range(1, n + 1)})
    for u, v in edges:
        order.add(v, u)
    try:
        order.prepare()
    except graphlib.CycleError:
        return False
    return True


def orient_acyclic(n: int, edges: list[tuple[int, int]], rng: random.Random, from_first: bool
                   ) -> list[tuple[int, int]]:
    """The edges directed without a cycle, along a random order of the nodes; with ``from_first``,
    away from node 1, by the distance from it (ties, and nodes it does not reach, in a random
    order). A layered graph so becomes a DAG with exponentially many routes from 1 outwards (what
    a search that walks every route is slow on); a random order leaves sources besides 1 (what a
    topological order begun at node 1 alone misses)."""
    adj: dict[int, list[int]] = {}
    for u, v in edges:
        adj.setdefault(u, []).append(v)
        adj.setdefault(v, []).append(u)
    dist = {1: 0}
    queue = [1]
    for x in queue:
        for y in adj.get(x, []):
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    tie = list(range(n + 1))
    rng.shuffle(tie)
    rank = {x: (dist.get(x, n + 1) if from_first else 0, tie[x]) for x in range(1, n + 1)}
    return [(u, v) if rank[u] < rank[v] else (v, u) for u, v in edges]


def tree_parents(n: int, shape: str, rng: random.Random) -> list[int]:
    """A tree on 1..n rooted at 1 as the parents of nodes 2..n, each an earlier node: random (a
    parent just before, near, or anywhere before), path, star, caterpillar or binary."""
    if shape == "path":
        return [i - 1 for i in range(2, n + 1)]
    if shape == "star":
        return [1] * max(0, n - 1)
    if shape == "caterpillar":
        spine = max(1, n // 2)
        return [i - 1 for i in range(2, spine + 1)] + [rng.randint(1, spine) for _ in range(spine + 1, n + 1)]
    if shape == "binary":
        return [i // 2 for i in range(2, n + 1)]
    return [rng.randint(max(1, i - 1 - rng.choice((0, 0, 5, n))), i - 1) for i in range(2, n + 1)]


def tree_edges(n: int, shape: str, rng: random.Random) -> list[tuple[int, int]]:
    """n-1 edges over 1..n of a tree in ``shape`` (``tree_parents``), relabelled and shuffled."""
    if n <= 1:
        return []
    edges = [(p, i) for i, p in enumerate(tree_parents(n, shape, rng), 2)]
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    out = []
    for a, b in edges:
        a, b = perm[a - 1], perm[b - 1]
        out.append((a, b) if rng.random() < 0.5 else (b, a))
    rng.shuffle(out)
    return out


def layered_edges(n: int, rng: random.Random, width: int = LAYER_WIDTH) -> list[tuple[int, int]]:
    """The nodes 1..n in layers of ``width``, each node joined to every node of the next layer,
    relabelled: connected, with ``width ** layers`` shortest paths between the ends. A search that
    marks a node visited when it leaves the queue instead of when it enters (or a Dijkstra that
    does not skip stale entries) expands each node once per path to it, exponentially often."""
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    layers = [perm[k:k + width] for k in range(0, n, width)]
    out = [(a, b) if rng.random() < 0.5 else (b, a) for lo, hi in zip(layers, layers[1:]) for a in lo for b in hi]
    rng.shuffle(out)
    return out


def edge_shape(kind: str, i: int, rng: Optional[random.Random], graph: Optional[str], stress_shape: str) -> str:
    """The shape of input ``i``'s tree or graph: the ``TREE_SHAPES`` in turn for the stress,
    special and structured families (a graph's ``ascending`` stress input: ``layers``), one at
    random for the others."""
    if kind == "stress" and graph == "graph" and stress_shape == "ascending":
        return "layers"
    if kind in ("stress", "special", "structured") or rng is None:
        return TREE_SHAPES[i % len(TREE_SHAPES)]
    return rng.choice(TREE_SHAPES)


def fewest_nodes(m: int, st: Structure, lo: int = 2) -> int:
    """The fewest nodes (at least ``lo``, at least 2) that ``m`` edges fit on: a complete graph's
    worth of pairs for a simple graph, two nodes where repeated edges are allowed. Many edges among
    few nodes is the dense end of the edge bound: every node of high degree, every pair joined."""
    k = max(2, lo)
    if st.simple:
        while k * (k - 1) // 2 < m:
            k += 1
    return k


def stress_graph_nodes(edges: int, st: Structure, shape: str, lo: int, most: int) -> Optional[int]:
    """How many nodes a stress graph (not a tree) of ``edges`` edges takes at the density its stress
    ``shape`` gives (``GRAPH_DENSITY``): the fewest they fit on (at least ``lo``), else as many as
    give that average degree, at most ``most`` and never fewer than the edges fit on. None for a
    shape without a density."""
    density = GRAPH_DENSITY.get(shape)
    if density is None:
        return None
    fewest = fewest_nodes(edges, st, lo)
    return fewest if density == 0 else min(most, max(fewest, 2 * edges // density + 1))


def graph_edges(n: int, m: int, st: Structure, rng: random.Random, shape: str = "random"
                ) -> Optional[list[tuple[int, int]]]:
    """m edges over 1..n as the structure demands (a self-loop only where a sample has one); None
    when that many cannot exist."""
    max_m = n * (n - 1) // 2 if st.simple else 10**18
    if m > max_m or (st.connected and m < n - 1):
        return None
    edges = layered_edges(n, rng) if shape == "layers" else tree_edges(n, shape, rng) if st.connected else []
    if len(edges) > m:  # more than the edge count allows: a spanning tree (or nothing) instead
        edges = tree_edges(n, "random", rng) if st.connected else []
    seen = {frozenset(e) for e in edges}
    dense = st.simple and m > max_m // 2
    if dense:  # pick from every pair
        pool = [(a, b) for a in range(1, n + 1) for b in range(a + 1, n + 1) if frozenset((a, b)) not in seen]
        rng.shuffle(pool)
        edges += pool[: m - len(edges)]
    tries = 0
    while len(edges) < m and tries < 20 * m + 100:
        tries += 1
        a, b = rng.randint(1, n), rng.randint(1, n)
        if (a == b and not st.loops) or (st.simple and frozenset((a, b)) in seen):
            continue
        seen.add(frozenset((a, b)))
        edges.append((a, b))
    if len(edges) < m:
        return None
    rng.shuffle(edges)
    return orient_acyclic(n, edges[:m], rng, from_first=shape == "layers") if st.acyclic else edges[:m]


def place_once(rows: list[str], once: str, others: str, rng: random.Random) -> Optional[list[str]]:
    """A grid where each character of ``once`` appears exactly once, at its own random cell, the
    other cells drawn from ``others`` where they held one: a start and a target, "exactly once"
    each. None where the grid has fewer cells than ``once`` has characters, or nothing else to draw."""
    cells = [list(r) for r in rows]
    spots = [(i, j) for i, r in enumerate(cells) for j in range(len(r))]
    if len(spots) < len(once) or not others:
        return None
    for i, j in spots:
        if cells[i][j] in once:
            cells[i][j] = rng.choice(others)
    for c, (i, j) in zip(once, rng.sample(spots, len(once))):
        cells[i][j] = c
    return ["".join(r) for r in cells]
