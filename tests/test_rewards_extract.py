"""What real models emit around their code, one test per row of the table in docs/trainer.md.

The extraction is one function (``client.extract.extract_code``) used by ``/v1/reward``,
``/get_reward`` and every reward file in ``client.rewards``; the last tests here send the
shapes through the real service and through the OpenRLHF reward file to show they agree.
"""

from __future__ import annotations

import json
import time

import pytest

from client.extract import extract_code

PY = "n = int(input())\nprint(n * 2)\n"
CPP = "#include <cstdio>\nint main(){int n; scanf(\"%d\",&n); printf(\"%d\\n\", 2*n);}\n"
RS = "fn main(){let mut s=String::new();std::io::stdin().read_line(&mut s).unwrap();" \
     "let n:i64=s.trim().parse().unwrap();println!(\"{}\",2*n);}\n"

# (row name in docs/trainer.md, completion, expected language, expected code); None: no code.
SHAPES = [
    ("plain python fence", f"```python\n{PY}```", "python", PY),
    ("<|im_end|> after the closing fence", f"Here:\n```python\n{PY}```<|im_end|>", "python", PY),
    ("<|endoftext|> padding after the answer", f"```python\n{PY}```\n<|im_end|><|endoftext|><|endoftext|>",
     "python", PY),
    ("</s> after the closing fence", f"```python\n{PY}```</s>", "python", PY),
    ("<|eot_id|> after the closing fence", f"```python\n{PY}``` <|eot_id|>", "python", PY),
    ("<think> before the answer", f"<think>\nmaybe\n```python\nprint(0)\n```\nno\n</think>\nFinal:\n```python\n{PY}```",
     "python", PY),
    ("unclosed <think> (no answer)", f"<think>\n```python\n{PY}```\nhmm", None, None),
    ("several blocks: the last", f"```python\nprint(1)\n```\nbetter:\n```python\n{PY}```\n", "python", PY),
    ("tag python3", f"```python3\n{PY}```", "python", PY),
    ("tag py", f"```py\n{PY}```", "python", PY),
    ("tag c++", f"```c++\n{CPP}```", "cpp", CPP),
    ("tag cpp", f"```cpp\n{CPP}```", "cpp", CPP),
    ("tag cc", f"```cc\n{CPP}```", "cpp", CPP),
    ("tag rs", f"```rs\n{RS}```", "rust", RS),
    ("no tag", f"```\n{PY}```", None, PY),
    ("tag none", f"```none\n{PY}```", None, PY),
    ("indented fence (list item)", "1. Solution:\n   ```python\n   n = int(input())\n   print(n * 2)\n   ```\n",
     "python", PY),
    ("CRLF line ends", f"```python\r\n{PY.replace(chr(10), chr(13) + chr(10))}```\r\n<|im_end|>", "python", PY),
    ("fence glued to the last line", "```python\nn = int(input())\nprint(n * 2)```", "python", PY),
    ("opening fence after prose", f"Sure! ```python\n{PY}```", "python", PY),
    ("no code at all", "I cannot solve this.<|im_end|>", None, None),
    ("unterminated fence", f"```python\n{PY}", None, None),
]


@pytest.mark.parametrize("name,text,language,code", SHAPES, ids=[s[0] for s in SHAPES])
def test_extract_shape(name: str, text: str, language, code) -> None:
    found = extract_code(text)
    if code is None:
        assert found is None
    else:
        assert found is not None and found.code == code and found.language == language


def test_extraction_is_linear_on_hostile_text() -> None:
    t0 = time.process_time()
    extract_code(" " * 1_000_000 + "x")
    extract_code("```python\n" + "a<|im_end|>`\n" * 100_000)
    extract_code("<|im_end|>" * 200_000)
    extract_code("```\n" * 500_000)
    assert time.process_time() - t0 < 6.0  # CPU seconds: other load on the machine does not count


def test_client_does_not_import_the_service() -> None:
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1] / "client"
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            for n in names:
                assert n.split(".")[0] not in ("api", "sandbox", "fastapi", "uvicorn", "testgen", "trainer"), (path, n)


@pytest.fixture(scope="module")
def service():
    from _reward_service import real_service

    with real_service() as url:
        yield url


def test_every_shape_scores_the_same_through_v1_reward_and_openrlhf(service: str) -> None:
    """The service's rewards equal what the extraction predicts: 1.0 for a shape with the right
    code, 0 and ``no_code`` for a shape without; and the OpenRLHF file gets the same numbers."""
    import httpx

    from client.rewards.openrlhf import score_openrlhf

    tests = [{"stdin": "2\n", "expected_stdout": "4\n"}, {"stdin": "21\n", "expected_stdout": "42\n"}]
    limits = {"time_s": 5, "wall_time_s": 20}
    items = [{"id": name, "completion": text, "tests": tests, "limits": limits} for name, text, lang, _ in SHAPES
             if lang in ("python", None)]
    # an untagged block needs the item's language; give it for every item so all run
    for it in items:
        it["language"] = "python"
    r = httpx.post(service + "/v1/reward", json={"items": items}, timeout=120)
    assert r.status_code == 200, r.text
    body = r.json()
    want = {name: (0.0 if code is None else 1.0) for name, _, _, code in SHAPES}
    got = {res["id"]: res["reward"] for res in body["results"]}
    assert got == {it["id"]: want[it["id"]] for it in items}
    no_code = {res["id"] for res in body["results"] if res["no_code"]}
    assert no_code == {name for name, _, _, code in SHAPES if code is None and name in got}
    assert body["stats"]["no_code"] == len(no_code)
    assert all(res["verdict"] == "CE" for res in body["results"] if res["no_code"])

    prompts = ["Double n.\n"] * len(items)
    queries = [p + it["completion"] for p, it in zip(prompts, items)]
    labels = [json.dumps({"tests": tests, "language": "python", "limits": limits})] * len(items)
    out = score_openrlhf(queries, prompts, labels, service_url=service)
    assert out["rewards"] == [want[it["id"]] for it in items]
    assert out["extra_logs"]["codetest_no_code"] == [1.0 if it["id"] in no_code else 0.0 for it in items]
    assert out["extra_logs"]["codetest_failed"] == [0.0] * len(items)


def test_fence_language_wins_over_the_default_in_client_items() -> None:
    """A ```cpp block from a client with no language column runs as C++, not as the default python."""
    from client.rewards.inputs import make_item

    assert make_item(f"```cpp\n{CPP}```<|im_end|>", [{"stdin": "1\n"}]).language == "cpp"
    assert make_item(f"```\n{PY}```", [{"stdin": "1\n"}]).language == "python"
    assert make_item(f"```cpp\n{CPP}```", [{"stdin": "1\n"}], language="python").language == "python"
