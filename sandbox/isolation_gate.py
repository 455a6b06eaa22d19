"""The isolation gate: what the backend's layers are, and the refusal to run code below the minimum."""

from __future__ import annotations

from typing import Any

from .config import SandboxConfig
from .errors import SandboxUnavailable


def health_report(config: SandboxConfig, backend: Any, languages: dict[str, str], queue_depth: int,
                  running: int) -> dict:
    """/healthz's sandbox part: layers, the required minimum and what is missing of it."""
    h = backend.health()
    layers = h.get("layers", {})
    required = config.effective_required()
    missing = missing_layers(required, layers)
    problems = gate_problems(missing, h.get("problems", []))
    return {
        "ok": not missing and not h.get("problems"),
        "backend": backend.name,
        "layers": layers,
        "required_layers": sorted(required),
        "missing_layers": missing,
        "languages": dict(sorted(languages.items())),
        "slots": backend.slots,
        "queue_depth": queue_depth,
        "running": running,
        "problems": problems,
        **{k: v for k, v in h.items() if k not in ("layers", "problems", "slots")},
    }


def missing_layers(required: Any, layers: dict) -> list[str]:
    """The ``required`` layers (``config.effective_required()``) the backend does not have active."""
    return sorted(name for name in required if not layers.get(name, {}).get("active"))


def gate_problems(missing: list[str], backend_problems: list[str]) -> list[str]:
    problems = list(backend_problems)
    if missing:
        problems.append("isolation below the configured minimum, missing: " + ", ".join(missing))
    return problems


def refuse_unless_isolated(config: SandboxConfig, gate: dict) -> None:
    """Fail closed: raise SandboxUnavailable when a required layer is missing or the backend is
    unwell. ``gate``: the backend's ``gate()`` (layers and problems), read before every run."""
    problems = gate_problems(missing_layers(config.effective_required(), gate.get("layers", {})),
                             gate.get("problems", []))
    if problems:
        raise SandboxUnavailable("; ".join(problems) + ". Refusing to run code. An operator can lower the "
                                 "bar with CODETEST_ALLOW_MISSING=<layer,...> (or --allow-missing).")
