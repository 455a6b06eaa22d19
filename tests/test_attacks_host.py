"""Issue 11, finding 8: the host does not show through.

``/proc/self/mountinfo`` (and mounts) must name no host path (the repository, the install's
virtual environment, the state dir, Docker's storage); ``/proc/cmdline`` and the boot id must not
be the host's; a traceback of the program names only the program's own file, never the jail's
host-side code. The host values are read here, in the test, and compared.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap

import pytest

from sandbox import Verdict
from conftest import REPO, run_one

PROBE = textwrap.dedent("""
    import os
    for p in ["/proc/self/mountinfo", "/proc/self/mounts", "/proc/mounts", "/proc/cmdline",
              "/proc/sys/kernel/random/boot_id", "/proc/self/cgroup", "/proc/self/environ",
              "/proc/self/cmdline", "/proc/self/exe"]:
        try:
            data = os.readlink(p) if p.endswith("exe") else open(p, "rb").read().decode("utf-8", "replace")
        except OSError as e:
            data = "<" + type(e).__name__ + ">"
        print("=====", p)
        print(data)
    print("===== cwd")
    print(os.getcwd())
""")


def _host_values(sandbox) -> dict:
    def read(p):
        try:
            with open(p) as f:
                return f.read().strip()
        except OSError:
            return None
    return {"cmdline": read("/proc/cmdline"), "boot_id": read("/proc/sys/kernel/random/boot_id")}


def _host_paths(sandbox) -> list[str]:
    paths = {REPO, os.path.realpath(REPO), sys.prefix, os.path.realpath(sandbox.config.state_dir),
             sandbox.config.state_dir, "/var/lib/docker"}
    import sandbox as pkg
    paths.add(os.path.dirname(os.path.abspath(pkg.__file__)))
    return sorted(p for p in paths if p and p != "/")


def _sections(out: str) -> dict:
    parts = re.split(r"^===== (.*)$", out, flags=re.M)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


@pytest.mark.parametrize("language", ["python", "c"])
def test_no_host_path_or_value_is_visible(sandbox, language, request):
    if sandbox.config.backend == "docker" and (sandbox.config.docker_runtime or "runc") == "runc":
        # Open gap (issue 11, finding 8), kept visible rather than skipped: under runc the
        # container's own mountinfo lists its overlay layers below /var/lib/docker, and hiding
        # them needs CAP_SYS_ADMIN inside the container (docs/jail.md, "What remains visible").
        request.applymarker(pytest.mark.xfail(reason="runc shows the overlay's /var/lib/docker paths in mountinfo",
                                              strict=False))
    if language == "python":
        t = run_one(sandbox, PROBE)
    else:
        if "c" not in sandbox.toolchains:
            pytest.skip("no C toolchain")
        # The same files read by a compiled program (the exec path, not the Python fast path).
        code = textwrap.dedent(r'''
            #include <stdio.h>
            #include <unistd.h>
            int main(void) {
                const char *ps[] = {"/proc/self/mountinfo", "/proc/cmdline", "/proc/sys/kernel/random/boot_id", 0};
                char buf[65536];
                for (int i = 0; ps[i]; i++) {
                    printf("===== %s\n", ps[i]);
                    FILE *f = fopen(ps[i], "r");
                    if (!f) { puts("<denied>"); continue; }
                    size_t n = fread(buf, 1, sizeof buf - 1, f); buf[n] = 0; fclose(f);
                    puts(buf);
                }
                if (getcwd(buf, sizeof buf)) printf("===== cwd\n%s\n", buf);
                return 0;
            }
        ''')
        t = run_one(sandbox, code, language="c")
    assert t.verdict == Verdict.AC, (t.verdict, t.stderr[-2000:])
    s = _sections(t.stdout)
    host = _host_values(sandbox)
    leaks = [p for p in _host_paths(sandbox) if p in t.stdout]
    assert not leaks, f"host paths visible inside the jail: {leaks}\n" + s.get("/proc/self/mountinfo", "")[:3000]
    if host["cmdline"]:
        assert host["cmdline"] not in s.get("/proc/cmdline", ""), "/proc/cmdline is the host's"
    if host["boot_id"]:
        assert host["boot_id"] not in t.stdout, "boot_id is the host's"


TRACEBACK_PROGRAMS = {
    "top_level": "x = 1\nraise ValueError('boom')\n",
    "in_function": "def f():\n    return 1 / 0\nf()\n",
    "syntax_error": "def f(:\n    pass\n",
    "import_error": "import no_such_module_here\n",
}


@pytest.mark.parametrize("kind", list(TRACEBACK_PROGRAMS))
def test_traceback_names_only_the_program(sandbox, kind):
    t = run_one(sandbox, TRACEBACK_PROGRAMS[kind])
    assert t.verdict == Verdict.RE, (t.verdict, t.stderr)
    files = set(re.findall(r'File "([^"]+)"', t.stderr))
    assert len(files) == 1, f"traceback frames outside the program: {files}\n{t.stderr}"
    leaks = [p for p in _host_paths(sandbox) if p in t.stderr]
    assert not leaks and "jail" not in t.stderr.lower(), t.stderr
    if kind != "syntax_error":
        assert t.stderr.startswith("Traceback (most recent call last):"), t.stderr


def test_toolchains_outside_the_system_folders_are_mounted_at_neutral_paths(sandbox):
    # A rustup or pyenv home is shown at /opt/codetest/<language>, and programs compile and run
    # from there; the install's host path is neither a mount point in the jail nor the root of
    # one (a bind mount would print it in mountinfo's root field: an overlay does not).
    if sandbox.backend.name != "native":
        pytest.skip("the image's toolchains are in its system folders")
    from sandbox.languages import detect_toolchains

    outside = sorted({pair for tc in detect_toolchains().values() for pair in tc.binds})
    if not outside:
        pytest.skip("every toolchain on this host is in the system folders")
    t = run_one(sandbox, "print(open('/proc/self/mountinfo').read())")
    points = [line.split()[4] for line in t.stdout.splitlines() if len(line.split()) > 4]
    for host, jail in outside:
        assert jail in points, (jail, points)
        assert not [p for p in points if p == host or p.startswith(host + "/")], (host, points)
        assert host not in t.stdout, f"{host} shows in mountinfo:\n{t.stdout[:3000]}"


def test_the_compile_step_shows_no_host_path(sandbox, request):
    # A compiler reads whatever a source names: ``include_str!("/proc/self/mountinfo")`` puts the
    # compile step's mount table into the program, which prints it. That /work is a tmpfs like
    # every run's (the files travel in and out), never a bind of the host's state directory.
    if "rust" not in sandbox.toolchains:
        pytest.skip("no Rust toolchain")
    if sandbox.config.backend == "docker" and (sandbox.config.docker_runtime or "runc") == "runc":
        request.applymarker(pytest.mark.xfail(reason="runc shows the overlay's /var/lib/docker paths in mountinfo",
                                              strict=False))
    code = 'const M: &str = include_str!("/proc/self/mountinfo");\nfn main() { print!("{}", M); }\n'
    t = run_one(sandbox, code, language="rust")
    assert t.verdict == Verdict.AC, (t.verdict, t.stderr[-2000:])
    assert " /work " in t.stdout, f"not the compile step's mount table:\n{t.stdout[:2000]}"
    leaks = [p for p in _host_paths(sandbox) if p in t.stdout]
    assert not leaks, f"host paths visible to the compiler: {leaks}\n{t.stdout[:3000]}"
