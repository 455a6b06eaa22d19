"""The libraries LLM-written code imports, installed beside the toolchains, and their versions.

The same probe runs on the host (native backend) and in the runtime image (Docker backend), so
/healthz shows what each backend really has. The lists are scripts/setup.sh's and the image's.
"""

from __future__ import annotations

import json
import logging
import subprocess
from functools import lru_cache

log = logging.getLogger("codetest.libraries")

# Runs on any python3 (stdlib only): {language: {library: version}}; a library that is missing is left out.
PROBE = r'''
import json, os, subprocess
def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return p.stdout.strip() if p.returncode == 0 else ""
    except Exception:
        return ""
def deb(pkg):
    return run(["dpkg-query", "-W", "-f=${Version}", pkg])
out = {}
py = "import importlib.metadata as m, json\nv = {}\nfor d in %r:\n    try: v[d] = m.version(d)\n    except Exception: pass\nprint(json.dumps(v))" % (
    ["numpy", "pandas", "scipy", "sortedcontainers", "requests", "pytest", "pytest-cov", "pytest-json-report"],)
try:
    out["python"] = json.loads(run(["/usr/bin/python3", "-c", py]) or "{}")
except ValueError:
    out["python"] = {}
node = {}
for name in ("lodash", "typescript", "jest", "esbuild"):
    try:
        with open("/usr/lib/node_modules/%s/package.json" % name) as f:
            node[name] = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        pass
out["javascript"] = node
for lang, pkgs in (("java", {"javatuples": "libjavatuples-java", "junit5": "junit5"}),
                   ("perl", {"Test::Deep": "libtest-deep-perl", "Data::Compare": "libdata-compare-perl"}),
                   ("go", {"testify": "golang-github-stretchr-testify-dev"}),
                   ("lua", {"luaunit": "lua-unit"})):
    out[lang] = {k: v for k, v in ((k, deb(p)) for k, p in pkgs.items()) if v}
print(json.dumps(out))
'''


def parse(raw: str) -> dict:
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return {lang: libs for lang, libs in found.items() if isinstance(libs, dict)}


@lru_cache(maxsize=1)
def detect_libraries() -> dict:
    """Versions of the libraries on this host (what the native backend's jails see)."""
    try:
        p = subprocess.run(["/usr/bin/python3", "-I", "-c", PROBE], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        log.warning("library probe failed: %s", e)
        return {}
    return parse(p.stdout)
