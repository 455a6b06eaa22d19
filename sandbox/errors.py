"""Errors the sandbox raises to its callers (the CLI maps them to exit 2, HTTP to 4xx/503)."""


class SandboxError(Exception):
    """Base class."""


class BadRequest(SandboxError, ValueError):
    """The job itself is wrong: unknown language, bad entry point, empty code."""


class UnknownLanguage(BadRequest):
    pass


class ToolchainMissing(BadRequest):
    """The language is known but its compiler or interpreter is not installed here."""


class SandboxUnavailable(SandboxError):
    """An isolation layer below the configured minimum is missing: refuse to run code."""


class ConfigError(BadRequest):
    """A ``CODETEST_*`` variable or setting has a value that cannot be used (the operator's to fix)."""


class DeadlinePassed(SandboxError):
    """The client's deadline came before this work could start (the machine was busy with other
    work): nothing of the program was judged. Retry later."""

    retry_after_s = 1


class Saturated(SandboxError):
    """The service cannot take this job now (its output budget across jobs is spent); retry later."""

    retry_after_s = 5
