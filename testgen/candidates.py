"""A candidate test input and the family that produced it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

FAMILIES = ("seed", "regular", "boundary", "special", "stress", "mutation", "relations", "structured", "widen",
            "grammar", "corner", "llm-regular", "llm-corner")


def canonical_key(value: Any) -> str:
    """A string that is equal for equal JSON values (bool and int, 1 and 1.0 kept apart)."""
    return json.dumps(_tag(value), sort_keys=True, separators=(",", ":"), allow_nan=True)


def _tag(v: Any) -> Any:
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, float):
        return ["f", repr(v)]
    if isinstance(v, dict):
        return {str(k): _tag(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_tag(x) for x in v]
    return v


@dataclass
class Candidate:
    """One input: ``args`` for function-call problems, ``stdin`` for stdin/stdout ones."""

    family: str
    args: Optional[list[Any]] = None
    stdin: Optional[str] = None
    note: str = ""
    # Filled in by validation.
    expected: Any = None
    expected_stdout: Optional[str] = None
    gold_time_s: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return canonical_key(self.args) if self.args is not None else "S" + (self.stdin or "")

    def size(self) -> int:
        return len(self.key)

    def as_test(self) -> dict[str, Any]:
        if self.args is not None:
            return {"args": self.args, "expected": self.expected}
        t: dict[str, Any] = {"stdin": self.stdin or ""}
        if self.expected_stdout is not None:
            t["expected_stdout"] = self.expected_stdout
        return t


def dedupe(cands: list[Candidate]) -> tuple[list[Candidate], int]:
    """First occurrence wins (seeds come first, so they are kept); returns (unique, dropped). A
    duplicate's ``shape:`` note (selection keeps one input of each shape) passes to the first
    occurrence when that has none, so an input two families drew keeps the stronger claim."""
    first: dict[str, Candidate] = {}
    out: list[Candidate] = []
    for c in cands:
        k = c.key
        if k in first:
            kept = first[k]
            if c.note.startswith("shape:") and not kept.note.startswith("shape:"):
                kept.note = c.note
            continue
        first[k] = c
        out.append(c)
    return out, len(cands) - len(out)
