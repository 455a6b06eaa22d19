"""One problem as the pipeline sees it, whatever file shape it came from.

Problem files come in a few shapes (docs/architecture.md, "The outside contract", the HumanEval+ dev set, Kattis /
BAPC packages). ``load_problem`` turns each into a ``Problem``; the original record is
kept untouched so the suite written back is "the same record with ``tests`` added".
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import Any, Iterator, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from sandbox.errors import UnknownLanguage
from sandbox.languages import get_language, language_for_file
from sandbox.models import Checker, CheckerCompare, Compare, Limits

from . import CPP_DIALECTS
from .answers import several_answers
from .constraints import stated_tolerance
from .ctd import ctd_to_python
from .entry import ENTRY_RE
from .timelimit import TimePolicy, policy_for


class ProblemError(ValueError):
    """The record cannot be used; the message says why (the problem is skipped, not fatal)."""


class Program(BaseModel):
    """A solution, a held-out submission, a validator: source code in one language."""

    language: str
    code: str
    name: str = ""
    label: Optional[str] = None  # expected verdict or failure kind, for held-out programs


class InputValidator(BaseModel):
    """A program that reads one test input on stdin and says by its exit code if it is valid."""

    language: str
    code: str
    accept_exit: int = 42  # Kattis / BAPC convention; LLM-written validators use 0
    name: str = ""


class Problem(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str
    io: Literal["stdio", "function"]
    statement: str = ""
    entry_point: Optional[str] = None
    gold: list[Program]
    seeds: list[dict[str, Any]] = Field(default_factory=list)
    limits: Limits = Field(default_factory=Limits)
    compare: Compare = "whitespace"
    float_tol: float = 1e-6
    # False: letters compare regardless of case (Kattis' default output validator, unless the
    # problem gives it ``case_sensitive``)
    case_sensitive: bool = True
    validators: list[InputValidator] = Field(default_factory=list)
    # the checktestdata scripts among them, as text: the input format the grammar family draws from
    grammars: list[str] = Field(default_factory=list)
    heldout_correct: list[Program] = Field(default_factory=list)
    heldout_incorrect: list[Program] = Field(default_factory=list)
    # Set when the pipeline cannot handle this problem (interactive, no runnable gold...).
    unsupported: Optional[str] = None
    # What the problem's own material could not be used for (a .ctd validator not converted, ...)
    notes: list[str] = Field(default_factory=list)
    # Several right answers that only a checker can judge: why, when the problem has none (an LLM
    # may still write one; without it the problem is skipped with this reason)
    needs_checker: Optional[str] = None
    # Cross-checks of a single gold (an LLM-written brute force): run on the small inputs; an
    # input where one finishes and disagrees with the gold is dropped (testgen/validate.py)
    referees: list[Program] = Field(default_factory=list)
    # stdin problems: the limit the problem states (kept), or how to derive one from the golds
    # (testgen/timelimit.py); ``limits.time_s`` holds the default until the pipeline derives it
    time_policy: TimePolicy = Field(default_factory=lambda: TimePolicy(stated_s=2.0))

    @property
    def is_function(self) -> bool:
        return self.io == "function"

    @property
    def seeds_text(self) -> str:
        """The seeds' inputs as one text: the characters the grammar family has seen."""
        return "".join(str(s.get("stdin") or "") for s in self.seeds)

    def runnable(self, code: str) -> tuple[str, str]:
        """(source, function name) to run a function-call program (``Solution.twoSum`` wrapped)."""
        from .entry import runnable

        return runnable(code, self.entry_point or "")

    def values_equal(self, got: Any, want: Any) -> bool:
        """Function values equal under the problem's comparison (``unordered``: in any order)."""
        from sandbox.compare import values_equal, values_equal_unordered

        return (values_equal_unordered if self.compare == "unordered" else values_equal)(got, want, self.float_tol)

    def outputs_agree(self, out: str, expected: str) -> bool:
        """Whether stdout ``out`` is accepted against ``expected`` by the problem's comparison
        (its mode, tolerance and case; a checker's problem compares as ``whitespace`` here)."""
        from sandbox.compare import compare_output

        mode = self.compare if isinstance(self.compare, str) else "whitespace"
        return compare_output(mode, out, expected, self.float_tol, case_sensitive=self.case_sensitive)

    @property
    def has_checker(self) -> bool:
        return isinstance(self.compare, CheckerCompare)

    @property
    def unjudgeable(self) -> Optional[str]:
        """Why no suite of this problem can judge programs (several answers, no checker), or None."""
        return None if self.has_checker else self.needs_checker


_C_FAMILY = ("c", "cpp", "cpp20")  # compiled from one file, local headers inlined

_EXT_LANGUAGE = {".py": "python", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c": "c", ".java": "java",
                 ".js": "javascript"}
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[ \t]*$', re.M)


def normalize_language(lang: str) -> str:
    """The sandbox's name for a language (its alias table: python3 -> python, c++ -> cpp, ...);
    a name the sandbox does not know stays as it is (the program is then skipped as unsupported)."""
    lang = (lang or "").strip().lower()
    try:
        return get_language(lang).name
    except UnknownLanguage:
        return lang


def in_cpp_dialect(language: str, cpp_dialect: str) -> str:
    """The language a record's program compiles as: ``cpp`` as ``cpp_dialect`` (``CPP_DIALECTS``),
    any other as it is. The one place the dialect is applied (``load_problem``, and
    ``evaluate.load_solutions`` for labelled programs kept apart)."""
    if cpp_dialect not in CPP_DIALECTS:
        raise ValueError(f"unknown C++ dialect {cpp_dialect!r}; one of {', '.join(CPP_DIALECTS)}")
    return cpp_dialect if language == "cpp" else language


def with_cpp_dialect(programs: list[Any], cpp_dialect: str) -> list[Any]:
    """Programs (or validators, checkers) with their ``cpp`` language as ``cpp_dialect``."""
    return [p.model_copy(update={"language": in_cpp_dialect(p.language, cpp_dialect)}) for p in programs]


def inline_includes(source: str, files: dict[str, str], _depth: int = 0) -> str:
    """Replace ``#include "x.h"`` by the text of x.h when it is one of the package's files.

    The sandbox compiles a single source file; problem packages ship validators as a
    .cc plus a local header, so the header is pasted in (once, recursively)."""
    by_name = {PurePosixPath(k).name: v for k, v in files.items()}

    def sub(m: re.Match[str]) -> str:
        name = PurePosixPath(m.group(1)).name
        if name in by_name and _depth < 8:
            return inline_includes(by_name[name], files, _depth + 1)
        return m.group(0)

    return _INCLUDE.sub(sub, source)


def _program_from(entry: dict[str, Any], default_name: str = "") -> Program:
    lang = normalize_language(str(entry.get("language") or ""))
    if str(entry.get("language_detail") or "").lower() == "python2":
        lang = "python2"  # not the same language; the sandbox decides whether it has one
    name = str(entry.get("path") or entry.get("source_path") or entry.get("name") or default_name)
    files: dict[str, str] = dict(entry.get("files") or {})
    code = entry.get("code")
    if not code and files:
        main = entry.get("main_file") or next(iter(files))
        code = files.get(main, "")
    if not isinstance(code, str) or not code.strip():
        raise ProblemError(f"program {name or '?'} has no code")
    if files and lang in _C_FAMILY:
        code = inline_includes(code, files)
    label = entry.get("expected_verdict") or entry.get("expected_failure") or entry.get("label")
    if label is None and isinstance(entry.get("failure"), dict):
        label = entry["failure"].get("kind")
    return Program(language=lang, code=code, name=name, label=label)


def _programs(entries: Any) -> list[Program]:
    out: list[Program] = []
    for i, e in enumerate(entries or []):
        if isinstance(e, dict):
            try:
                out.append(_program_from(e, f"#{i}"))
            except ProblemError:
                continue
    return out


def _source_files(files: Any) -> dict[str, str]:
    """Files as {name: text}, from either {path: text} or [{name, source}] shapes."""
    if isinstance(files, dict):
        return {str(k): str(v) for k, v in files.items()}
    out: dict[str, str] = {}
    for f in files or []:
        if isinstance(f, dict) and "name" in f:
            out[str(f["name"])] = str(f.get("source") or f.get("code") or "")
    return out


def _main_source(files: dict[str, str]) -> Optional[tuple[str, str]]:
    """The (language, source) of the file that holds ``main``, headers inlined."""
    for name, text in files.items():
        lang = _EXT_LANGUAGE.get(PurePosixPath(name).suffix.lower())
        if lang in ("c", "cpp") and re.search(r"\bint\s+main\s*\(", text):
            return lang, inline_includes(text, files)
    for name, text in files.items():
        if _EXT_LANGUAGE.get(PurePosixPath(name).suffix.lower()) == "python":
            return "python", text
    return None


def _compare_of(rec: dict[str, Any]) -> tuple[Compare, float, Optional[str]]:
    """The output comparison: whitespace diff, float tolerance, or a checker program."""
    tol = 1e-6
    chk = rec.get("checker")
    if isinstance(chk, dict):
        if "code" in chk and "language" in chk:  # contract-style checker
            protocol = chk.get("protocol") or "testlib"
            if protocol not in ("testlib", "kattis"):
                return "whitespace", tol, f"checker protocol {protocol!r} is neither testlib nor kattis"
            c = Checker(language=normalize_language(chk["language"]), code=chk["code"], protocol=protocol)
            return CheckerCompare(checker=c), tol, None
        kind = chk.get("kind")
        if kind == "custom_output_validator":
            main = _main_source(_source_files(chk.get("files")))
            if main is None:
                return "whitespace", tol, "custom output validator in an unsupported language"
            return CheckerCompare(checker=Checker(language=main[0], code=main[1], protocol="kattis")), tol, None
        args = [str(a).lower() for a in chk.get("validator_args") or []]
        if "float_tolerance" in args:
            i = args.index("float_tolerance")
            try:
                tol = float(args[i + 1])
            except (IndexError, ValueError):
                pass
            return "float", tol, None
    ov = rec.get("output_validation")
    if isinstance(ov, dict):
        kind = ov.get("type")
        if kind == "interactive":
            return "whitespace", tol, "interactive problems are not supported"
        if kind == "custom":
            main = _main_source(_source_files(ov.get("files")))
            if main is None:
                return "whitespace", tol, "custom output validator in an unsupported language"
            return CheckerCompare(checker=Checker(language=main[0], code=main[1], protocol="kattis")), tol, None
    if rec.get("interactive"):
        return "whitespace", tol, "interactive problems are not supported"
    compare = rec.get("compare")
    if compare in ("exact", "whitespace", "float", "unordered"):
        return compare, float(rec.get("float_tol", tol)), None
    stated = stated_tolerance(str(rec.get("statement") or ""))
    if stated is not None:  # "absolute or relative error of at most 10^-6": compare as floats
        return "float", stated, None
    return "whitespace", tol, None


def _case_sensitive(rec: dict[str, Any]) -> bool:
    """Kattis' default output validator ignores case unless the problem passes it
    ``case_sensitive``; a record says which in ``case_sensitive`` (the engine's field, as a
    synthesized suite records it) or ``default_validator`` (else: case matters)."""
    if isinstance(rec.get("case_sensitive"), bool):
        return rec["case_sensitive"]
    dv = rec.get("default_validator")
    if isinstance(dv, dict) and isinstance(dv.get("case_sensitive"), bool):
        return dv["case_sensitive"]
    return True


def _validator_fields(rec: dict[str, Any]) -> list[str]:
    """Every field of a record that holds input-validator files: ``input_validators`` and its siblings
    (``input_validators_other`` is where Kattis exports keep checktestdata files, ...), in name order."""
    return sorted(k for k in rec if isinstance(k, str) and k.startswith("input_validators"))


def _validator_files(rec: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """({path: text}, {path: the language the record names}) over every validator field."""
    files: dict[str, str] = {}
    named: dict[str, str] = {}
    for key in _validator_fields(rec):
        raw = rec.get(key)
        files.update(_source_files(raw))
        for f in raw if isinstance(raw, list) else []:
            if isinstance(f, dict) and "name" in f and isinstance(f.get("language"), str):
                named[str(f["name"])] = f["language"].strip().lower()
    return files, named


def _validator_language(path: str, named: Optional[str]) -> Optional[str]:
    """The sandbox language of a validator source file, "checktestdata", or None (a header, data)."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == ".ctd" or named in ("checktestdata", "ctd"):
        return "checktestdata"
    if suffix in (".h", ".hpp", ".hh", ".hxx") or (named or "").endswith("header"):
        return None
    lang = _EXT_LANGUAGE.get(suffix)
    if lang is None:
        try:
            lang = language_for_file(path).name
        except UnknownLanguage:
            lang = normalize_language(named) if named else None
    return lang


def _grammars_of(rec: dict[str, Any]) -> list[str]:
    """The record's checktestdata validators' scripts (``testgen.grammar`` generates from them)."""
    files, named = _validator_files(rec)
    return [text for path, text in sorted(files.items())
            if _validator_language(path, named.get(path)) == "checktestdata"]


def _validators_of(rec: dict[str, Any], notes: Optional[list[str]] = None) -> list[InputValidator]:
    """Every input validator the record ships, in any language the sandbox runs.

    All of them must accept an input (the Kattis rule: a package's validators each check a part,
    e.g. a checktestdata grammar for the format and ranges, a C++ program for a property). One
    that cannot be used is noted, never silently skipped."""
    files, named = _validator_files(rec)
    out: list[InputValidator] = []
    notes = [] if notes is None else notes
    groups: dict[str, dict[str, str]] = {}
    for path, text in files.items():
        groups.setdefault(str(PurePosixPath(path).parent), {})[path] = text
    for folder, group in sorted(groups.items()):
        for path, text in sorted(group.items()):
            lang = _validator_language(path, named.get(path))
            if lang is None:
                continue
            if lang == "checktestdata":
                code, why = ctd_to_python(text)
                if code is None:
                    notes.append(f"inputs not validated by checktestdata {path}: {why}")
                else:
                    out.append(InputValidator(language="python", code=code, accept_exit=42, name=path))
            elif lang in _C_FAMILY:
                if re.search(r"\bint\s+main\s*\(|\bvoid\s+run\s*\(", text):
                    # (validator.h style: main() lives in the header that gets inlined)
                    out.append(InputValidator(language=lang, code=inline_includes(text, group), name=path))
            else:
                out.append(InputValidator(language=lang, code=text, name=path))
    for v in rec.get("validators") or []:  # contract extension / our own suites
        if isinstance(v, dict) and v.get("code"):
            out.append(InputValidator(language=normalize_language(v.get("language", "python")), code=v["code"],
                                      accept_exit=int(v.get("accept_exit", 0)), name=str(v.get("name", ""))))
    return out


_STATED_TIME = re.compile(r"\btime\s+limit\s*(?:is|of|:)?\s*(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?)\b",
                          re.I)


def stated_time_limit(rec: dict[str, Any], statement: str) -> Optional[float]:
    """The CPU time limit the problem states, in seconds: ``limits.time_s``, else a statement's
    "Time limit: 2 seconds"; None when it states none (a stdin suite's is then derived)."""
    raw = rec.get("limits")
    if isinstance(raw, dict) and isinstance(raw.get("time_s"), (int, float)) and not isinstance(raw["time_s"], bool):
        return float(raw["time_s"])
    m = _STATED_TIME.search(statement.replace("\\", " ").replace("~", " "))
    if m:
        v = float(m.group(1)) / (1000.0 if m.group(2).lower().startswith("m") else 1.0)
        if 0 < v <= 60:
            return v
    return None


def _limits_of(rec: dict[str, Any], io: str, stated_s: Optional[float] = None) -> Limits:
    raw = rec.get("limits") or {}
    kw: dict[str, Any] = {}
    if isinstance(raw, dict):
        for k in ("time_s", "memory_mb", "wall_time_s", "output_kb"):
            if raw.get(k) is not None:
                kw[k] = raw[k]
    if stated_s is not None:
        kw.setdefault("time_s", stated_s)
    kw.setdefault("time_s", 3.0 if io == "function" else 2.0)
    kw.setdefault("memory_mb", 1024 if io == "stdio" else 512)
    try:
        return Limits(**kw)
    except Exception as e:  # pydantic ValidationError
        raise ProblemError(f"bad limits: {e}") from None


def _seeds_of(rec: dict[str, Any], io: str) -> list[dict[str, Any]]:
    """Examples the generator may look at. Never the record's secret ``tests``."""
    if io == "function":
        raw = rec.get("seed_tests") or rec.get("base_tests") or []
        return [dict({"args": list(t["args"])}, **({"expected": t["expected"]} if "expected" in t else {}))
                for t in raw if isinstance(t, dict) and isinstance(t.get("args"), list)]
    raw = rec.get("seed_tests")
    if raw is None:
        raw = rec.get("sample_tests") or []
    out = []
    for t in raw:
        if isinstance(t, dict) and isinstance(t.get("stdin"), str):
            d: dict[str, Any] = {"stdin": t["stdin"]}
            if isinstance(t.get("expected_stdout"), str):
                d["expected_stdout"] = t["expected_stdout"]
            out.append(d)
    return out


def load_problem(rec: dict[str, Any], cpp_dialect: str = "cpp") -> Problem:
    """Normalize one problem record; raises ProblemError with a reason when it is unusable.

    ``cpp_dialect`` (``CPP_DIALECTS``): what the record's C++ programs compile as, golds,
    held-out programs, input validators and checker alike."""
    in_cpp_dialect("cpp", cpp_dialect)  # a bad dialect is the caller's error, not the record's
    if not isinstance(rec, dict):
        raise ProblemError("record is not a JSON object")
    pid = rec.get("id") or rec.get("task_id")
    if not isinstance(pid, (str, int)):
        raise ProblemError("record has no id")
    io = rec.get("io") or ("function" if rec.get("entry_point") else "stdio")
    if io not in ("stdio", "function"):
        raise ProblemError(f"unknown io {io!r}")
    entry = rec.get("entry_point")
    if io == "function" and not (isinstance(entry, str) and ENTRY_RE.match(entry)):
        raise ProblemError("function problem without a valid entry_point (a name, or Class.method)")
    compare, tol, unsupported = _compare_of(rec)
    statement = str(rec.get("statement") or rec.get("prompt") or "")
    if io == "function":
        atol = rec.get("atol")
        stated = stated_tolerance(statement)
        tol = float(atol) if isinstance(atol, (int, float)) and atol > 0 else (stated or 1e-6)
        if not isinstance(compare, CheckerCompare):  # a checker judges the returned value as JSON
            compare = "unordered" if rec.get("compare") == "unordered" else "whitespace"
    answers = several_answers(statement)
    needs_checker: Optional[str] = None
    if answers is not None and not isinstance(compare, CheckerCompare) and unsupported is None:
        kind, words = answers
        if kind == "order":
            compare = "unordered"
        elif rec.get("compare") != "unordered":
            needs_checker = (f"several right answers (the statement says {words!r}) and no checker to judge them: "
                             f"comparing with one gold's answer would fail correct programs")
    notes: list[str] = []
    stated_s = stated_time_limit(rec, statement)
    limits = _limits_of(rec, io, stated_s)
    # function problems keep their per-call default; a stdin problem's unstated limit is derived
    policy = policy_for(rec, stated_s if io == "stdio" else limits.time_s)
    gold = _programs(rec.get("gold_solutions"))
    if not gold and unsupported is None:
        unsupported = "no gold solution"
    if isinstance(compare, CheckerCompare):
        compare = CheckerCompare(checker=with_cpp_dialect([compare.checker], cpp_dialect)[0])
    return Problem(
        id=str(pid), io=io, statement=statement,
        entry_point=entry if io == "function" else None, gold=with_cpp_dialect(gold, cpp_dialect),
        seeds=_seeds_of(rec, io),
        limits=limits, time_policy=policy, compare=compare, float_tol=tol, case_sensitive=_case_sensitive(rec),
        validators=with_cpp_dialect(_validators_of(rec, notes), cpp_dialect), grammars=_grammars_of(rec),
        heldout_correct=with_cpp_dialect(_programs(rec.get("heldout_correct")), cpp_dialect),
        heldout_incorrect=with_cpp_dialect(_programs(rec.get("heldout_incorrect")), cpp_dialect),
        unsupported=unsupported, notes=notes, needs_checker=needs_checker,
    )


def iter_records(path: str) -> Iterator[tuple[int, Optional[dict[str, Any]], Optional[str]]]:
    """(line number, record or None, error) for each non-empty line of a JSONL file."""
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                yield no, None, f"line {no}: not JSON ({e.msg})"
                continue
            if not isinstance(rec, dict):
                yield no, None, f"line {no}: not a JSON object"
                continue
            yield no, rec, None
