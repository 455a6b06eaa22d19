"""Running many inputs on one program, batched: the building block of validation and mutant runs.

* ``call_function``: a Python function on many argument lists, through the harness driver
  (one jail per chunk of inputs; a chunk killed midway is resumed after the call that
  was running, which gets the kill's verdict).
* ``run_stdio``: a stdin/stdout program on many inputs: one ``RunRequest`` with all of
  them as tests, so it compiles once.

Both take several programs at once and send them to the runner in one batch so that the
sandbox can share its slots between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from sandbox.models import Compare, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict

from .harness import CallResult, driver_source, job_stdin, parse_stream
from .runner import Runner, failed_result

CHUNK = 40  # inputs per harness process
MAX_ROUNDS = 6


@dataclass
class FnProgram:
    code: str
    entry_point: str


def _chunk_limits(limits: Limits, n: int, per_call: float, max_timeouts: int) -> Limits:
    """Room for the calls of one chunk: a few timeouts plus a fair share per call."""
    timeouts = max_timeouts if max_timeouts else 2
    cpu = min(60.0, max(5.0, per_call * 1.3 * timeouts + 0.2 * n))
    return Limits(time_s=cpu, wall_time_s=min(120.0, cpu * 2 + 5), memory_mb=limits.memory_mb, output_kb=32768,
                  processes=limits.processes)


def call_function(runner: Runner, programs: list[FnProgram], inputs: list[list[Any]], limits: Limits,
                  chunk: int = CHUNK, call_time_s: Optional[float] = None, max_timeouts: int = 0
                  ) -> list[list[CallResult]]:
    """results[p][i]: what program p did on inputs[i]. Never raises for a program's fault.

    ``call_time_s`` overrides the per-call CPU limit (mutants get a tight one); with
    ``max_timeouts`` a chunk gives up after that many timeouts and the rest come back SKIP."""
    per_call = limits.time_s if call_time_s is None else call_time_s
    n = len(inputs)
    results: list[list[Optional[CallResult]]] = [[None] * n for _ in programs]
    # pending work: (program index, list of input indices)
    pending: list[tuple[int, list[int]]] = []
    for p in range(len(programs)):
        for s in range(0, n, chunk):
            pending.append((p, list(range(s, min(n, s + chunk)))))
    for _ in range(MAX_ROUNDS):
        if not pending:
            break
        by_prog: dict[int, list[list[int]]] = {}
        for p, idxs in pending:
            by_prog.setdefault(p, []).append(idxs)
        reqs: list[RunRequest] = []
        order: list[tuple[int, list[list[int]]]] = []
        for p, chunks in by_prog.items():
            prog = programs[p]
            tests = [TestCase(stdin=job_stdin([inputs[i] for i in idxs], per_call, max_timeouts=max_timeouts))
                     for idxs in chunks]
            biggest = max(len(c) for c in chunks)
            reqs.append(RunRequest(language="python", code=driver_source(prog.code, prog.entry_point), tests=tests,
                                   limits=_chunk_limits(limits, biggest, per_call, max_timeouts)))
            order.append((p, chunks))
        outs = runner.run_many(reqs)
        pending = []
        for (p, chunks), out in zip(order, outs):
            res: RunResult = out if isinstance(out, RunResult) else failed_result(out, len(chunks))
            for k, idxs in enumerate(chunks):
                tr = res.tests[k] if k < len(res.tests) else TestResult(verdict=Verdict.SE, message=res.message)
                got, load_err = parse_stream(tr.stdout, len(idxs))
                if load_err is not None:
                    for i in idxs:
                        results[p][i] = CallResult("LOAD", error=load_err)
                    continue
                if tr.verdict == Verdict.SE:
                    for i in idxs:
                        results[p][i] = CallResult("SE", error=tr.message or res.message or "sandbox error")
                    continue
                missing = [j for j, g in enumerate(got) if g is None]
                for j, g in enumerate(got):
                    if g is not None:
                        results[p][idxs[j]] = g
                if missing:
                    first = missing[0]
                    verdict = tr.verdict.value if tr.verdict != Verdict.AC else "LOST"
                    results[p][idxs[first]] = CallResult(verdict, error=(tr.stderr or "")[-300:])
                    rest = [idxs[j] for j in missing[1:]]
                    if rest:
                        pending.append((p, rest))
    final: list[list[CallResult]] = []
    for row in results:
        final.append([r if r is not None else CallResult("LOST", error="not run (too many killed chunks)")
                      for r in row])
    return final


@dataclass
class StdioProgram:
    language: str
    code: str


def run_stdio(runner: Runner, programs: list[StdioProgram], inputs: list[str], limits: Limits,
              expected: Optional[list[Optional[str]]] = None, compare: Compare = "whitespace",
              float_tol: float = 1e-6, case_sensitive: bool = True) -> list[RunResult]:
    """One RunRequest per program with every input as a test (judged when ``expected`` is given)."""
    tests = [TestCase(stdin=s, expected_stdout=(expected[i] if expected else None)) for i, s in enumerate(inputs)]
    reqs = []
    for prog in programs:
        reqs.append(RunRequest(language=prog.language, code=prog.code, tests=tests, limits=limits,
                               compare=compare if expected else "whitespace", float_tol=float_tol,
                               case_sensitive=case_sensitive))
    outs = runner.run_many(reqs) if tests else []
    return [o if isinstance(o, RunResult) else failed_result(o, len(tests)) for o in outs]
