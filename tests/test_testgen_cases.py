"""Several test cases per input file with a sum bound, and checktestdata input validators
(issue 14): the input model reads the layout from the samples and the bounds from the
statement, generated files stay inside both, a maximum-size file times out a slow program,
and a ``.ctd`` grammar is run (in the sandbox) on every generated input."""

from __future__ import annotations

import random

import pytest

from testgen import ctd
from testgen.constraints import input_lines, sum_bound
from testgen.evaluate import evaluate
from testgen.pipeline import Settings, synthesize
from testgen.problem import load_problem
from testgen.runner import LocalRunner
from testgen.smodel import StdioModel

MULTI = (r"The first line contains $t$ ($1 \le t \le 10^4$), the number of test cases. Each test case is a line "
         r"with $n$ ($1 \le n \le 2 \cdot 10^5$) and a line with $n$ integers $a_i$ ($1 \le a_i \le 10^9$). "
         r"It is guaranteed that the sum of $n$ over all test cases does not exceed $2 \cdot 10^5$. "
         r"For each test case print the number of pairs $i < j$ with $a_i = a_j$.")
SAMPLES = ["3\n3\n1 2 1\n1\n5\n4\n7 7 7 7\n", "1\n2\n3 4\n"]


def _files(model: StdioModel, kind: str, n: int, seed: int = 0) -> list[str]:
    return model.draw(kind, random.Random(seed), n)


def _parse(text: str) -> list[list[int]]:
    tok = [int(x) for x in text.split()]
    t, p, cases = tok[0], 1, []
    for _ in range(t):
        n = tok[p]
        cases.append(tok[p + 1:p + 1 + n])
        p += 1 + n
    assert p == len(tok), "the file is exactly T cases"
    return cases


def test_sum_bound_phrases():
    assert sum_bound(MULTI) == 200000
    assert sum_bound(r"$\sum n \le 10^6$ over all test cases") == 10 ** 6
    assert sum_bound("The total length of all strings in all test cases is at most 10^6.") == 10 ** 6
    assert sum_bound("The sum of the weights is at most 100.") is None  # not over test cases


def test_cases_layout_stays_inside_t_range_and_sum_bound():
    m = StdioModel.infer(SAMPLES, MULTI)
    assert m.shape == "cases" and m.cases is not None and m.cases.inner.shape == "list"
    assert (m.count_lo, m.count_hi, m.cases.total_hi) == (1, 10 ** 4, 200000)
    for kind in ("regular", "boundary", "special", "structured", "stress", "mutation"):
        files = _files(m, kind, 6)
        assert files, kind
        for f in files:
            cases = _parse(f)
            assert 1 <= len(cases) <= 10 ** 4
            assert sum(len(c) for c in cases) <= 200000
            assert all(1 <= x <= 10 ** 9 for c in cases for x in c)
    stress = [_parse(f) for f in _files(m, "stress", 3)]
    assert max(sum(len(c) for c in cs) for cs in stress) == 200000  # the bound itself is reached
    assert max(len(cs) for cs in stress) >= 1000  # and many cases in one file
    assert min(len(cs) for cs in stress) == 1  # and one maximum case


def test_no_sum_bound_stated_keeps_the_sum_within_one_case():
    m = StdioModel.infer(SAMPLES, MULTI.replace("It is guaranteed that the sum of $n$ over all test cases does not "
                                                "exceed $2 \\cdot 10^5$. ", ""))
    assert m.shape == "cases" and m.cases.total_hi is None
    for f in _files(m, "stress", 3):
        assert sum(len(c) for c in _parse(f)) <= 200000


# A Codeforces-style statement: plain-text headings instead of Kattis' LaTeX sections. n's range is
# "the length of the array" and is narrower than a_i's, so a model that cannot tell which line
# holds which value gives the array n's range (values never above 2 * 10^5).
PLAIN = ("You are given an array $a$ of $n$ positive integers. Count the pairs $i < j$ with $a_i + a_j$ even.\n\n"
         "{inp}\n\nThe first line contains a single integer $t$ ($1 \\le t \\le 10^4$) — the number of test cases.\n\n"
         "The first line of each test case contains a single integer $n$ ($1 \\le n \\le 2 \\cdot 10^5$) — the "
         "length of the array.\n\nThe second line of each test case contains $n$ integers $a_1, a_2, \\ldots, a_n$ "
         "($1 \\le a_i \\le 10^9$).\n\nIt is guaranteed that the sum of $n$ over all test cases does not exceed "
         "$2 \\cdot 10^5$.\n\n{out}\n\nFor each test case, print a single integer — the number of such pairs.\n")


@pytest.mark.parametrize("inp,out", [("Input", "Output"), ("-----Input-----", "-----Output-----"),
                                     ("## Input Format", "## Output Format"), ("**Input:**", "**Output:**"),
                                     ("\\section*{Input}", "\\section*{Output}")])
def test_plain_text_statement_headings_name_each_cases_values(inp, out):
    m = StdioModel.infer(["3\n3\n1 2 3\n4\n2 4 6 8\n1\n5\n"], PLAIN.format(inp=inp, out=out))
    assert m.shape == "cases" and m.cases is not None
    inner = m.cases.inner
    assert inner.lines[0][0].name == "n" and inner.elem is not None and inner.elem.name == "a_1"
    assert (inner.elem.lo, inner.elem.hi) == (1, 10 ** 9)
    values = [x for f in _files(m, "stress", 2) + _files(m, "boundary", 6) for c in _parse(f) for x in c]
    assert max(values) > 2 * 10 ** 5 and all(1 <= x <= 10 ** 9 for x in values)


# The same statement as text copied from a web page: no math delimiters, Unicode signs, a middle
# dot for the product and a superscript power. Read before as n <= 2 and a sum bound of 10.
UNICODE = ("You are given an array a of n positive integers.\n\nInput\n\nThe first line contains a single "
           "integer t (1 ≤ t ≤ 10^4) — the number of test cases.\n\nThe first line of each test case contains a "
           "single integer n (1 ≤ n ≤ 2·10^5) — the length of the array.\n\nThe second line of each test case "
           "contains n integers a1, a2, …, an (1 ≤ ai ≤ 10^9).\n\nIt is guaranteed that the sum of n over all "
           "test cases does not exceed 2⋅10⁵.\n\nOutput\n\nFor each test case, print a single integer.\n")


def test_a_statement_in_plain_unicode_text_is_read_as_its_latex_twin():
    m = StdioModel.infer(["3\n3\n1 2 3\n4\n2 4 6 8\n1\n5\n"], UNICODE)
    assert m.shape == "cases" and m.cases is not None
    inner = m.cases.inner
    assert (m.count_lo, m.count_hi, m.cases.total_hi) == (1, 10 ** 4, 200000)
    assert (inner.lines[0][0].name, inner.lines[0][0].hi) == ("n", 200000)
    assert inner.elem is not None and (inner.elem.name, inner.elem.lo, inner.elem.hi) == ("a1", 1, 10 ** 9)
    stress = [_parse(f) for f in _files(m, "stress", 2)]
    assert max(sum(len(c) for c in cs) for cs in stress) == 200000



# A web page's list copied as text: each item a paragraph of its own, the second without "line"
# ("One string s of length n ..."), and the script l as the name of a value.
PLAIN_ITEMS = ("Input\n\nThe input consists of:\n\nOne line with integers n, k (1 ≤ n,k ≤ 10³), the length of the "
               "bridge and the number of kids.\n\nOne string s of length n consisting of characters L and R. An L on "
               "position i indicates the left plate.\n\nOutput\n\nOne integer.\n")
PLAIN_ELL = ("Input\n\nThe input consists of:\n\nOne line with three integers ℓ, w, n (1 ≤ ℓ,w ≤ 100, 1 ≤ n ≤ 26), "
             "the length and width of the field and the number of varieties.\n\nOutput\n\nx\n")


def test_a_plain_text_item_that_does_not_say_line_is_a_line_and_the_script_l_a_name():
    """Before: the string's paragraph was not read as a line, so no value had its name (k took
    the samples' 0..17, not 1..1000), and "ℓ, w, n" named nothing (n took ℓ's and w's 1..100)."""
    assert [(d.names, d.rows) for d in input_lines(PLAIN_ITEMS)] == [(["n", "k"], False), (["s"], False)]
    m = StdioModel.infer(["3 5\nLRL\n", "4 2\nRRLL\n"], PLAIN_ITEMS)
    assert [(sl.name, sl.lo, sl.hi) for ln in m.lines[:1] for sl in ln] == [("n", 1, 1000), ("k", 1, 1000)]
    # a sentence inside a paragraph is not an item: "An L on position i ..." names nothing
    assert len(input_lines(PLAIN_ITEMS)) == 2
    m = StdioModel.infer(["4 4 4\n", "3 5 1\n"], PLAIN_ELL)
    assert [(sl.name, sl.lo, sl.hi) for sl in m.lines[0]] == [("ell", 1, 100), ("w", 1, 100), ("n", 1, 26)]

def test_trees_per_test_case():
    st = (r"The first line holds $t$ ($1 \le t \le 100$), the number of test cases. Each test case is a tree: "
          r"$n$ ($2 \le n \le 1000$), then $n-1$ edges. The sum of $n$ over all test cases does not exceed $5000$.")
    m = StdioModel.infer(["2\n3\n1 2\n2 3\n4\n1 2\n1 3\n1 4\n", "1\n2\n2 1\n"], st)
    assert m.shape == "cases" and m.cases.inner.structure.graph == "tree"
    for kind in ("regular", "stress"):
        for f in _files(m, kind, 4):
            rows = [list(map(int, ln.split())) for ln in f.strip().split("\n")]
            p, total = 1, 0
            for _ in range(rows[0][0]):
                n = rows[p][0]
                edges = rows[p + 1:p + n]
                total += n
                parent = list(range(n + 1))

                def find(x):
                    while parent[x] != x:
                        x = parent[x]
                    return x
                for a, b in edges:
                    assert find(a) != find(b), "a tree has no cycle"
                    parent[find(a)] = find(b)
                p += n
            assert p == len(rows) and total <= 5000


PAIRS_FAST = """\
import sys
from collections import Counter
data = sys.stdin.buffer.read().split()
t = int(data[0]); p = 1; out = []
for _ in range(t):
    n = int(data[p]); a = data[p + 1:p + 1 + n]; p += 1 + n
    out.append(sum(c * (c - 1) // 2 for c in Counter(a).values()))
print("\\n".join(map(str, out)))
"""
PAIRS_QUADRATIC = """\
import sys
data = sys.stdin.buffer.read().split()
t = int(data[0]); p = 1; out = []
for _ in range(t):
    n = int(data[p]); a = data[p + 1:p + 1 + n]; p += 1 + n
    out.append(sum(1 for i in range(n) for j in range(i + 1, n) if a[i] == a[j]))
print("\\n".join(map(str, out)))
"""
PAIRS_FIRST_CASE_ONLY = PAIRS_FAST.replace("for _ in range(t):", "for _ in range(1):")
SUM_VALIDATOR = """\
import sys
tok = sys.stdin.read().split()
t = int(tok[0]); p = 1; total = 0
assert 1 <= t <= 10**4
for _ in range(t):
    n = int(tok[p]); total += n
    assert 1 <= n and all(1 <= int(x) <= 10**9 for x in tok[p + 1:p + 1 + n])
    p += 1 + n
assert p == len(tok) and total <= 200000
sys.exit(42)
"""


@pytest.fixture(scope="module")
def runner(sandbox):
    return LocalRunner(sandbox)


def test_several_cases_problem_end_to_end(runner):
    rec = {"id": "pairs", "io": "stdio", "statement": MULTI, "limits": {"time_s": 2},
           "gold_solutions": [{"language": "python", "code": PAIRS_FAST}],
           "sample_tests": [{"stdin": SAMPLES[0], "expected_stdout": "1\n0\n6\n"},
                            {"stdin": SAMPLES[1], "expected_stdout": "0\n"}],
           "validators": [{"language": "python", "code": SUM_VALIDATOR, "accept_exit": 42, "name": "sum.py"}],
           "heldout_correct": [{"language": "python", "code": PAIRS_FAST}],
           "heldout_incorrect": [{"language": "python", "code": PAIRS_QUADRATIC, "expected_failure": "TLE"},
                                 {"language": "python", "code": PAIRS_FIRST_CASE_ONLY}]}
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=10, min_tests=3))
    tg = out["testgen"]
    assert tg["status"] == "ok" and tg["model"] == "stdio:cases", tg
    assert tg["dropped"].get("validator_rejects", 0) == 0, tg  # every generated file is inside the bounds
    assert max(len(t["stdin"]) for t in out["tests"]) > 1_000_000  # a maximum-size file is in the suite
    pool = evaluate([out], runner, mode="engine").pooled()
    assert pool["tpr"] == 1.0 and pool["tnr"] == 1.0 and pool["slow_rejected"] == 1, pool


SPREAD = ("You are given t arrays. For each of them, print the difference between its largest and its smallest "
          "element.\n\nInput\n\nThe first line contains a single integer t (1 ≤ t ≤ 10^4) — the number of test "
          "cases.\n\nThe first line of each test case contains a single integer n (1 ≤ n ≤ 10⁵) — the length of the "
          "array.\n\nThe second line of each test case contains n integers a1, a2, …, an (1 ≤ ai ≤ 10¹⁸).\n\nIt is "
          "guaranteed that the sum of n over all test cases does not exceed 10⁵.\n\nOutput\n\nFor each test case, "
          "print one integer.\n")
SPREAD_GOLD = ("import sys\nd = sys.stdin.read().split(); p = 1\nfor _ in range(int(d[0])):\n"
               "    n = int(d[p]); a = [int(x) for x in d[p + 1:p + 1 + n]]; p += 1 + n\n    print(max(a) - min(a))\n")


def test_a_plain_text_statement_end_to_end(runner):
    """A Codeforces-style statement copied as text (10⁵, 10¹⁸, no math delimiters): the suite reaches
    values past 2^53, where a program that reads them as floats answers wrong. Read before as
    a_i <= 10 and a sum bound of 10, the suite held only tiny values and accepted it."""
    rec = {"id": "spread", "io": "stdio", "statement": SPREAD, "limits": {"time_s": 2},
           "gold_solutions": [{"language": "python", "code": SPREAD_GOLD}],
           "sample_tests": [{"stdin": "2\n3\n5 1 4\n2\n7 7\n", "expected_stdout": "4\n0\n"}],
           "heldout_correct": [{"language": "python", "code": SPREAD_GOLD.replace("max(a) - min(a)", "sorted(a)[-1] - sorted(a)[0]")}],
           "heldout_incorrect": [{"language": "python", "code": SPREAD_GOLD.replace("int(x)", "float(x)")
                                  .replace("max(a) - min(a)", "int(max(a) - min(a))")}]}
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=10, min_tests=3))
    assert out["testgen"]["status"] == "ok" and out["testgen"]["model"] == "stdio:cases", out["testgen"]
    assert max(int(x) for t in out["tests"] for x in t["stdin"].split()) > 2 ** 53
    pool = evaluate([out], runner, mode="engine").pooled()
    assert pool["tpr"] == 1.0 and pool["tnr"] == 1.0, pool


CTD = "INT(1, 100, n) NEWLINE\nREP(n, SPACE) INT(1, 50) END NEWLINE\n"


def test_checktestdata_validator_runs_in_the_sandbox(runner):
    # The statement states no value range; the samples are widened, and only the .ctd grammar
    # knows the values stay in 1..50: its rejections drop the inputs outside.
    gold = "input()\nprint(max(map(int, input().split())))\n"
    rec = {"id": "ctd-max", "io": "stdio", "statement": "Print the largest of the n numbers.",
           "gold_solutions": [{"language": "python", "code": gold}],
           "sample_tests": [{"stdin": "3\n4 20 7\n", "expected_stdout": "20\n"},
                            {"stdin": "2\n31 9\n", "expected_stdout": "31\n"}],
           "input_validators": {"input_validators/max.ctd": CTD}}
    assert [v.name for v in load_problem(rec).validators] == ["input_validators/max.ctd"]
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=30, min_tests=3))
    tg = out["testgen"]
    assert tg["status"] == "ok", tg
    assert tg["dropped"].get("validator_rejects", 0) > 0, tg
    for t in out["tests"]:
        n, *vals = map(int, t["stdin"].split())
        assert 1 <= n <= 100 and len(vals) == n and all(1 <= v <= 50 for v in vals), t["stdin"][:80]


def test_without_checktestdata_the_inputs_are_recorded_as_unvalidated(runner, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ctd(name, *a, **kw):
        if name.startswith("checktestdata"):
            raise ImportError(name)
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_ctd)
    assert ctd.ctd_to_python(CTD)[0] is None
    p = load_problem({"id": "x", "io": "stdio", "statement": "", "gold_solutions": [{"language": "python",
                      "code": "print(1)"}], "input_validators": {"input_validators/max.ctd": CTD}})
    assert p.validators == [] and "not validated by checktestdata" in p.notes[0] and "not installed" in p.notes[0]


def test_a_bad_grammar_is_a_recorded_reason_not_a_crash():
    code, why = ctd.ctd_to_python("INT(1, 100, n NEWLINE\nEND END\n")
    assert code is None and why and "checktestdata" in why
