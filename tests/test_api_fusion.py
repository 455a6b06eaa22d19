"""SandboxFusion compatibility of POST /run_code, as verl's sandbox_fusion reward and the SDK use it.

verl (verl/utils/reward_score/sandbox_fusion/utils.py) sends one request per test case
with ``requests``: a JSON body of exactly compile_timeout, run_timeout, code, stdin,
memory_limit_MB, language, files={}, fetch_files=[]; then it maps the answer to
True/False or a negative code. ``verl_case_result`` below restates that mapping so the
test checks what verl would conclude from each of our answers.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Optional

import pytest
import requests

from api import create_app
from api.testing import serve_in_thread
from sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.timeout(120)

# verl's codes: True pass, False wrong answer, -1 API/sandbox error, -2 runtime error,
# -3 timeout, -4 compile error.
API_ERROR, RUNTIME_ERROR, TIMEOUT, COMPILE_ERROR = -1, -2, -3, -4


def verl_case_result(resp: Optional[dict], expected: Optional[str]) -> Any:
    """What verl's _process_single_case concludes from one /run_code answer."""
    if resp is None:
        return API_ERROR
    status, cr, rr = resp.get("status"), resp.get("compile_result"), resp.get("run_result")
    if status == "SandboxError":
        return API_ERROR
    if status == "Failed":
        if cr and (cr.get("status") in ("Error", "TimeLimitExceeded")
                   or (cr.get("status") == "Finished" and cr.get("return_code") != 0)):
            return COMPILE_ERROR
        if rr:
            if rr.get("status") == "TimeLimitExceeded":
                return TIMEOUT
            if rr.get("status") == "Error" or (rr.get("status") == "Finished" and rr.get("return_code") != 0):
                return RUNTIME_ERROR
        return API_ERROR
    if status == "Success":
        if rr and rr.get("status") == "Finished":
            out = rr.get("stdout") or ""
            return expected is None or str(out).rstrip("\n") == str(expected).rstrip("\n")
        return API_ERROR
    return API_ERROR


def verl_call(url: str, code: str, stdin: Optional[str], language: str, timeout: int = 10,
              memory_limit_mb: int = 1024) -> Optional[dict]:
    """The request verl's call_sandbox_api makes (and its handling of a non-2xx answer)."""
    payload = json.dumps({"compile_timeout": timeout, "run_timeout": timeout, "code": code, "stdin": stdin,
                          "memory_limit_MB": memory_limit_mb, "language": language, "files": {}, "fetch_files": []})
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    try:
        r = requests.post(url + "/run_code", headers=headers, data=payload, timeout=timeout * 2 + 10)
        r.raise_for_status()
        return r.json()
    except requests.RequestException:
        return None


@pytest.fixture(scope="module")
def url():
    sb = Sandbox(SandboxConfig(slots=2))
    with serve_in_thread(create_app(sb)) as u:
        yield u
    sb.close()


DOUBLE_PY = "print(int(input()) * 2)"
DOUBLE_CPP = "#include <iostream>\nint main(){long long a; std::cin >> a; std::cout << a * 2 << std::endl;}"
DOUBLE_JS = "const s=require('fs').readFileSync(0,'utf8');console.log(parseInt(s)*2);"


@pytest.mark.parametrize("language,code,stdin,expected,want", [
    ("python", DOUBLE_PY, "21\n", "42", True),
    ("python", DOUBLE_PY, "21\n", "43", False),
    ("python", "print(1/0)", "", "1", RUNTIME_ERROR),
    ("python", "import sys\nsys.exit(4)", "", "", RUNTIME_ERROR),
    ("python", "def f(:\n  pass", "", "", RUNTIME_ERROR),  # a Python syntax error is a run failure there too
    ("python", "import time\ntime.sleep(30)", "", "", TIMEOUT),
    ("python", "a = bytearray(900 << 20)\nprint(len(a))", "", "", RUNTIME_ERROR),  # memory_limit_MB below
    ("python", "print('x' * (80 << 20))", "", "", RUNTIME_ERROR),  # over the output cap
    ("cpp", DOUBLE_CPP, "21\n", "42", True),
    ("cpp", "int main( { return 0; }", "", "", COMPILE_ERROR),
    ("nodejs", DOUBLE_JS, "21\n", "42", True),
    ("python", DOUBLE_PY, None, "x", RUNTIME_ERROR),  # newer verl sends stdin null when a case has none
])
def test_verl_case_mapping(url, language, code, stdin, expected, want):
    timeout = 2 if want == TIMEOUT else 10
    resp = verl_call(url, code, stdin, language, timeout=timeout, memory_limit_mb=256)
    assert resp is not None
    assert set(resp) >= {"status", "message", "compile_result", "run_result", "files"}
    assert verl_case_result(resp, expected) == want, resp
    rr = resp["run_result"]
    if rr is not None and rr["status"] == "Finished":
        assert isinstance(rr["return_code"], int)  # the SDK refuses a Finished step without one
    if want == TIMEOUT:
        assert rr["return_code"] is None


def test_compiled_languages_report_a_compile_step(url):
    resp = verl_call(url, DOUBLE_CPP, "1\n", "cpp")
    assert resp["compile_result"]["status"] == "Finished" and resp["compile_result"]["return_code"] == 0
    failed = verl_call(url, "int main( {", "", "cpp")
    assert failed["status"] == "Failed" and failed["run_result"] is None
    assert "error" in failed["compile_result"]["stderr"]


def test_unknown_language_is_an_api_error_for_verl(url):
    assert verl_case_result(verl_call(url, "x", "", "cobol"), None) == API_ERROR


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _run_code(url: str, **body: Any) -> requests.Response:
    return requests.post(url + "/run_code", json=body, timeout=60)


def test_files_go_in_and_fetch_files_come_back(url):
    code = ("import helper\nimport json\ndata = open('data/in.bin', 'rb').read()\n"
            "open('out.bin', 'wb').write(data[::-1])\nprint(helper.X, len(data))\n")
    r = _run_code(url, code=code, language="python",
                  files={"data/in.bin": _b64(bytes(range(256))), "helper.py": _b64(b"X = 7\n")},
                  fetch_files=["out.bin", "missing.txt"])
    body = r.json()
    assert r.status_code == 200 and body["status"] == "Success", body
    assert body["run_result"]["stdout"] == "7 256\n"
    assert base64.b64decode(body["files"]["out.bin"]) == bytes(range(256))[::-1]
    assert "missing.txt" not in body["files"]  # as SandboxFusion: what does not exist is left out


def test_files_reach_the_compile_step(url):
    code = '#include "consts.h"\n#include <cstdio>\nint main(){ std::printf("%d\\n", ANSWER); }'
    r = _run_code(url, code=code, language="cpp", files={"consts.h": _b64(b"#define ANSWER 42\n")})
    assert r.json()["status"] == "Success" and r.json()["run_result"]["stdout"] == "42\n"


def test_fetch_files_never_follows_a_link_out_of_the_work_dir(url):
    code = ("import os\nos.symlink('/etc/passwd', 'leak')\nos.mkdir('d')\nos.symlink('/etc', 'd/e')\n"
            "os.mkfifo('fifo')\nopen('ok.txt', 'w').write('ok')\n")
    r = _run_code(url, code=code, language="python", fetch_files=["leak", "d/e/passwd", "fifo", "ok.txt"])
    body = r.json()
    assert body["status"] == "Success", body
    assert body["files"] == {"ok.txt": _b64(b"ok")}


@pytest.mark.parametrize("name", ["../escape.txt", "a/../../b", "x\x00y"])
def test_bad_file_names_are_a_sandbox_error_with_a_message(url, name):
    r = _run_code(url, code="print(1)", language="python", files={name: _b64(b"x")})
    body = r.json()
    assert r.status_code == 200 and body["status"] == "SandboxError" and "file name" in body["message"], body


def test_unknown_or_unprovided_language_is_200_sandbox_error_naming_it(url):
    for lang, words in (("cobol", "unknown language"), ("lean", "not available")):
        body = _run_code(url, code="x", language=lang).json()
        assert body["status"] == "SandboxError" and words in body["message"] and lang in body["message"], body


def test_java_runs_with_assertions_enabled(url):
    code = "public class Main { public static void main(String[] a) { assert 1 == 2 : \"boom\"; } }"
    body = _run_code(url, code=code, language="java").json()
    assert body["status"] == "Failed" and "AssertionError" in body["run_result"]["stderr"], body


def test_message_is_empty_unless_sandbox_error(url):
    ok = _run_code(url, code="print(1)", language="python").json()
    bad = _run_code(url, code="raise SystemExit(3)", language="python").json()
    assert (ok["status"], ok["message"]) == ("Success", "")
    assert (bad["status"], bad["message"], bad["run_result"]["return_code"]) == ("Failed", "", 3)


def test_memory_kill_is_finished_with_sigkill_code(url):
    r = _run_code(url, code="x = bytearray(512 << 20)\nprint(len(x))", language="python", memory_limit_MB=64)
    body = r.json()
    assert body["status"] == "Failed" and body["run_result"]["status"] == "Finished", body
    assert body["run_result"]["return_code"] != 0 and r.headers["X-Codetest-Verdict"] == "MLE"


def test_empty_code_runs_like_sandbox_fusion(url):
    assert _run_code(url, code="", language="python").json()["status"] == "Success"
    assert _run_code(url, code="", language="bash").json()["status"] == "Success"


def test_php_without_its_tag(url):
    body = _run_code(url, code='echo 6 * 7;', language="php").json()
    assert body["status"] == "Success" and body["run_result"]["stdout"] == "42", body


def test_sandbox_fusion_sdk_works_unchanged(url):
    sf = pytest.importorskip("sandbox_fusion")
    ok = sf.run_code(sf.RunCodeRequest(code=DOUBLE_PY, language="python", stdin="5\n"), endpoint=url,
                     max_attempts=1)
    assert ok.status == sf.RunStatus.Success and ok.run_result.stdout == "10\n"
    assert sf.summary_run_code_result(ok, sf.SummaryMapping()) == "Success"
    mapping = sf.SummaryMapping(CompileFailed="CE", RunFailed="RE", RunTimeout="TLE")
    ce = sf.run_code(sf.RunCodeRequest(code="int main( {", language="cpp"), endpoint=url, max_attempts=1)
    assert sf.summary_run_code_result(ce, mapping) == "CE"
    re_ = sf.run_code(sf.RunCodeRequest(code="raise SystemExit(2)", language="python"), endpoint=url,
                      max_attempts=1)
    assert sf.summary_run_code_result(re_, mapping) == "RE"
    tle = sf.run_code(sf.RunCodeRequest(code="while True: pass", language="python", run_timeout=1),
                      endpoint=url, max_attempts=1)
    assert sf.summary_run_code_result(tle, mapping) == "TLE"


def test_run_timeout_catches_a_sleeper_on_its_own_elapsed_time(url):
    slow = _run_code(url, code="import time; time.sleep(0.6)", language="python", run_timeout=0.2).json()
    quick = _run_code(url, code="print(1)", language="python", run_timeout=0.2).json()
    assert slow["status"] == "Failed" and slow["run_result"]["status"] == "TimeLimitExceeded", slow
    assert slow["run_result"]["return_code"] is None
    assert quick["status"] == "Success", quick
