"""A GRPO trainer on torch + transformers that gets its rewards from a codetest service.

``python -m trainer.grpo --model DIR --problems problems.jsonl --service-url URL``
(or ``codetest train ...``). Importing this package does not import torch; the
trainer's modules that need it do, and need ``pip install 'codetest[train]'``.
"""

from .config import GRPOConfig

__all__ = ["GRPOConfig"]
