"""Request and result shapes: the one source of truth for the library, the CLI and HTTP.

FastAPI renders these into OpenAPI, the CLI prints them with ``--json``, and the
backends fill them in. Field names follow the contract in docs/api.md.
"""

from __future__ import annotations

import base64
import binascii
from enum import Enum
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

MAX_CODE_BYTES = 1 << 20  # 1 MiB of source is far beyond any real submission
MAX_FILES_BYTES = 16 << 20  # RunRequest.files, decoded, all together


def safe_relpath(name: str) -> str:
    """``name`` as a clean relative path inside the work dir; ValueError for '..', NUL or nothing.
    A leading '/' is dropped ('/data.txt' is 'data.txt'), as files land in the work dir either way."""
    if not isinstance(name, str) or "\x00" in name or len(name) > 1024:
        raise ValueError(f"bad file name {name!r}")
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"bad file name {name!r}: it must stay inside the work dir")
    return "/".join(parts)


class Verdict(str, Enum):
    AC = "AC"
    WA = "WA"
    TLE = "TLE"
    MLE = "MLE"
    OLE = "OLE"
    RE = "RE"
    CE = "CE"
    SE = "SE"
    SKIPPED = "SKIPPED"


class Limits(BaseModel):
    """Per-test limits. ``time_s`` is CPU time; wall time defaults to a multiple of it."""

    model_config = ConfigDict(extra="forbid")

    time_s: float = Field(2.0, gt=0, le=60, description="CPU time limit per test, seconds")
    wall_time_s: Optional[float] = Field(
        None, gt=0, le=120, description="wall-clock limit per test; default 2*time_s + 1"
    )
    cpu_wait_allowance: float = Field(
        4.0, ge=0, le=16, description="time the program waits for a CPU (a busy machine) that does not count "
                                      "against wall_time_s, as a multiple of it; 0 makes the wall limit hard")
    memory_mb: int = Field(256, ge=16, le=16384, description="memory limit (cgroup), MiB")
    output_kb: int = Field(1024, ge=1, le=65536, description="stdout + stderr limit, KiB")
    processes: int = Field(64, ge=1, le=1024, description="processes and threads at once")
    file_size_kb: int = Field(65536, ge=0, le=1 << 20, description="largest file the program may write")
    compile_time_s: float = Field(
        30.0, gt=0, le=300, description="CPU limit of the compile step (wall: 1.5x + 1 s); the server caps "
                                       "both at CODETEST_COMPILE_WALL_MAX_S (60 s by default)")

    @property
    def wall_s(self) -> float:
        return self.wall_time_s if self.wall_time_s is not None else 2 * self.time_s + 1


class TestCase(BaseModel):
    """A stdin/stdout test, or a function-call test (``args`` / ``expected``)."""

    model_config = ConfigDict(extra="allow")
    __test__ = False  # not a pytest class

    stdin: str = ""
    expected_stdout: Optional[str] = None
    args: Optional[list[Any]] = None
    expected: Any = None

    @property
    def is_function(self) -> bool:
        return self.args is not None


class Checker(BaseModel):
    """A program that judges an output; it runs in the sandbox like any other code.

    ``testlib`` protocol: ``checker input.txt output.txt answer.txt``, exit 0 accepts.
    ``kattis`` protocol: ``checker input.txt answer.txt feedback/ < output``, exit 42
    accepts and 43 rejects (the Kattis / BAPC output-validator convention).
    For a function-call test the three are JSON: the input is the arguments (``args``), the
    output the value the function returned, the answer ``expected``.
    """

    model_config = ConfigDict(extra="forbid")

    language: str
    code: str = Field(..., max_length=MAX_CODE_BYTES)
    protocol: Literal["testlib", "kattis"] = "testlib"


class CheckerCompare(BaseModel):
    model_config = ConfigDict(extra="forbid")
    checker: Checker


# unordered: answers that may come in any order (a function's top-level list as a multiset, an
# output's lines as a multiset; sandbox/compare.py)
CompareMode = Literal["exact", "whitespace", "float", "unordered"]
Compare = Union[CompareMode, CheckerCompare]


# A function name, or Class.method (LeetCode style; see sandbox/leetcode.py).
ENTRY_POINT_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$"


class RunRequest(BaseModel):
    """One program, any number of tests, compiled once."""

    model_config = ConfigDict(extra="forbid")

    language: str = Field(..., min_length=1, max_length=32)
    code: str = Field(..., max_length=MAX_CODE_BYTES)
    tests: list[TestCase] = Field(default_factory=list, max_length=10000)
    limits: Limits = Field(default_factory=Limits)
    compare: Compare = "whitespace"
    float_tol: float = Field(1e-6, ge=0, le=1)
    integer_tolerance: bool = Field(
        False, description="compare=float: apply float_tol to integer tokens too (default: integers exact)")
    case_sensitive: bool = Field(
        True, description="false: whitespace, float and unordered compare letters regardless of case (Kattis' "
                          "default validator without its case_sensitive flag)")
    stop_on_first_failure: bool = False
    entry_point: Optional[str] = Field(
        None, description="function-call tests: the function the tests call (HumanEval style, `solve`) or a "
                          "LeetCode-style method (`Solution.twoSum`: LeetCode's imports, ListNode/TreeNode values)",
        pattern=ENTRY_POINT_PATTERN,
    )
    files: dict[str, str] = Field(
        default_factory=dict, max_length=256,
        description="relative path -> base64 content: written next to the program (compile step, /prog) and into "
                    "the working directory of every test (SandboxFusion's files)",
    )
    fetch_files: list[str] = Field(
        default_factory=list, max_length=64,
        description="paths under the working directory read back after each test, base64 in the test's files",
    )
    args: list[str] = Field(
        default_factory=list, max_length=64,
        description="command-line arguments after the program's own (a test runner's flags: pytest -k ...)",
    )

    @field_validator("args")
    @classmethod
    def _args_sane(cls, v: list[str]) -> list[str]:
        if any(len(a) > 4096 or "\x00" in a for a in v):
            raise ValueError("an argument is longer than 4096 characters or holds a NUL byte")
        return v

    @field_validator("files")
    @classmethod
    def _files_safe(cls, v: dict[str, str]) -> dict[str, str]:
        total = 0
        for name, b64 in v.items():
            safe_relpath(name)
            try:
                total += len(base64.b64decode(b64, validate=True))
            except (binascii.Error, ValueError):
                raise ValueError(f"files[{name!r}] is not valid base64") from None
        if total > MAX_FILES_BYTES:
            raise ValueError(f"files hold {total} bytes; at most {MAX_FILES_BYTES}")
        return v

    @field_validator("fetch_files")
    @classmethod
    def _fetch_safe(cls, v: list[str]) -> list[str]:
        for name in v:
            safe_relpath(name)
        return v

    def decoded_files(self) -> dict[str, bytes]:
        return {safe_relpath(k): base64.b64decode(b64) for k, b64 in self.files.items()}

    @field_validator("code")
    @classmethod
    def _code_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("code is empty")
        if "\x00" in v:
            raise ValueError("code contains a NUL byte")
        return v

    @model_validator(mode="after")
    def _function_tests_need_entry_point(self) -> "RunRequest":
        kinds = {t.is_function for t in self.tests}
        if len(kinds) > 1:
            raise ValueError("tests mix stdin/stdout and function-call (args) shapes")
        if kinds == {True} and not self.entry_point:
            raise ValueError("function-call tests (args) need entry_point")
        return self


class CompileResult(BaseModel):
    ok: bool
    stdout: str = ""
    stderr: str = ""
    time_s: float = 0.0
    cached: bool = False


class TestResult(BaseModel):
    __test__ = False

    verdict: Verdict
    time_s: float = Field(0.0, description="CPU time, seconds")
    wall_time_s: float = 0.0
    run_delay_s: float = Field(0.0, description="of the wall time, how long the program waited for a CPU "
                                                "(a busy machine's doing, not the program's)")
    memory_kb: int = Field(0, description="peak memory of the test's process group")
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = Field(False, description="the output limit cut the program's output (OLE)")
    message: Optional[str] = Field(None, description="why, when the verdict needs saying (SE, checker)")
    files: Optional[dict[str, str]] = Field(None, description="fetch_files that existed after the run, base64")
    # How long the execution held its slot (the jail's set-up, the program, the reply), seconds: the
    # service's admission estimate (api/runner.py), not part of the answer.
    _slot_s: Optional[float] = PrivateAttr(default=None)


class RunResult(BaseModel):
    verdict: Verdict
    passed: int
    total: int
    compile: Optional[CompileResult] = None
    tests: list[TestResult] = Field(default_factory=list)
    message: Optional[str] = None
    # The output this result keeps charged to the sandbox's output budget (see output_budget.py).
    _output: object = PrivateAttr(default=None)

    def release_output(self) -> None:
        """Give this result's output back to the sandbox's budget (once it is encoded or dropped)."""
        lease, self._output = self._output, None
        if lease is not None:
            lease.release()  # type: ignore[attr-defined]
