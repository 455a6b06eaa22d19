"""Starting a jail server from source sent on its stdin.

No file of ours needs to be on the jail's disk: the host starts ``python3 -I -B -c BOOTSTRAP``
(on the host's Python toolchain, or inside a container of the runtime image) and sends one
frame with this package's module sources. They are installed under a neutral name
(``/.codetest/...``, a path that exists nowhere), so a traceback never names a host path, and
an image needs no rebuild when the jail changes.
"""

from __future__ import annotations

import json
import struct
from importlib import resources

PACKAGE = "sandbox.jail"
HOST_ONLY = ("__init__", "boot")  # the package's own marker, and this module (the host's side)
NEUTRAL_ROOT = "/.codetest"

# Reads [u32 length][JSON {"modules": {name: source}, "packages": [...], "main": name}] on fd 0,
# installs a finder that serves those sources, runs main.main().
BOOTSTRAP = (
    "# codetest jail_server (sandbox.jail)\n"
    "import json,os,struct,sys,importlib.util as u\n"
    "def r(n):\n"
    " b=b''\n"
    " while len(b)<n:\n"
    "  c=os.read(0,n-len(b))\n"
    "  if not c: sys.exit(3)\n"
    "  b+=c\n"
    " return b\n"
    "m=json.loads(r(struct.unpack('>I',r(4))[0]))\n"
    "S,P,R=m['modules'],set(m['packages']),m['root']\n"
    "class F:\n"
    " codetest_jail=True\n"
    " def find_spec(s,n,p=None,t=None):\n"
    "  if n in S: return u.spec_from_loader(n,s,origin=R+'/'+n.replace('.','/')+('/__init__.py' if n in P else '.py'),is_package=n in P)\n"
    " def create_module(s,spec): return None\n"
    " def exec_module(s,mod): exec(compile(S[mod.__name__],mod.__spec__.origin,'exec'),mod.__dict__)\n"
    "sys.meta_path.insert(0,F())\n"
    "del r,m\n"
    "import importlib\n"
    "sys.exit(importlib.import_module('sandbox.jail.server').main())\n"
)


def boot_message() -> bytes:
    """The frame BOOTSTRAP reads: every module of the jail package, as source."""
    here = resources.files(PACKAGE)
    modules = {"sandbox": "", PACKAGE: ""}
    for path in sorted(here.iterdir(), key=lambda p: p.name):
        name = path.name[:-3]
        if path.name.endswith(".py") and name not in HOST_ONLY:
            modules[f"{PACKAGE}.{name}"] = path.read_text(encoding="utf-8")
    body = json.dumps({"modules": modules, "packages": ["sandbox", PACKAGE], "root": NEUTRAL_ROOT,
                       "main": f"{PACKAGE}.server"}).encode()
    return struct.pack(">I", len(body)) + body
