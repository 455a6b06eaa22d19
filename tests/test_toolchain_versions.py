"""A toolchain's version is asked once per binary and remembered across processes; an upgraded
binary is asked again; a JVM's warning line is not taken for the version."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tool(path: str, log: str, version: str) -> None:
    """A real executable that says its version (after a JVM-style warning) and logs each call."""
    with open(path, "w") as f:
        f.write(textwrap.dedent(f"""\
            #!/bin/sh
            echo asked >> {log}
            echo "OpenJDK 64-Bit Server VM warning: Options -Xverify:none are deprecated" >&2
            echo "{version}" >&2
            """))
    os.chmod(path, 0o755)


def _run(state: str, code: str, env: dict | None = None) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO,
                         env={**os.environ, "CODETEST_STATE_DIR": state, "PYTHONPATH": REPO, **(env or {})})
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _version_in_fresh_process(state: str, tool: str) -> str:
    """What a new process (as a new ``codetest run`` would) gets for the tool's version."""
    return _run(state, f"from sandbox.toolchain_versions import version_of; print(version_of([{tool!r}, '-version']))")


def _kotlin_versions_in_fresh_process(state: str, tool: str) -> str:
    """kotlin's and kotlin_script's versions as a new Sandbox detects them (both run kotlinc)."""
    code = ("from sandbox.languages import detect_toolchains as d; t = d(); "
            "print(t['kotlin'].version + ' | ' + t['kotlin_script'].version if 'kotlin' in t else 'no kotlin')")
    return _run(state, code, {"CODETEST_KOTLIN": tool, "CODETEST_KOTLIN_SCRIPT": tool})


def _calls(log: str) -> int:
    with open(log) as f:
        return len(f.read().split())


def test_a_version_is_asked_once_across_processes_and_again_after_an_upgrade(tmp_path):
    if not shutil.which("java"):
        pytest.skip("kotlin needs java beside kotlinc (scripts/setup.sh installs default-jdk-headless)")
    state, tool, log = str(tmp_path / "state"), str(tmp_path / "kotlinc"), str(tmp_path / "calls")
    _tool(tool, log, "info: kotlinc-jvm 1.3.31")

    # The version line, not the JVM's warning before it; kotlinc asked once for both languages.
    assert _kotlin_versions_in_fresh_process(state, tool) == "info: kotlinc-jvm 1.3.31 | info: kotlinc-jvm 1.3.31"
    assert _calls(log) == 1
    # A second process (the next `codetest run`, the next service start) does not ask again.
    assert _kotlin_versions_in_fresh_process(state, tool) == "info: kotlinc-jvm 1.3.31 | info: kotlinc-jvm 1.3.31"
    assert _calls(log) == 1

    _tool(tool, log, "info: kotlinc-jvm 2.0.0-upgraded-build")  # a new binary: new size and mtime
    assert _version_in_fresh_process(state, tool) == "info: kotlinc-jvm 2.0.0-upgraded-build"
    assert _calls(log) == 2


def test_an_unwritable_cache_only_costs_time(tmp_path):
    state = tmp_path / "state"
    state.write_text("not a folder")  # the cache cannot be made there
    tool, log = str(tmp_path / "tool"), str(tmp_path / "calls")
    _tool(tool, log, "tool 1.0")
    assert _version_in_fresh_process(str(state), tool) == "tool 1.0"
    assert _version_in_fresh_process(str(state), tool) == "tool 1.0"


def test_a_tool_run_by_an_interpreter_is_asked_again_when_the_tool_changes(tmp_path):
    """``node .../jest.js --version``: the binary (node) stays, the tool upgraded is a file argument."""
    state, log = str(tmp_path / "state"), str(tmp_path / "calls")
    script = tmp_path / "tool.sh"
    script.write_text(f"echo asked >> {log}\necho 'tool 1.0'\n")
    code = f"from sandbox.toolchain_versions import version_of; print(version_of(['/bin/sh', {str(script)!r}]))"
    assert _run(state, code) == "tool 1.0"
    assert _run(state, code) == "tool 1.0"
    assert _calls(log) == 1
    script.write_text(f"echo asked >> {log}\necho 'tool 2.0 (upgraded)'\n")
    assert _run(state, code) == "tool 2.0 (upgraded)"
    assert _calls(log) == 2
