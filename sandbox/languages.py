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

from . import toolchain_versions
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
    # Files or folders the language needs beyond its binaries (a test runner's jar, a library).
    requires: tuple[str, ...] = ()
    # What a user installs to get it (named in the error when it is missing).
    package: str = ""
    # The first process only launches the work in a child (kotlinc's script, go test): its
    # own CPU wait says nothing about the child's, so /run_code judges it on CPU time and the wall cap.
    launcher: bool = False
    # The program's stack (RLIMIT_STACK), MiB; 0: the jail's default (the memory limit, at most 1 GiB).
    stack_mb: int = 0


@dataclass(frozen=True)
class Toolchain:
    language: Language
    binary: str  # absolute path as a program sees it (inside the jail)
    version: str
    # (host folder, neutral path in the jail) for a toolchain outside the system folders: the
    # jail shows /opt/codetest/<language>, never the host's path (a rustup home, a pyenv dir).
    binds: tuple[tuple[str, str], ...]
    extra: dict = field(default_factory=dict, hash=False, compare=False)
    host_binary: str = ""  # the real path on this host ("" = binary)

    @property
    def on_host(self) -> str:
        return self.host_binary or self.binary

    def fmt(self, template: tuple[str, ...], src: str, mem_mb: int) -> list[str]:
        stem = os.path.splitext(src)[0]
        vals = {"bin": self.binary, "src": src, "mem_mb": str(mem_mb), "main_class": stem, "scala_main": stem,
                **self.extra}
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


_SCALA_OBJECT = re.compile(r"\bobject\s+([A-Za-z_][A-Za-z0-9_]*)")
_SCALA_MAIN = re.compile(r"def\s+main\s*\(|extends\s+App\b")


def scala_main(code: str) -> str:
    """The object whose body holds ``main`` (or that extends App): the last object declared before it."""
    main = _SCALA_MAIN.search(code)
    objs = [o for o in _SCALA_OBJECT.finditer(code) if main is None or o.start() < main.start()]
    return objs[-1].group(1) if objs else "Main"


def _scala_source(code: str) -> str:
    return f"{scala_main(code)}.scala"


# Libraries LLM-written code imports, installed system-wide by scripts/setup.sh and the runtime image.
JAVA_LIBS = "/usr/share/java/javatuples.jar"
JUNIT_JAR = "/usr/share/java/junit-platform-console-standalone.jar"
NODE_MODULES = "/usr/lib/node_modules"
GOPATH_LIBS = "/usr/share/gocode"
# go test compiles testify and its dependencies every time in a fresh jail (8 s); setup.sh leaves a
# build cache of them here, which each run copies into its own /tmp (7 MB, milliseconds).
GO_CACHE_SEED = "/usr/local/lib/codetest/gocache"
_GO_ENV = (("GOCACHE", "/tmp/gocache"), ("GOPATH", "/tmp/go:" + GOPATH_LIBS), ("GO111MODULE", "off"),
           ("CGO_ENABLED", "0"), ("HOME", "/tmp"))
_NODE_ENV = (("NODE_PATH", NODE_MODULES),)
# node as javascript and typescript run it: the heap as the memory limit, a deep stack.
_NODE_RUN = ("{bin}", "--max-old-space-size={mem_mb}", "--stack-size=65500")
# esbuild stripping TypeScript's types to a CommonJS script (typescript, jest); no type check.
_ESBUILD_CJS = ("{esbuild}", "{src}", "--format=cjs", "--platform=node", "--target=node18", "--log-level=error")
# The stack the runtimes that size their own get (node --stack-size, the JVM's -Xss, Ruby's rlimit), MiB.
RUNTIME_STACK_MB = 64
# A program runs with the JVM's full tiered compilation (C2), as SandboxFusion and contest judges
# run it: the problems' time limits assume its speed (C1 only took 1.2-1.5x the CPU on CPU-bound
# programs). A method is compiled with profiling after 2000 calls instead of 200: a tiny program
# then costs what it did under C1 only (about 10 ms of CPU less), and hot code still reaches C2
# (``bench/jvm_cpu.py``). The compilers (javac, kotlinc) stop at C1: they run briefly, C1 starts
# faster; the level is explicit here because a flag on the command line overrides the compile
# step's JAVA_TOOL_OPTIONS, which Kotlin's run step inherits.
_JVM_RUN = ("-Xmx{mem_mb}m", "-Xss64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=4",
            "-XX:Tier3InvocationThreshold=2000", "-Xshare:auto")
_JVM_COMPILE_ENV = (("JAVA_TOOL_OPTIONS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss16m"),)
# C and C++ compile with what Ubuntu's GCC turns on by itself and Debian's does not: SandboxFusion's
# image (Ubuntu 20.04, GCC 9) and contest judges on Ubuntu build every program this way. A write past
# a stack array then ends the program ("*** stack smashing detected ***", SIGABRT: a runtime error)
# where without it the program may print the right answer and be rewarded for undefined behaviour;
# the libc calls whose buffer sizes the compiler knows (memcpy, strcpy, sprintf, read, ...) check them.
_GCC_HARDENING = ("-fstack-protector-strong", "-D_FORTIFY_SOURCE=2")

LANGUAGES: tuple[Language, ...] = (
    Language("python", ("python3", "py", "py3", "python3.11"), (".py",), _fixed("main.py"),
             None, ("{bin}", "/prog/{src}"), "python3", ("--version",)),
    Language("c", ("gcc", "h", "c11", "c17"), (".c",), _fixed("main.c"),
             ("{bin}", "-O2", *_GCC_HARDENING, "-std=gnu17", "-o", "main", "{src}", "-lm"), ("/prog/main",), "gcc"),
    # C++17 (GNU dialect) is SandboxFusion's C++; the names of older standards compile as it too.
    Language("cpp", ("c++", "cc", "cxx", "g++", "cpp11", "cpp14", "cpp17", "c++11", "c++14", "c++17", "gnu++17"),
             (".cpp", ".cc", ".cxx"), _fixed("main.cpp"),
             ("{bin}", "-O2", *_GCC_HARDENING, "-std=gnu++17", "-o", "main", "{src}"), ("/prog/main",), "g++"),
    # C++20 on the same g++ (DOMjudge's default dialect at ICPC contests: std::set::contains,
    # std::ssize, ranges, concepts). Its own language, not cpp's: gnu++20 compiles bits/stdc++.h
    # with about 40 % more CPU (1.4 s against 1.0 s), and a name asking for C++20 must never
    # quietly get C++17. No extension of its own: a .cpp file is cpp unless the caller names cpp20.
    Language("cpp20", ("c++20", "cpp2a", "gnu++20"), (), _fixed("main.cpp"),
             ("{bin}", "-O2", *_GCC_HARDENING, "-std=gnu++20", "-o", "main", "{src}"), ("/prog/main",), "g++"),
    # Assertions on (-ea), as SandboxFusion runs Java: an `assert` that fails is a failure, not a pass.
    Language("java", ("java17",), (".java",), java_source_name,
             ("{javac}", "-J-Xms64m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
              "-encoding", "UTF-8", "-cp", ".:*:" + JAVA_LIBS, "-d", ".", "{src}"),
             ("{bin}", *_JVM_RUN, "-ea", "-cp", "/prog:/prog/*:" + JAVA_LIBS, "{main_class}"),
             "java", ("-version",), ("javac",), min_processes=64, package="default-jdk-headless"),
    Language("javascript", ("js", "node", "nodejs", "jsx"), (".js", ".mjs"), _fixed("main.js"),
             None, (*_NODE_RUN, "/prog/{src}"), "node",
             min_processes=16, env=_NODE_ENV, package="nodejs"),
    Language("rust", ("rs", "rustc"), (".rs",), _fixed("main.rs"),
             ("{bin}", "-O", "--edition", "2021", "-C", "codegen-units=4", "-o", "main", "{src}"),
             ("/prog/main",), "rustc", min_processes=16),
    Language("go", ("golang",), (".go",), _fixed("main.go"),
             ("{bin}", "build", "-o", "main", "{src}"), ("/prog/main",), "go", ("version",),
             env=_GO_ENV, min_processes=64, package="golang-go"),
    Language("bash", ("sh", "shell"), (".sh",), _fixed("main.sh"), None, ("{bin}", "/prog/{src}"), "bash"),
    Language("perl", ("pl",), (".pl",), _fixed("main.pl"), None, ("{bin}", "/prog/{src}"), "perl", ("-v",)),
    # Ruby sizes its machine stack from RLIMIT_STACK and touches it down to that size at start;
    # gVisor maps at most 128 MiB of stack whatever the limit says (its stacks do not grow), so
    # with the default 1 GiB Ruby dies of SIGSEGV before the first line. 64 MiB (as node and the
    # JVM get) on every backend keeps one verdict everywhere; docs/docker.md, "gVisor".
    Language("ruby", ("rb",), (".rb",), _fixed("main.rb"), None, ("{bin}", "/prog/{src}"), "ruby",
             package="ruby", stack_mb=RUNTIME_STACK_MB),
    # SandboxFusion's test-runner languages: the run is the test runner, its exit status the verdict.
    # go test builds and runs in the run step, as SandboxFusion does (run_timeout covers both).
    Language("go_test", ("gotest",), ("_test.go",), _fixed("main_test.go"),
             None, ("/bin/sh", "-c", 'cp -R "$1" /tmp/gocache 2>/dev/null; exec "$0" test -vet=off -count=1 /prog/"$2"',
                    "{bin}", GO_CACHE_SEED, "{src}"), "go", ("version",),
             env=_GO_ENV, min_processes=64, requires=(GOPATH_LIBS + "/src/github.com/stretchr/testify",),
             package="golang-go golang-github-stretchr-testify-dev", launcher=True),
    Language("pytest", (), (), _fixed("test_main.py"),
             None, ("{bin}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "/prog/{src}"), "python3",
             ("-m", "pytest", "--version"), requires=("/usr/lib/python3/dist-packages/pytest",),
             package="python3-pytest"),
    Language("junit", (), (), java_source_name,
             ("{javac}", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8",
              "-cp", ".:*:" + JUNIT_JAR + ":" + JAVA_LIBS, "-d", ".", "{src}"),
             # /prog/. (not /prog): on Docker /prog is a link, and JUnit's scan does not follow a link
             # it starts from; no test found is a failure, never a vacuous pass.
             ("{bin}", *_JVM_RUN, "-ea", "-jar", JUNIT_JAR, "--disable-banner", "--details=tree",
              "--fail-if-no-tests", "--class-path", "/prog/.:" + JAVA_LIBS, "--scan-class-path", "/prog/."),
             "java", ("-version",), ("javac",), min_processes=64, requires=(JUNIT_JAR,), package="junit5"),
    # Jest tests in TypeScript or JavaScript: esbuild strips the types (no type check, as
    # SandboxFusion's babel does), then jest runs the result; '@jest/globals' resolves from jest.
    Language("jest", (), (), _fixed("main.test.ts"),
             (*_ESBUILD_CJS, "--outfile=main.test.js"),
             ("{bin}", NODE_MODULES + "/jest/bin/jest.js", "--ci", "--runInBand", "--config",
              '{{"rootDir": "/prog", "cache": false, "watchman": false, "transform": {{}}, '
              '"modulePaths": ["' + NODE_MODULES + '", "' + NODE_MODULES + '/jest/node_modules"]}}',
              # a pattern, not /prog/...: on Docker jest sees /prog's real path
              "main\\.test\\.js$"), "node",
             (NODE_MODULES + "/jest/bin/jest.js", "--version"), ("esbuild",), min_processes=64, env=_NODE_ENV,
             requires=(NODE_MODULES + "/jest",), package="jest esbuild (npm -g)"),
    # TypeScript as jest's tests are: esbuild strips the types once, in the compile step (no type
    # check, as tsx and SandboxFusion do), and node runs the result as it runs javascript. Run
    # through tsx instead, every test paid tsx's start and its esbuild service again: 0.8 s of CPU
    # per test, 5 s under gVisor, where a 6 s limit judged correct programs TLE.
    Language("typescript", ("ts",), (".ts",), _fixed("main.ts"),
             (*_ESBUILD_CJS, "--outfile=main.js"), (*_NODE_RUN, "/prog/main.js"), "node",
             extra_binaries=("esbuild",), min_processes=16, env=_NODE_ENV, package="esbuild (npm -g)"),
    Language("php", (), (".php",), _fixed("main.php"), None, ("{bin}", "-f", "/prog/{src}"), "php",
             package="php-cli"),
    Language("lua", (), (".lua",), _fixed("main.lua"), None, ("{bin}", "/prog/{src}"), "lua5.4", ("-v",),
             package="lua5.4"),
    Language("r", ("R", "rscript"), (".r", ".R"), _fixed("main.R"), None, ("{bin}", "/prog/{src}"), "Rscript",
             min_processes=16, env=(("HOME", "/tmp"),), package="r-base-core"),
    Language("racket", ("rkt",), (".rkt",), _fixed("main.rkt"), None, ("{bin}", "/prog/{src}"), "racket",
             env=(("HOME", "/tmp"), ("PLTUSERHOME", "/tmp")), min_processes=16, package="racket"),
    Language("scala", (), (".scala",), _scala_source,
             ("{bin}", "-J-Xss16m", "-d", ".", "{src}"),
             ("{java}", *_JVM_RUN, "-ea", "-cp", "/prog:/usr/share/scala/lib/scala-library.jar", "{scala_main}"),
             "scalac", ("-version",), ("java",), min_processes=64, compile_memory_mb=2048, package="scala"),
    # SandboxFusion's kotlin_script: top-level statements, run by `kotlinc -script` (it compiles
    # as it runs, so the run step carries the compile: several seconds of CPU).
    Language("kotlin_script", ("kts",), (".kts",), _fixed("main.kts"),
             None, ("{bin}", "-nowarn", "-script", "/prog/{src}"), "kotlinc", ("-version",), ("java",),
             min_processes=64, env=_JVM_COMPILE_ENV + (("HOME", "/tmp"),), package="kotlin", launcher=True),
    Language("kotlin", ("kt",), (".kt",), _fixed("main.kt"),
             ("{bin}", "-nowarn", "-include-runtime", "-d", "main.jar", "{src}"),
             ("{java}", *_JVM_RUN, "-ea", "-jar", "/prog/main.jar"),
             "kotlinc", ("-version",), ("java",), min_processes=64, compile_memory_mb=2048,
             env=_JVM_COMPILE_ENV + (("HOME", "/tmp"),), package="kotlin"),
    Language("csharp", ("cs", "c#"), (".cs",), _fixed("main.cs"),
             # DEBUG defined, as `dotnet run` builds; Debug output (a failed Debug.Assert) goes to stderr.
             ("{bin}", "-nologo", "-d:DEBUG", "-r:System.Numerics", "-out:main.exe", "{src}"),
             ("{mono}", "/prog/main.exe"), "mcs", ("--version",), ("mono",), min_processes=32,
             env=(("HOME", "/tmp"), ("MONO_TRACE_LISTENER", "Console.Error")), package="mono-mcs mono-runtime"),
    Language("d", ("d_ut", "dlang"), (".d",), _fixed("main.d"),
             ("{bin}", "-O", "-unittest", "-of=main", "{src}"), ("/prog/main",), "ldc2", ("--version",),
             package="ldc"),
    Language("verilog", ("iverilog", "v"), (".v", ".sv"), _fixed("main.v"),
             ("{bin}", "-g2012", "-o", "main.vvp", "{src}"), ("{vvp}", "-n", "/prog/main.vvp"), "iverilog", ("-V",),
             ("vvp",), package="iverilog"),
    Language("sql", ("sqlite", "sqlite3"), (".sql",), _fixed("main.sql"), None,
             ("{bin}", "-bail", ":memory:", ".read /prog/{src}"), "sqlite3", ("-version",), package="sqlite3"),
)

# SandboxFusion languages no registry reachable here provides: a clear error names what is missing.
UNPROVIDED: dict[str, str] = {
    "cuda": "a CUDA toolchain (nvcc) and a GPU", "python_gpu": "a GPU and its Python stack",
    "lean": "Lean 4 (elan): not packaged by Debian or npm", "swift": "Swift: not packaged by Debian or npm",
    "julia": "Julia: not packaged by Debian bookworm",
}

_BY_NAME = {alias: lang for lang in LANGUAGES for alias in (lang.name, *lang.aliases)}
_BY_EXT = {ext: lang for lang in LANGUAGES for ext in lang.extensions}


def canonical_name(name: str) -> str:
    """Our name for a language as callers write it (a fence tag, a SandboxFusion or testgen name):
    ``c++17`` -> ``cpp``, ``c++20`` -> ``cpp20``, ``nodejs`` -> ``javascript``. A name nobody knows comes back as given
    (stripped), so that :func:`get_language` can say what is known. The one alias table is
    ``LANGUAGES`` above; the API and every other caller resolve names through this function."""
    lang = _BY_NAME.get(name.strip().lower())
    return lang.name if lang is not None else name.strip()


def get_language(name: str) -> Language:
    key = name.strip().lower()
    try:
        return _BY_NAME[key]
    except KeyError:
        known = ", ".join(sorted(lang.name for lang in LANGUAGES))
        if key in UNPROVIDED:
            raise UnknownLanguage(f"language {key!r} is not available: it needs {UNPROVIDED[key]}; "
                                  f"available here: {known}") from None
        raise UnknownLanguage(f"unknown language {name!r}; known: {known}") from None


def language_for_file(path: str) -> Language:
    ext = os.path.splitext(path)[1].lower()
    if ext not in _BY_EXT:
        raise UnknownLanguage(f"cannot tell the language of {path!r} from its extension; pass --language")
    return _BY_EXT[ext]


NEUTRAL_TOOLCHAINS = "/opt/codetest"


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
    if lang.name == "python" or lang.binary == "python3":
        found = _python_binary()  # pytest runs on the very interpreter (and libraries) python does
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
    if lang.binary == "python3":
        binary = found  # keep the versioned name the interpreter reports
    extra: dict[str, str] = {}
    for tool in lang.extra_binaries:
        path = shutil.which(tool)
        if not path:
            return None
        extra[tool] = os.path.realpath(path)
    if any(not os.path.exists(p) for p in lang.requires):
        return None
    version = toolchain_versions.version_of([binary, *lang.version_args], depends_on=lang.requires)
    if not version:
        return None
    binds: dict[str, str] = {}
    for b in (binary, *extra.values()):
        if _outside_system(b):
            # bin/<tool> -> the toolchain's prefix (pyenv version dir, rust sysroot, /opt/...),
            # shown in the jail at a neutral path.
            prefix = os.path.dirname(os.path.dirname(b))
            binds.setdefault(prefix, f"{NEUTRAL_TOOLCHAINS}/{lang.name}" + (f"-{len(binds)}" if binds else ""))

    def in_jail(path: str) -> str:
        for host, jail in binds.items():
            if path.startswith(host + "/"):
                return jail + path[len(host):]
        return path

    return Toolchain(lang, in_jail(binary), version, tuple(sorted(binds.items())),
                     {k: in_jail(v) for k, v in extra.items()}, host_binary=binary)


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
        raise ToolchainMissing(f"language {lang.name!r} is known but its toolchain ({lang.package or lang.binary}) "
                               f"is not installed on this host")
    return tc
