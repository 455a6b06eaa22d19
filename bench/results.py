"""Turning a /v1/run or /run_code answer into one verdict per test, the same way for every mode."""

from __future__ import annotations

from typing import Any

from .measure import ERROR, ItemResult
from .workloads import Submission, Test, normalize

COMPILED = {"cpp", "c", "java", "rust", "go"}


def run_body(s: Submission) -> dict[str, Any]:
    """The /v1/run request (and library RunRequest) for a submission: all its tests, its limits."""
    return {
        "language": s.language,
        "code": s.code,
        "tests": [{"stdin": t.stdin, "expected_stdout": t.expected_stdout} for t in s.tests],
        "limits": {"time_s": s.time_limit_s, "memory_mb": s.memory_limit_mb, "compile_time_s": s.compile_timeout_s},
        "compare": "whitespace",
    }


def _note(t: dict[str, Any]) -> str:
    bits = [t.get("message") or "", (t.get("stderr") or "")[-160:]]
    return " | ".join(b.strip() for b in bits if b and b.strip())


def from_run_result(res: dict[str, Any], s: Submission) -> ItemResult:
    """Per-test verdicts of a RunResult (as JSON); a compile that was not a cache hit counts as one compile."""
    n = len(s.tests)
    comp = res.get("compile") or {}
    compiles = 1 if (s.language in COMPILED and comp and not comp.get("cached")) else 0
    compile_s = float(comp.get("time_s") or 0.0) if compiles else 0.0
    tests = res.get("tests") or []
    if res.get("verdict") == "CE" or len(tests) != n:
        v = res.get("verdict") or ERROR
        note = (res.get("message") or (comp.get("stderr") or ""))[-200:]
        return ItemResult(verdicts=[v] * n, compiles=compiles, compile_s=compile_s, notes=[note] * n)
    return ItemResult(
        verdicts=[t["verdict"] for t in tests],
        exec_s=[],
        compiles=compiles,
        compile_s=compile_s,
        notes=[_note(t) for t in tests],
    )


def fusion_body(s: Submission, t: Test) -> dict[str, Any]:
    """A /run_code request exactly as verl's sandbox_fusion client builds it: one test, stdin only."""
    return {
        "code": s.code,
        "stdin": t.stdin,
        "language": s.language,
        "compile_timeout": s.compile_timeout_s,
        "run_timeout": s.time_limit_s,
        "memory_limit_MB": s.memory_limit_mb,
        "files": {},
        "fetch_files": [],
    }


def from_fusion(res: dict[str, Any], t: Test) -> tuple[str, str]:
    """The verdict a verl-style client reads from a /run_code answer, and a note.

    It compares stdout itself; a non-zero exit is RE unless the message names the limit
    that stopped the program (this service says "memory limit exceeded" / "output limit exceeded").
    """
    status = res.get("status")
    comp = res.get("compile_result") or {}
    run = res.get("run_result") or {}
    note = (res.get("message") or "") + " " + (run.get("stderr") or "")[-160:]
    if status == "SandboxError":
        return "SE", note
    if comp and comp.get("return_code") not in (0, None) and not run:
        return "CE", (comp.get("stderr") or "")[-200:]
    if status == "Success":
        return ("AC" if normalize(run.get("stdout") or "") == normalize(t.expected_stdout) else "WA"), ""
    if run.get("status") == "TimeLimitExceeded" or comp.get("status") == "TimeLimitExceeded":
        return "TLE", note
    msg = (res.get("message") or "").lower()
    for words, verdict in (("memory limit", "MLE"), ("output limit", "OLE"), ("time limit", "TLE")):
        if words in msg:
            return verdict, note
    return "RE", note
