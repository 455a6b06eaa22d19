"""checktestdata (``.ctd``) input validators, turned into Python programs the sandbox runs.

Debian has no checktestdata package; PyPI has ``checktestdata`` (pyctd, a Python
reimplementation of DOMjudge's checktestdata, MIT; the ``[testgen]`` extra). Its converter
turns a ``.ctd`` grammar into one standalone Python program (standard library only, the
checking library inlined) that reads the input on stdin and exits 42 when it is valid, 43
when not — the Kattis validator convention. The conversion only parses the grammar on the
host; the program runs in the sandbox like every other validator.

When the package is missing or cannot read a grammar, the problem's inputs are recorded as
not validated by checktestdata, with the reason (``testgen.notes``); its other validators
still run.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, TypeVar

T = TypeVar("T")


def read_script(source: str, produce: Callable[[Any], T]) -> tuple[Optional[T], Optional[str]]:
    """(``produce`` applied to the package's parser of the script, None), or (None, why the
    script could not be read). Validation (``ctd_to_python``) and generation
    (``testgen.grammar``) read a script through here alike."""
    try:
        from checktestdata.parser import parse
        from checktestdata.tokenizer import tokenize
    except ImportError:
        return None, "the checktestdata package is not installed (pip install 'codetest[testgen]')"
    old = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(old, 20_000))  # the parser recurses on nesting; grammars are short
        return produce(parse(tokenize(source.encode("utf-8", "surrogateescape")))), None
    except RecursionError:
        return None, "checktestdata: the grammar nests too deeply"
    except Exception as e:  # ParserException and the library's own checks: the grammar's fault
        return None, f"checktestdata could not read the grammar: {type(e).__name__}: {str(e)[:200]}"
    finally:
        sys.setrecursionlimit(old)


def ctd_to_python(source: str) -> tuple[Optional[str], Optional[str]]:
    """(a standalone Python validator, None) or (None, why it could not be made)."""
    return read_script(source, lambda parser: parser.python_code(standalone=True))
