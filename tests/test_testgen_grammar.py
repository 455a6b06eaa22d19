"""Inputs drawn from a problem's checktestdata grammar (issue 14: "validators when the problem
has them", "maximum-size stress inputs"): every drawn input is one the same grammar accepts
(checked by checktestdata's own reader), a stress input reaches the stated maximum where the
budget allows and stays within the budget where it does not, sizes tied by assertions
(``h * w <= 10^5``, ``s1 + s2 == n + 1``, ``STRLEN(s) == w``) and rising chains hold, and the
pipeline uses the family on a problem whose samples alone do not show the format."""

from __future__ import annotations

import contextlib
import io
import random
import sys

import pytest

pytest.importorskip("checktestdata")

from testgen.grammar import Grammar, GrammarError, Plan, draw_family_bounded, plans  # noqa: E402
from testgen.grammar import generator  # noqa: E402
from testgen.evaluate import evaluate  # noqa: E402
from testgen.pipeline import Settings, synthesize  # noqa: E402
from testgen.grammar.words import Pattern  # noqa: E402
from testgen.input_caps import MAX_INPUT_TOKENS  # noqa: E402


def accepted(source: str, text: str) -> bool:
    """Does checktestdata's own reader (pyctd, the validator testgen runs) accept the input?"""
    from checktestdata.lib import ValidationError, VarType
    from checktestdata.parser import parse
    from checktestdata.tokenizer import tokenize

    parser = parse(tokenize(source.encode()))
    code = parser.python_code(standalone=False)
    names = parser.python_globals()
    for v in names.values():
        if isinstance(v, VarType):
            v.reset()
    stdin, argv = sys.stdin, sys.argv
    sys.stdin, sys.argv = io.TextIOWrapper(io.BytesIO(text.encode())), ["ctd"]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, dict(names))  # noqa: S102 - checktestdata's translation of the test's own grammar
        return True
    except (ValidationError, TypeError):
        return False
    finally:
        sys.stdin, sys.argv = stdin, argv


ALL_PLANS = plans("small", 8) + plans("boundary", 4) + plans("stress", 3, labels=True)

GRAPH = """INT(1, 500000, n) SPACE INT(1, 500000, m) SPACE INT(1, 1000, k) NEWLINE
REP(m)
  INT(1, n, u) SPACE INT(1, n, v) SPACE INT(1, 10^6, t) NEWLINE
  INT(1, k, l)
  REP(l)
    SPACE INT(1, k)
  END
  NEWLINE
END
EOF
"""
GRID = """INT(1, 100000, h) SPACE INT(1, 100000, w) NEWLINE
ASSERT(h * w <= 100000)
REP(h)
  REGEX("[A-Z]+", s) NEWLINE
  ASSERT(STRLEN(s) == w)
END
EOF
"""
RISING = """INT(1, 200000, n) NEWLINE
SET(last = 0)
REP(n, SPACE)
  INT(1, 1000000, cur)
  ASSERT(last < cur)
  SET(last = cur)
END
NEWLINE
EOF
"""
SUM = """INT(3, 4*10^5+1, n) SPACE INT(2, 2*10^5, s1) SPACE INT(2, 2*10^5, s2) NEWLINE
ASSERT(s1 + s2 == n + 1)
REP(s1, SPACE) INT(1, 10^9) END NEWLINE
REP(s2, SPACE) INT(1, 10^9) END NEWLINE
EOF
"""
QUERIES = """INT(2, 10^5, n) SPACE INT(1, 10^5, q) NEWLINE
REP(q)
  REGEX("[?+-]", c) SPACE INT(1, n, a)
  IF (c == "?") SPACE INT(1, n, b) ASSERT(a != b) END
  NEWLINE
END
EOF
"""
UNTIL_EOF = """INT(1, 10, n) NEWLINE
WHILE(!ISEOF)
  INT(1, 5) NEWLINE
END
"""
PRICES = """INT(1, 100000, n) NEWLINE
REP(n)
  FLOATP(0, 10^4, 2, 2) SPACE INT(0, 10^6) NEWLINE
END
EOF
"""


@pytest.mark.parametrize("name,source", [("graph", GRAPH), ("grid", GRID), ("rising", RISING), ("sum", SUM),
                                         ("queries", QUERIES), ("prices", PRICES), ("until-eof", UNTIL_EOF)])
def test_every_drawn_input_is_one_the_grammar_accepts(name, source, monkeypatch):
    # what is drawn, not how fast: the draws' wall-clock budget would fail them on a loaded machine
    monkeypatch.setattr(generator, "DRAW_SECONDS", 60.0)
    g = Grammar(source, seen="? + -")
    rng = random.Random(7)
    drawn = [g.draw(p, rng) for p in ALL_PLANS]
    made = [t for t in drawn if t is not None]
    assert len(made) >= len(ALL_PLANS) - 1, (name, [p.note for p, t in zip(ALL_PLANS, drawn) if t is None])
    for t in made:
        assert accepted(source, t), (name, t[:200])


def test_a_stress_input_is_at_the_stated_maximum_when_it_fits():
    src = "INT(1, 1000, n) NEWLINE\nREP(n, SPACE) INT(1, 10^9) END NEWLINE\nEOF\n"
    g = Grammar(src)
    t = g.draw(Plan("stress", "random"), random.Random(1))
    n, *vals = map(int, t.split())
    assert n == 1000 and len(vals) == 1000
    t = g.draw(Plan("stress", "equal-max"), random.Random(1))
    assert set(map(int, t.split()[1:])) == {10 ** 9}
    t = g.draw(Plan("small"), random.Random(1))
    assert int(t.split()[0]) <= 11  # the small family keeps counts small


def test_a_stress_input_too_big_for_the_budget_is_halved_until_it_fits():
    g = Grammar(GRAPH)
    t = g.draw(Plan("stress", "equal-max"), random.Random(3))
    tokens = len(t.split())
    assert MAX_INPUT_TOKENS // 8 <= tokens <= 2 * MAX_INPUT_TOKENS, tokens
    assert accepted(GRAPH, t)


def test_sizes_tied_by_assertions_hold_at_stress_size():
    g = Grammar(GRID)
    t = g.draw(Plan("stress", "random"), random.Random(5))
    rows = t.split("\n")
    h, w = map(int, rows[0].split())
    assert h * w <= 100000 and h * w >= 1000, (h, w)
    assert all(len(r) == w for r in rows[1:1 + h])
    g = Grammar(SUM)
    t = g.draw(Plan("stress", "random"), random.Random(5))
    n, s1, s2 = map(int, t.split("\n")[0].split())
    assert s1 + s2 == n + 1 and n > 1000


def test_a_rising_chain_reaches_a_large_size():
    g = Grammar(RISING)
    t = g.draw(Plan("stress", "random"), random.Random(2))
    n, *vals = map(int, t.split())
    assert n >= 50000 and len(vals) == n and all(a < b for a, b in zip(vals, vals[1:]))


def test_distinct_values_within_one_list_repeat_across_lists():
    src = "INT(1, 50, m) NEWLINE\nREP(m)\n INT(1, 5, l)\n REP(l) SPACE INT(1, 5) END\n NEWLINE\nEND\nEOF\n"
    g = Grammar(src)
    rng = random.Random(4)
    lists = []
    for _ in range(10):
        t = g.draw(Plan("small", distinct=True), rng)
        lists += [list(map(int, line.split()))[1:] for line in t.split("\n")[1:] if line.strip()]
    assert all(len(set(x)) == len(x) for x in lists), lists
    assert len({v for x in lists for v in x}) == 5


def test_patterns_give_the_length_asked_for_and_leave_out_unseen_punctuation():
    p = Pattern("[A-Z]?[a-z]*[aeiou][a-z]*")
    rng = random.Random(0)
    for length in (1, 2, 7, 50):
        s = p.draw(rng, length=length)
        assert s is not None and len(s) == length and p.regex.fullmatch(s)
    bars = Pattern("[L|R]*", seen="LRRL")
    assert "|" not in "".join(bars.draw(rng, length=30) for _ in range(20))
    assert Pattern("[?+-]", seen="").draw(rng, length=1) in ("?", "+", "-")  # nothing else to draw


def _period(word: str) -> int:
    return next(p for p in range(1, len(word) + 1) if word[p:] == word[:-p])


def test_a_skewed_stress_word_is_a_short_block_repeated_at_the_stated_length():
    # loopinvariant-like: one string, its length bounded by an assertion; a random word hides a
    # program quadratic only on repetition, a periodic one (``abcabc...``) shows it
    src = 'REGEX("[a-z]+", s) NEWLINE\nASSERT(STRLEN(s) <= 200000)\nEOF\n'
    g = Grammar(src)
    rng = random.Random(6)
    words = [g.draw(Plan("stress", "skewed"), rng).strip() for _ in range(6)]
    assert all(len(w) == 200000 and accepted(src, w + "\n") for w in words)
    assert all(2 <= _period(w[:600]) <= 6 for w in words)
    assert _period(g.draw(Plan("stress", "random"), rng).strip()[:600]) > 6
    # a pattern of several pieces cycles its letters through them and still matches
    p = Pattern("[A-Z]?[a-z]*[aeiou][a-z]*")
    s = p.draw(random.Random(1), length=60, period=3)
    assert s is not None and p.regex.fullmatch(s) and len(set(s[1:])) <= 4


def test_a_path_stress_input_numbers_an_edge_list_along_one_long_heavy_path():
    # The values that number things (the n of INT(1, n) in a loop: vertices, colours) go along a
    # path: edge k is k+1 -> k+2, so 1 reaches n over n - 1 edges of the greatest weight, where a
    # random graph reaches it in a few hops (a 32-bit distance overflows only here).
    g = Grammar(GRAPH)
    assert g.labels == {"n", "k"}
    t = g.draw(Plan("stress", "path"), random.Random(3))
    assert t is not None and accepted(GRAPH, t)
    lines = t.splitlines()
    n, m, k = map(int, lines[0].split())
    assert n == m and n > 10_000  # as many vertices as edges: drawn like a count, as large as fits
    edges = [tuple(map(int, lines[1 + 2 * i].split())) for i in range(m)]
    assert [(u, v) for u, v, _ in edges[:n - 1]] == [(i, i + 1) for i in range(1, n)]
    assert {w for _, _, w in edges} == {10 ** 6}
    assert {lines[2 + 2 * i].split()[0] for i in range(m)} == {"1"}  # a list within an item: the least


def test_a_star_stress_input_puts_every_edge_at_the_first_vertex():
    t = Grammar(GRAPH).draw(Plan("stress", "star"), random.Random(3))
    assert t is not None and accepted(GRAPH, t)
    lines = t.splitlines()
    n, m, _ = map(int, lines[0].split())
    edges = [tuple(map(int, lines[1 + 2 * i].split()[:2])) for i in range(m)]
    assert n == m and edges[:n - 1] == [(1, i) for i in range(2, n + 1)]


def test_where_the_path_breaks_an_assertion_that_value_is_drawn_at_random():
    # A DAG given as u < v: the path's last edge would wrap around (n -> 1); it is drawn again.
    src = "INT(2, 1000, n) SPACE INT(1, 1000, m) NEWLINE\nREP(m) INT(1, n, u) SPACE INT(1, n, v) ASSERT(u < v) NEWLINE END\nEOF\n"
    t = Grammar(src).draw(Plan("stress", "path"), random.Random(5))
    assert t is not None and accepted(src, t)
    rows = [tuple(map(int, r.split())) for r in t.splitlines()[1:]]
    assert rows[:999] == [(i, i + 1) for i in range(1, 1000)] and len(rows) == 1000


def test_path_and_star_plans_come_last_and_only_where_values_number_things():
    assert plans("stress", 5, labels=True)[:5] == plans("stress", 5)
    assert plans("stress", 5, labels=True)[5:] == [Plan("stress", "path"), Plan("stress", "star")]
    assert len(plans("stress", 5)) == 5
    assert Grammar(GRID).labels == set() and Grammar(QUERIES).labels == {"n"}


def test_the_pipeline_rejects_a_distance_kept_in_32_bits_on_a_long_path(runner):
    # Shortest time from 1 to n over one-way roads of up to 10^6 seconds each: the sum fits in 32
    # bits on every random graph (1 reaches n in a few hops, or not at all), not along a path.
    src = ("INT(2, 200000, n) SPACE INT(1, 200000, m) NEWLINE\n"
           "REP(m) INT(1, n, u) SPACE INT(1, n, v) SPACE INT(1, 10^6, t) NEWLINE END\nEOF\n")
    dijkstra = r"""#include <bits/stdc++.h>
using namespace std;
typedef DIST D;
int main() { int n, m; scanf("%d %d", &n, &m); vector<vector<pair<int,int>>> g(n + 1);
  for (int i = 0; i < m; i++) { int u, v, t; scanf("%d %d %d", &u, &v, &t); g[u].push_back({v, t}); }
  vector<D> d(n + 1, -1); priority_queue<pair<D,int>, vector<pair<D,int>>, greater<>> q; d[1] = 0; q.push({0, 1});
  while (!q.empty()) { auto [du, u] = q.top(); q.pop(); if (du != d[u]) continue;
    for (auto [v, t] : g[u]) if (d[v] < 0 || du + t < d[v]) { d[v] = du + t; q.push({d[v], v}); } }
  printf("%lld\n", (long long)d[n]); }
"""
    gold, narrow = dijkstra.replace("DIST", "long long"), dijkstra.replace("DIST", "int")
    rec = {"id": "ctd-roads", "io": "stdio",
           "statement": "Print the shortest time from intersection 1 to intersection n, or -1 if n cannot be reached.",
           "gold_solutions": [{"language": "cpp", "code": gold}],
           "seed_tests": [{"stdin": "3 2\n1 2 5\n2 3 7\n", "expected_stdout": "12\n"},
                          {"stdin": "3 1\n1 2 5\n", "expected_stdout": "-1\n"}],
           "input_validators": {"input_validators/roads.ctd": src},
           "heldout_correct": [{"language": "cpp", "code": gold}],
           "heldout_incorrect": [{"language": "cpp", "code": narrow, "label": "WA"}]}
    assert_suite_tells_them_apart(rec, runner)


def assert_suite_tells_them_apart(rec: dict, runner) -> None:
    """The suite synthesized for ``rec`` (20 tests at most) accepts its correct programs and
    rejects its incorrect ones."""
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=20, min_tests=3))
    assert out["testgen"]["status"] == "ok", out["testgen"]
    pool = evaluate([out], runner).pooled()
    assert pool["tpr"] == 1.0 and pool["tnr"] == 1.0, pool


LAND = "INT(1, 100) SPACE INT(1, 100) SPACE INT(1, 26) NEWLINE\n"


def test_a_loop_free_grammar_gets_every_corner_of_its_integers():
    # A few numbers on one line: the boundary inputs are the whole grid of lo, lo + 1, hi - 1, hi.
    corners = Grammar(LAND).corner_plans()
    assert len(corners) == 64 and all(p.kind == "boundary" and p.ends == 4 for p in corners)
    g, rng = Grammar(LAND), random.Random(0)
    drawn = {g.draw(p, rng) for p in corners}
    ends = lambda lo, hi: (lo, lo + 1, hi - 1, hi)  # noqa: E731
    assert drawn == {f"{h} {w} {n}\n" for h in ends(1, 100) for w in ends(1, 100) for n in ends(1, 26)}
    assert all(accepted(LAND, t) for t in drawn)


def test_a_corner_its_assertions_refuse_is_not_drawn_and_wide_grids_take_two_ends():
    odd = "INT(1, 10^18, n) NEWLINE\nASSERT(n % 2 == 1)\nEOF\n"
    g, rng = Grammar(odd), random.Random(0)
    assert {g.draw(p, rng) for p in g.corner_plans()} - {None} == {"1\n", f"{10**18 - 1}\n"}
    four = "INT(1, 9) SPACE INT(1, 9) SPACE INT(1, 9) SPACE INT(1, 9) NEWLINE\n"  # 4^4 = 256 > 64
    corners = Grammar(four).corner_plans()
    assert len(corners) == 16 and {p.ends for p in corners} == {2}
    g = Grammar(four)
    assert {g.draw(p, rng) for p in corners} == {" ".join(x) + "\n" for x in
                                                   __import__("itertools").product("19", repeat=4)}


def test_a_grammar_with_a_loop_keeps_its_random_boundary_inputs():
    assert Grammar(GRAPH).corner_plans() == [] and Grammar(RISING).corner_plans() == []
    drawn, _ = draw_family_bounded([GRAPH], "", 0, "p", 12, timeout_s=120)
    assert not any(note.endswith(":corner") for _, _, note in drawn)
    drawn, _ = draw_family_bounded([LAND], "", 0, "p", 12, timeout_s=120)
    assert sum(f == "corner" and note == "grammar:boundary:corner" for f, _, note in drawn) == 64


def test_the_pipeline_rejects_a_program_that_fails_at_one_corner_only(runner):
    # Split an h x w field among n: the wrong program fails only when one side is 1 and the other
    # is 100 (a random boundary input finds that corner one time in sixteen).
    src = "INT(1, 100, h) SPACE INT(1, 100, w) NEWLINE\nEOF\n"
    gold = "h, w = map(int, input().split())\nprint(h * w, h + w)\n"
    wrong = ("h, w = map(int, input().split())\n"
             "print(h * w, h + w if {h, w} != {1, 100} else 0)\n")
    rec = {"id": "ctd-corner", "io": "stdio", "statement": "Print the area and the half perimeter.",
           "gold_solutions": [{"language": "python", "code": gold}],
           "sample_tests": [{"stdin": "3 4\n", "expected_stdout": "12 7\n"}],
           "input_validators": {"input_validators/field.ctd": src},
           "heldout_correct": [{"language": "python", "code": gold}],
           "heldout_incorrect": [{"language": "python", "code": wrong, "label": "WA"}]}
    assert_suite_tells_them_apart(rec, runner)


def test_a_grammar_that_cannot_be_read_is_a_reason_not_a_crash():
    with pytest.raises(GrammarError, match="checktestdata"):
        Grammar("INT(1, 100, n NEWLINE\nEND END\n")


def test_what_a_grammar_asks_for_is_bounded_in_a_child_process():
    # REP(m ^ m) with m up to 10^9: small m draw, the stress sizes are refused, nothing hangs;
    # a script that cannot be read is a note beside the inputs of the others.
    fine = "INT(1, 1000, n) NEWLINE\nREP(n, SPACE) INT(1, 10^9) END NEWLINE\nEOF\n"
    huge = "INT(1, 10^9, m) NEWLINE\nREP(m ^ m) INT(1, 2) END\n"
    drawn, notes = draw_family_bounded([fine, huge, "INT(1"], "", 0, "p", 12, timeout_s=120)
    assert {f for f, _, _ in drawn} == {"grammar", "stress"}
    assert any(note.startswith("shape:grammar-") for _, _, note in drawn)
    assert len(notes) == 1 and "script 3" in notes[0] and "could not read" in notes[0]
    assert all(len(t) < 2_000_000 for _, t, _ in drawn)
    # a child stopped at its time limit: what it drew so far is kept, and the stop is a note
    drawn, notes = draw_family_bounded([GRAPH] * 10, "", 0, "p", 30, timeout_s=2)
    assert drawn and any("stopped after 2 s" in n for n in notes), notes


def test_the_pipeline_draws_from_the_grammar(runner):
    # One sample, "1 5": the input model alone cannot know that the count line is followed by
    # that many pairs; the grammar does.
    src = "INT(1, 200, n) NEWLINE\nREP(n) INT(1, 1000, a) SPACE INT(a, 1000) NEWLINE END\nEOF\n"
    gold = "n = int(input())\nprint(sum(b - a for a, b in (map(int, input().split()) for _ in range(n))))\n"
    rec = {"id": "ctd-intervals", "io": "stdio", "statement": "Print the total length of the n intervals.",
           "gold_solutions": [{"language": "python", "code": gold}],
           "sample_tests": [{"stdin": "1\n1 5\n", "expected_stdout": "4\n"}],
           "input_validators": {"input_validators/intervals.ctd": src}}
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=20, min_tests=3))
    tg = out["testgen"]
    assert tg["status"] == "ok", tg
    assert tg["generated"].get("grammar", 0) > 0, tg
    assert "grammar" in tg["families"], tg["families"]
    counts = [int(t["stdin"].split()[0]) for t in out["tests"]]
    assert max(counts) == 200, counts  # a stress input at the stated maximum
    for t in out["tests"]:
        assert accepted(src, t["stdin"]), t["stdin"][:100]
