"""The trainers' own reward clients, loaded as they ship, and a mix of completions with the scores
SandboxFusion semantics give them. Shared by tests/test_clients_real.py and bench/trainer_load.py.

verl's module is loaded by ``bench.clients.load_verl_sandbox_fusion`` (verl's own files, without
running ``verl/__init__``, which needs Ray and the GPU stack).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from bench.clients import load_verl_sandbox_fusion  # noqa: F401 - re-exported for the tests

PROMPT = "Read n and print 2n.\n"
INPUTS = ["2\n", "5\n", "7\n", "10\n"]
OUTPUTS = ["4\n", "10\n", "14\n", "20\n"]


@dataclass(frozen=True)
class Completion:
    kind: str
    text: str  # what the model emitted (fenced, special tokens after it)
    score: float  # what SandboxFusion semantics give: passed / total
    case_codes: tuple  # verl's per-case result: True, False, -2 runtime error, -3 timeout

    @property
    def timing_out(self) -> bool:
        return self.kind in ("loop", "sleep")


def _fenced(code: str, eos: str = "<|im_end|>") -> str:
    return f"Here is my solution.\n```python\n{code}\n```{eos}"


MIX = {
    "correct": Completion("correct", _fenced("n = int(input())\nprint(2 * n)"), 1.0, (True,) * 4),
    "half": Completion("half", _fenced("n = int(input())\nprint(2 * n if n < 6 else n * n)"), 0.5,
                       (True, True, False, False)),
    "crash_one": Completion("crash_one", _fenced("n = int(input())\nassert n != 7\nprint(2 * n)"), 0.75,
                            (True, True, -2, True)),
    "wrong": Completion("wrong", _fenced("print(int(input()))"), 0.0, (False,) * 4),
    "crash": Completion("crash", _fenced("n = int(input())\nprint(1 // (n - n))"), 0.0, (-2,) * 4),
    "loop": Completion("loop", _fenced("n = int(input())\nwhile True:\n    n += 1"), 0.0, (-3,) * 4),
    "sleep": Completion("sleep", _fenced("import time\ntime.sleep(60)\nprint(2 * int(input()))"), 0.0, (-3,) * 4),
}


def mix(n: int, timing_out: float = 0.25, loops_share: float = 0.3) -> list[Completion]:
    """``n`` completions: ``timing_out`` of them never finish (a share ``loops_share`` of those burn
    CPU, the rest sleep); the others cycle through correct, partly right, wrong and crashing."""
    n_slow = round(n * timing_out)
    n_loop = round(n_slow * loops_share)
    rest = ["correct", "correct", "half", "crash_one", "correct", "wrong", "crash"]
    out = [MIX["loop"]] * n_loop + [MIX["sleep"]] * (n_slow - n_loop)
    out += [MIX[rest[i % len(rest)]] for i in range(n - n_slow)]
    # interleave deterministically, so the slow ones are spread through the run
    return [out[(i * 7919) % n] for i in range(n)] if n % 7919 else out


def cases_json() -> str:
    return json.dumps({"inputs": INPUTS, "outputs": OUTPUTS})


def openrlhf_label(time_s: float) -> str:
    return json.dumps({"tests": [{"stdin": i, "expected_stdout": o} for i, o in zip(INPUTS, OUTPUTS)],
                       "language": "python", "limits": {"time_s": time_s}})


def verl_case_codes(metadata: list) -> tuple:
    """verl's per-case result codes from ``compute_score``'s metadata."""
    status_to_code = {"success": True, "wrong_answer": False, "runtime_error": -2, "timeout": -3,
                      "compile_error": -4}
    return tuple(status_to_code.get(m.get("status"), -1) for m in metadata)


def verl_mismatch(c: Completion, score: float, metadata: list) -> Optional[str]:
    codes = verl_case_codes(metadata)
    if abs(score - c.score) > 1e-9 or codes != c.case_codes:
        statuses = [(m.get("status"), m.get("api_request_error")) for m in metadata]
        return f"{c.kind}: score {score} (want {c.score}), cases {codes} (want {c.case_codes}): {statuses}"
    return None
