"""Problems for RL: a prompt and the tests that judge its completions.

Reads the contract's problem files (``statement``, ``io``, ``entry_point``, ``limits``
and ``tests`` as written by ``codetest testgen``; ``seed_tests`` when there are no
``tests``) or simpler records with a ready ``prompt``. A record that cannot be used
is skipped with a reason, never fatal.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from client.rewards.inputs import BadRewardInput, parse_tests

log = logging.getLogger("codetest.trainer")


@dataclass
class Problem:
    id: str
    prompt: str
    tests: list[dict[str, Any]]
    language: str = "python"
    limits: Optional[dict[str, Any]] = None
    entry_point: Optional[str] = None


def render_prompt(record: dict[str, Any], language: str) -> str:
    """The prompt for a record: its own ``prompt``, else one written from ``statement``."""
    if isinstance(record.get("prompt"), str) and record["prompt"].strip():
        return record["prompt"]
    statement = str(record.get("statement", "")).strip()
    if record.get("io") == "function" and record.get("entry_point"):
        task = f"Write a {language} function `{record['entry_point']}` that solves it."
    else:
        task = f"Write a {language} program that reads standard input and writes standard output."
    return f"{statement}\n\n{task} Answer with the code in one ```{language} fenced block.\n"


def problem_from_record(record: dict[str, Any], default_language: str, line_no: int) -> Problem:
    """One Problem; BadRewardInput with the reason when the record cannot be used."""
    if not isinstance(record, dict):
        raise BadRewardInput("not a JSON object")
    raw_tests = record.get("tests") or record.get("seed_tests")
    if not raw_tests:
        raise BadRewardInput("no tests (nor seed_tests)")
    tests, settings = parse_tests(raw_tests)
    if not tests:
        raise BadRewardInput("tests list is empty")
    language = str(record.get("language") or settings.get("language") or _gold_language(record) or default_language)
    if not record.get("prompt") and not str(record.get("statement", "")).strip():
        raise BadRewardInput("neither prompt nor statement")
    return Problem(
        id=str(record.get("id", f"line{line_no}")),
        prompt=render_prompt(record, language),
        tests=tests,
        language=language,
        limits=record.get("limits") or settings.get("limits"),
        entry_point=record.get("entry_point") or settings.get("entry_point"),
    )


def _gold_language(record: dict[str, Any]) -> Optional[str]:
    gold = record.get("gold_solutions")
    if isinstance(gold, list) and gold and isinstance(gold[0], dict):
        return gold[0].get("language")
    return None


def load_problems(path: str | Path, default_language: str = "python") -> tuple[list[Problem], list[str]]:
    """Problems from a JSONL file and a list of ``"line N: reason"`` for the skipped ones."""
    problems: list[Problem] = []
    skipped: list[str] = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                problems.append(problem_from_record(json.loads(line), default_language, n))
            except json.JSONDecodeError as e:
                skipped.append(f"line {n}: not JSON ({e.msg})")
            except BadRewardInput as e:
                skipped.append(f"line {n}: {e}")
    for s in skipped:
        log.warning("problem skipped: %s", s)
    return problems, skipped
