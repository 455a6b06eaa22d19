"""HTTP-only shapes: reward batches, SandboxFusion's /run_code, OpenRLHF's /get_reward, health, errors.

``/v1/run`` uses ``sandbox.RunRequest`` / ``sandbox.RunResult`` unchanged; what is here is
what only the service speaks. Field names follow the contract (docs/architecture.md) and, for the
compatibility endpoints, the projects whose clients call them.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sandbox.models import ENTRY_POINT_PATTERN, MAX_CODE_BYTES, Compare, Limits, TestCase, Verdict

Scoring = Literal["fraction", "all_or_nothing"]
ItemId = Union[str, int, None]


class ErrorBody(BaseModel):
    error: str = Field(..., description="a short machine-readable code")
    message: str = Field(..., description="what was wrong, for a person")
    detail: Any = None


# ---------------------------------------------------------------- /v1/reward

class RewardItem(BaseModel):
    """One completion (or bare code) and the tests that judge it."""

    model_config = ConfigDict(extra="forbid")

    id: ItemId = Field(None, description="echoed back unchanged")
    completion: Optional[str] = Field(
        None, max_length=4 * MAX_CODE_BYTES,
        description="LLM output; the code is its last fenced block (```lang ... ```)",
    )
    code: Optional[str] = Field(None, max_length=MAX_CODE_BYTES, description="the program itself, instead of completion")
    language: Optional[str] = Field(
        None, min_length=1, max_length=32,
        description="wins over the fence tag; needed when the fence has no tag",
    )
    tests: list[TestCase] = Field(default_factory=list, max_length=10000)
    limits: Limits = Field(default_factory=Limits)
    compare: Compare = "whitespace"
    float_tol: float = Field(1e-6, ge=0, le=1)
    integer_tolerance: bool = Field(False, description="compare=float: integers within float_tol too")
    case_sensitive: bool = Field(True, description="false: the token modes compare letters regardless of case")
    stop_on_first_failure: bool = False
    entry_point: Optional[str] = Field(None, pattern=ENTRY_POINT_PATTERN)

    @model_validator(mode="after")
    def _one_source(self) -> "RewardItem":
        if (self.completion is None) == (self.code is None):
            raise ValueError("give exactly one of 'completion' or 'code'")
        return self


class RewardRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scoring: Scoring = Field("fraction", description="fraction: passed/total; all_or_nothing: 1 only when AC")
    items: list[RewardItem] = Field(..., max_length=100_000)
    deadline_s: Optional[float] = Field(
        None, gt=0, le=3600,
        description="whole-request deadline; unfinished items come back with reward null",
    )


class RewardResult(BaseModel):
    id: ItemId = None
    reward: Optional[float] = Field(..., description="null when the service, not the program, failed")
    verdict: Optional[Verdict] = None
    passed: int = 0
    total: int = 0
    error: Optional[str] = None
    language: Optional[str] = Field(None, description="the language the code ran as")
    no_code: bool = Field(False, description="the completion held no code block (reward 0, verdict CE)")


class RewardStats(BaseModel):
    items: int
    scored: int
    null: int
    no_code: int = Field(0, description="completions without a code block (scored 0, counted apart from CE)")
    deadline_hit: bool
    elapsed_s: float


class RewardResponse(BaseModel):
    results: list[RewardResult]
    stats: Optional[RewardStats] = None


# ---------------------------------------------------------------- /run_code (SandboxFusion)

class FusionRunRequest(BaseModel):
    """SandboxFusion's RunCodeRequest, field for field; unknown fields are ignored as it does."""

    model_config = ConfigDict(extra="ignore")

    code: str = Field(..., max_length=MAX_CODE_BYTES, description="the code to run")
    language: str = Field(..., min_length=1, max_length=32, examples=["python"],
                          description="SandboxFusion's names (python, cpp, java, nodejs, go, rust, ...) or ours")
    stdin: Optional[str] = Field(None, max_length=64 << 20)
    compile_timeout: float = Field(10, description="seconds; clamped to what the sandbox allows")
    run_timeout: float = Field(10, description="seconds of wall and CPU time; clamped")
    memory_limit_MB: int = Field(-1, description="MiB; -1 or 0 means the service default")
    files: dict[str, Optional[str]] = Field(default_factory=dict, description="path -> base64 content")
    fetch_files: list[str] = Field(default_factory=list, description="paths to return after the run, base64")
    args: list[str] = Field(default_factory=list, description="command-line arguments (pytest's, for language pytest)")


FusionCommandStatus = Literal["Finished", "Error", "TimeLimitExceeded"]
FusionRunStatus = Literal["Success", "Failed", "SandboxError"]


class FusionCommandResult(BaseModel):
    status: FusionCommandStatus
    execution_time: Optional[float] = None
    return_code: Optional[int] = None
    stdout: Optional[str] = None
    stderr: Optional[str] = None


class FusionRunResponse(BaseModel):
    status: FusionRunStatus
    message: str = ""
    compile_result: Optional[FusionCommandResult] = None
    run_result: Optional[FusionCommandResult] = None
    executor_pod_name: Optional[str] = None
    files: dict[str, str] = Field(default_factory=dict)


# ---------------------------------------------------------------- /get_reward (OpenRLHF)

class OpenRLHFRequest(BaseModel):
    """OpenRLHF's remote reward call: ``query`` is prompt + response; ``labels`` carry the tests as JSON."""

    model_config = ConfigDict(extra="ignore")

    query: list[str] = Field(..., max_length=100_000)
    prompts: Optional[list[str]] = None
    labels: Optional[list[Any]] = None
    scoring: Scoring = "fraction"
    deadline_s: Optional[float] = Field(None, gt=0, le=3600)
    failure_score: float = Field(
        0.0, description="reward of an item the service could not score: OpenRLHF turns rewards into a tensor, so "
                         "it needs a number; such items are flagged in extra_logs.sandbox_error and errors")


class OpenRLHFResponse(BaseModel):
    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[float]]
    errors: list[Optional[str]] = Field(default_factory=list)


# ---------------------------------------------------------------- /healthz

class HealthResponse(BaseModel):
    model_config = ConfigDict(extra="allow")

    ok: bool
    backend: Optional[str] = None
    layers: dict[str, Any] = Field(default_factory=dict)
    languages: dict[str, Any] = Field(default_factory=dict)
    slots: Optional[int] = None
    queue_depth: int = 0
    queue_capacity: int = 0
    problems: list[str] = Field(default_factory=list)
