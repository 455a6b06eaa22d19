"""The input-model rules of issue 14, without a sandbox: record shapes, categories, permutations,
values on both sides of the seeds, constraints read from statements, structured stdin rows
(trees, graphs, grids, stress ladder), the quarantine of out-of-domain families, the samples
always kept, and evaluate's handling of problems without a suite."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from testgen.candidates import Candidate
from testgen.constraints import extract, stated_tolerance, sum_bound
from testgen.entry import runnable, split_entry
from testgen.evaluate import Report, evaluate
from testgen.generators import generate
from testgen.inputs import FunctionModel, ListSpec, StrSpec
from testgen.inputs.records import RecordSpec
from testgen.pipeline import quarantine
from testgen.problem import load_problem, normalize_language
from testgen.selection import greedy_cover
from testgen.smodel import StdioModel
from testgen.structures import Structure, graph_edges, tree_edges


def _tokens(text: str) -> list[list[str]]:
    return [ln.split() for ln in text.strip("\n").split("\n")]


def _is_tree(n: int, edges: list[tuple[int, int]]) -> bool:
    parent = list(range(n + 1))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # halving: a path of 10^5 nodes is checked in linear time
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return len(edges) == n - 1


# ------------------------------------------------------------------ function inputs


def test_pairs_stay_typed_fixed_length_records():
    # (gender, age) pairs: every generated element is a 2-field record, text from the seen categories
    seeds = [[[["M", 25], ["F", 31], ["M", 40]]], [[["F", 2], ["M", 9]]]]
    m = FunctionModel.infer(seeds, "Count the adults.", "f")
    assert isinstance(m.specs[0], ListSpec) and isinstance(m.specs[0].elem, RecordSpec)
    cands = generate("function", m, [{"args": s} for s in seeds], 0, "pairs")
    assert len(cands) > 50
    for c in cands:
        for rec in c.args[0]:
            assert isinstance(rec, list) and len(rec) == 2, c.args
            assert rec[0] in ("M", "F") and type(rec[1]) is int, c.args


def test_ordered_records_stay_ordered_and_permutations_stay_permutations():
    m = FunctionModel.infer([[[[1, 3], [2, 5], [4, 4]]], [[[0, 9], [2, 2]]]], "merge the intervals", "f")
    rng = random.Random(3)
    for _ in range(50):
        for a, b in m.specs[0].random(rng):
            assert a <= b
    m = FunctionModel.infer([[[3, 1, 2, 0]], [[0, 1]], [[2, 0, 1]]], "", "f")
    spec = m.specs[0]
    assert spec.permutation == 0
    for v in [spec.random(rng) for _ in range(30)] + [spec.mutate([2, 0, 1, 3], rng) for _ in range(30)]:
        assert sorted(v) == list(range(len(v)))


def test_free_text_lists_are_not_records():
    # lists of different lengths, or too few observations, stay lists
    m = FunctionModel.infer([[[1, 2, 3]], [[4, 5]], [[7, 8, 9, 10]]], "", "f")
    assert isinstance(m.specs[0], ListSpec) and not isinstance(m.specs[0], RecordSpec)
    m = FunctionModel.infer([[["hello world", "abc"]]], "", "f")
    assert isinstance(m.specs[0].elem, StrSpec) and m.specs[0].elem.choices is None


def test_relations_put_the_searched_value_on_both_sides_of_the_list():
    seeds = [[[1, 5, 9], 42], [[3, 4], 42]]
    m = FunctionModel.infer(seeds, "Return True if x is in the list.", "f")
    rel = [c.args for c in generate("function", m, [{"args": s} for s in seeds], 0, "rel") if c.family == "relations"]
    for lst in ([1, 5, 9], [3, 4]):
        got = {a[1] for a in rel if a[0] == lst}
        assert any(v in lst for v in got)  # equal to an element
        assert max(lst) + 1 in got  # above all
    assert 2 in {a[1] for a in rel if a[0] == [3, 4]}  # below all, inside the elements' domain (>= 1)
    assert 0 not in {a[1] for a in rel}  # 0 is below every value the seeds show: outside
    assert any(a[0] == [1, 5, 9] and 1 < a[1] < 9 and a[1] not in (5,) for a in rel)  # between, absent


def test_index_relation_gets_zero_and_length_unless_positive():
    seeds = [[[4, 1, 3], 2], [[5, 6, 7, 8], 3], [[1, 2], 1]]
    m = FunctionModel.infer(seeds, "Return the first k elements.", "f")
    rel = [c.args for c in generate("function", m, [{"args": s} for s in seeds], 0, "idx") if c.family == "relations"]
    assert any(k == 0 for _, k in rel) and any(k == len(lst) for lst, k in rel)
    # k = 0 where the seeds start higher: the "k = 0 never appears" (top_k(lst, 3), (lst, 5))
    high = [[[9, 9, 4, 9, 7, 9, 3, 1, 6], 5], [[4, 5, 2, 3, 1, 6], 3]]
    m = FunctionModel.infer(high, "Return the k largest numbers.", "f")
    rel = [c.args for c in generate("function", m, [{"args": s} for s in high], 0, "idx") if c.family == "relations"]
    assert any(k == 0 and lst for lst, k in rel)
    m = FunctionModel.infer(seeds, "k is a positive integer.", "f")
    rel = [c.args for c in generate("function", m, [{"args": s} for s in seeds], 0, "idx") if c.family == "relations"]
    assert not any(k == 0 for _, k in rel)


# ------------------------------------------------------------------ statements


def test_stated_tolerance():
    assert stated_tolerance(r"Your answer should have an absolute or relative error of at most $10^{-6}$.") == 1e-6
    assert stated_tolerance("answers with an absolute error of 1e-4 or less are accepted") == 1e-4
    assert stated_tolerance("Print the number of ways.") is None
    p = load_problem({"id": "t", "io": "stdio", "statement": r"relative or absolute error at most $10^{-9}$",
                      "gold_solutions": [{"language": "python", "code": "print(1)"}]})
    assert p.compare == "float" and p.float_tol == 1e-9


def test_a_statement_copied_from_a_web_page_reads_as_its_latex_twin():
    """Unicode signs where LaTeX has commands: the middle dot, the minus sign, superscript powers.
    Before, 2·10^5 was read as 2, −10^9 as +10^9 and 10⁻⁶ not at all."""
    ranges = {r.name: (r.lo, r.hi) for r in extract("(1 ≤ n ≤ 2·10^5), (−10^9 ≤ ai ≤ 10⁹), (1 ≤ k ≤ 3⋅10⁵)")}
    assert ranges == {"n": (1, 200000), "ai": (-10 ** 9, 10 ** 9), "k": (1, 300000)}
    assert sum_bound("the sum of n over all test cases does not exceed 2⋅10⁵") == 200000
    assert stated_tolerance("accepted if its absolute or relative error does not exceed 10⁻⁶.") == 1e-6


MST_LATEX = ("\\section*{Input}\nThe input consists of:\n\\begin{itemize}\n\\item One line with two integers $n$ and $m$ "
             "($2 \\le n \\le 10^5$, $1 \\le m \\le 2\\cdot 10^5$), the number of vertices and edges.\n\\item $m$ lines, each "
             "with three integers $u_i$, $v_i$ and $w_i$ ($1 \\le u_i, v_i \\le n$, $1 \\le w_i \\le 10^9$), an edge of "
             "weight $w_i$.\n\\end{itemize}\n\\section*{Output}\nPrint the weight of a minimum spanning tree.\n")
MST_PLAIN = ("Input\n\nThe first line contains two integers n and m (2 ≤ n ≤ 10⁵, 1 ≤ m ≤ 2·10⁵) — the number of "
             "vertices and edges.\n\nEach of the next m lines contains three integers u_i, v_i and w_i (1 ≤ u_i, v_i ≤ n, "
             "1 ≤ w_i ≤ 10⁹) — an edge of weight w_i.\n\nOutput\n\nPrint the weight of a minimum spanning tree.\n")


def test_a_codeforces_style_statement_names_its_lines_as_a_kattis_one_does():
    """Plain-text headings, names without math delimiters, "Each of the next m lines": read as the
    Kattis statement of the same problem is (before: no value named, w_i's range given to all)."""
    from testgen.constraints import input_lines
    from testgen.smodel import StdioModel

    desc = input_lines(MST_PLAIN)
    assert [(d.names, d.rows, d.count) for d in desc] == [(["n", "m"], False, None), (["u_i", "v_i", "w_i"], True, "m")]
    seeds = ["3 2\n1 2 5\n2 3 7\n", "4 3\n1 2 1\n2 3 2\n3 4 3\n"]

    def reading(statement):
        m = StdioModel.infer(seeds, statement)
        return m.shape, [(sl.name, sl.lo, sl.hi) for sl in m.lines[0] + m.row]

    assert [d.names for d in input_lines("Input\n\nOne line with a balanced sequence s (2 ≤ |s| ≤ 10⁶).\n\nOutput\n")] \
        == [["s"]]
    # a word between the count and its kind, as "$k$ distinct integers" is read in LaTeX
    assert [d.count for d in input_lines("Input\n\nOne line containing k distinct integers, the planets.\n\n"
                                         "Output\n")] == ["k"]
    assert reading(MST_PLAIN) == reading(MST_LATEX)
    assert reading(MST_PLAIN)[1][:2] == [("n", 2, 10 ** 5), ("m", 1, 2 * 10 ** 5)]
    assert reading(MST_PLAIN)[1][-1] == ("w_i", 1, 10 ** 9)


def test_a_range_between_two_names_does_not_end_the_line_s_names():
    """"One line with two integers $n$ ($2 \\le n \\le 10^5$) and $q$ ($1 \\le q \\le 10^5$)": both
    values are named. Before, the names ended at the first range's "(", the line had one name for
    two values and was left unnamed, so no row could be bounded by n (gcpc2022/chaoticconstruction
    drew every segment within the sample's 1..10 while n reached 10^5)."""
    from testgen.constraints import input_lines

    text = ("\\section*{{Input}}\n\\begin{{itemize}}\n\\item One line with two integers $n$ ($2 \\leq n \\leq 10^5$)"
            "{sep}$q$ ($1\n\\leq q \\leq 10^5$), the sizes.\n\\item $q$ lines, each with one integer $a$.\n"
            "\\end{{itemize}}\n\\section*{{Output}}\nOne integer.\n")
    for sep in (" and ", ", "):
        assert [d.names for d in input_lines(text.format(sep=sep))][0] == ["n", "q"]


TWO_STRINGS = ("\\section*{{Input}}\n\\begin{{itemize}}\n\\item One line with a single integer $n$ {bound}, the length of "
               "the messages.\n\\item Two lines each with one string of length $n$.\n\\end{{itemize}}\n"
               "Both strings consist of lowercase letters only.\n\\section*{{Output}}\nOne integer.\n")


@pytest.mark.parametrize("bound", [r"$(1\leq n \leq 1.5\cdot10^5)$", r"($1\leq n \leq 1.5\cdot10^5$)"])
def test_two_lines_each_with_a_string_of_length_n_are_two_lines_and_n_is_named(bound):
    """"Two lines each with one string of length $n$" is two single lines, and "of length $n$"
    sizes the strings without naming them. Before, the block of two lines did not match the three
    lines of the layout, n went unnamed and took the samples' string lengths (6..26), so no input
    was longer than 26 letters (gcpc2021/decryptingzodiac, where n may be 150 000)."""
    from testgen.constraints import input_lines

    text = TWO_STRINGS.format(bound=bound)
    assert [(d.names, d.rows) for d in input_lines(text)] == [(["n"], False), ([], False), ([], False)]
    m = StdioModel.infer(["6\ndrhmex\nzodiac\n", "8\ndicepara\nparadise\n"], text)
    assert m.shape == "fixed" and (m.lines[0][0].name, m.lines[0][0].lo, m.lines[0][0].hi) == ("n", 1, 150000)
    assert all(m.lines[i][0].max_len > 26 for i in (1, 2))
    for s in m.draw("stress", random.Random(0), 2):
        n, a, b = s.split()
        assert len(a) == len(b) == int(n)


K_OF_N = ("\\section*{{Input}}\n\\begin{{itemize}}\n\\item One line with two integers $n$ and $k$ {bounds}.\n"
          "\\item One line with two integers $a$ and $b$ ($1 \\leq a, b < n$), the first move.\n"
          "\\end{{itemize}}\n\\section*{{Output}}\nOne integer.\n")


@pytest.mark.parametrize("bounds", [r"($1 \le k \le n \le 10^5$)", r"($1 \le n \le 10^5$, $1 \le k \le n$)"])
def test_fixed_values_the_statement_bounds_by_another_stay_under_it(bounds):
    """"$1 \\le k \\le n$", "$1 \\le a, b < n$": every family keeps k <= n and a, b < n, and a and b
    range up to n's maximum - 1 (before: drawn on their own, k > n in about half of all inputs, and
    a, b only within the samples' 1..13)."""
    m = StdioModel.infer(["5 2\n2 1\n", "7 7\n1 6\n", "13 3\n12 1\n"], K_OF_N.format(bounds=bounds))
    assert m.shape == "fixed" and [(sl.name, sl.lo, sl.hi) for sl in m.lines[1]] == [("a", 1, 10 ** 5 - 1),
                                                                                      ("b", 1, 10 ** 5 - 1)]
    rng = random.Random(0)
    drawn = Counter()
    for kind in ("regular", "corner", "stress", "structured", "boundary", "mutation"):
        for s in m.draw(kind, rng, 15):
            n, k, a, b = map(int, s.split())
            assert 1 <= k <= n and 1 <= a < n and 1 <= b < n, (kind, s)
            drawn[kind] += 1
            drawn["k=n"] += k == n
            drawn["a>13"] += a > 13
    assert min(drawn[k] for k in ("regular", "stress", "boundary", "mutation")) >= 10, drawn
    assert drawn["k=n"] and drawn["a>13"], drawn


@pytest.mark.parametrize("layout", ["rows", "list"])
def test_a_header_value_bounded_by_the_count_stays_under_it(layout):
    """"$1 \\le k \\le n$" with n the number of values that follow: k <= n in every family, a
    mutation that drops a value included (before: k > n in most drawn inputs)."""
    rows = layout == "rows"
    text = ("\\section*{Input}\n\\begin{itemize}\n\\item One line with two integers $n$ and $k$ "
            "($1 \\le k \\le n \\le 10^5$).\n" + ("\\item $n$ lines, each with one integer $a_i$" if rows else
                                                  "\\item One line with $n$ integers $a_1, \\ldots, a_n$")
            + " ($1 \\le a_i \\le 10^9$).\n\\end{itemize}\n\\section*{Output}\nx\n")
    sep = "\n" if rows else " "
    m = StdioModel.infer([f"5 5\n{sep.join('12345')}\n", f"3 3\n{sep.join('789')}\n", f"4 1\n{sep.join('5555')}\n"], text)
    assert m.shape == ("counted" if rows else "list") and len(m.fixed_bounds) == 1
    rng = random.Random(0)
    assert m.draw("corner", rng, 15) == []  # the corner grid is a fixed layout's
    for kind in ("regular", "stress", "structured", "boundary", "mutation"):
        drawn = m.draw(kind, rng, 15)
        assert len(drawn) >= 10, kind
        for s in drawn:
            n, k, *values = map(int, s.split())
            assert 1 <= k <= n == len(values), (kind, s[:40])


def test_a_bound_a_sample_breaks_is_not_kept():
    m = StdioModel.infer(["5 7\n2 1\n", "7 7\n1 6\n"], K_OF_N.format(bounds=r"($1 \le k \le n \le 10^5$)"))
    assert [(b.at, b.upper) for b in m.fixed_bounds] == [((1, 0), (0, 0)), ((1, 1), (0, 0))]


def test_languages_use_the_sandbox_alias_table():
    assert normalize_language("Python3") == "python" and normalize_language("c++") == "cpp"
    assert normalize_language("kotlin") == "kotlin"  # unknown: kept, later skipped as not installed


# ------------------------------------------------------------------ structured stdin


def test_tree_input_is_detected_and_generated_as_trees():
    m = StdioModel.infer(["4\n1 2\n2 3\n2 4\n", "3\n1 3\n3 2\n"], r"A tree with $n$ nodes ($2 \le n \le 10^5$).")
    assert m.shape == "counted" and m.count_offset == -1 and m.structure.graph == "tree"
    rng = random.Random(0)
    for kind in ("regular", "structured", "stress", "mutation"):  # a mutated tree keeps n = edges + 1
        for s in m.draw(kind, rng, 5):
            t = _tokens(s)
            n = int(t[0][0])
            assert 2 <= n <= 10**5
            edges = [(int(a), int(b)) for a, b in t[1:]]
            assert all(1 <= x <= n for e in edges for x in e) and _is_tree(n, edges), s[:80]
    # the stress ladder starts at the stated maximum
    assert max(int(_tokens(s)[0][0]) for s in m.draw("stress", rng, 5)) == 10**5


@pytest.mark.parametrize("layout", ["tree", "graph"])
def test_a_header_value_bounded_by_the_node_count_stays_under_it_in_a_tree_or_graph(layout):
    """"$1 \\le s \\le n$" for a start node beside a tree's or graph's node count: every family
    draws s within 1..n while the structure sets n (before: s was drawn on its own, up to 10^5,
    in inputs of n = 2 nodes). The node and edge counts are the structure's: no bound moves them."""
    if layout == "tree":
        head, rows = "two integers $n$ and $s$ ($2 \\le n \\le 10^5$, $1 \\le s \\le n$)", "$n-1$ lines"
        seeds = ["4 2\n1 2\n2 3\n2 4\n", "3 3\n1 3\n3 2\n", "5 1\n1 2\n1 3\n3 4\n4 5\n"]
    else:
        head = ("three integers $n$, $m$ and $s$ ($2 \\le n \\le 10^5$, $1 \\le m \\le 2 \\cdot 10^5$, "
                "$1 \\le s \\le n$)")
        rows = "$m$ lines"
        seeds = ["4 2 3\n1 2\n3 4\n", "5 4 5\n1 2\n2 3\n3 4\n4 5\n", "3 3 1\n1 2\n2 3\n1 3\n"]
    text = ("\\section*{Input}\n\\begin{itemize}\n\\item One line with " + head + ".\n\\item " + rows +
            ", each with two integers $u$ and $v$ ($1 \\le u, v \\le n$), an edge.\n\\end{itemize}\n"
            "\\section*{Output}\nOne integer.\n")
    m = StdioModel.infer(seeds, text)
    assert m.structure.graph == layout and [b.at for b in m.fixed_bounds] == [(0, len(m.lines[0]) - 1)]
    rng = random.Random(0)
    drawn = Counter()
    for kind in ("regular", "corner", "stress", "structured", "boundary", "mutation"):
        for s in m.draw(kind, rng, 10):
            t = _tokens(s)
            n, start = int(t[0][0]), int(t[0][-1])
            assert 1 <= start <= n, (kind, s[:60])
            assert all(1 <= int(x) <= n for row in t[1:] for x in row), (kind, s[:60])
            drawn[kind] += 1
            drawn["s=n"] += start == n
    assert min(drawn[k] for k in ("regular", "stress", "mutation")) >= 5 and drawn["s=n"], drawn


def test_tree_shapes_and_graphs():
    rng = random.Random(1)
    for shape in ("random", "path", "star", "caterpillar", "binary"):
        assert _is_tree(30, tree_edges(30, shape, rng))
    degrees = Counter(x for e in tree_edges(30, "star", rng) for x in e)
    assert max(degrees.values()) == 29
    st = Structure(graph="graph", connected=True, simple=True)
    for m in (9, 20, 45):  # sparse, medium, complete
        edges = graph_edges(10, m, st, rng)
        assert edges is not None and len(edges) == m
        assert all(a != b for a, b in edges) and len({frozenset(e) for e in edges}) == m
    assert graph_edges(10, 46, st, rng) is None  # more edges than a simple graph has
    assert graph_edges(10, 5, st, rng) is None  # too few to connect


def test_graph_rows_keep_node_numbers_within_n():
    m = StdioModel.infer(["4 2 11\n1 2\n3 4\n", "5 4 3\n1 2\n2 3\n3 4\n4 5\n"],
                         r"($1 \le n \le 10^6$, $0 \le m \le 10^6$, $3 \le p \le 10^9$)")
    assert m.structure.graph == "graph" and m.structure.simple
    rng = random.Random(2)
    for s in m.draw("regular", rng, 10) + m.draw("structured", rng, 6):
        t = _tokens(s)
        n, e = int(t[0][0]), int(t[0][1])
        assert len(t) - 1 == e
        assert all(1 <= int(x) <= n for row in t[1:] for x in row[:2])
        assert all(row[0] != row[1] for row in t[1:])


def test_grid_rows_have_the_stated_width():
    m = StdioModel.infer(["4 4\n__C_\nC_C_\n_C_C\n_CCC\n", "2 3\nC_C\n___\n"],
                         r"two integers $h$ and $w$ ($1 \le h,w \le 2\,000$)")
    assert m.structure.width_of == 1
    rng = random.Random(4)
    for s in m.draw("regular", rng, 5) + m.draw("stress", rng, 3):
        t = _tokens(s)
        h, w = int(t[0][0]), int(t[0][1])
        assert 1 <= h <= 2000 and 1 <= w <= 2000 and len(t) - 1 == h
        assert all(len(r[0]) == w and set(r[0]) <= set("C_") for r in t[1:])


# ------------------------------------------------------------------ selection and evaluation


def test_quarantine_drops_families_the_golds_disagree_on():
    cands = [Candidate("seed", args=[0])]
    cands += [Candidate("regular", args=[i], meta={"drop": "gold_disagree"} if i < 6 else {}) for i in range(10)]
    cands += [Candidate("mutation", args=[i + 100], meta={"drop": "gold_disagree"} if i == 0 else {})
              for i in range(10)]
    kept = [c for c in cands if "drop" not in c.meta]
    out, why = quarantine(cands, kept, n_gold=2)
    assert set(why) == {"regular"} and "6 of 10" in why["regular"]
    assert {c.family for c in out} == {"seed", "mutation"}
    assert quarantine(cands, kept, n_gold=1)[1] == {}  # one gold cannot disagree with itself
    # most families out of the domain: the model is off, only the samples are kept
    more = cands + [Candidate("special", args=[i + 200], meta={"drop": "gold_disagree"} if i < 5 else {})
                    for i in range(10)]
    out, why = quarantine(more, [c for c in more if "drop" not in c.meta], n_gold=3)
    assert "*" in why and {c.family for c in out} == {"seed"}
    # disagreement is counted inside the validated domain: inputs an input validator rejected say
    # nothing (testgen/validate.py drops them as validator_rejects whatever the golds did)
    fam = [Candidate("regular", args=[i], meta={"drop": "validator_rejects"}) for i in range(10)]
    fam += [Candidate("regular", args=[i + 10], meta={"drop": "gold_disagree"} if i < 3 else {}) for i in range(7)]
    out, why = quarantine(fam, [c for c in fam if "drop" not in c.meta], n_gold=2)
    assert "3 of 7" in why["regular"] and out == []


def test_samples_are_always_in_the_suite():
    cands = [Candidate("regular", args=[i]) for i in range(10)] + [Candidate("seed", args=[99])]
    kills = [{i} for i in range(10)] + [set()]
    chosen = greedy_cover(cands, kills, max_tests=3, multiplicity=1, fill=False)
    assert 10 in chosen  # past max_tests and without fill: never worse than the samples


def test_evaluate_leaves_problems_without_a_suite_out_of_the_rates():
    rec = {"id": "e", "io": "function", "entry_point": "f", "tests": [],
           "testgen": {"status": "failed", "reason": "no gold solution passes the seed tests"},
           "gold_solutions": [{"language": "python", "code": "def f(x):\n    return x\n"}],
           "heldout_correct": [{"language": "python", "code": "def f(x):\n    return x\n"}],
           "heldout_incorrect": [{"language": "python", "code": "def f(x):\n    return 0\n"}]}

    class NoRunner:  # nothing may be run for a problem without a suite
        def languages(self) -> set[str]:
            return {"python"}

        def run_many(self, reqs):
            raise AssertionError("an empty suite judged a program")

    rep: Report = evaluate([rec], NoRunner())  # type: ignore[arg-type]
    pool = rep.pooled()
    assert pool["correct"] == pool["incorrect"] == pool["accepted"] == pool["rejected"] == 0
    assert pool["tpr"] is None and pool["tnr"] is None
    assert pool["unjudged_problems"] == 1 and pool["unjudged_programs"] == 2
    assert "no gold solution passes" in pool["unjudged"]["e"]


def test_class_entry_points_go_to_the_drivers_unchanged():
    assert split_entry("Solution.twoSum") == ("Solution", "twoSum")
    assert split_entry("solve") == (None, "solve")
    src = "class Solution:\n    def f(self, a: List[int]) -> int:\n        return len(a)\n"
    # Both drivers take Class.method themselves (sandbox/leetcode.py), so nothing is wrapped.
    assert runnable(src, "Solution.f") == (src, "Solution.f")
    assert runnable("def g(x):\n    return x\n", "g") == ("def g(x):\n    return x\n", "g")


THREE_VALUES = r"""\begin{Input}
The input consists of:
\begin{itemize}
  \item One line with three integers $\ell, w, n$ ($1 \le \ell,w \le 100$, $1 \le n \le 26$).
\end{itemize}
\end{Input}
"""


def test_the_corner_family_meets_every_two_bounds_and_walks_the_smallest_values():
    """A layout of a few values: the corner family puts every two of them at every pair of their
    boundary levels ("1 100 25": one at its minimum, one at its maximum, one beside its maximum)
    and walks the smallest values (n = 1, 2, 3, ...). Before (the boundary family): one diagonal of
    levels, so 40 inputs met 14 of the 48 level pairs, and a single value took 1, 2 and its top
    levels only."""
    m = StdioModel.infer(["3 4 6\n", "5 5 5\n", "2 7 14\n"], THREE_VALUES)
    assert m.shape == "fixed"
    drawn = [tuple(map(int, s.split())) for s in m.draw("corner", random.Random(0), 40)]
    assert all(1 <= l <= 100 and 1 <= w <= 100 and 1 <= n <= 26 for l, w, n in drawn), drawn
    levels = {0: {1, 2, 99, 100}, 1: {1, 2, 99, 100}, 2: {1, 2, 25, 26}}
    for p, q in ((0, 1), (0, 2), (1, 2)):
        met = {(r[p], r[q]) for r in drawn}
        assert {(a, b) for a in levels[p] for b in levels[q]} <= met, (p, q)
    one = StdioModel.infer(["7\n", "15\n"], "One line with an integer $n$ ($1 \\le n \\le 10^{18}$).")
    walked = [int(s) for s in one.draw("corner", random.Random(0), 40)]
    assert list(range(1, 21)) == [v for v in walked if v <= 20][-20:]


def test_a_value_stated_past_a_fixed_integer_width_is_tried_at_its_edge():
    """$1 \\le n \\le 10^{18}$: n is tried at 2^31 - 1, 2^31, 2^32 - 1 and 2^32, where a program that
    reads or adds in a 32-bit integer breaks; a range that stops below an edge never reaches it."""
    wide = StdioModel.infer(["7\n", "15\n"], "One line with an integer $n$ ($1 \\le n \\le 10^{18}$).")
    drawn = {int(s) for s in wide.draw("boundary", random.Random(0), 40)}
    assert {2**31 - 1, 2**31, 2**32 - 1, 2**32} <= drawn
    narrow = StdioModel.infer(["7\n", "15\n"], "One line with an integer $n$ ($1 \\le n \\le 10^{9}$).")
    assert max(int(s) for s in narrow.draw("boundary", random.Random(0), 40)) == 10**9


def test_one_value_is_walked_through_every_row_its_boundary_levels_leave():
    """One integer up to 10^18 has eight boundary levels (1 and 2 among them); the corner family's
    other 32 rows walk n = 3..34 (a program that stops iterating at n = 22, as enjoyableentree's
    paul-early-cutoff.py does, is wrong at n = 23). Before: the walk stopped at half the family
    (n = 20). The bound's
    neighbour is 10^18 - 1, computed in integers (before: 1e18 - 1 as a float, which is 10^18)."""
    one = StdioModel.infer(["7\n", "15\n"], "One line with an integer $n$ ($1 \\le n \\le 10^{18}$).")
    drawn = [int(s) for s in one.draw("corner", random.Random(0), 40)]
    assert set(range(1, 33)) <= set(drawn) and len(drawn) == len(set(drawn)) <= 40
    assert {10**18, 10**18 - 1} <= set(drawn)


def test_selection_keeps_the_corner_grid_whole_past_the_size_cap():
    """The corner grid of a problem whose input is one number (40 tiny inputs) is kept whole even
    when the suite's cap is 10, as the samples are, in the order drawn, at most ``CORNER_KEEP``;
    before, its rows were boundary inputs competing in turn, and a suite of 50 held n = 1..11 and
    14 (enjoyableentree: n = 23, where paul-early-cutoff.py fails, never chosen)."""
    from testgen.candidates import Candidate
    from testgen.generators import generate
    from testgen.selection import CORNER_KEEP, greedy_cover

    one = StdioModel.infer(["7\n", "15\n"], "One line with an integer $n$ ($1 \\le n \\le 10^{18}$).")
    cands = generate("stdin", one, [{"stdin": "7\n"}, {"stdin": "15\n"}], 0, "one")
    grid = [i for i, c in enumerate(cands) if c.family == "corner"]
    assert len(grid) >= 32
    for c in cands:
        c.expected_stdout = c.stdin  # every input its own answer
    chosen = greedy_cover(cands, [set() for _ in cands], max_tests=10)
    assert [i for i in chosen if cands[i].family == "corner"] == grid
    many = [Candidate("corner", stdin=f"{k}\n", expected_stdout=str(k)) for k in range(CORNER_KEEP + 10)]
    assert greedy_cover(many, [set() for _ in many], max_tests=10) == list(range(CORNER_KEEP))


def test_a_power_of_ten_with_an_offset_is_read_whole():
    """"$0 \\leq n < 10^9+7$" bounds n by 10^9 + 6 (before: 10^9 - 1, the "+7" lost, so the
    validator's own corner 10^9 + 6 looked outside the statement)."""
    (r,) = extract(r"One line with one integer $n$ ($0\leq n<10^9+7$), the number of ways.")
    assert (r.name, r.lo, r.hi) == ("n", 0, 10**9 + 6)
    ranges = extract(r"($1 \le k \le 2 \cdot 10^5 - 1$)")
    assert [(x.name, x.hi) for x in ranges] == [("k", 2 * 10**5 - 1)]


def test_an_input_outside_a_range_the_statement_states_is_not_admitted():
    """"$2 \\le a,b \\le 10^6$" with a validator that checks only INT(1,10^6): the grammar family's
    corner "2 1" is outside the statement, and a correct program that relies on b >= 2 fails it
    (alternativearchitecture's mzuenni.cpp answered 1 where the golds said 2). The pipeline drops
    every non-sample input the model does not admit; a range only guessed from the samples
    binds nothing."""
    statement = (r"\begin{Input}\begin{itemize}\item One line with two integers $a$ and $b$ "
                 r"($2 \le a,b \le 10^6$), the dimensions.\end{itemize}\end{Input}")
    m = StdioModel.infer(["6 11\n", "26 26\n"], statement)
    assert [sl.stated for sl in m.lines[0]] == [True, True]
    assert not m.admits("2 1\n") and not m.admits("1000001 5\n")
    assert m.admits("2 2\n") and m.admits("1000000 1000000\n")
    guessed = StdioModel.infer(["6 11\n", "26 26\n"], "")
    assert not any(sl.stated for sl in guessed.lines[0]) and guessed.admits("2 1\n")
