"""``codetest``: run a program against tests, serve the API, synthesize and evaluate test suites.

Subcommands other than ``run`` live with the package that owns them (``api``, ``testgen``,
``trainer``), each exposing ``register(subparsers)``; a package that is not installed simply
has no subcommand. Exit status: 0 when the verdict is AC, 1 otherwise, 2 for bad usage or input.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Any, Optional

EXIT_OK, EXIT_NOT_AC, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad usage or input: printed as one line, exit status 2."""


def _read_source(path: str) -> str:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8 text (byte {e.start})") from None
    if not text.strip():
        raise UsageError(f"{path}: the source file is empty")
    return text


def read_tests(path: str) -> list[Any]:
    """Tests from JSONL, one a line; a malformed line is named in the error."""
    from pydantic import ValidationError

    from sandbox.models import TestCase

    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such test file") from None
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    tests = []
    with f:
        try:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise UsageError(f"{path}:{n}: not valid JSON ({e.msg})") from None
                if not isinstance(obj, dict):
                    raise UsageError(f"{path}:{n}: a test must be a JSON object")
                try:
                    tests.append(TestCase.model_validate(obj))
                except ValidationError as e:
                    raise UsageError(f"{path}:{n}: {e.errors()[0]['msg']}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{path}: not UTF-8 text") from None
    return tests


def _cmd_run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from sandbox import BadRequest, Limits, RunRequest, Sandbox, SandboxConfig, SandboxUnavailable
    from sandbox.languages import get_language, language_for_file

    code = _read_source(args.file)
    lang = get_language(args.language) if args.language else language_for_file(args.file)
    tests = read_tests(args.tests) if args.tests else []
    compare: Any = args.compare
    if args.checker:
        checker_lang = language_for_file(args.checker)
        compare = {"checker": {"language": checker_lang.name, "code": _read_source(args.checker),
                               "protocol": args.checker_protocol}}
    limits: dict[str, Any] = {}
    if args.time_limit is not None:
        limits["time_s"] = args.time_limit
    if args.memory_limit is not None:
        limits["memory_mb"] = args.memory_limit
    try:
        req = RunRequest(language=lang.name, code=code, tests=tests, limits=Limits(**limits), compare=compare,
                         float_tol=args.float_tol, stop_on_first_failure=args.stop_on_first_failure,
                         entry_point=args.entry_point)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise UsageError(f"invalid job: {where}: {err['msg']}") from None
    config = SandboxConfig(backend=args.backend)
    if args.allow_missing:
        config.allow_missing = tuple(args.allow_missing.split(","))
    try:
        with Sandbox(config) as sb:
            result = sb.run(req)
    except SandboxUnavailable as e:
        print(f"codetest: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BadRequest as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        _print_human(result)
    return EXIT_OK if result.verdict.value == "AC" else EXIT_NOT_AC


def _print_human(result: Any) -> None:
    if result.compile is not None and not result.compile.ok:
        print(result.compile.stderr.rstrip(), file=sys.stderr)
    for i, t in enumerate(result.tests, 1):
        extra = f" exit={t.exit_code}" if t.exit_code not in (0, None) else ""
        extra += f" signal={t.signal}" if t.signal else ""
        extra += f" ({t.message})" if t.message else ""
        print(f"test {i:>3}: {t.verdict.value:<7} {t.time_s:6.3f}s {t.memory_kb // 1024:5d} MiB{extra}")
    print(f"{result.verdict.value}  {result.passed}/{result.total} passed")


def _cmd_languages(args: argparse.Namespace) -> int:
    from sandbox.languages import LANGUAGES, detect_toolchains

    found = detect_toolchains()
    for lang in LANGUAGES:
        tc = found.get(lang.name)
        print(f"{lang.name:<11} {'ok' if tc else 'missing':<8} {tc.version if tc else lang.binary + ' not found'}")
    return EXIT_OK


def _cmd_health(args: argparse.Namespace) -> int:
    from sandbox import Sandbox, SandboxConfig

    with Sandbox(SandboxConfig(backend=args.backend)) as sb:
        h = sb.health()
    print(json.dumps(h, indent=2))
    return EXIT_OK if h["ok"] else EXIT_NOT_AC


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 already; keep one clear line
        self.print_usage(sys.stderr)
        print(f"codetest: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="codetest", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    r = sub.add_parser("run", help="compile a program once and judge it on tests in the sandbox")
    r.add_argument("file", help="the program's source file")
    r.add_argument("--language", "-l", help="language (default: from the file extension)")
    r.add_argument("--tests", "-t", help="JSONL test file: {stdin, expected_stdout} or {args, expected} per line")
    r.add_argument("--time-limit", type=float, help="CPU seconds per test (default 2)")
    r.add_argument("--memory-limit", type=int, help="MiB per test (default 256)")
    r.add_argument("--compare", choices=("exact", "whitespace", "float", "unordered"), default="whitespace")
    r.add_argument("--float-tol", type=float, default=1e-6)
    r.add_argument("--checker", help="checker source file (runs in the sandbox); overrides --compare")
    r.add_argument("--checker-protocol", choices=("testlib", "kattis"), default="testlib")
    r.add_argument("--entry-point", help="function-call tests: the function the tests call, or Class.method "
                                         "(LeetCode style: Solution.twoSum)")
    r.add_argument("--stop-on-first-failure", action="store_true")
    r.add_argument("--backend", choices=("native", "docker"), default=os.environ.get("CODETEST_BACKEND", "native"))
    r.add_argument("--allow-missing", metavar="LAYERS",
                   help="comma-separated isolation layers the operator accepts as missing (lowers the bar)")
    r.add_argument("--json", action="store_true", help="print the /v1/run response shape")
    r.set_defaults(func=_cmd_run)

    lg = sub.add_parser("languages", help="list languages and whether their toolchains are installed")
    lg.set_defaults(func=_cmd_languages)

    h = sub.add_parser("health", help="print the isolation layers and languages the sandbox has here")
    h.add_argument("--backend", choices=("native", "docker"), default=os.environ.get("CODETEST_BACKEND", "native"))
    h.set_defaults(func=_cmd_health)

    for mod in ("api.cli", "testgen.cli", "trainer.cli"):
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        register = getattr(m, "register", None)
        if register is not None:
            register(sub)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UsageError as e:
        print(f"codetest: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        from sandbox.errors import BadRequest

        if isinstance(e, BadRequest):
            print(f"codetest: {e}", file=sys.stderr)
            return EXIT_USAGE
        raise


if __name__ == "__main__":
    sys.exit(main())
