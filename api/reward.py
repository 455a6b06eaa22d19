"""Turning completions into rewards: find the code, build the job, score the verdict.

The one rule that matters to a trainer: a program's failure (CE, RE, TLE, WA, ...) scores
0 for what failed, while the service's failure (SE, a crash, a missed deadline) gives
``reward: null`` with an error, so it is never mistaken for a bad program.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from pydantic import ValidationError

from sandbox.models import RunRequest, RunResult, Verdict

from sandbox.languages import canonical_name
from .models import RewardItem, RewardResult, Scoring


def _fence_run(line: str, start: int) -> int:
    end = start
    while end < len(line) and line[end] == "`":
        end += 1
    return end - start


def last_fenced_block(text: str) -> Optional[tuple[str, str]]:
    """(tag, code) of the last complete fenced block, or None; an unterminated fence is ignored.

    Line by line, so the cost is linear in the text whatever it holds. Lenient where LLMs
    are: the opening fence may follow prose on its line, and the closing fence may end the
    last code line (``print(x)`` followed directly by the backticks). A fence that opens and
    closes on one line is inline code, not a block.
    """
    last: Optional[tuple[str, str]] = None
    fence = 0
    tag = ""
    body: list[str] = []
    for line in text.split("\n"):
        if not fence:
            at = line.find("```")
            if at < 0:
                continue
            run = _fence_run(line, at)
            info = line[at + run:]
            if "`" in info:
                continue
            words = info.split()
            tag = words[0].strip("{}.").lower() if words else ""
            fence, body = run, []
            continue
        stripped = line.rstrip()
        code_end = len(stripped)
        while code_end > 0 and stripped[code_end - 1] == "`":
            code_end -= 1
        if len(stripped) - code_end >= fence:
            if stripped[:code_end].strip():
                body.append(stripped[:code_end])
            last = (tag, "\n".join(body) + "\n")
            fence = 0
        else:
            body.append(line)
    return last


def score(result: RunResult, scoring: Scoring) -> tuple[Optional[float], Optional[str]]:
    """(reward, error). Any SE test makes the pass count unreliable, so the reward is null."""
    se = [t for t in result.tests if t.verdict == Verdict.SE]
    if result.verdict == Verdict.SE or se:
        why = result.message or (se[0].message if se and se[0].message else None) or "sandbox error"
        return None, f"SE: {why}"
    if scoring == "all_or_nothing":
        return (1.0 if result.verdict == Verdict.AC else 0.0), None
    if result.verdict == Verdict.CE:
        return 0.0, None
    if result.total <= 0:
        return (1.0 if result.verdict == Verdict.AC else 0.0), None
    return result.passed / result.total, None


def slim(result: RunResult) -> RunResult:
    """What scoring needs of a result: verdicts and counts, not megabytes of output."""
    return result.model_copy(update={"tests": [
        t.model_copy(update={"stdout": "", "stderr": ""}) for t in result.tests]})


@dataclass
class PreparedItem:
    """Either a job to run, or a result decided without running anything."""

    job: Optional[RunRequest] = None
    decided: Optional[RewardResult] = None
    language_from_fence: bool = False


def _fail_ce(item: RewardItem, why: str, language: Optional[str] = None) -> PreparedItem:
    return PreparedItem(decided=RewardResult(
        id=item.id, reward=0.0, verdict=Verdict.CE, passed=0, total=len(item.tests), error=why, language=language,
    ))


def _null(item: RewardItem, why: str, language: Optional[str] = None) -> PreparedItem:
    return PreparedItem(decided=RewardResult(
        id=item.id, reward=None, verdict=None, passed=0, total=len(item.tests), error=why, language=language,
    ))


def _brief(err: ValidationError) -> str:
    parts = []
    for e in err.errors()[:3]:
        loc = ".".join(str(x) for x in e.get("loc", ()))
        parts.append(f"{loc}: {e.get('msg')}" if loc else str(e.get("msg")))
    return "; ".join(parts)


def output_budget_mb(job: RunRequest) -> float:
    """The most output a job may hold in memory: every test at its output limit."""
    return max(1, len(job.tests)) * job.limits.output_kb / 1024


def prepare(item: RewardItem, available: Iterable[str], max_output_mb: float = float("inf")) -> PreparedItem:
    """Extract the code and language of one item and validate the job it becomes."""
    from_fence = False
    if item.code is not None:
        code, lang = item.code, item.language
    else:
        block = last_fenced_block(item.completion or "")
        if block is None:
            return _fail_ce(item, "no fenced code block in completion", item.language)
        tag, code = block
        lang = item.language or tag or None
        from_fence = item.language is None
    if not lang:
        return _null(item, "no language: set the item's 'language' or tag the code fence")
    lang = canonical_name(lang)
    if not code.strip():
        return _fail_ce(item, "the code block is empty", lang)
    try:
        job = RunRequest(
            language=lang, code=code, tests=item.tests, limits=item.limits, compare=item.compare,
            float_tol=item.float_tol, integer_tolerance=item.integer_tolerance,
            stop_on_first_failure=item.stop_on_first_failure, entry_point=item.entry_point,
        )
    except ValidationError as e:
        if from_fence:  # what the model wrote could not even form a job (e.g. a NUL byte)
            return _fail_ce(item, f"unusable code: {_brief(e)}", lang)
        return _null(item, f"invalid item: {_brief(e)}", lang)
    if output_budget_mb(job) > max_output_mb:
        return _null(item, f"tests x limits.output_kb allow {output_budget_mb(job):.0f} MiB of output; "
                           f"this server takes at most {max_output_mb:.0f} MiB per job", lang)
    return PreparedItem(job=job, language_from_fence=from_fence)


def result_for(item: RewardItem, prepared: PreparedItem, outcome: object, scoring: Scoring) -> RewardResult:
    """Map a finished job (a RunResult), an exception, or None (deadline) to the item's reward."""
    from sandbox import BadRequest, SandboxUnavailable, UnknownLanguage
    from sandbox.errors import Saturated

    lang = prepared.job.language if prepared.job else None
    total = len(item.tests)
    if outcome is None:
        return RewardResult(id=item.id, reward=None, verdict=None, passed=0, total=total, language=lang,
                            error="deadline exceeded before this item finished")
    if isinstance(outcome, RunResult):
        reward, error = score(outcome, scoring)
        return RewardResult(id=item.id, reward=reward, verdict=outcome.verdict, passed=outcome.passed,
                            total=outcome.total, error=error, language=lang)
    if isinstance(outcome, UnknownLanguage) and prepared.language_from_fence:
        return RewardResult(id=item.id, reward=0.0, verdict=Verdict.CE, passed=0, total=total, language=lang,
                            error=f"the fence names a language this sandbox does not know: {outcome}")
    if isinstance(outcome, Saturated):
        return RewardResult(id=item.id, reward=None, total=total, language=lang, error=f"service saturated: {outcome}")
    if isinstance(outcome, SandboxUnavailable):
        return RewardResult(id=item.id, reward=None, total=total, language=lang, error=f"sandbox unavailable: {outcome}")
    if isinstance(outcome, BadRequest):
        return RewardResult(id=item.id, reward=None, total=total, language=lang, error=f"bad job: {outcome}")
    return RewardResult(id=item.id, reward=None, total=total, language=lang,
                        error=f"internal error: {type(outcome).__name__}")
