"""Issue 14 through the real (native) sandbox: LeetCode-style ``Solution.method`` problems from
synthesis to judging, a tree problem whose suite has a maximum-size input that times out a
quadratic program, and stated float tolerance on a stdin problem."""

from __future__ import annotations

from testgen.evaluate import evaluate
from testgen.pipeline import Settings, synthesize

FAST = Settings(mutants=8, max_tests=12, min_tests=3)

TWO_SUM = """\
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return [seen[target - x], i]
            seen[x] = i
        return []
"""
TWO_SUM_SLOW = """\
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        for j in range(len(nums)):
            for i in range(j):
                if nums[i] + nums[j] == target:
                    return [i, j]
        return []
"""
TWO_SUM_WRONG = """\
class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        return [0, 1]
"""


def test_solution_class_problem_is_synthesized_and_judged(runner):
    rec = {"id": "two-sum", "io": "function", "entry_point": "Solution.twoSum",
           "statement": "Given nums and target, return the indices of the two numbers that add up to target. "
                        "Exactly one solution exists.\nclass Solution:\n    def twoSum(self, nums: List[int], "
                        "target: int) -> List[int]:",
           "gold_solutions": [{"language": "python", "code": TWO_SUM}, {"language": "python", "code": TWO_SUM_SLOW}],
           "seed_tests": [{"args": [[2, 7, 11, 15], 9], "expected": [0, 1]},
                          {"args": [[3, 2, 4], 6], "expected": [1, 2]}, {"args": [[3, 3], 6], "expected": [0, 1]}],
           "heldout_correct": [{"language": "python", "code": TWO_SUM}],
           "heldout_incorrect": [{"language": "python", "code": TWO_SUM_WRONG}]}
    out = synthesize(rec, runner, FAST)
    tg = out["testgen"]
    assert tg["status"] in ("ok", "too_few_tests"), tg
    assert all(g["status"] == "ok" for g in tg["gold"]), tg["gold"]  # List needs LeetCode's imports
    seeds = [t["args"] for t in rec["seed_tests"]]
    assert all(s in [t["args"] for t in out["tests"]] for s in seeds)  # the samples are always there
    rep = evaluate([out], runner, mode="engine")
    p = rep.problems[0]
    assert (p.correct, p.accepted, p.incorrect, p.rejected) == (1, 1, 1, 1), rep.to_json()


QUADRATIC_DEPTHS = """\
import sys
n = int(sys.stdin.readline())
adj = [[] for _ in range(n + 1)]
for _ in range(n - 1):
    a, b = map(int, sys.stdin.readline().split())
    adj[a].append(b); adj[b].append(a)
best = 0
for s in range(1, n + 1):          # a BFS from every node: O(n^2)
    dist = [-1] * (n + 1); dist[s] = 0; q = [s]
    for u in q:
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1; q.append(v)
    best = max(best, max(dist))
print(best)
"""
LINEAR_DEPTHS = """\
import sys
def far(adj, s, n):
    dist = [-1] * (n + 1); dist[s] = 0; q = [s]
    for u in q:
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1; q.append(v)
    m = max(range(1, n + 1), key=lambda x: dist[x])
    return m, dist[m]
data = sys.stdin.read().split()
n = int(data[0])
adj = [[] for _ in range(n + 1)]
for i in range(n - 1):
    a, b = int(data[1 + 2 * i]), int(data[2 + 2 * i])
    adj[a].append(b); adj[b].append(a)
u, _ = far(adj, 1, n)
print(far(adj, u, n)[1])
"""


def test_tree_problem_gets_trees_and_a_stress_input_that_times_out_a_quadratic_program(runner):
    rec = {"id": "diameter", "io": "stdio",
           "statement": r"Given a tree with $n$ nodes ($2 \le n \le 20000$), print the length of its longest path.",
           "limits": {"time_s": 2},
           "gold_solutions": [{"language": "python", "code": LINEAR_DEPTHS}],
           "seed_tests": [{"stdin": "4\n1 2\n2 3\n2 4\n", "expected_stdout": "2\n"},
                          {"stdin": "3\n1 3\n3 2\n", "expected_stdout": "2\n"}],
           "heldout_correct": [{"language": "python", "code": LINEAR_DEPTHS}],
           "heldout_incorrect": [{"language": "python", "code": QUADRATIC_DEPTHS, "expected_failure": "TLE"}]}
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=10, min_tests=3))
    tg = out["testgen"]
    assert tg["status"] == "ok", tg
    assert tg["model"] == "stdio:counted"
    sizes = [int(t["stdin"].split()[0]) for t in out["tests"]]
    assert max(sizes) >= 10000, sizes  # a maximum-size tree made it into the suite
    rep = evaluate([out], runner, mode="engine")
    pool = rep.pooled()
    assert pool["tpr"] == 1.0 and pool["tnr"] == 1.0 and pool["slow_rejected"] == pool["slow"] == 1


def test_stated_tolerance_compares_floats(runner):
    gold = "x = int(input())\nprint(f'{x / 3:.9f}')\n"
    close = "x = int(input())\nprint(round(x / 3, 7))\n"  # within 1e-6, not the same text
    rec = {"id": "third", "io": "stdio", "statement": r"Print $x/3$ ($1 \le x \le 1000$). "
           r"Answers with an absolute or relative error of at most $10^{-6}$ are accepted.",
           "gold_solutions": [{"language": "python", "code": gold}],
           "seed_tests": [{"stdin": "3\n", "expected_stdout": "1.000000000\n"},
                          {"stdin": "10\n", "expected_stdout": "3.333333333\n"}],
           "heldout_correct": [{"language": "python", "code": close}],
           "heldout_incorrect": [{"language": "python", "code": "x = int(input())\nprint(x // 3)\n"}]}
    out = synthesize(rec, runner, FAST)
    assert out["testgen"]["status"] == "ok", out["testgen"]
    pool = evaluate([out], runner, mode="engine").pooled()
    assert pool["tpr"] == 1.0 and pool["tnr"] == 1.0
