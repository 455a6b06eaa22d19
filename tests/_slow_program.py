"""One stdin problem with one gold and one program labelled too slow, synthesized and judged:
the end-to-end check of a testgen rule that is meant to reach a problem's large inputs (with the
rule, the slow program times out on the suite and the correct one still passes; without it, the
suite had nothing it was slow on)."""

from __future__ import annotations

from typing import Any, Optional

from testgen.evaluate import evaluate
from testgen.pipeline import Settings, synthesize


def slow_program_record(pid: str, statement: str, samples: list[str], outputs: list[str], gold: str, slow: str,
                        *, language: str = "cpp", validator: Optional[str] = None, time_s: float = 1,
                        memory_mb: int = 256) -> dict[str, Any]:
    """The problem record: the gold is also the held-out correct program, ``slow`` the TLE one,
    ``validator`` a Python input validator (exit 42 accepts) when given."""
    rec: dict[str, Any] = {
        "id": pid, "io": "stdio", "statement": statement,
        "gold_solutions": [{"language": language, "code": gold}],
        "seed_tests": [{"stdin": s, "expected_stdout": o} for s, o in zip(samples, outputs)],
        "limits": {"time_s": time_s, "memory_mb": memory_mb},
        "heldout_correct": [{"language": language, "code": gold}],
        "heldout_incorrect": [{"language": language, "code": slow, "label": "TLE"}],
    }
    if validator is not None:
        rec["input_validators"] = {"input_validators/validate.py": validator}
    return rec


def synthesized(rec: dict[str, Any], runner: Any) -> dict[str, Any]:
    """The record with its synthesized suite (12 tests at most, no mutants); synthesis succeeded."""
    out = synthesize(rec, runner, Settings(mutants=0, max_tests=12, min_tests=3))
    assert out["testgen"]["status"] == "ok", out["testgen"]
    return out


def assert_the_slow_program_is_rejected(out: dict[str, Any], runner: Any) -> None:
    """The suite accepts the correct program and rejects the slow one."""
    pool = evaluate([out], runner).pooled()
    assert pool["tpr"] == 1.0
    assert pool["slow"] == 1 and pool["slow_rejected"] == 1, [len(t["stdin"]) for t in out["tests"]]
