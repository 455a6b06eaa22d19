"""How trainer data becomes /v1/reward items: test shapes, completion shapes, bad rows."""

from __future__ import annotations

import json

import pytest

from client.rewards.inputs import BadRewardInput, completion_text, make_item, parse_tests
from client.rewards.trl import build_items
from client.rewards.scorer import Unscorable


def test_completion_text_takes_strings_and_conversations() -> None:
    assert completion_text("abc") == "abc"
    conv = [{"role": "assistant", "content": "```python\nprint(1)\n```"}]
    assert completion_text(conv) == "```python\nprint(1)\n```"
    multi = [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "text", "text": "x"},
                                                                                  {"type": "text", "text": "y"}]}]
    assert completion_text(multi) == "xy"
    assert completion_text(None) == ""


@pytest.mark.parametrize("raw", [
    [{"stdin": "1\n", "expected_stdout": "2\n"}],
    json.dumps([{"stdin": "1\n", "expected_stdout": "2\n"}]),
    {"tests": [{"stdin": "1\n", "expected_stdout": "2\n"}]},
    json.dumps({"inputs": ["1\n"], "outputs": ["2\n"]}),
])
def test_parse_tests_accepts_every_stdio_shape(raw: object) -> None:
    tests, _ = parse_tests(raw)
    assert tests == [{"stdin": "1\n", "expected_stdout": "2\n"}]


def test_parse_tests_call_based_and_settings() -> None:
    tests, settings = parse_tests({"inputs": [[1, 2]], "outputs": [3], "fn_name": "add", "language": "python",
                                   "limits": {"time_s": 1}})
    assert tests == [{"args": [1, 2], "expected": 3}]
    assert settings == {"entry_point": "add", "language": "python", "limits": {"time_s": 1}}
    item = make_item("c", {"tests": tests, "language": "cpp"}, language="python")
    assert item.language == "python"  # the explicit argument wins


@pytest.mark.parametrize("raw, why", [
    ("not json", "not JSON"),
    ({"inputs": ["1"], "outputs": ["1", "2"]}, "1 inputs but 2 outputs"),
    (42, "must be a list"),
    ({"foo": 1}, "none of"),
])
def test_parse_tests_rejects_with_a_reason(raw: object, why: str) -> None:
    with pytest.raises(BadRewardInput, match=why):
        parse_tests(raw)


def test_build_items_marks_bad_rows_unscorable_and_needs_the_column() -> None:
    items = build_items(["a", "b", "c"], {"tests": [[{"stdin": ""}], None, "nope"], "language": ["python"] * 3})
    assert not isinstance(items[0], Unscorable)
    assert isinstance(items[1], Unscorable) and isinstance(items[2], Unscorable)
    with pytest.raises(TypeError, match="'tests' dataset column"):
        build_items(["a"], {"trainer_state": None})
    with pytest.raises(ValueError, match="entries for 2 completions"):
        build_items(["a", "b"], {"tests": [[]]})
