"""Values listed by their place and bounded in magnitude by the value of the same place
(``testgen/relations.py``: ``StatedBound``, ``indexed_partner``, ``bound_column``).

"One line with seven positive integers $d_1, \\ldots, d_7$", then "$n$ lines, each with seven
integers $b_1, \\ldots, b_7$ ($1 \\le |b_i| \\le d_i$)", then a line of two more: a signed
choice per column (the sign says which side, the magnitude which option), never 0, each
column under its own header value (gcpc2022/guessinggame). Before, the statement's reading of
the layout was lost (a list of literal length read as one counted by n; or, with many int
columns, not reached before the search for readings stopped at its cap), the columns had no
names to bind, and `|b_i|` was no bound at all: the problem's validator rejected nearly every
generated input and the suite kept the samples only.
"""

from __future__ import annotations

import random

from _slow_program import assert_the_slow_program_is_rejected, slow_program_record, synthesized
from testgen.relations import HeadBound, bound_column, stated_bounds
from testgen.sections import choose
from testgen.smodel import StdioModel
from testgen.tokens import tokenize

VOTES = r"""\begin{Input}
\begin{itemize}
  \item One line with an integer $n$ ($1 \le n \le 10^5$), the number of voters.
  \item One line with three integers $c_1, \ldots, c_3$ ($1 \le c_i \le 100$), the options of each question.
  \item $n$ lines, each with three integers $a_1, \ldots, a_3$ ($1 \le |a_i| \le c_i$): a voter's answers.
    A positive $a_i$ is a vote for option $a_i$ of question $i$, a negative one a vote against option $-a_i$.
  \item One line with two integers $a_2, a_3$ ($1 \le |a_i| \le c_i$), your answers to the last two questions.
\end{itemize}
\end{Input}
\begin{Output} The number of voters who answered the last two questions as you did. \end{Output}"""
# n is as large as the line of c's is long, and the c's are equal: that line reads as a list
# counted by n, and the block as counted by a c less one, as well as the statement's reading
VOTES_SAMPLES = ["3\n4 4 4\n1 -2 3\n2 2 -1\n-3 -2 3\n-2 3\n", "3\n4 4 4\n4 3 2\n-1 -3 4\n2 3 -1\n3 -1\n"]
VOTES_OUTPUTS = ["2\n", "1\n"]
FAMILIES = ("regular", "boundary", "special", "structured", "stress")


def _valid(text: str) -> bool:
    lines = [ln.split() for ln in text.split("\n") if ln.strip()]
    n, caps = int(lines[0][0]), [int(x) for x in lines[1]]
    rows = [[int(x) for x in r] for r in lines[2:2 + n]]
    own = [int(x) for x in lines[2 + n]]
    return (len(lines) == n + 3 and all(1 <= c <= 100 for c in caps) and all(len(r) == 3 for r in rows)
            and all(1 <= abs(v) <= c for r in rows for v, c in zip(r, caps))
            and all(1 <= abs(v) <= c for v, c in zip(own, caps[1:])))


def test_a_magnitude_bound_is_read_from_the_statement():
    got = [b for b in stated_bounds(VOTES) if b.magnitude]
    assert {(b.name, b.lo, b.upper, b.strict) for b in got} == {("a_i", 1, "c_i", 0)}
    assert not any(b.magnitude for b in stated_bounds(r"($1 \le a_i \le c_i$)"))


def test_a_magnitude_bound_keeps_the_drawn_sign_and_never_gives_zero():
    b = HeadBound(col=0, head=0, lo=1, magnitude=True)
    # magnitudes 1..14 mapped in order onto 1..4, the signs as drawn
    assert bound_column([-10, -3, 0, 2, 14], b, -10, 14, 4) == [-3, -1, 1, 1, 4]
    assert bound_column([5], b, 1, 7, 0) is None  # no magnitude fits under 0


def test_the_listed_layout_is_found_and_every_input_keeps_each_column_under_its_own_bound():
    toks = [tokenize(s) for s in VOTES_SAMPLES]
    specs, confirmed = choose(toks, VOTES, fallback=False)
    assert confirmed and [sp[0] for sp in specs] == ["line", "line", "rows", "line"]
    assert specs[2][1] == (0, 0)  # the block is counted by n, not by a c_i the samples make equal
    m = StdioModel.infer(VOTES_SAMPLES, VOTES)
    assert m.shape == "sections"
    texts = [t for fam in FAMILIES for t in m.draw(fam, random.Random(5), 4 if fam != "stress" else 2)]
    assert len(texts) >= 15 and all(_valid(t) for t in texts)
    values = [int(x) for t in texts for ln in t.split("\n")[2:] for x in ln.split()]
    assert min(values) < 0 < max(values)  # both signs, as the samples show
    assert max(int(t.split("\n")[0]) for t in texts) >= 10**4  # the stress inputs are large


VALIDATOR = """import sys
lines = [ln.split() for ln in sys.stdin.read().split("\\n") if ln.strip()]
n, caps = int(lines[0][0]), [int(x) for x in lines[1]]
assert 1 <= n <= 10**5 and len(caps) == 3 and min(caps) >= 1 and max(caps) <= 100
assert len(lines) == n + 3
for r in lines[2:2 + n]:
    assert len(r) == 3 and all(1 <= abs(int(v)) <= c for v, c in zip(r, caps))
own = lines[2 + n]
sys.exit(42 if len(own) == 2 and all(1 <= abs(int(v)) <= c for v, c in zip(own, caps[1:])) else 43)
"""
GOLD_CPP = r"""#include <cstdio>
#include <vector>
int main() { int n; scanf("%d", &n); int c[3]; for (int k = 0; k < 3; k++) scanf("%d", &c[k]);
  std::vector<int> b(n), d(n);
  for (int i = 0; i < n; i++) { int a; scanf("%d %d %d", &a, &b[i], &d[i]); }
  int x, y; scanf("%d %d", &x, &y); int count = 0;
  for (int i = 0; i < n; i++) if (b[i] == x && d[i] == y) count++;
  printf("%d\n", count); }"""
# the same answer, counted for every voter against every voter: quadratic (10^10 steps at 10^5)
SLOW_CPP = r"""#include <cstdio>
#include <vector>
int main() { int n; scanf("%d", &n); int c[3]; for (int k = 0; k < 3; k++) scanf("%d", &c[k]);
  std::vector<int> b(n), d(n);
  for (int i = 0; i < n; i++) { int a; scanf("%d %d %d", &a, &b[i], &d[i]); }
  int x, y; scanf("%d %d", &x, &y); long long same = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) if (b[j] == b[i] && d[j] == d[i]) same++;
  int count = 0;
  for (int i = 0; i < n; i++) if (b[i] == x && d[i] == y) count++;
  printf("%d\n", same >= n ? count : -1); }"""


def test_a_program_slow_only_on_many_voters_times_out_on_the_suite(runner):
    """Before, the validator rejected every generated input (zeros, magnitudes above their
    column's bound) and the suite was the two samples: the quadratic program passed."""
    out = synthesized(slow_program_record("signed-votes", VOTES, VOTES_SAMPLES, VOTES_OUTPUTS, GOLD_CPP, SLOW_CPP,
                                          validator=VALIDATOR), runner)
    assert out["testgen"]["model"] == "stdio:sections(LLRL)"
    assert max(int(t["stdin"].split("\n")[0]) for t in out["tests"]) >= 10**4
    assert_the_slow_program_is_rejected(out, runner)
