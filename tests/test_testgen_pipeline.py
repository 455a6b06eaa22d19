"""testgen through the real sandbox: the agreement rule, broken gold solutions, stdin/stdout
problems with a checker, evaluation, the CLI, and resumption after a kill."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from sandbox import Limits
from testgen.batch import finished_ids, run_batch
from testgen.candidates import Candidate
from testgen.evaluate import evaluate
from testgen.pipeline import Settings, synthesize
from testgen.problem import load_problem
from testgen.validate import validate_function, validate_stdio

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST = Settings(mutants=12, max_tests=12, min_tests=3)

ABS = "def f(x):\n    return abs(x)\n"
# agrees with ABS down to -4, then answers 0: a gold solution that disagrees on some inputs
ABS_PARTIAL = "def f(x):\n    if x >= 0:\n        return x\n    return -x if x > -5 else 0\n"


def _state_dir() -> str:
    """A private sandbox state folder the jail users can traverse (pytest's tmp folders are 0700)."""
    d = tempfile.mkdtemp(prefix="codetest-tg-")
    os.chmod(d, 0o755)
    return d


@pytest.fixture
def state_env():
    """Environment for a `codetest` subprocess with its own sandbox state folder, removed afterwards."""
    d = _state_dir()
    yield dict(os.environ, CODETEST_STATE_DIR=d)
    shutil.rmtree(d, ignore_errors=True)


def fn_problem(pid: str, golds: list[str], seeds: list[list], **kw) -> dict:
    return {"id": pid, "io": "function", "entry_point": "f", "statement": kw.pop("statement", ""),
            "gold_solutions": [{"language": "python", "code": g} for g in golds],
            "seed_tests": [{"args": a} for a in seeds], **kw}


def test_a_disagreeing_gold_solution_drops_the_input(runner):
    p = load_problem(fn_problem("agree", [ABS, ABS_PARTIAL], [[3], [-2], [0]]))
    cands = [Candidate("seed", args=[3]), Candidate("seed", args=[-2]), Candidate("seed", args=[0]),
             Candidate("regular", args=[-10]), Candidate("regular", args=[7]), Candidate("regular", args=[-4])]
    val = validate_function(p, cands, runner)
    kept = sorted(c.args[0] for c in val.kept)
    assert kept == [-4, -2, 0, 3, 7]
    assert val.dropped == {"gold_disagree": 1}
    assert {c.args[0]: c.expected for c in val.kept}[-4] == 4


def test_pipeline_never_keeps_inputs_the_golds_disagree_on(runner):
    out = synthesize(fn_problem("agree2", [ABS, ABS_PARTIAL], [[3], [-2], [0], [-3]]), runner, FAST)
    tg = out["testgen"]
    assert tg["status"] == "ok", tg
    assert all(t["args"][0] > -5 and t["expected"] == abs(t["args"][0]) for t in out["tests"])
    assert tg["dropped"].get("gold_disagree", 0) >= 1
    assert 3 <= len(out["tests"]) <= 12


def test_crash_timeout_and_slow_gold_drop_inputs(runner):
    crashy = "def f(x):\n    if x == 13:\n        raise ValueError('no')\n    while x > 1000:\n        pass\n    return x\n"
    p = load_problem(fn_problem("crash", [crashy], [[1], [2]], limits={"time_s": 0.5}))
    cands = [Candidate("seed", args=[1]), Candidate("seed", args=[2]), Candidate("regular", args=[13]),
             Candidate("regular", args=[5000]), Candidate("regular", args=[7])]
    val = validate_function(p, cands, runner)
    assert sorted(c.args[0] for c in val.kept) == [1, 2, 7]
    assert val.dropped == {"gold_error": 1, "gold_timeout": 1}


def test_broken_gold_is_reported_and_the_rest_still_used(runner):
    broken = "def f(x)\n    return x\n"  # syntax error
    wrong = "def f(x):\n    return -abs(x)\n"  # fails the seed examples
    out = synthesize(fn_problem("broken", [ABS, broken, wrong], [[3], [-2]],
                                base_tests=None), runner, FAST)
    # seed_tests have no expected values here; the loader takes them as examples only
    tg = out["testgen"]
    gold = {g["name"]: g for g in tg["gold"]}
    assert gold["#1"]["status"] == "broken" and "does not load" in gold["#1"]["reason"]
    # without expected values on the seeds, a wrong gold is caught by disagreement instead
    assert tg["status"] in ("ok", "too_few_tests")


def test_wrong_gold_against_seed_expected_is_broken(runner):
    rec = fn_problem("wronggold", [ABS, "def f(x):\n    return x\n"], [])
    rec["seed_tests"] = [{"args": [3], "expected": 3}, {"args": [-2], "expected": 2}]
    out = synthesize(rec, runner, FAST)
    tg = out["testgen"]
    assert [g["status"] for g in tg["gold"]] == ["ok", "broken"]
    assert "fails seed test" in tg["gold"][1]["reason"]
    assert tg["status"] == "ok" and out["tests"]


def test_all_gold_broken_is_a_failed_problem_not_a_crash(runner, tmp_path):
    probs = tmp_path / "p.jsonl"
    good = fn_problem("good", [ABS], [[3], [-2], [5]])
    bad = fn_problem("bad", ["def f(x):\n    return 1/0\n"], [[1], [2]])
    probs.write_text("\n".join(json.dumps(r) for r in (bad, {"no": "id"}, good)) + "\nnot json\n")
    out = tmp_path / "o.jsonl"
    summary = run_batch(str(probs), str(out), runner, FAST, workers=2, progress=False)
    recs = {json.loads(l)["id"]: json.loads(l) for l in out.read_text().splitlines()}
    assert recs["bad"]["testgen"]["status"] == "failed"
    assert "no gold solution passes" in recs["bad"]["testgen"]["reason"]
    assert recs["good"]["testgen"]["status"] == "ok" and recs["good"]["tests"]
    assert len(summary["bad_lines"]) == 2


SUM_PY = "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\n"
SUM_C = ('#include <stdio.h>\nint main(){int n; long long s=0,x; scanf("%d",&n);'
         'for(int i=0;i<n;i++){scanf("%lld",&x);s+=x;} printf("%lld\\n", s); return 0;}\n')
# Kattis output validator: accepts when the team output equals the answer as integers
CHECKER = ("import sys\nans = open(sys.argv[2]).read().split()\nout = sys.stdin.read().split()\n"
           "sys.exit(42 if [int(x) for x in out] == [int(x) for x in ans] else 43)\n")


def stdio_problem(**kw) -> dict:
    rec = {"id": "sum", "io": "stdio",
           "statement": r"First line: $N$ ($1 \le N \le 20$). Second line: $N$ integers $a_i$ ($-1000 \le a_i \le 1000$).",
           "gold_solutions": [{"language": "python", "code": SUM_PY}, {"language": "c", "code": SUM_C}],
           "seed_tests": [{"stdin": "3\n1 2 3\n", "expected_stdout": "6\n"}, {"stdin": "1\n-5\n", "expected_stdout": "-5\n"}],
           "limits": {"time_s": 1, "memory_mb": 256}}
    rec.update(kw)
    return rec


def test_stdio_problem_with_two_languages_and_a_checker(runner):
    rec = stdio_problem(checker={"language": "python", "code": CHECKER, "protocol": "kattis"})
    out = synthesize(rec, runner, FAST)
    tg = out["testgen"]
    assert tg["status"] == "ok", tg
    assert tg["model"] == "stdio:list"
    assert 3 <= len(out["tests"]) <= 12
    for t in out["tests"]:
        lines = t["stdin"].split("\n")
        n, xs = int(lines[0]), list(map(int, lines[1].split()))
        assert 1 <= n <= 20 and len(xs) == n and all(-1000 <= x <= 1000 for x in xs)
        assert int(t["expected_stdout"]) == sum(xs)
    assert tg["mutants"]["total"] > 0 and tg["mutants"]["killed_by_suite"] >= 1


def test_stdio_golds_that_disagree_drop_inputs(runner):
    # the C gold overflows int on large sums: inputs where it disagrees are dropped
    bad_c = SUM_C.replace("long long s=0,x", "int s=0; long long x").replace('"%lld\\n", s', '"%d\\n", s')
    assert '"%d\\n", s' in bad_c
    rec = stdio_problem(gold_solutions=[{"language": "python", "code": SUM_PY}, {"language": "c", "code": bad_c}],
                        statement=r"$1 \le N \le 20$, $0 \le a_i \le 10^6$")
    p = load_problem(rec)
    cands = [Candidate("seed", stdin="3\n1 2 3\n"), Candidate("seed", stdin="1\n-5\n"),
             Candidate("regular", stdin="2\n2000000000 2000000000\n"), Candidate("regular", stdin="2\n7 8\n")]
    val = validate_stdio(p, cands, runner)
    assert [c.stdin for c in val.kept] == ["3\n1 2 3\n", "1\n-5\n", "2\n7 8\n"]
    assert val.dropped == {"gold_disagree": 1}


def test_input_validator_rejects_inputs(runner):
    validator = "import sys\nn = int(sys.stdin.readline())\nsys.exit(42 if n <= 2 else 43)\n"
    rec = stdio_problem(input_validators={"v/validate.py": validator})
    p = load_problem(rec)
    cands = [Candidate("seed", stdin="1\n4\n"), Candidate("regular", stdin="3\n1 1 1\n"),
             Candidate("regular", stdin="2\n1 1\n")]
    p.seeds = [{"stdin": "1\n4\n"}]
    val = validate_stdio(p, cands, runner)
    assert [c.stdin for c in val.kept] == ["1\n4\n", "2\n1 1\n"] and val.dropped == {"validator_rejects": 1}


def test_evaluate_reports_tpr_tnr_in_both_modes(runner):
    rec = fn_problem("ev", [ABS], [[3], [-2], [0], [-7]])
    rec["heldout_correct"] = [{"language": "python", "code": "def f(x):\n    return x if x > 0 else -x\n"},
                              {"language": "python", "code": "import math\ndef f(x):\n    return int(math.fabs(x))\n"}]
    rec["heldout_incorrect"] = [{"language": "python", "code": "def f(x):\n    return x\n"},
                                {"language": "python", "code": "def f(x):\n    return x if x > 1 else -x + 1\n"},
                                {"language": "python", "code": "def f(x):\n    while True:\n        pass\n"},
                                {"language": "python", "code": "def f(x):\n    return abs(x)\nf(\n"}]
    suite = synthesize(rec, runner, FAST)
    assert suite["testgen"]["status"] == "ok"
    for mode in ("batched", "engine"):
        rep = evaluate([suite], runner, mode=mode)
        pool = rep.pooled()
        assert (pool["tpr"], pool["tnr"], pool["rejects_all_share"]) == (1.0, 1.0, 1.0), (mode, pool)
    base = evaluate([dict(rec, tests=[{"args": [3], "expected": 3}])], runner).pooled()
    assert base["tnr"] == 0.5  # only the crash and the syntax error fail a single positive test


def _cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codetest.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env=env, **kw)


def test_cli_bad_input_exits_2(tmp_path):
    r = _cli("testgen", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o.jsonl"))
    assert r.returncode == 2 and "no such file" in r.stderr
    r = _cli("evaluate", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2 and "no such file" in r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n')
    r = _cli("evaluate", str(bad), "--solutions", str(bad))
    assert r.returncode == 2 and "label" in r.stderr
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text('{"problem_id": "p", "label": "correct", "code": "print(1)"}\n{"problem_id": \n')
    r = _cli("evaluate", str(bad), "--solutions", str(garbled))
    assert r.returncode == 2 and "line 2: not JSON" in r.stderr, r.stderr


def test_resumes_after_a_kill_without_redoing_finished_problems(tmp_path, state_env):
    probs = tmp_path / "p.jsonl"
    recs = [fn_problem(f"r{i}", [ABS, "def f(x):\n    return max(x, -x)\n"], [[3 + i], [-2], [0]]) for i in range(10)]
    probs.write_text("".join(json.dumps(r) + "\n" for r in recs))
    out = tmp_path / "o.jsonl"
    env = state_env
    args = [sys.executable, "-m", "codetest.cli", "testgen", str(probs), "-o", str(out), "--workers", "1",
            "--mutants", "30", "--max-tests", "20", "--quiet"]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    first = out.read_text()
    done_before = finished_ids(str(out))
    assert 2 <= len(done_before) < 10, "the kill should land mid-batch"
    with open(out, "a") as f:
        f.write('{"id": "r5", "tests": [')  # a line cut short by the kill
    r = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    text = out.read_text()
    assert text.startswith(first), "finished problems were rewritten"
    ids = [json.loads(l)["id"] for l in text.splitlines()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(10)) and len(ids) == 10
    assert f"({len(done_before)} already done)" in r.stdout


def test_cli_testgen_then_evaluate(tmp_path, state_env):
    probs = tmp_path / "p.jsonl"
    rec = fn_problem("c1", [ABS], [[3], [-2], [0]])
    rec["heldout_incorrect"] = [{"language": "python", "code": "def f(x):\n    return x\n"}]
    probs.write_text(json.dumps(rec) + "\n")
    out = tmp_path / "o.jsonl"
    env = state_env
    r = _cli("testgen", str(probs), "-o", str(out), "--mutants", "10", "--max-tests", "8", "--quiet", env=env,
             timeout=120)
    assert r.returncode == 0, r.stderr
    line = json.loads(out.read_text())
    assert 1 <= len(line["tests"]) <= 8 and line["testgen"]["status"] == "ok"
    r = _cli("evaluate", str(out), "--json", str(tmp_path / "rep.json"), env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "TNR 100.00%" in r.stdout
    rep = json.loads((tmp_path / "rep.json").read_text())
    assert rep["pooled"]["rejected"] == 1


def test_limits_of_the_problem_are_respected(runner):
    slow = "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
    p = load_problem(fn_problem("lim", [slow], [[10], [100]], limits={"time_s": 0.5}))
    assert p.limits == Limits(time_s=0.5, memory_mb=512)
    cands = [Candidate("seed", args=[10]), Candidate("seed", args=[100]), Candidate("stress", args=[10**9])]
    val = validate_function(p, cands, runner)
    assert [c.args[0] for c in val.kept] == [10, 100] and val.dropped == {"gold_timeout": 1}


def test_the_same_pipeline_through_the_http_service(runner):
    """The sandbox sits behind one small interface: a running `codetest serve` gives the same suite."""
    from api.app import create_app
    from api.testing import serve_in_thread
    from testgen.runner import HttpRunner

    rec = fn_problem("http", [ABS, ABS_PARTIAL], [[3], [-2], [0]])
    local = synthesize(rec, runner, FAST)
    with serve_in_thread(create_app(runner.sb)) as url:
        remote_runner = HttpRunner(url, parallel=2)
        try:
            assert "python" in remote_runner.languages()
            remote = synthesize(rec, remote_runner, FAST)
        finally:
            remote_runner.close()
    assert remote["testgen"]["status"] == "ok", remote["testgen"]
    assert remote["tests"] == local["tests"]


LENGTH_PY = "import sys\nprint(len(sys.stdin.read()))\n"


def test_a_request_past_the_services_body_limit_goes_out_in_parts_and_comes_back_whole(runner):
    """Stress inputs reach MAX_INPUT_CHARS each, and validation sends every input of a program in
    one request: through a service, a request past its body limit is split over consecutive tests,
    and the joined result is what the whole request gives on the sandbox itself."""
    from api.app import create_app
    from api.testing import serve_in_thread
    from sandbox.models import RunRequest, TestCase, Verdict
    from client import APIError
    from testgen.runner import HttpRunner

    sizes = [100_000 + 1000 * i for i in range(12)]  # 1.3 MB of stdin against a 512 KB body limit
    tests = [TestCase(stdin="x" * n, expected_stdout=f"{n}\n") for n in sizes]
    tests[6] = TestCase(stdin=tests[6].stdin, expected_stdout="0\n")  # one wrong answer, in the middle
    req = RunRequest(language="python", code=LENGTH_PY, tests=tests, limits=Limits(time_s=2))
    stop = req.model_copy(update={"stop_on_first_failure": True})
    local = runner.run_many([req, stop])
    with serve_in_thread(create_app(runner.sb, max_body_bytes=512 << 10)) as url:
        split = HttpRunner(url, parallel=2, request_test_bytes=256 << 10)
        halved = HttpRunner(url, parallel=2, request_test_bytes=1 << 30)  # learns the limit from the 413s
        try:
            with pytest.raises(APIError) as too_large:  # the limit is real: the request whole is refused
                split.client.request("POST", "/v1/run", req.model_dump(mode="json", exclude_none=True))
            remote = split.run_many([req, stop]) + halved.run_many([req, stop])
        finally:
            split.close()
            halved.close()
    assert too_large.value.status_code == 413
    for got, want in zip(remote, local + local):
        assert isinstance(got, type(want)), got
        assert (got.verdict, got.passed, got.total) == (want.verdict, want.passed, want.total)
        assert [(t.verdict, t.stdout) for t in got.tests] == [(t.verdict, t.stdout) for t in want.tests]
    for whole, stopped in (remote[:2], remote[2:]):
        assert (whole.verdict, whole.passed, whole.total) == (Verdict.WA, 11, 12)
        assert [t.stdout for t in whole.tests] == [f"{n}\n" for n in sizes]
        # stopped at the wrong answer: the tests after it, in its part and in the parts after, are skipped
        assert [t.verdict for t in stopped.tests] == [Verdict.AC] * 6 + [Verdict.WA] + [Verdict.SKIPPED] * 5


# "yes"/"no" answers, judged as Kattis' default output validator judges them unless the problem
# passes it case_sensitive: letters regardless of case.
SIGN_PY = "n = int(input())\nprint('yes' if n >= 0 else 'no')\n"
SIGN_C = '#include <stdio.h>\nint main(){long long n; scanf("%lld",&n); puts(n >= 0 ? "YES" : "NO"); return 0;}\n'


def test_a_kattis_problem_that_ignores_case_keeps_golds_and_programs_that_print_another_case(runner):
    rec = {"id": "sign", "io": "stdio",
           "statement": r"One integer $n$ ($-1000 \le n \le 1000$). Print yes if $n \ge 0$, else no.",
           "gold_solutions": [{"language": "python", "code": SIGN_PY}, {"language": "c", "code": SIGN_C}],
           "seed_tests": [{"stdin": "3\n", "expected_stdout": "yes\n"}, {"stdin": "-2\n", "expected_stdout": "no\n"}],
           "limits": {"time_s": 1, "memory_mb": 256},
           "default_validator": {"case_sensitive": False, "space_change_sensitive": False},
           "heldout_correct": [{"language": "c", "code": SIGN_C},
                               {"language": "python", "code": "print('Yes' if int(input()) >= 0 else 'No')\n"}],
           "heldout_incorrect": [{"language": "python", "code": "print('YES' if int(input()) > 0 else 'NO')\n"}]}
    assert load_problem(rec).case_sensitive is False
    assert load_problem(dict(rec, default_validator={"case_sensitive": True})).case_sensitive is True
    suite = synthesize(rec, runner, FAST)
    tg = suite["testgen"]
    # the C gold prints YES where the Python one prints yes: they agree, nothing is dropped for it
    assert tg["status"] == "ok" and "gold_disagree" not in tg.get("dropped", {}), tg
    assert suite["case_sensitive"] is False  # whoever judges the suite later compares the same way
    pool = evaluate([suite], runner).pooled()
    assert (pool["tpr"], pool["tnr"]) == (1.0, 1.0), pool
    # judged with case mattering, the correct programs that print another case would fail
    strict = evaluate([dict(suite, case_sensitive=True)], runner).pooled()
    assert strict["tpr"] == 0.0, strict
