"""The client installs and works alone: the ``codetest-client`` distribution (``pip install ./client``)
depends on httpx and tenacity only, and the TRL, verl and OpenRLHF reward files score completions
against a real service from a Python that can import nothing else: no FastAPI, uvicorn, torch,
sandbox or api (as in a Ray worker where only the client is installed).

The wheel is built from the repository's ``client/`` (no network); the interpreter runs with
``-I -S`` (no site-packages) and a path holding only the unpacked wheel and httpx, tenacity and
their own dependencies.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from _reward_service import DOUBLE_TESTS, real_service

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.timeout(300)


def build_wheel(tmp: Path) -> Path:
    src = tmp / "src"
    shutil.copytree(REPO / "client", src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    out = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(src)], check=True, capture_output=True, timeout=240)
    (wheel,) = out.glob("codetest_client-*.whl")
    return wheel


def requirement_closure(names: list[str]) -> set[str]:
    """Distributions needed by ``names`` (as installed here), following their unconditional requirements."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop().lower()
        if name in seen:
            continue
        seen.add(name)
        for raw in md.requires(name) or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def top_level(dist: str) -> list[Path]:
    """The importable files and folders a distribution installed."""
    d = md.distribution(dist)
    roots = set()
    for f in d.files or []:
        first = f.parts[0]
        if first.endswith((".dist-info", ".egg-info")) or first == ".." or first == "__pycache__":
            continue
        roots.add(first)
    return [Path(d.locate_file(r)) for r in roots]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("client-wheel"))


def test_client_wheel_depends_on_httpx_and_tenacity_only(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith("/METADATA"))).decode()
        names = z.namelist()
    requires = sorted(re.split(r"[ <>=!~;]", line.split(":", 1)[1].strip())[0]
                      for line in meta.splitlines() if line.startswith("Requires-Dist:"))
    assert requires == ["httpx", "tenacity"]
    assert not [n for n in names if n.split("/")[0] in ("api", "sandbox", "trainer", "testgen")]


SCRIPT = r"""
import asyncio, importlib.util, json, sys
for banned in ("fastapi", "uvicorn", "torch", "sandbox", "api", "pydantic", "trainer"):
    assert importlib.util.find_spec(banned) is None, banned + " is importable"
url, tests = sys.argv[1], json.loads(sys.argv[2])
good = "Sure:\n```python\nn = int(input())\nprint(n * 2)\n```<|im_end|>"
bad = "```py\nprint(0)\n```"
out = {}

from client.rewards.trl import make_trl_reward_sync
trl = make_trl_reward_sync(url, timeout_s=60)
out["trl"] = trl(prompts=["p", "p", "p"], completions=[good, bad, "no code"], tests=[json.dumps(tests)] * 3)

def load(path, name):  # verl and OpenRLHF load reward files by path, as top-level modules
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

import client.rewards.verl as v, client.rewards.openrlhf as o
verl = load(v.__file__, "custom_module")
out["verl"] = [d["score"] for d in verl.compute_score_batch(data_sources=["x"] * 2, solution_strs=[good, bad],
               ground_truths=[tests] * 2, service_url=url)]
orl = load(o.__file__, "reward_func")
res = orl.reward_func(["Q:" + good, "Q:" + bad], ["Q:", "Q:"], [json.dumps(tests)] * 2, service_url=url)
out["openrlhf"] = list(res["rewards"])
print(json.dumps(out))
"""


def test_reward_files_work_with_only_the_client_installed(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    for dist in requirement_closure(["httpx", "tenacity"]):
        for path in top_level(dist):
            if path.exists() and not (site / path.name).exists():
                (site / path.name).symlink_to(path)
    with real_service() as url:
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {str(site)!r})\n"
                               + SCRIPT, url, json.dumps(DOUBLE_TESTS)],
                              capture_output=True, text=True, timeout=180, cwd=str(tmp_path),
                              env={"PATH": os.environ.get("PATH", "")})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"trl": [1.0, 0.0, 0.0], "verl": [1.0, 0.0], "openrlhf": [1.0, 0.0]}
