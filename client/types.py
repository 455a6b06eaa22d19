"""Shapes of the service's JSON, as TypedDicts: the SDK hands back the JSON itself (plain dicts),
so fields the service adds later pass through, and nothing here needs pydantic."""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict, Union

Verdict = Literal["AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "SE", "SKIPPED"]


class TestCase(TypedDict, total=False):
    stdin: str
    expected_stdout: Optional[str]
    args: list[Any]
    expected: Any


class Limits(TypedDict, total=False):
    time_s: float
    wall_time_s: float
    memory_mb: int
    output_kb: int
    processes: int
    file_size_kb: int
    compile_time_s: float


class CompileResult(TypedDict, total=False):
    ok: bool
    stdout: str
    stderr: str
    time_s: float
    cached: bool


class TestResult(TypedDict, total=False):
    verdict: Verdict
    time_s: float
    wall_time_s: float
    memory_kb: int
    exit_code: Optional[int]
    signal: Optional[int]
    stdout: str
    stderr: str
    truncated: bool
    message: Optional[str]


class RunResult(TypedDict, total=False):
    verdict: Verdict
    passed: int
    total: int
    compile: Optional[CompileResult]
    tests: list[TestResult]
    message: Optional[str]


class RewardItem(TypedDict, total=False):
    id: Union[str, int, None]
    completion: str
    code: str
    language: str
    tests: list[TestCase]
    limits: Limits
    compare: Any
    float_tol: float
    stop_on_first_failure: bool
    entry_point: str


class RewardResult(TypedDict, total=False):
    id: Union[str, int, None]
    reward: Optional[float]
    verdict: Optional[Verdict]
    passed: int
    total: int
    error: Optional[str]
    language: Optional[str]


class CommandRunResult(TypedDict, total=False):
    status: Literal["Finished", "Error", "TimeLimitExceeded"]
    execution_time: Optional[float]
    return_code: Optional[int]
    stdout: Optional[str]
    stderr: Optional[str]


class RunCodeResponse(TypedDict, total=False):
    status: Literal["Success", "Failed", "SandboxError"]
    message: str
    compile_result: Optional[CommandRunResult]
    run_result: Optional[CommandRunResult]
    files: dict[str, str]


class Health(TypedDict, total=False):
    ok: bool
    backend: str
    layers: dict[str, Any]
    languages: dict[str, str]
    slots: int
    queue_depth: int
    queue_capacity: int
    problems: list[str]
