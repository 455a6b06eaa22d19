"""``codetest train``: the GRPO trainer as a subcommand (torch is imported only when it runs)."""

from __future__ import annotations

import argparse
import logging
from typing import Any


def _run(args: argparse.Namespace) -> int:
    from .config import config_from_args
    from .grpo import run

    if getattr(args, "verbose", False):
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    return run(config_from_args(args))


def register(subparsers: Any) -> None:
    """Add ``train`` to the ``codetest`` command."""
    from .config import add_arguments

    p = subparsers.add_parser("train", help="GRPO-train a model with rewards from a codetest service",
                              description="GRPO on torch + transformers; needs pip install 'codetest[train]'")
    add_arguments(p)
    if not any("--verbose" in a.option_strings for a in p._actions):
        p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=_run)
