"""What SandboxFusion's runner tests import, pointed at our service.

The vendored test files (see README.md) keep their cases, files and assertions; only their
import header changed, to take these names from here instead of SandboxFusion's own
``sandbox.server`` package (whose name our ``sandbox`` package shadows):

- ``RunCodeRequest``, ``RunCodeResponse``, ``RunStatus``, ``CommandRunStatus``: SandboxFusion's
  request and response models (sandbox/server/sandbox_api.py, sandbox/runners/types.py), restated
  field for field with pydantic v2, since the tests call ``model_dump()``;
- ``client``: an httpx client on a real uvicorn serving our app on 127.0.0.1, in place of
  ``TestClient(app)`` / ``sandbox.tests.client.client``.
"""

from __future__ import annotations

import threading
from enum import Enum
from typing import Dict, List, Optional

import httpx
from pydantic import BaseModel, Field


class CommandRunStatus(str, Enum):
    Finished = "Finished"
    Error = "Error"
    TimeLimitExceeded = "TimeLimitExceeded"


class CommandRunResult(BaseModel):
    status: CommandRunStatus
    execution_time: Optional[float] = None
    return_code: Optional[int] = None
    stdout: Optional[str] = None
    stderr: Optional[str] = None


class RunStatus(str, Enum):
    Success = "Success"
    Failed = "Failed"
    SandboxError = "SandboxError"


class RunCodeRequest(BaseModel):
    compile_timeout: float = Field(10)
    run_timeout: float = Field(10)
    memory_limit_MB: int = Field(-1)
    code: str
    stdin: Optional[str] = None
    language: str
    files: Dict[str, Optional[str]] = Field({})
    fetch_files: List[str] = Field([])
    args: List[str] = Field([])


class RunCodeResponse(BaseModel):
    status: RunStatus
    message: str
    compile_result: Optional[CommandRunResult] = None
    run_result: Optional[CommandRunResult] = None
    executor_pod_name: Optional[str] = None
    files: Dict[str, str] = {}


class _LazyClient:
    """httpx.Client against the session's service, created on first use (conftest sets the URL)."""

    base_url: Optional[str] = None

    def __init__(self) -> None:
        self._client: Optional[httpx.Client] = None
        self._lock = threading.Lock()

    def _get(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                assert self.base_url, "the sandbox_fusion conftest did not start the service"
                self._client = httpx.Client(base_url=self.base_url, timeout=180)
            return self._client

    def post(self, *args, **kwargs) -> httpx.Response:
        return self._get().post(*args, **kwargs)

    def get(self, *args, **kwargs) -> httpx.Response:
        return self._get().get(*args, **kwargs)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


client = _LazyClient()
