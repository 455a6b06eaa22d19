"""codetest's sandbox: one job (code, language, tests, limits) in, verdicts out.

    from sandbox import run, RunRequest, TestCase
    result = run(RunRequest(language="python", code="print(input())",
                            tests=[TestCase(stdin="hi\n", expected_stdout="hi\n")]))
    result.verdict  # Verdict.AC
"""

from .config import SandboxConfig
from .errors import (
    BadRequest, ConfigError, Saturated, SandboxError, SandboxUnavailable, ToolchainMissing, UnknownLanguage,
)
from .models import (
    Checker, CheckerCompare, CompileResult, Limits, RunRequest, RunResult, TestCase, TestResult, Verdict,
)
from .engine import Sandbox, default_sandbox, run

__all__ = [
    "BadRequest", "ConfigError", "Saturated", "Checker", "CheckerCompare", "CompileResult", "Limits", "RunRequest", "RunResult",
    "Sandbox", "SandboxConfig", "SandboxError", "SandboxUnavailable", "TestCase", "TestResult",
    "ToolchainMissing", "UnknownLanguage", "Verdict", "default_sandbox", "run",
]
