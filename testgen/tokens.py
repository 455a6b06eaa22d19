"""Sample inputs as tokens: lines of whitespace-separated ints, floats and words."""

from __future__ import annotations

import re
from typing import Any

_INT = re.compile(r"-?\d+\Z")
_FLOAT = re.compile(r"-?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)\Z")


def token_kind(tok: str) -> str:
    if _INT.match(tok):
        return "int"
    if _FLOAT.match(tok):
        return "float"
    return "word"


def tokenize(text: str) -> list[list[str]]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln.split() for ln in lines]


def parse_token(tok: str, kind: str) -> Any:
    try:
        if kind == "int":
            return int(tok)
        if kind == "float":
            return float(tok)
    except ValueError:
        pass
    return tok


def line_kinds(line: list[str]) -> tuple[str, ...]:
    return tuple(token_kind(t) for t in line)
