"""Turning completions into rewards: find the code, build the job, score the verdict.

The one rule that matters to a trainer: a program's failure (CE, RE, TLE, WA, ...) scores
0 for what failed, while the service's failure (SE, a crash, a missed deadline) gives
``reward: null`` with an error, so it is never mistaken for a bad program.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from pydantic import ValidationError

from client.extract import extract_code
from sandbox.languages import canonical_name
from sandbox.models import RunRequest, RunResult, Verdict

from .models import RewardItem, RewardResult, Scoring


def last_fenced_block(text: str) -> Optional[tuple[str, str]]:
    """(language, code) of the completion's code block, or None: ``client.extract.extract_code``."""
    found = extract_code(text)
    return None if found is None else (found.language or "", found.code)


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


def _no_code(item: RewardItem) -> PreparedItem:
    """No code in the completion: reward 0, verdict CE, counted apart (``no_code``)."""
    return PreparedItem(decided=RewardResult(
        id=item.id, reward=0.0, verdict=Verdict.CE, passed=0, total=len(item.tests), language=item.language,
        error="no code: the completion has no complete fenced code block", no_code=True,
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
        found = extract_code(item.completion or "")
        if found is None:
            return _no_code(item)
        code = found.code
        lang = item.language or found.language or None
        from_fence = item.language is None
    if not lang:
        return _null(item, "no language: set the item's 'language' or tag the code fence")
    lang = canonical_name(lang)
    if not code.strip():
        return _fail_ce(item, "the code block is empty", lang)
    try:
        job = RunRequest(
            language=lang, code=code, tests=item.tests, limits=item.limits, compare=item.compare,
            float_tol=item.float_tol, integer_tolerance=item.integer_tolerance, case_sensitive=item.case_sensitive,
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
    from sandbox.errors import DeadlinePassed, Saturated

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
    if isinstance(outcome, DeadlinePassed):
        return RewardResult(id=item.id, reward=None, verdict=None, passed=0, total=total, language=lang,
                            error=f"deadline exceeded before this item started: {outcome}")
    if isinstance(outcome, Saturated):
        return RewardResult(id=item.id, reward=None, total=total, language=lang, error=f"service saturated: {outcome}")
    if isinstance(outcome, SandboxUnavailable):
        return RewardResult(id=item.id, reward=None, total=total, language=lang, error=f"sandbox unavailable: {outcome}")
    if isinstance(outcome, BadRequest):
        return RewardResult(id=item.id, reward=None, total=total, language=lang, error=f"bad job: {outcome}")
    return RewardResult(id=item.id, reward=None, total=total, language=lang,
                        error=f"internal error: {type(outcome).__name__}")
