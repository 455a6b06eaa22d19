"""LLM-written generators, validator and checker, with typed feedback and bounded repair.

When an OpenAI-compatible endpoint is configured (``--llm-url``), we ask it for:

* an input validator: reads one input on stdin, exits 0 when it satisfies the statement;
* generator programs, a "regular" and a "corner" family: each reads an integer seed on
  stdin and prints one test input;
* a checker, for stdin/stdout problems whose answers are not unique (the statement says
  so, or the gold solutions disagree on the LLM's own inputs).

Every program the LLM writes runs ONLY in the sandbox, through the runner. When it fails
we send back a typed error and ask for a fix, at most ``rounds`` times:

* ``format``: the output is not a valid input (bad JSON, wrong arity, empty, all the same);
* ``crash``: the program exited non-zero (its stderr is quoted);
* ``timeout``: it ran out of time;
* ``disagreement``: the validator rejects the seed examples, or rejects generated inputs,
  or the gold solutions disagree on them, or the checker rejects a gold output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Optional, TypeVar, Union

from sandbox.models import Checker, CheckerCompare, Limits, RunRequest, RunResult, TestCase, Verdict

from .answers import several_answers
from .candidates import Candidate
from .entry import split_entry
from .problem import InputValidator, Problem, Program
from .runner import Runner

GEN_LIMITS = Limits(time_s=5, memory_mb=512, output_kb=8192)
PER_FAMILY = 20
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)```", re.S)
T = TypeVar("T")


@dataclass
class LLMConfig:
    url: str
    model: str = "gpt-4o-mini"
    api_key: Optional[str] = None
    rounds: int = 2
    timeout_s: float = 120.0
    temperature: float = 0.2
    per_family: int = PER_FAMILY

    @property
    def endpoint(self) -> str:
        u = self.url.rstrip("/")
        return u if u.endswith("/chat/completions") else u + "/chat/completions"


class LLMError(Exception):
    """The endpoint did not answer usefully (transport, status, shape)."""


class Fail(NamedTuple):
    """Why an LLM-written program is not accepted yet: the typed error sent back with the request
    for a fix."""
    kind: str  # format, crash, timeout, disagreement, sandbox
    detail: str


NO_CODE = Fail("format", "no ```python code block in your answer")


@dataclass
class Conversation:
    cfg: LLMConfig
    messages: list[dict[str, str]] = field(default_factory=list)
    requests: int = 0

    def ask(self, content: str) -> str:
        import httpx

        self.messages.append({"role": "user", "content": content})
        headers = {"Authorization": f"Bearer {self.cfg.api_key}"} if self.cfg.api_key else {}
        body = {"model": self.cfg.model, "messages": self.messages, "temperature": self.cfg.temperature}
        self.requests += 1
        try:
            r = httpx.post(self.cfg.endpoint, json=body, headers=headers, timeout=self.cfg.timeout_s)
        except httpx.HTTPError as e:
            raise LLMError(f"request failed: {type(e).__name__}: {e}") from None
        if r.status_code != 200:
            raise LLMError(f"HTTP {r.status_code}: {r.text[:300]}")
        try:
            text = r.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"unexpected response shape: {r.text[:300]}") from None
        if not isinstance(text, str):
            raise LLMError("the response has no text content")
        self.messages.append({"role": "assistant", "content": text})
        return text


def extract_code(text: str) -> Optional[str]:
    """The last fenced code block (python preferred), else the text itself when it parses."""
    blocks = _FENCE.findall(text)
    py = [b for lang, b in blocks if lang.lower() in ("python", "py", "python3")]
    if py:
        return py[-1]
    if blocks:
        return blocks[-1][1]
    try:
        compile(text, "<llm>", "exec")
        return text
    except SyntaxError:
        return None


def _describe(problem: Problem) -> str:
    lines = [f"Problem statement:\n{problem.statement.strip()[:6000]}\n"]
    if problem.is_function:
        lines.append(f"Solutions are Python functions named `{problem.entry_point}`; a test input is the JSON array "
                     "of its positional arguments.")
        for s in problem.seeds[:3]:
            lines.append(f"Example input: {json.dumps(s['args'])[:500]}")
    else:
        lines.append("Solutions read standard input and write standard output; a test input is the full stdin text.")
        for s in problem.seeds[:3]:
            lines.append(f"Example input:\n```\n{s['stdin'][:1500]}```")
    return "\n".join(lines)


def _input_of(c: Candidate) -> str:
    return json.dumps(c.args) if c.args is not None else (c.stdin or "")


def _first_failure(res: RunResult) -> Optional[Fail]:
    """Why the first failed test of an LLM-written program failed, or None."""
    if res.verdict == Verdict.CE:
        return Fail("crash", "it does not compile: " + (res.compile.stderr[-800:] if res.compile else ""))
    for t in res.tests:
        if t.verdict == Verdict.TLE:
            return Fail("timeout", f"it ran longer than {GEN_LIMITS.time_s} s")
        if t.verdict in (Verdict.RE, Verdict.MLE, Verdict.OLE):
            return Fail("crash", f"{t.verdict.value} (exit {t.exit_code}): {t.stderr[-800:]}")
        if t.verdict == Verdict.SE:
            return Fail("sandbox", t.message or "sandbox error")
    return None


def _run_program(runner: Runner, code: str, stdins: list[str]) -> RunResult:
    req = RunRequest(language="python", code=code, tests=[TestCase(stdin=s) for s in stdins], limits=GEN_LIMITS)
    out = runner.run_many([req])[0]
    if isinstance(out, RunResult):
        return out
    raise LLMError(f"sandbox could not run the program: {out}")


def _repair(conv: Conversation, prompt: str, rounds: int, program: str, st: dict[str, Any],
            check: Callable[[str], Union[Fail, T]]) -> tuple[Optional[T], int]:
    """Ask for a program and ``check`` it; while it fails, send the typed error back and ask for a
    fix, at most ``rounds`` times. Returns what ``check`` accepted (None when nothing was) and the
    last round asked. Every failed round, and an endpoint that stops answering, is recorded in
    ``st["errors"]`` under ``program``; the requests made are added to ``st["requests"]``."""
    rnd = 0
    try:
        text = conv.ask(prompt)
        for rnd in range(rounds + 1):
            code = extract_code(text)
            outcome = NO_CODE if code is None else check(code)
            if not isinstance(outcome, Fail):
                return outcome, rnd
            st["errors"].append({"program": program, "round": rnd, "type": outcome.kind,
                                 "detail": outcome.detail[:300]})
            if rnd == rounds:
                break
            text = conv.ask(f"Error ({outcome.kind}): {outcome.detail}\nFix the program. "
                            "Answer with one ```python block.")
    except LLMError as e:
        st["errors"].append({"program": program, "type": "llm", "detail": str(e)[:300]})
    finally:
        st["requests"] += conv.requests
    return None, rnd


# ---------------------------------------------------------------- validator


def _validator(problem: Problem, runner: Runner, cfg: LLMConfig, st: dict[str, Any]) -> Optional[InputValidator]:
    seeds = [json.dumps(s["args"]) if problem.is_function else s["stdin"] for s in problem.seeds]
    prompt = (_describe(problem) + "\n\nWrite a Python 3 program that reads ONE test input from stdin and checks "
              "every constraint the statement states about inputs. Exit with status 0 when the input is valid and "
              "status 1 when it is not. Print nothing else. Answer with one ```python block.")

    def check(code: str) -> Union[Fail, InputValidator]:
        res = _run_program(runner, code, seeds or [""])
        fail = _first_failure(res) if res.verdict in (Verdict.CE, Verdict.SE) else None
        if fail:
            return fail
        if any(t.verdict == Verdict.TLE for t in res.tests):
            return Fail("timeout", f"the validator ran longer than {GEN_LIMITS.time_s} s")
        bad = [i for i, t in enumerate(res.tests) if t.exit_code != 0]
        if bad:
            i = bad[0]
            return Fail("disagreement", f"the validator rejects the statement's own example input #{i} "
                                        f"(exit {res.tests[i].exit_code}): {res.tests[i].stderr[-300:]}\n"
                                        f"Input:\n{seeds[i][:800] if seeds else ''}")
        return InputValidator(language="python", code=code, accept_exit=0, name="llm-validator")

    validator, rnd = _repair(Conversation(cfg), prompt, cfg.rounds, "validator", st, check)
    st["validator"] = {"status": "ok", "rounds": rnd} if validator is not None else {"status": "failed"}
    return validator


# ---------------------------------------------------------------- generators


def _parse_inputs(problem: Problem, res: RunResult) -> tuple[list[Candidate], Optional[Fail]]:
    cands: list[Candidate] = []
    arity = len(problem.seeds[0]["args"]) if problem.is_function and problem.seeds else None
    for k, t in enumerate(res.tests):
        if problem.is_function:
            try:
                args = json.loads(t.stdout)
            except ValueError:
                return [], Fail("format", f"seed {k}: the output is not JSON: {t.stdout[:200]!r}")
            if not isinstance(args, list):
                return [], Fail("format", f"seed {k}: print a JSON array of the arguments, got {t.stdout[:200]!r}")
            if arity is not None and len(args) != arity:
                return [], Fail("format", f"seed {k}: {len(args)} arguments, the function takes {arity}")
            cands.append(Candidate("", args=args))
        else:
            cands.append(Candidate("", stdin=t.stdout if t.stdout.endswith("\n") or not t.stdout else t.stdout + "\n"))
    if len({_input_of(c) for c in cands}) <= 1 and len(cands) > 1:
        return [], Fail("format", "every seed printed the same input; use the seed to vary the input")
    return cands, None


def _gold_disagreement(problem: Problem, runner: Runner, cands: list[Candidate], count_disagree: bool = True
                       ) -> float:
    """Share of inputs on which gold solutions crash, time out or (optionally) disagree: the same
    rules as validation. Disagreement is not counted where answers need not be unique."""
    from .validate import validate_function, validate_stdio

    probe = [Candidate("probe", args=c.args, stdin=c.stdin) for c in cands]
    val = (validate_function if problem.is_function else validate_stdio)(problem, probe, runner)
    if val.error:
        return 1.0
    bad = sum(n for why, n in val.dropped.items() if count_disagree or why != "gold_disagree")
    return bad / max(1, len(probe))


def _generator(problem: Problem, runner: Runner, cfg: LLMConfig, family: str, validator: Optional[InputValidator],
               st: dict[str, Any]) -> list[Candidate]:
    what = ("typical inputs of varied sizes drawn from the whole range the statement allows" if family == "regular"
            else "corner cases: smallest and largest allowed sizes and values, equal elements, sorted and reverse "
                 "sorted data, and other inputs where a careless solution would fail")
    fmt = "the JSON array of the function's arguments on one line" if problem.is_function else \
        "exactly the text of one test input, as the program reads it from stdin"
    prompt = (_describe(problem) + f"\n\nWrite a Python 3 generator program. It reads one integer seed from stdin "
              f"and prints ONE valid test input: {fmt}. Different seeds must give different inputs. Generate {what}. "
              "Every input must satisfy all constraints of the statement. Use only the standard library and "
              "random.Random(seed). Answer with one ```python block.")
    stdins = [f"{k}\n" for k in range(cfg.per_family)]

    def check(code: str) -> Union[Fail, list[Candidate]]:
        res = _run_program(runner, code, stdins)
        fail = _first_failure(res)
        if fail:
            return fail
        cands, fail = _parse_inputs(problem, res)
        if fail:
            return fail
        if validator is not None:
            vres = _run_program(runner, validator.code, [_input_of(c) for c in cands])
            rej = [i for i, t in enumerate(vres.tests) if t.exit_code != validator.accept_exit]
            if len(rej) > len(cands) // 4:
                return Fail("disagreement", f"the input validator rejects {len(rej)} of {len(cands)} inputs, "
                                            f"e.g. {_input_of(cands[rej[0]])[:300]!r}")
        share = _gold_disagreement(problem, runner, cands, count_disagree=problem.has_checker or
                                   several_answers(problem.statement) is None)
        if share > 0.5:
            return Fail("disagreement", f"the reference solutions crash or disagree on {share:.0%} of your "
                                        "inputs, so they are probably outside the constraints")
        return cands

    rec: dict[str, Any] = {"status": "failed", "rounds": 0, "inputs": 0}
    st["generators"][family] = rec
    cands, rec["rounds"] = _repair(Conversation(cfg), prompt, cfg.rounds, f"generator-{family}", st, check)
    if cands is None:
        return []
    for c in cands:
        c.family = f"llm-{family}"
    rec.update(status="ok", inputs=len(cands))
    return cands


# ---------------------------------------------------------------- checker


def _needs_checker(problem: Problem, runner: Runner, cands: list[Candidate]) -> bool:
    if problem.has_checker:
        return False
    if problem.is_function:  # "return any" (testgen/answers.py); an order-free list is judged unordered
        if problem.needs_checker is not None:
            return True
    elif several_answers(problem.statement) is not None:  # the statement's words (testgen/answers.py)
        return True
    return bool(cands) and len(problem.gold) > 1 and _gold_disagreement(problem, runner, cands[:10]) > 0.2


def _adopt_checker(problem: Problem, cfg: LLMConfig, prompt: str, st: dict[str, Any],
                   check: Callable[[str], Union[Fail, CheckerCompare]]) -> None:
    """Ask for a checker until ``check`` accepts one; the problem is then judged by it."""
    compare, rnd = _repair(Conversation(cfg), prompt, cfg.rounds, "checker", st, check)
    if compare is None:
        st["checker"] = {"status": "failed"}
        return
    problem.compare = compare
    st["checker"] = {"status": "ok", "rounds": rnd}


def _function_checker(problem: Problem, runner: Runner, cfg: LLMConfig, cands: list[Candidate],
                      st: dict[str, Any]) -> None:
    """A checker of the returned value (several right answers), in the testlib protocol on JSON
    files; kept once it accepts every gold's answer to the examples and a few inputs, and refuses
    a function that returns None."""
    from .execute import FnProgram, call_function
    from .validate import checker_verdicts

    args = [s["args"] for s in problem.seeds] + [c.args for c in cands[:5] if c.args is not None]
    if not args or not problem.gold:
        return
    rows = call_function(runner, [FnProgram(*problem.runnable(problem.gold[0].code))], args, problem.limits)[0]
    args, ref = [a for a, r in zip(args, rows) if r.ok], [r.value for r in rows if r.ok]
    if not args:
        return
    prompt = (_describe(problem) + "\n\nThis problem can have several correct answers. Write a Python 3 checker: it "
              "is run as `checker input.json output.json answer.json`. The three files hold JSON: the array of the "
              "function's arguments, the value the function returned, and a reference answer. It exits 0 when the "
              "returned value is correct, 1 when it is wrong. Answer with one ```python block.")
    cls, meth = split_entry(problem.entry_point or "")
    nothing = Program(language="python", name="returns-none",
                      code=f"class {cls}:\n    def {meth}(self, *args, **kwargs):\n        return None\n" if cls
                      else f"def {meth}(*args, **kwargs):\n    return None\n")

    def check(code: str) -> Union[Fail, CheckerCompare]:
        compare = CheckerCompare(checker=Checker(language="python", code=code, protocol="testlib"))
        for g in problem.gold:
            for a, why in zip(args, checker_verdicts(problem, g, args, ref, runner, compare)):
                if why:
                    return Fail("crash" if why == "checker_error" else "disagreement",
                                f"on the arguments {json.dumps(a)[:300]} the checker rejects a correct answer "
                                f"({why})")
        if not any(checker_verdicts(problem, nothing, args[:1], ref[:1], runner, compare)):
            return Fail("format", "the checker accepts a function that returns None")
        return compare

    _adopt_checker(problem, cfg, prompt, st, check)


def _checker(problem: Problem, runner: Runner, cfg: LLMConfig, cands: list[Candidate], st: dict[str, Any]) -> None:
    from .execute import StdioProgram, run_stdio

    if problem.is_function:
        _function_checker(problem, runner, cfg, cands, st)
        return
    inputs = [s["stdin"] for s in problem.seeds] + [c.stdin or "" for c in cands[:5]]
    if not inputs:
        return
    outs = run_stdio(runner, [StdioProgram(g.language, g.code) for g in problem.gold], inputs, problem.limits)
    ref = [t.stdout for t in outs[0].tests]
    prompt = (_describe(problem) + "\n\nThis problem can have several correct outputs. Write a Python 3 checker: "
              "it is run as `checker input.txt output.txt answer.txt` (the test input, the contestant's output, a "
              "reference answer) and exits 0 when the contestant's output is correct, 1 when it is wrong. "
              "Answer with one ```python block.")

    def check(code: str) -> Union[Fail, CheckerCompare]:
        compare = CheckerCompare(checker=Checker(language="python", code=code, protocol="testlib"))
        judged = run_stdio(runner, [StdioProgram(g.language, g.code) for g in problem.gold], inputs,
                           problem.limits, expected=list(ref), compare=compare, float_tol=problem.float_tol)
        for res in judged:
            bad = next((i for i, t in enumerate(res.tests) if t.verdict != Verdict.AC), None)
            if bad is not None:
                t = res.tests[bad]
                return Fail("crash" if t.verdict == Verdict.SE else "disagreement",
                            f"on input {inputs[bad][:300]!r} the checker rejects the correct output "
                            f"{t.stdout[:300]!r} ({t.message or t.verdict.value})")
        empty = RunRequest(language="python", code="pass", tests=[TestCase(stdin=inputs[0], expected_stdout=ref[0])],
                           compare=compare, limits=GEN_LIMITS)
        o = runner.run_many([empty])[0]
        if isinstance(o, RunResult) and o.verdict == Verdict.AC and ref[0].strip():
            return Fail("format", "the checker accepts an empty output")
        return compare

    _adopt_checker(problem, cfg, prompt, st, check)


# ---------------------------------------------------------------- brute force (one gold)


def _seed_disagreement(problem: Problem, runner: Runner, code: str) -> Optional[Fail]:
    """How a brute force fails the examples (their expected answers, else the gold's), or None."""
    from .execute import FnProgram, StdioProgram, call_function, run_stdio

    gold = problem.gold[0]
    if problem.is_function:
        args = [s["args"] for s in problem.seeds]
        brute, ref = call_function(runner, [FnProgram(*problem.runnable(code)), FnProgram(*problem.runnable(gold.code))],
                                   args, problem.limits)
        for i, (b, g) in enumerate(zip(brute, ref)):
            want = problem.seeds[i]["expected"] if "expected" in problem.seeds[i] else g.value
            if not b.ok:
                return Fail("crash", f"on the arguments {json.dumps(args[i])[:300]} it ended with "
                                     f"{b.status} {b.error}")
            if not problem.values_equal(b.value, want):
                return Fail("disagreement", f"on the arguments {json.dumps(args[i])[:300]} it returned "
                                            f"{json.dumps(b.value)[:200]}, the right answer is "
                                            f"{json.dumps(want)[:200]}")
        return None
    stdins = [s["stdin"] for s in problem.seeds]
    brute_res, gold_res = run_stdio(runner, [StdioProgram("python", code), StdioProgram(gold.language, gold.code)],
                                    stdins, problem.limits)
    fail = _first_failure(brute_res)
    if fail:
        return fail
    for i, (b, g) in enumerate(zip(brute_res.tests, gold_res.tests)):
        want = problem.seeds[i].get("expected_stdout", g.stdout)
        if not problem.outputs_agree(b.stdout, want):
            return Fail("disagreement", f"on the input {stdins[i][:300]!r} it printed {b.stdout[:200]!r}, the "
                                        f"right answer is {want[:200]!r}")
    return None


def _brute_force(problem: Problem, runner: Runner, cfg: LLMConfig, st: dict[str, Any]) -> Optional[Program]:
    """A slow, obviously correct solution that cross-checks a single gold on small inputs."""
    if problem.is_function:
        cls, meth = split_entry(problem.entry_point or "")
        what = (f"a class `{cls}` with the method `{meth}`" if cls else f"a Python 3 function named `{meth}`")
    else:
        what = "a Python 3 program that reads the input from stdin and prints the answer"
    prompt = (_describe(problem) + f"\n\nWrite {what} that solves the problem in the simplest, most obviously "
              "correct way: brute force or exhaustive search is welcome, speed does not matter (it only runs on "
              "small inputs). Answer with one ```python block.")

    def check(code: str) -> Union[Fail, Program]:
        return _seed_disagreement(problem, runner, code) or Program(language="python", code=code,
                                                                   name="llm-brute-force")

    brute, rnd = _repair(Conversation(cfg), prompt, cfg.rounds, "brute-force", st, check)
    st["brute_force"] = {"status": "ok", "rounds": rnd} if brute is not None else {"status": "failed"}
    return brute


def llm_candidates(problem: Problem, runner: Runner, cfg: LLMConfig, seed: int = 0
                   ) -> tuple[list[Candidate], dict[str, Any], Optional[InputValidator]]:
    """Inputs from LLM-written generators, the stats of the exchange, and the validator (if one passed)."""
    st: dict[str, Any] = {"requests": 0, "errors": [], "generators": {}, "model": cfg.model}
    validator = _validator(problem, runner, cfg, st)
    cands: list[Candidate] = []
    for family in ("regular", "corner"):
        cands += _generator(problem, runner, cfg, family, validator, st)
    if _needs_checker(problem, runner, cands):
        _checker(problem, runner, cfg, cands, st)
    if len(problem.gold) == 1 and not problem.has_checker:  # one gold is not trusted blindly
        brute = _brute_force(problem, runner, cfg, st)
        if brute is not None:
            problem.referees.append(brute)
    return cands, st, validator
