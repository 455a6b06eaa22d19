"""OpenRLHF's remote reward shape mapped onto reward items.

OpenRLHF posts ``{"query": [prompt+response], "prompts": [...], "labels": [...]}`` and
reads ``rewards`` (and ``scores``, ``extra_logs``). The tests travel in the labels as JSON:
an object with RewardItem fields (``tests``, ``language``, ``limits``, ``entry_point``, ...),
a bare list of tests, or the APPS/verl style ``{"inputs": [...], "outputs": [...], "fn_name": ...}``.
"""

from __future__ import annotations

import json
from typing import Any, Optional, Union

from pydantic import ValidationError

from .models import RewardItem

_ITEM_FIELDS = {"tests", "language", "limits", "compare", "float_tol", "integer_tolerance", "case_sensitive",
                "stop_on_first_failure", "entry_point", "id"}


def _tests_from_inputs(label: dict) -> list[dict]:
    inputs, outputs = label.get("inputs"), label.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise ValueError("'inputs' and 'outputs' must be lists of the same length")
    if label.get("fn_name"):
        return [{"args": i if isinstance(i, list) else [i], "expected": o} for i, o in zip(inputs, outputs)]
    return [{"stdin": str(i), "expected_stdout": str(o)} for i, o in zip(inputs, outputs)]


def item_from(query: str, prompt: Optional[str], label: Any) -> Union[RewardItem, str]:
    """A RewardItem for one sample, or an error string saying why the label is unusable."""
    completion = query[len(prompt):] if prompt and query.startswith(prompt) else query
    if isinstance(label, str):
        try:
            label = json.loads(label)
        except ValueError as e:
            return f"label is not JSON: {e}"
    if isinstance(label, list):
        label = {"tests": label}
    if not isinstance(label, dict):
        return "label must be a JSON object or a list of tests"
    fields = {k: v for k, v in label.items() if k in _ITEM_FIELDS}
    try:
        if "tests" not in fields and "inputs" in label:
            fields["tests"] = _tests_from_inputs(label)
            if label.get("fn_name") and "entry_point" not in fields:
                fields["entry_point"] = label["fn_name"]
        return RewardItem(completion=completion, **fields)
    except (ValidationError, ValueError, TypeError) as e:
        msg = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
        return f"invalid label: {msg}"
