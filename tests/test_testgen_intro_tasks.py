"""Issue 14's first held-out kind, intro function tasks with student programs, in small: six
problems in the style of the assignments the issue describes (a search for 42 in a sorted
sequence, ``(gender, age)`` pairs sorted by age, duplicates removed, top k, a unique day among
``(month, day)`` birthdays, a primality test), one gold each, and correct and incorrect programs written the way
students write them (``tests/data/intro_tasks.jsonl``). Synthesized through the CLI on a real
sandbox and judged with ``codetest evaluate``: every correct program is accepted (before the
record-field and empty-sequence rules, two correct ``sort_age`` programs were rejected on lists
with two equal ages, which "All ages are different" excludes) and the wrong ones are rejected
(the search that reads ``seq[-1]`` fails only on an empty sequence; the primality test that
tries every number below n is too slow on the largest prime of the stated range, which the suite
holds whatever its random draws)."""

from __future__ import annotations

from conftest import synthesize_and_judge


def test_an_intro_task_set_accepts_every_correct_student_program(tmp_path, cli_state_env):
    report, by_id, suites = synthesize_and_judge(cli_state_env, "intro_tasks.jsonl", tmp_path)
    assert len(by_id) == 6 and not report["pooled"]["unjudged_programs"]
    assert report["pooled"]["accepted"] == report["pooled"]["correct"] == 25, \
        {k: p["false_rejects"] for k, p in by_id.items()}
    assert by_id["ref/search"]["missed"] == [] and by_id["ref/sort_age"]["missed"] == []
    assert by_id["ref/is_prime"]["missed"] == []
    assert report["pooled"]["rejected"] >= 27, {k: p["missed"] for k, p in by_id.items()}
    assert [999_999_937] in [t["args"] for t in suites["ref/is_prime"]["tests"]]  # 1 <= n <= 10^9
