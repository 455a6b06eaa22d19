"""Every endpoint and every verdict through HTTP, against a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import json

import httpx
import pytest

from api import create_app
from api.testing import serve_in_thread
from sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.timeout(120)

ECHO = "print(input())"
CHECKER_CRASH = "import sys\nsys.exit(7)"


@pytest.fixture(scope="module")
def sandbox():
    sb = Sandbox(SandboxConfig(slots=2))
    yield sb
    sb.close()


@pytest.fixture(scope="module")
def http(sandbox):
    with serve_in_thread(create_app(sandbox)) as url:
        with httpx.Client(base_url=url, timeout=60) as c:
            yield c


def run(http: httpx.Client, **body) -> dict:
    r = http.post("/v1/run", json=body)
    assert r.status_code == 200, r.text
    return r.json()


# ------------------------------------------------------------------ verdicts

def test_ac_and_wa(http):
    tests = [{"stdin": "1 2\n", "expected_stdout": "1 2\n"}, {"stdin": "3\n", "expected_stdout": "4\n"}]
    res = run(http, language="python", code=ECHO, tests=tests)
    assert res["verdict"] == "WA" and res["passed"] == 1 and res["total"] == 2
    assert [t["verdict"] for t in res["tests"]] == ["AC", "WA"]
    assert res["tests"][0]["stdout"] == "1 2\n" and res["tests"][0]["exit_code"] == 0
    assert run(http, language="python", code=ECHO, tests=tests[:1])["verdict"] == "AC"


def test_tle(http):
    res = run(http, language="python", code="import time\ntime.sleep(10)",
              limits={"time_s": 0.5, "wall_time_s": 1.0})
    assert res["verdict"] == "TLE"


def test_mle(http):
    res = run(http, language="python", code="a = bytearray(300 << 20)\nprint(len(a))", limits={"memory_mb": 64})
    assert res["verdict"] == "MLE"


def test_ole(http):
    res = run(http, language="python", code="print('x' * (2 << 20))", limits={"output_kb": 64})
    assert res["verdict"] == "OLE"
    assert res["tests"][0]["truncated"] is True


def test_re_reports_exit_code(http):
    res = run(http, language="python", code="import sys\nsys.exit(3)")
    assert res["verdict"] == "RE" and res["tests"][0]["exit_code"] == 3


def test_ce_reports_compiler_output(http):
    res = run(http, language="c", code="int main( { return 0; }", tests=[{"stdin": "", "expected_stdout": ""}])
    assert res["verdict"] == "CE" and res["compile"]["ok"] is False
    assert "error" in res["compile"]["stderr"]


def test_skipped_after_first_failure(http):
    tests = [{"stdin": "a\n", "expected_stdout": "b\n"}, {"stdin": "a\n", "expected_stdout": "a\n"}]
    res = run(http, language="python", code=ECHO, tests=tests, stop_on_first_failure=True)
    assert [t["verdict"] for t in res["tests"]] == ["WA", "SKIPPED"]
    assert res["verdict"] == "WA"


def test_se_when_the_checker_fails(http):
    res = run(http, language="python", code=ECHO, tests=[{"stdin": "a\n", "expected_stdout": "a\n"}],
              compare={"checker": {"language": "python", "code": CHECKER_CRASH}})
    assert res["verdict"] == "SE"


def test_function_call_tests(http):
    res = run(http, language="python", code="def add(a, b):\n    return a + b\n", entry_point="add",
              tests=[{"args": [1, 2], "expected": 3}, {"args": [0.1, 0.2], "expected": 0.3}])
    assert res["verdict"] == "AC" and res["passed"] == 2


def test_leetcode_method_entry_points(http):
    code = ("class Solution:\n    def reverseList(self, head: Optional[ListNode]) -> Optional[ListNode]:\n"
            "        prev = None\n        while head:\n            head.next, prev, head = prev, head, head.next\n"
            "        return prev\n")
    res = run(http, language="python", code=code, entry_point="Solution.reverseList",
              tests=[{"args": [[1, 2, 3]], "expected": [3, 2, 1]}, {"args": [[]], "expected": []},
                     {"args": [[1, 2]], "expected": [1, 2]}])
    assert [t["verdict"] for t in res["tests"]] == ["AC", "AC", "WA"], res
    items = [{"id": "m", "code": code, "language": "python", "entry_point": "Solution.reverseList", "tests": [{"args": [[1, 2]], "expected": [2, 1]}]}]
    r = http.post("/v1/reward", json={"items": items})
    assert r.status_code == 200 and r.json()["results"][0]["reward"] == 1.0, r.text
    for bad in ("Solution.", ".f", "a.b.c", "Solution.two Sum", "os.system('x')"):
        r = http.post("/v1/run", json={"language": "python", "code": code, "entry_point": bad,
                                       "tests": [{"args": [], "expected": 1}]})
        assert r.status_code == 422 and "entry_point" in r.text, (bad, r.text)


def test_language_alias(http):
    assert run(http, language="py", code="print(1)")["verdict"] == "AC"


# ------------------------------------------------------------------ reward

def test_case_insensitive_comparison_on_run_and_reward(http):
    """``case_sensitive: false`` (Kattis' default validator): YES passes for yes on /v1/run and
    /v1/reward; by default case matters."""
    code = "print(input().upper())"
    tests = [{"stdin": "yes\n", "expected_stdout": "yes\n"}]
    assert run(http, language="python", code=code, tests=tests)["verdict"] == "WA"
    assert run(http, language="python", code=code, tests=tests, case_sensitive=False)["verdict"] == "AC"
    items = [{"id": "a", "completion": fenced(code), "tests": tests, "case_sensitive": False},
             {"id": "b", "completion": fenced(code), "tests": tests}]
    assert [r["reward"] for r in reward(http, items)] == [1.0, 0.0]


def reward(http, items, **body) -> list[dict]:
    r = http.post("/v1/reward", json={"items": items, **body})
    assert r.status_code == 200, r.text
    out = r.json()
    assert len(out["results"]) == len(items)
    return out["results"]


TWO_TESTS = [{"stdin": "1\n", "expected_stdout": "1\n"}, {"stdin": "2\n", "expected_stdout": "3\n"}]


def fenced(code: str, tag: str = "python") -> str:
    return f"Let me think.\n```\nnot this one\n```\nFinal answer:\n```{tag}\n{code}\n```\nDone."


def test_reward_mapping(http):
    items = [
        {"id": "frac", "completion": fenced(ECHO), "tests": TWO_TESTS},
        {"id": "ac", "completion": fenced(ECHO), "tests": TWO_TESTS[:1]},
        {"id": "code", "code": ECHO, "language": "python", "tests": TWO_TESTS[:1]},
        {"id": "nofence", "completion": "print(input())", "language": "python", "tests": TWO_TESTS},
        {"id": "re", "completion": fenced("raise SystemExit(1)"), "tests": TWO_TESTS},
        {"id": "tle", "completion": fenced("import time\ntime.sleep(5)"), "tests": TWO_TESTS[:1],
         "limits": {"time_s": 0.3, "wall_time_s": 0.6}},
        {"id": "ce", "completion": fenced("int main( {", "c"), "tests": TWO_TESTS},
        {"id": "empty", "completion": fenced("   "), "tests": TWO_TESTS},
        {"id": "se", "completion": fenced(ECHO), "tests": TWO_TESTS[:1],
         "compare": {"checker": {"language": "python", "code": CHECKER_CRASH}}},
        {"id": "unknown-fence", "completion": fenced("x", "brainfudge"), "tests": TWO_TESTS},
        {"id": "no-language", "completion": "```\nprint(1)\n```", "tests": TWO_TESTS},
    ]
    got = {r["id"]: r for r in reward(http, items)}
    assert got["frac"]["reward"] == 0.5 and got["frac"]["verdict"] == "WA" and got["frac"]["passed"] == 1
    assert got["ac"]["reward"] == 1.0 and got["ac"]["verdict"] == "AC" and got["ac"]["error"] is None
    assert got["code"]["reward"] == 1.0
    assert got["nofence"]["reward"] == 0.0 and got["nofence"]["verdict"] == "CE" and got["nofence"]["error"]
    assert got["re"]["reward"] == 0.0 and got["re"]["verdict"] == "RE"
    assert got["tle"]["reward"] == 0.0 and got["tle"]["verdict"] == "TLE"
    assert got["ce"]["reward"] == 0.0 and got["ce"]["verdict"] == "CE" and got["ce"]["language"] == "c"
    assert got["empty"]["reward"] == 0.0 and got["empty"]["verdict"] == "CE"
    # The service's failures are null with an error, never 0.
    assert got["se"]["reward"] is None and got["se"]["error"].startswith("SE")
    assert got["no-language"]["reward"] is None and "language" in got["no-language"]["error"]
    # A fence naming a language nobody knows is the completion's fault.
    assert got["unknown-fence"]["reward"] == 0.0 and got["unknown-fence"]["verdict"] == "CE"


ARGMAX_CHECKER = """
import json, sys
(xs,), got, _ = (json.load(open(p)) for p in sys.argv[1:4])
sys.exit(0 if type(got) is int and 0 <= got < len(xs) and xs[got] == max(xs) else 1)
"""


def test_reward_of_a_function_with_several_right_answers_by_its_checker(http):
    # "return any index of a largest element": the index another right program returns scores 1
    tests = [{"args": [[3, 9, 1, 9]], "expected": 1}, {"args": [[4, 4]], "expected": 0}]
    compare = {"checker": {"language": "python", "code": ARGMAX_CHECKER}}
    last = "def argmax(xs):\n    return max(range(len(xs)), key=lambda i: (xs[i], i))\n"
    first_min = "def argmax(xs):\n    return xs.index(min(xs))\n"
    items = [{"id": k, "completion": fenced(code), "entry_point": "argmax", "tests": tests, "compare": compare}
             for k, code in (("last", last), ("min", first_min))]
    got = {r["id"]: r for r in reward(http, items)}
    assert got["last"]["reward"] == 1.0 and got["last"]["verdict"] == "AC", got["last"]
    assert got["min"]["reward"] == 0.5 and got["min"]["verdict"] == "WA", got["min"]


def test_reward_all_or_nothing_and_item_language_wins(http):
    items = [{"id": 1, "completion": fenced(ECHO), "tests": TWO_TESTS},
             {"id": 2, "completion": fenced(ECHO, "text"), "language": "python", "tests": TWO_TESTS[:1]}]
    got = reward(http, items, scoring="all_or_nothing")
    assert [r["reward"] for r in got] == [0.0, 1.0]
    assert [r["id"] for r in got] == [1, 2]


def test_reward_function_call_items(http):
    items = [{"id": "f", "completion": fenced("def sq(x):\n    return x * x"), "entry_point": "sq",
              "tests": [{"args": [3], "expected": 9}, {"args": [4], "expected": 15}]}]
    assert reward(http, items)[0]["reward"] == 0.5


def test_reward_rejects_bad_items(http):
    r = http.post("/v1/reward", json={"items": [{"completion": "x", "code": "y"}]})
    assert r.status_code == 422 and "completion" in r.json()["message"]
    r = http.post("/v1/reward", json={"items": [], "scoring": "median"})
    assert r.status_code == 422


# ------------------------------------------------------------------ OpenRLHF

def test_get_reward_openrlhf(http):
    prompt = "Write a program that echoes a line.\n"
    labels = [json.dumps({"tests": TWO_TESTS[:1], "language": "python"}),
              json.dumps([{"stdin": "5\n", "expected_stdout": "6\n"}]),
              json.dumps({"inputs": ["7\n"], "outputs": ["7\n"]}),
              "not json"]
    queries = [prompt + fenced(ECHO)] * 4
    r = http.post("/get_reward", json={"query": queries, "prompts": [prompt] * 4, "labels": labels})
    assert r.status_code == 200, r.text
    body = r.json()
    # OpenRLHF makes a tensor of the rewards: an unscorable item gets failure_score, flagged.
    assert body["rewards"] == [1.0, 0.0, 1.0, 0.0]
    assert body["scores"] == body["rewards"]
    assert body["extra_logs"]["sandbox_error"] == [0.0, 0.0, 0.0, 1.0]
    assert "JSON" in body["errors"][3]
    r = http.post("/get_reward", json={"query": queries[:1] + ["x"], "prompts": [prompt] * 2,
                                       "labels": labels[:1] + ["not json"], "failure_score": -1.0})
    assert r.json()["rewards"] == [1.0, -1.0]
    r = http.post("/get_reward", json={"query": ["a", "b"], "labels": ["[]"]})
    assert r.status_code == 422


# ------------------------------------------------------------------ run_code (shape; verl semantics in test_api_fusion)

def test_run_code_shape(http):
    r = http.post("/run_code", json={"code": "print(input()[::-1])", "language": "python", "stdin": "abc"})
    body = r.json()
    assert r.status_code == 200 and body["status"] == "Success"
    assert body["compile_result"] is None
    assert body["run_result"]["status"] == "Finished" and body["run_result"]["stdout"] == "cba\n"
    assert body["run_result"]["return_code"] == 0 and body["files"] == {}


# ------------------------------------------------------------------ health, metrics, errors

def test_healthz(http):
    r = http.get("/healthz")
    assert r.status_code == 200
    h = r.json()
    assert h["ok"] is True and h["backend"] == "native"
    assert h["layers"]["namespaces"]["active"] is True
    assert "python" in h["languages"] and h["languages"]["python"].startswith("Python")
    assert h["queue_depth"] == 0 and h["queue_capacity"] > 0


def test_metrics(http):
    run(http, language="python", code="print(1)")
    text = http.get("/metrics").text
    assert 'codetest_executions_total{language="python",verdict="AC"}' in text
    assert 'codetest_http_requests_total{method="POST",route="/v1/run",status="200"}' in text
    assert "codetest_queue_depth" in text and "codetest_http_request_duration_seconds_bucket" in text
    assert "codetest_execution_duration_seconds_bucket" in text


def test_schema_errors_are_422_with_a_message(http):
    r = http.post("/v1/run", json={"language": "python"})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid_request" and "code" in body["message"]
    r = http.post("/v1/run", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    r = http.post("/v1/run", json={"language": "python", "code": "print(1)", "limits": {"time_s": -1}})
    assert r.status_code == 422 and "time_s" in r.json()["message"]


def test_bad_job_is_400(http):
    r = http.post("/v1/run", json={"language": "cobol-85", "code": "x"})
    assert r.status_code == 400 and "unknown language" in r.json()["message"]


def test_unknown_path_and_method(http):
    assert http.get("/nope").status_code == 404
    assert http.get("/v1/run").status_code == 405


def test_openapi_lists_every_endpoint(http):
    paths = http.get("/openapi.json").json()["paths"]
    for p in ("/v1/run", "/v1/reward", "/run_code", "/get_reward", "/healthz", "/metrics"):
        assert p in paths
