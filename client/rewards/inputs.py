"""Turn what trainers hand a reward function into /v1/reward items.

Trainers carry tests in whatever their dataset column holds: a list of test dicts, a
JSON string of one, a ``{"tests": [...]}`` record, or the ``{"inputs": [...],
"outputs": [...]}`` shape of APPS / TACO / verl's prime_code and sandbox_fusion data.
Completions arrive as text or, from TRL on conversational datasets, as a list of
``{"role", "content"}`` messages. One place normalises all of it so every trainer
shape scores the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from ..extract import extract_code


class BadRewardInput(ValueError):
    """The trainer's data for one completion cannot be turned into tests."""


@dataclass
class RewardItem:
    """One completion to score: the payload of one /v1/reward item."""

    completion: str
    tests: list[dict[str, Any]]
    language: str = "python"
    limits: Optional[dict[str, Any]] = None
    entry_point: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def payload(self, item_id: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": item_id, "completion": self.completion, "language": self.language, "tests": self.tests,
        }
        if self.limits:
            body["limits"] = self.limits
        if self.entry_point:
            body["entry_point"] = self.entry_point
        body.update(self.extra)
        return body


def completion_text(completion: Any) -> str:
    """The text of a completion: a string as is, or the assistant content of a message list.

    TRL passes ``[{"role": "assistant", "content": "..."}]`` per completion on
    conversational datasets; the code is in the last assistant turn.
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content_text(completion.get("content", ""))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        assistant = [m for m in messages if m.get("role", "assistant") == "assistant"]
        chosen = assistant or messages
        if chosen:
            return _content_text(chosen[-1].get("content", ""))
        return ""
    if completion is None:
        return ""
    return str(completion)


def _content_text(content: Any) -> str:
    # Multimodal messages carry content as [{"type": "text", "text": ...}, ...].
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return "" if content is None else str(content)


def parse_tests(raw: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Tests from any of the accepted shapes, plus problem settings found alongside them.

    Returns ``(tests, settings)``; settings may hold ``language``, ``limits``,
    ``entry_point`` and ``scoring`` when the record carried them.
    """
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode()
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as e:
            raise BadRewardInput(f"tests are a string but not JSON: {e.msg}") from None
    # numpy arrays (verl's non_tensor_batch, datasets' numpy format) -> plain lists
    if hasattr(raw, "tolist") and not isinstance(raw, (list, dict)):
        raw = raw.tolist()
    settings: dict[str, Any] = {}
    if isinstance(raw, Mapping):
        for key in ("language", "limits", "entry_point", "scoring"):
            if raw.get(key) is not None:
                settings[key] = raw[key]
        if "tests" in raw:
            tests, inner = parse_tests(raw["tests"])
            return tests, {**inner, **settings}
        if "inputs" in raw or "outputs" in raw:
            return _from_inputs_outputs(raw, settings)
        if "stdin" in raw or "args" in raw or "expected_stdout" in raw:
            return [_test_dict(raw)], settings
        raise BadRewardInput("tests record has none of: tests, inputs/outputs, stdin, args")
    if isinstance(raw, Sequence):
        return [_test_dict(t) for t in raw], settings
    raise BadRewardInput(f"tests must be a list, a dict or a JSON string, not {type(raw).__name__}")


def _test_dict(t: Any) -> dict[str, Any]:
    if hasattr(t, "model_dump"):
        t = t.model_dump(exclude_none=True)
    if not isinstance(t, Mapping):
        raise BadRewardInput(f"a test must be an object, not {type(t).__name__}")
    return {k: v for k, v in t.items() if v is not None or k == "expected"}


def _from_inputs_outputs(raw: Mapping[str, Any], settings: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """APPS / TACO / prime_code: parallel ``inputs`` and ``outputs``; ``fn_name`` means call-based."""
    inputs = list(raw.get("inputs") or [])
    outputs = list(raw.get("outputs") or [])
    if outputs and len(inputs) != len(outputs):
        raise BadRewardInput(f"{len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = raw.get("fn_name")
    if fn_name:
        settings = {**settings, "entry_point": fn_name}
        tests = [{"args": list(a) if isinstance(a, (list, tuple)) else [a], "expected": o}
                 for a, o in zip(inputs, outputs)]
        return tests, settings
    tests = []
    for i, stdin in enumerate(inputs):
        test: dict[str, Any] = {"stdin": _as_text(stdin)}
        if outputs:
            test["expected_stdout"] = _as_text(outputs[i])
        tests.append(test)
    return tests, settings


def _as_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return "\n".join(str(x) for x in v) + "\n"
    return str(v)


def make_item(
    completion: Any,
    tests: Any,
    *,
    language: Optional[str] = None,
    limits: Optional[Mapping[str, Any]] = None,
    entry_point: Optional[str] = None,
    default_language: str = "python",
) -> RewardItem:
    """One RewardItem; explicit arguments win over settings found in the tests record."""
    parsed, settings = parse_tests(tests)
    lim = limits if limits is not None else settings.get("limits")
    text = completion_text(completion)
    lang = language or settings.get("language")
    if not lang:  # the fence's tag (```cpp) before the default: the model said what it wrote
        found = extract_code(text)
        lang = found.language if found is not None else None
    return RewardItem(
        completion=text,
        tests=parsed,
        language=str(lang or default_language),
        limits=dict(lim) if lim else None,
        entry_point=entry_point or settings.get("entry_point"),
    )
