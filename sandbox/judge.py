"""One job in flight: compile, run every test on a free slot, judge each output, one result.

Per test: the backend reports facts, the output is compared (exact / whitespace / float, a
function's return value, or a checker in the testlib or Kattis protocol, of an output or of a
returned value as JSON), and :func:`sandbox.verdict.decide` turns facts + limits + comparison
into the test's verdict.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any, Optional

from . import compare as cmp
from .backends.base import Deadline
from .errors import DeadlinePassed
from .function_call import Unreadable, parse_result
from .models import Checker, CheckerCompare, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict
from .output_budget import JOB, GLOBAL, JobOutput, json_cost
from .programs import Program
from .verdict import Decision, Outcome, decide, overall_verdict, run_verdict

if TYPE_CHECKING:
    from .engine import Sandbox

log = logging.getLogger("codetest.judge")

CHECKER_LIMITS = Limits(time_s=10, wall_time_s=20, memory_mb=1024, output_kb=1024)
# Exit statuses of the two checker protocols: (accept, reject).
CHECKER_PROTOCOLS = {"testlib": ({0}, {1, 2}), "kattis": ({42}, {43})}


def _text(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


def _base64_cost(files: dict[str, bytes]) -> int:
    """What fetched files cost in the JSON answer: base64 text plus the quoted names."""
    return sum(4 * ((len(v) + 2) // 3) + json_cost(k.encode("utf-8", "surrogatepass")) + 6 for k, v in files.items())


class Job:
    """One RunRequest in flight."""

    def __init__(self, sb: "Sandbox", req: RunRequest, outer: Any, output: JobOutput,
                 deadline: Optional[Deadline] = None):
        self.sb, self.req, self.outer = sb, req, outer
        self.deadline = deadline  # when the client needs the answer
        self.inner = ("job", next(sb._ids))
        self.checker: Optional[Program] = None
        self.output = output
        # RunRequest.files: next to the program (compile step, /prog) and in every test's /work.
        self.files: dict[str, bytes] = {}

    def run(self) -> RunResult:
        req = self.req
        entry = req.entry_point if any(t.is_function for t in req.tests) else None
        self.files = req.decoded_files() if req.files else {}
        program, cr, failed = self.sb.prepare(req.language, req.code, req.limits, self.outer, entry, self.files,
                                              self.deadline)
        tests = req.tests or [TestCase()]
        if failed:
            return RunResult(verdict=Verdict.SE, passed=0, total=len(tests), compile=cr, message=cr.stderr)
        if program is None:
            return RunResult(verdict=Verdict.CE, passed=0, total=len(tests), compile=cr)
        if isinstance(req.compare, CheckerCompare):
            self.checker, ccr, _failed = self.sb.prepare(req.compare.checker.language, req.compare.checker.code,
                                                         CHECKER_LIMITS, self.outer, deadline=self.deadline)
            if self.checker is None:
                msg = "checker failed to compile: " + ccr.stderr[-2000:]
                return RunResult(verdict=Verdict.SE, passed=0, total=len(tests), compile=cr, message=msg)
        pins = [program.key] + ([self.checker.key] if self.checker else [])
        with self.sb.cache.pinned(*pins):
            return self._run_tests(program, cr, tests)

    def _run_tests(self, program: Program, cr, tests: list[TestCase]) -> RunResult:
        req = self.req
        futures = [self.sb.scheduler.submit(lambda t=t: self._one(program, t), self.outer, self.inner)
                   for t in tests]
        results: list[Optional[TestResult]] = [None] * len(tests)
        stopped = False
        late: Optional[DeadlinePassed] = None
        for i, fut in enumerate(futures):
            try:
                results[i] = fut.result()
            except CancelledError:
                results[i] = TestResult(verdict=Verdict.SKIPPED)
                continue
            except DeadlinePassed as e:  # the client's time ran out before this test could start
                late = late or e
                self.sb.scheduler.cancel(self.outer, self.inner)
                continue
            except Exception as e:  # a bug of ours: SE, never the program's fault
                log.exception("test execution failed")
                results[i] = TestResult(verdict=Verdict.SE, message=f"{type(e).__name__}: {e}")
            if req.stop_on_first_failure and not stopped and results[i].verdict != Verdict.AC:
                stopped = True
                self.sb.scheduler.cancel(self.outer, self.inner)
        if late is not None:  # judged in part is not judged: the whole job is refused, to be retried
            raise late
        if req.stop_on_first_failure:
            first = next((i for i, r in enumerate(results) if r.verdict != Verdict.AC), None)
            if first is not None:
                for i in range(first + 1, len(results)):
                    results[i] = TestResult(verdict=Verdict.SKIPPED)
        final = [r for r in results if r is not None]
        passed = sum(1 for r in final if r.verdict == Verdict.AC)
        return RunResult(verdict=overall_verdict(True, final), passed=passed, total=len(final), compile=cr,
                         tests=final)

    # -- one test

    def _one(self, program: Program, test: TestCase) -> TestResult:
        req = self.req
        if test.is_function:
            stdin = json.dumps(test.args).encode()
            spec = program.spec(req.limits, stdin, (program.entry_point or "",))
        else:
            spec = program.spec(req.limits, test.stdin.encode("utf-8", "surrogateescape"), tuple(req.args))
        if self.files:
            spec.files = {**self.files, **spec.files}
        if req.fetch_files:
            spec.fetch = list(req.fetch_files)
        spec.deadline = self.deadline
        dispatched = time.monotonic()
        facts = self.sb.dispatch(spec)
        slot_s = time.monotonic() - dispatched
        stdout = facts.stdout
        outcome: Optional[Outcome] = None
        message: Optional[str] = None
        value_text: Optional[str] = None
        if run_verdict(facts, spec.limits.cpu_s, spec.limits.memory_bytes) is None:
            if test.is_function:
                stdout, outcome, message, value_text = self._judge_value(facts, test)
            elif test.expected_stdout is not None:
                if self.checker is not None:
                    outcome, message = self._judge_with_checker(
                        stdout, test.stdin.encode("utf-8", "surrogateescape"),
                        test.expected_stdout.encode("utf-8", "surrogateescape"))
                else:
                    mode = req.compare if isinstance(req.compare, str) else "whitespace"
                    ok = cmp.compare_output(mode, stdout, test.expected_stdout, req.float_tol,
                                            req.integer_tolerance, req.case_sensitive)
                    outcome = Outcome.ACCEPTED if ok else Outcome.REJECTED
        shown = value_text.encode("utf-8", "surrogatepass") if value_text is not None else stdout
        fetched = _base64_cost(facts.files)
        spent = self.output.keep(json_cost(shown) + json_cost(facts.stderr) + fetched)
        d: Decision = decide(facts, spec.limits.cpu_s, spec.limits.memory_bytes, outcome, message,
                             over_job_output_budget=spent == JOB, over_server_output_budget=spent == GLOBAL)
        tr = TestResult(verdict=d.verdict, time_s=round(facts.cpu_s, 4), wall_time_s=round(facts.wall_s, 4),
                        run_delay_s=round(min(facts.run_delay_s, facts.wall_s), 4),
                        memory_kb=facts.memory_kb, exit_code=facts.exit_code, signal=facts.signal,
                        truncated=facts.output_exceeded, message=d.message)
        tr._slot_s = slot_s
        if spent is None:
            tr.stdout = value_text if value_text is not None else _text(stdout)
            tr.stderr = _text(facts.stderr)
            if req.fetch_files:
                tr.files = {k: base64.b64encode(v).decode() for k, v in facts.files.items()}
        return tr

    def _judge_value(self, facts: Any, test: TestCase) -> tuple[bytes, Outcome, Optional[str], Optional[str]]:
        """(what the program printed, outcome, message, the return value as JSON text)."""
        printed, data = facts.stdout, facts.result
        if facts.result_size > len(facts.result):
            return printed, Outcome.REJECTED, "the return value is over the output limit", None
        try:
            got = parse_result(data, max_bytes=max(1, facts.result_size, len(data)))
        except Unreadable as e:
            return printed, Outcome.REJECTED, str(e), None
        text = data.decode("utf-8", "replace")
        if "expected" in test.model_fields_set or test.expected is not None:
            if self.checker is not None:
                # the checker's three files hold JSON: the arguments, the value returned, the expected one
                outcome, message = self._judge_with_checker(
                    json.dumps(got).encode(), json.dumps(test.args).encode(), json.dumps(test.expected).encode())
                return printed, outcome, message, text
            equal = cmp.values_equal_unordered if self.req.compare == "unordered" else cmp.values_equal
            if not equal(got, test.expected, self.req.float_tol):
                return printed, Outcome.REJECTED, None, text
        return printed, Outcome.ACCEPTED, None, text

    def _judge_with_checker(self, out: bytes, inp: bytes, ans: bytes) -> tuple[Outcome, Optional[str]]:
        """The checker's judgement of output ``out`` for input ``inp``, ``ans`` the expected answer
        (a function test: each of the three as JSON)."""
        assert self.checker is not None and isinstance(self.req.compare, CheckerCompare)
        ch: Checker = self.req.compare.checker
        if ch.protocol == "kattis":
            files = {"input.txt": inp, "answer.txt": ans, "feedback/": b""}
            spec = self.checker.spec(CHECKER_LIMITS, out, ("input.txt", "answer.txt", "feedback/"), files)
        else:
            files = {"input.txt": inp, "output.txt": out, "answer.txt": ans}
            spec = self.checker.spec(CHECKER_LIMITS, b"", ("input.txt", "output.txt", "answer.txt"), files)
        accept, reject = CHECKER_PROTOCOLS[ch.protocol]
        spec.deadline = self.deadline
        res = self.sb.dispatch(spec)
        msg = (_text(res.stderr) or _text(res.stdout)).strip()[-1000:]
        if res.error or res.signal is not None or res.exit_code not in accept | reject:
            return Outcome.CHECKER_FAILED, f"checker failed (exit {res.exit_code}, signal {res.signal}): " \
                                           f"{res.error or msg}"
        if res.exit_code in reject:
            return Outcome.REJECTED, msg or None
        return Outcome.ACCEPTED, None
