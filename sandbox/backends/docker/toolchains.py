"""Which toolchains the runtime image has: the docker backend's answer to ``detect_toolchains``.

The host's toolchains say nothing about the image's (the host may have rustup and Node
20, the image Debian's rustc and Node 18), so the image is asked once, in a throw-away
container with no network, with the same language table the native backend uses.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from ...languages import LANGUAGES, Toolchain

log = logging.getLogger("codetest.docker.toolchains")

# Runs inside the image: for each language, the real binary (rust: from its sysroot),
# its version line (the first that is not a JVM's warning), and the extra tools it needs.
PROBE = r'''
import json, os, shutil, subprocess, sys
def version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except Exception:
        return ""
    for text in (p.stdout, p.stderr):  # the first line that is not a JVM's warning (toolchain_versions.first_line)
        lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
        if lines:
            return next((l for l in lines if "warning:" not in l.lower()), lines[0])
    return ""
out = {}
for lang in json.loads(sys.argv[1]):
    name = lang["name"]
    if name == "python":
        binary = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else None
    elif name == "rust":
        r = shutil.which("rustc")
        binary = None
        if r:
            root = subprocess.run([r, "--print", "sysroot"], capture_output=True, text=True).stdout.strip()
            cand = os.path.join(root, "bin", "rustc")
            binary = os.path.realpath(cand) if root and os.path.exists(cand) else None
    else:
        w = shutil.which(lang["binary"])
        binary = os.path.realpath(w) if w else None
    if not binary:
        continue
    extra = {}
    for tool in lang["extra"]:
        w = shutil.which(tool)
        if not w:
            binary = None
            break
        extra[tool] = os.path.realpath(w)
    if not binary or not all(os.path.exists(p) for p in lang["requires"]):
        continue
    v = version([binary] + lang["version_args"])
    if v:
        out[name] = {"binary": binary, "version": v, "extra": extra}
print(json.dumps(out))
'''


def probe_image(client: Any, image: str) -> dict[str, Toolchain]:
    """Toolchains of ``image`` by language name (empty when the probe fails)."""
    langs = [{"name": l.name, "binary": l.binary, "version_args": list(l.version_args),
              "extra": list(l.extra_binaries), "requires": list(l.requires)} for l in LANGUAGES]
    try:
        raw = client.containers.run(
            image, ["python3", "-I", "-c", PROBE, json.dumps(langs)], remove=True, network_mode="none",
            read_only=True, tmpfs={"/tmp": "size=64m"}, cap_drop=["ALL"], security_opt=["no-new-privileges:true"],
            user="65534:65534", stdout=True, stderr=False, mem_limit="1g", pids_limit=256,
            labels={"codetest.backend": "docker", "codetest.probe": "toolchains"},
        )
        found = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    except Exception as e:  # an image without python3 has no executor either; health says so
        log.error("toolchain probe of %s failed: %s", image, e)
        return {}
    by_name = {l.name: l for l in LANGUAGES}
    return {name: Toolchain(by_name[name], d["binary"], d["version"], (), dict(d["extra"]))
            for name, d in found.items() if name in by_name}


def probe_libraries(client: Any, image: str) -> dict:
    """The libraries of ``image`` and their versions (sandbox/libraries.py's probe, run in the image)."""
    from ...libraries import PROBE, parse

    try:
        raw = client.containers.run(
            image, ["python3", "-I", "-c", PROBE], remove=True, network_mode="none",
            read_only=True, tmpfs={"/tmp": "size=64m"}, cap_drop=["ALL"], security_opt=["no-new-privileges:true"],
            user="65534:65534", stdout=True, stderr=False, mem_limit="1g", pids_limit=256,
            labels={"codetest.backend": "docker", "codetest.probe": "libraries"},
        )
    except Exception as e:  # reported as none; /healthz then shows the image lacks them
        log.error("library probe of %s failed: %s", image, e)
        return {}
    return parse(raw.decode() if isinstance(raw, bytes) else raw)
