"""Language names as callers write them (fence tags, SandboxFusion names) mapped to the sandbox's.

A name is resolved against the languages the sandbox reports; a name nobody knows is
passed through unchanged so the sandbox's own UnknownLanguage message reaches the caller.
"""

from __future__ import annotations

from typing import Iterable

# lower-cased alias -> our names, most likely first
ALIASES: dict[str, tuple[str, ...]] = {
    "py": ("python",), "python3": ("python",), "py3": ("python",), "python": ("python",),
    "c++": ("cpp",), "cc": ("cpp",), "cxx": ("cpp",), "cpp": ("cpp",), "cpp11": ("cpp",), "cpp14": ("cpp",),
    "cpp17": ("cpp",), "cpp20": ("cpp",), "c++11": ("cpp",), "c++14": ("cpp",), "c++17": ("cpp",), "c++20": ("cpp",),
    "c": ("c",), "h": ("c",),
    "java": ("java",),
    "nodejs": ("javascript", "nodejs", "node", "js"), "node": ("javascript", "nodejs", "node", "js"),
    "javascript": ("javascript", "nodejs", "node", "js"), "js": ("javascript", "nodejs", "node", "js"),
    "typescript": ("typescript", "ts"), "ts": ("typescript", "ts"),
    "go": ("go",), "golang": ("go",),
    "rust": ("rust",), "rs": ("rust",),
    "bash": ("bash", "sh"), "sh": ("bash", "sh"), "shell": ("bash", "sh"),
    "kotlin": ("kotlin",), "kotlin_script": ("kotlin_script",), "kt": ("kotlin",),
    "csharp": ("csharp",), "c#": ("csharp",), "cs": ("csharp",),
    "r": ("r",), "ruby": ("ruby",), "rb": ("ruby",), "perl": ("perl",), "pl": ("perl",),
    "php": ("php",), "lua": ("lua",), "scala": ("scala",), "julia": ("julia",), "jl": ("julia",),
    "swift": ("swift",), "racket": ("racket",), "rkt": ("racket",),
    "haskell": ("haskell",), "hs": ("haskell",), "d": ("d",),
    "ocaml": ("ocaml",), "ml": ("ocaml",),
    # SandboxFusion's test-runner and other languages (verl's SUPPORTED_LANGUAGES)
    "go_test": ("go_test",), "pytest": ("pytest",), "junit": ("junit",), "jest": ("jest",),
    "d_ut": ("d",), "verilog": ("verilog",), "iverilog": ("verilog",), "sql": ("sql",), "sqlite": ("sql",),
}


def resolve(name: str, available: Iterable[str] = ()) -> str:
    """The sandbox's name for ``name``: itself if known, else the first alias it knows, else unchanged."""
    avail = set(available)
    raw = name.strip()
    if raw in avail:
        return raw
    key = raw.lower()
    if key in avail:
        return key
    candidates = ALIASES.get(key, ())
    for cand in candidates:
        if cand in avail:
            return cand
    if not avail and candidates:
        return candidates[0]
    return raw
