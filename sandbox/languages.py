"""Languages: how to compile and run each one, and which toolchains this host has.

A language is data: its source file name, a compile command (or none) and a run command,
run in the jail with the source in ``/work`` (compile) or ``/prog`` (run). Detection finds
the real binaries (not shims), their versions, and the host folders a jail must bind so
that a toolchain living outside /usr (pyenv, rustup) works inside.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Optional

from .config import toolchain_override
from .errors import ToolchainMissing, UnknownLanguage

SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/")


@dataclass(frozen=True)
class Language:
    name: str
    aliases: tuple[str, ...]
    extensions: tuple[str, ...]
    source_name: Callable[[str], str]
    # Templates: {bin} is the detected toolchain binary, {src} the source file name,
    # {mem_mb} the memory limit (for runtimes that need a heap size).
    compile: Optional[tuple[str, ...]]
    run: tuple[str, ...]
    binary: str  # what detection looks for
    version_args: tuple[str, ...] = ("--version",)
    extra_binaries: tuple[str, ...] = ()  # other tools the commands need (javac -> java)
    min_processes: int = 1  # runtimes with many threads (JVM, node) need more
    env: tuple[tuple[str, str], ...] = ()
    compile_memory_mb: int = 1024


@dataclass(frozen=True)
class Toolchain:
    language: Language
    binary: str  # absolute, real path
    version: str
    binds: tuple[str, ...]  # host folders outside the system ones the jail must show
    extra: dict = field(default_factory=dict, hash=False, compare=False)

    def fmt(self, template: tuple[str, ...], src: str, mem_mb: int) -> list[str]:
        stem = os.path.splitext(src)[0]
        vals = {"bin": self.binary, "src": src, "mem_mb": str(mem_mb), "main_class": stem, **self.extra}
        return [part.format(**vals) for part in template]


def _fixed(name: str) -> Callable[[str], str]:
    return lambda _code: name


_JAVA_PUBLIC = re.compile(r"public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][A-Za-z0-9_$]*)")


_JAVA_CLASS = re.compile(r"\bclass\s+([A-Za-z_$][A-Za-z0-9_$]*)")
_JAVA_MAIN = re.compile(r"static\s+(?:final\s+)?void\s+main\s*\(")


def java_source_name(code: str) -> str:
    """The file a Java source must be saved as: its public class, else the class whose body
    holds ``main`` (the last class declared before it), else Main."""
    m = _JAVA_PUBLIC.search(code)
    if m:
        return f"{m.group(1)}.java"
    main = _JAVA_MAIN.search(code)
    classes = [c for c in _JAVA_CLASS.finditer(code) if main is None or c.start() < main.start()]
    return f"{classes[-1].group(1) if classes else 'Main'}.java"


LANGUAGES: tuple[Language, ...] = (
    Language("python", ("python3", "py", "py3", "python3.11"), (".py",), _fixed("main.py"),
             None, ("{bin}", "/prog/{src}"), "python3", ("--version",)),
    Language("c", ("gcc", "h", "c11", "c17"), (".c",), _fixed("main.c"),
             ("{bin}", "-O2", "-std=gnu17", "-o", "main", "{src}", "-lm"), ("/prog/main",), "gcc"),
    Language("cpp", ("c++", "cc", "cxx", "g++", "cpp11", "cpp14", "cpp17", "cpp20", "c++11", "c++14", "c++17", "c++20"), (".cpp", ".cc", ".cxx"), _fixed("main.cpp"),
             ("{bin}", "-O2", "-std=gnu++17", "-o", "main", "{src}"), ("/prog/main",), "g++"),
    Language("java", ("java17",), (".java",), java_source_name,
             ("{javac}", "-J-Xms64m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
              "-encoding", "UTF-8", "-d", ".", "{src}"),
             ("{bin}", "-Xmx{mem_mb}m", "-Xss64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
              "-Xshare:auto", "-cp", "/prog", "{main_class}"),
             "java", ("-version",), ("javac",), min_processes=64),
    Language("javascript", ("js", "node", "nodejs", "jsx"), (".js", ".mjs"), _fixed("main.js"),
             None, ("{bin}", "--max-old-space-size={mem_mb}", "--stack-size=65500", "/prog/{src}"), "node",
             min_processes=16),
    Language("rust", ("rs", "rustc"), (".rs",), _fixed("main.rs"),
             ("{bin}", "-O", "--edition", "2021", "-C", "codegen-units=4", "-o", "main", "{src}"),
             ("/prog/main",), "rustc", min_processes=16),
    Language("go", ("golang",), (".go",), _fixed("main.go"),
             ("{bin}", "build", "-o", "main", "{src}"), ("/prog/main",), "go", ("version",),
             env=(("GOCACHE", "/tmp/gocache"), ("GOPATH", "/tmp/go"), ("CGO_ENABLED", "0")), min_processes=32),
    Language("bash", ("sh", "shell"), (".sh",), _fixed("main.sh"), None, ("{bin}", "/prog/{src}"), "bash"),
    Language("perl", ("pl",), (".pl",), _fixed("main.pl"), None, ("{bin}", "/prog/{src}"), "perl", ("-v",)),
    Language("ruby", ("rb",), (".rb",), _fixed("main.rb"), None, ("{bin}", "/prog/{src}"), "ruby"),
)

_BY_NAME = {alias: lang for lang in LANGUAGES for alias in (lang.name, *lang.aliases)}
_BY_EXT = {ext: lang for lang in LANGUAGES for ext in lang.extensions}


def canonical_name(name: str) -> str:
    """Our name for a language as callers write it (a fence tag, a SandboxFusion or testgen name):
    ``c++17`` -> ``cpp``, ``nodejs`` -> ``javascript``. A name nobody knows comes back as given
    (stripped), so that :func:`get_language` can say what is known. The one alias table is
    ``LANGUAGES`` above; the API and every other caller resolve names through this function."""
    lang = _BY_NAME.get(name.strip().lower())
    return lang.name if lang is not None else name.strip()


def get_language(name: str) -> Language:
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(lang.name for lang in LANGUAGES))
        raise UnknownLanguage(f"unknown language {name!r}; known: {known}") from None


def language_for_file(path: str) -> Language:
    ext = os.path.splitext(path)[1].lower()
    if ext not in _BY_EXT:
        raise UnknownLanguage(f"cannot tell the language of {path!r} from its extension; pass --language")
    return _BY_EXT[ext]


def _version(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20, env={"PATH": os.defpath, "LANG": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = (p.stdout or p.stderr).strip().splitlines()
    return text[0].strip() if text else ""


def _outside_system(path: str) -> bool:
    return not path.startswith(SYSTEM_PREFIXES)


def _python_binary() -> Optional[str]:
    # A shim (pyenv) is a shell script that needs its whole home; ask the interpreter itself.
    for cand in (toolchain_override("python"), "/usr/bin/python3", shutil.which("python3")):
        if not cand or not os.path.exists(cand):
            continue
        try:
            out = subprocess.run([cand, "-c", "import sys; print(sys.executable); print(sys.prefix)"],
                                 capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = out.stdout.split()
        if out.returncode == 0 and len(lines) == 2:
            return lines[0]
    return None


def _detect(lang: Language) -> Optional[Toolchain]:
    env_override = toolchain_override(lang.name)
    if lang.name == "python":
        found = _python_binary()
    elif lang.name == "rust":
        found = None
        rustc = env_override or shutil.which("rustc")
        if rustc:
            try:
                sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                                         timeout=30).stdout.strip()
            except (OSError, subprocess.TimeoutExpired):
                sysroot = ""
            real = os.path.join(sysroot, "bin", "rustc")
            found = real if sysroot and os.path.exists(real) else None
    else:
        found = env_override or shutil.which(lang.binary)
    if not found:
        return None
    binary = os.path.realpath(found)
    if lang.name == "python":
        binary = found  # keep the versioned name the interpreter reports
    extra: dict[str, str] = {}
    for tool in lang.extra_binaries:
        path = shutil.which(tool)
        if not path:
            return None
        extra[tool] = os.path.realpath(path)
    version = _version([binary, *lang.version_args])
    if not version:
        return None
    binds: set[str] = set()
    for b in (binary, *extra.values()):
        if _outside_system(b):
            # bin/<tool> -> the toolchain's prefix (pyenv version dir, rust sysroot, /opt/...).
            binds.add(os.path.dirname(os.path.dirname(b)))
    return Toolchain(lang, binary, version, tuple(sorted(binds)), extra)


@lru_cache(maxsize=1)
def detect_toolchains() -> dict[str, Toolchain]:
    """Every language whose toolchain is installed here, by name. Cached: detection runs commands."""
    found = {}
    for lang in LANGUAGES:
        tc = _detect(lang)
        if tc is not None:
            found[lang.name] = tc
    return found


def toolchain_for(name: str) -> Toolchain:
    lang = get_language(name)
    tc = detect_toolchains().get(lang.name)
    if tc is None:
        raise ToolchainMissing(f"language {lang.name!r} is known but its toolchain ({lang.binary}) is not "
                               f"installed on this host")
    return tc
