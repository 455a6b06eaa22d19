"""A rooted tree given as a line of parents: a count one off its name, values bounded by their index.

"The second line contains n − 1 integers p_2, p_3, …, p_n (1 ≤ p_i < i)" is how contests give a
rooted tree. ``tests/data/stdin_tasks_r8.jsonl``'s ``subtree-weights`` (written by a writer who
saw none of ``testgen/``) is one. Measured before this rule, the model read the samples only as
tokens: the line of n − 1 values was no list (a count that is a formula), so its suite held the
two samples and their mutations, and it rejected 2 of the 5 wrong and slow programs. The
validator rejected 11 of 52 mutations for a parent after its child.

Now the description's "n − 1 integers", "$n-1$ lines" and "the next n - 1 lines" count n with an
offset of -1 (``constraints.InputLine.offset``), a ``sections`` list takes the offset, and a list
whose values the statement bounds by their own index, or labels of a tree it speaks of, is drawn
as a tree in the tree shapes (``parent_lists.py``). The second kind came from the next held-out
round (``r9s/taller-ancestors``, "1 ≤ p_i ≤ n, p_i ≠ i": its validator rejected 127 draws, and the
suite missed both walks up the ancestors).
"""

from __future__ import annotations

import random

from conftest import synthesize_and_judge
from testgen.constraints import input_lines
from testgen.parent_lists import RootedParents, index_bound, rooted_parents
from testgen.smodel import StdioModel

PARENTS = """# Company

## Input

The first line contains a single integer n (1 ≤ n ≤ 2·10^5) — the number of employees.

The second line contains n − 1 integers {names} ({bound}) — the bosses of the employees.

The third line contains n integers s_1, s_2, …, s_n (1 ≤ s_i ≤ 10^9) — the salaries.

## Output

Print one integer.
"""


def _counts(text: str) -> list[tuple[str | None, int]]:
    return [(d.count, d.offset) for d in input_lines(f"## Input\n\n{text}\n\n## Output\n")]


def test_a_count_one_off_its_name_is_read_as_the_name_and_its_offset():
    assert _counts("The second line contains n − 1 integers p_2, p_3, …, p_n.") == [("n", -1)]
    assert _counts("The second line contains $n-1$ integers $p_2, \\dots, p_n$.") == [("n", -1)]
    assert _counts("Each of the next n - 1 lines contains two integers u and v.") == [("n", -1)]
    assert _counts("Then $n - 1$ lines follow, each with two integers $u$ and $v$.") == [("n", -1)]
    assert _counts("Each of the next m lines contains two integers u and v.") == [("m", 0)]
    assert _counts("The next line contains $k+1$ integers $c_0, \\dots, c_k$.") == [("k", 1)]


def test_values_bounded_by_their_index_are_read_only_as_stated_and_as_every_sample_keeps():
    one_based = index_bound("(1 ≤ p_i < i)", "p_2", [[1, 1, 2, 2]])
    assert one_based is not None and (one_based.start, one_based.lo, one_based.delta) == (2, 1, -1)
    zero_based = index_bound("(0 ≤ p_i ≤ i - 1)", "p_1", [[0, 1, 0]])
    assert zero_based is not None and (zero_based.start, zero_based.lo, zero_based.delta) == (1, 0, -1)
    assert index_bound("(1 ≤ p_i < i)", "p_2", [[1, 3]]) is None  # a sample breaks it
    assert index_bound("(p_i < i)", "p_2", [[1, 1]]) is None  # the least value unstated
    assert index_bound("(1 ≤ p_i ≤ n)", "p_2", [[1, 1]]) is None  # no index bound


def _tree_depth_and_width(parents: list[int], first: int) -> tuple[int, int]:
    """The deepest node's depth and the most children of a node, of parents p_first, p_first+1, ..."""
    depth: dict[int, int] = {}
    children: dict[int, int] = {}
    for k, p in enumerate(parents):
        depth[first + k] = depth.get(p, 0) + 1
        children[p] = children.get(p, 0) + 1
    return max(depth.values(), default=0), max(children.values(), default=0)


def test_a_line_of_parents_is_drawn_as_trees_of_every_shape_up_to_the_budget():
    for names, bound, first, least in (("p_2, p_3, …, p_n", "1 ≤ p_i < i", 2, 1),
                                       ("p_1, p_2, …, p_{n-1}", "0 ≤ p_i < i", 1, 0)):
        statement = PARENTS.format(names=names, bound=bound)
        samples = [f"5\n{least} {least} {least + 1} {least + 1}\n1 2 3 4 5\n", f"3\n{least} {least + 1}\n7 7 7\n"]
        m = StdioModel.infer(samples, statement)
        assert m.shape == "sections", (names, m.shape)
        rng = random.Random(0)
        drawn = [t for fam in ("regular", "boundary", "special", "structured") for t in m.draw(fam, rng, 25)]
        stress = m.draw("stress", rng, 10)
        shapes = set()
        for text in drawn + stress:
            lines = text.split("\n")
            n = int(lines[0])
            parents = [int(x) for x in lines[1].split()]
            assert len(parents) == n - 1 and len(lines[2].split()) == n, text[:80]
            assert all(least <= p < first + k for k, p in enumerate(parents)), (bound, text[:120])
            if n > 1000:
                depth, width = _tree_depth_and_width(parents, first)
                shapes.add("path" if depth == n - 1 else "star" if width == n - 1 else "other")
        assert max(int(t.split("\n")[0]) for t in stress) >= 50_000  # the budget's size, not the samples'
        assert {"path", "star", "other"} <= shapes, shapes


def test_parents_that_are_labels_of_a_rooted_tree_are_drawn_as_trees_with_that_root():
    statement = PARENTS.format(names="p_2, p_3, …, p_n", bound="1 ≤ p_i ≤ n, p_i ≠ i") + \
        "\nIt is guaranteed that the parents describe a rooted tree with root 1.\n"
    samples = ["5\n3 1 1 3\n1 2 3 4 5\n", "3\n3 1\n7 7 7\n"]
    m = StdioModel.infer(samples, statement)
    assert m.shape == "sections" and m.sections is not None
    assert isinstance(m.sections.parts[1].parents, RootedParents)
    rng = random.Random(0)
    deepest = 0
    for text in [t for fam in ("regular", "special", "structured", "stress") for t in m.draw(fam, rng, 12)]:
        lines = text.split("\n")
        n = int(lines[0])
        parent = {v: int(p) for v, p in enumerate(lines[1].split(), 2)}
        assert len(parent) == n - 1 and all(1 <= p <= n and p != v for v, p in parent.items()), text[:80]
        depth = {1: 0}
        for v in parent:  # every node reaches the root 1, no cycle
            path = []
            while v not in depth:
                path.append(v)
                v = parent[v]
                assert len(path) < n, text[:80]
            for w in reversed(path):
                depth[w] = depth[parent[w]] + 1
        deepest = max(deepest, max(depth.values()))
    assert deepest >= 25_000  # a path-like tree at the budget's size
    # without a tree in the statement, or with a sample that is none, the list stays labels
    assert rooted_parents("the bosses", "p_2", 1, [[3, 1, 1, 3]]) is None
    assert rooted_parents("a rooted tree", "p_2", 1, [[3, 2]]) is None  # 2 -> 3 -> 2


def test_the_parents_problem_of_the_olympiad_round_rejects_every_wrong_and_slow_program(tmp_path, cli_state_env):
    report, by_id, suites = synthesize_and_judge(cli_state_env, "stdin_tasks_r8.jsonl", tmp_path,
                                                 "--only", "r8s/subtree-weights")
    res = by_id["r8s/subtree-weights"]
    assert suites["r8s/subtree-weights"]["testgen"]["model"].startswith("stdio:sections")
    assert res["accepted"] == res["correct"] == 2, res["false_rejects"]
    assert res["rejected"] == res["incorrect"] == 5, res["missed"]  # 2 of 5 before
