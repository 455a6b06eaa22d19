"""The trainers' own reward clients, loaded as they ship (for bench/trainer_load.py and the tests).

verl's ``verl/utils/reward_score/sandbox_fusion`` is verl's code, unchanged, installed with
``pip install verl --no-deps``. Importing it as ``verl.utils.reward_score.sandbox_fusion`` runs
``verl/__init__.py`` first, which pulls in Ray, tensordict and the training stack; the module
itself needs only ``requests``. So it is loaded from the installed files under its own name,
with its relative import intact: the same code, without the GPU stack.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def load_verl_sandbox_fusion() -> ModuleType:
    """verl's own ``sandbox_fusion`` reward module, from the installed verl distribution."""
    if "verl.utils.reward_score.sandbox_fusion" in sys.modules:
        return sys.modules["verl.utils.reward_score.sandbox_fusion"]
    name = "verl_sandbox_fusion"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec("verl")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("verl is not installed (scripts/setup.sh --train installs it: pip install --no-deps verl)")
    folder = f"{list(spec.submodule_search_locations)[0]}/utils/reward_score/sandbox_fusion"
    mod_spec = importlib.util.spec_from_file_location(name, f"{folder}/__init__.py",
                                                      submodule_search_locations=[folder])
    assert mod_spec is not None and mod_spec.loader is not None
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[name] = module
    try:
        mod_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
