"""The GRPO trainer's settings and the command-line flags that set them.

Kept free of torch so ``codetest train --help`` and the CLI registration work on a
machine with only the service installed.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from typing import Literal, Optional


@dataclass
class GRPOConfig:
    """What one GRPO run does. Defaults suit a small model on one GPU."""

    model: str = ""
    problems: str = ""
    service_url: Optional[str] = None
    output_dir: str = "grpo_out"
    steps: int = 10
    prompts_per_step: int = 4
    group_size: int = 8
    max_new_tokens: int = 256
    max_prompt_tokens: int = 1024
    temperature: float = 1.0
    top_p: float = 1.0
    lr: float = 1e-6
    clip_eps: float = 0.2
    kl_coef: float = 0.04
    max_grad_norm: float = 1.0
    scoring: Literal["fraction", "all_or_nothing"] = "fraction"
    language: str = "python"
    reward_timeout_s: float = 120.0
    reward_concurrency: int = 4
    reward_batch_size: int = 64
    micro_batch_size: int = 0
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    pipeline_depth: int = 1
    use_chat_template: bool = True
    device: str = "auto"
    seed: int = 0
    save: bool = True
    plot: bool = True

    def validate(self) -> None:
        """Raise ValueError with a message for settings that cannot work."""
        if self.group_size < 2:
            raise ValueError("--group-size must be at least 2: advantages are relative to the group")
        if not 0 <= self.pipeline_depth <= 8:
            raise ValueError("--pipeline-depth must be between 0 and 8")
        if self.micro_batch_size < 0:
            raise ValueError("--micro-batch-size must be >= 0 (0: the whole batch at once)")
        for name in ("steps", "prompts_per_step", "max_new_tokens", "max_prompt_tokens", "reward_concurrency",
                     "reward_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
        if not 0 < self.clip_eps < 1:
            raise ValueError("--clip-eps must be in (0, 1)")
        if self.lr <= 0 or self.temperature <= 0 or self.reward_timeout_s <= 0 or not 0 < self.top_p <= 1:
            raise ValueError("--lr, --temperature and --reward-timeout must be > 0, --top-p in (0, 1]")
        if self.kl_coef < 0:
            raise ValueError("--kl-coef must be >= 0")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The trainer's flags, shared by ``python -m trainer.grpo`` and ``codetest train``."""
    d = GRPOConfig()
    p.add_argument("--model", required=True, help="model directory (save_pretrained layout)")
    p.add_argument("--problems", required=True,
                   help="problems JSONL: {id, prompt|statement, tests, language?, limits?, entry_point?}")
    p.add_argument("--service-url", default=None, help="codetest service (default $CODETEST_URL or :8080)")
    p.add_argument("--output-dir", "-o", default=d.output_dir, help="metrics.jsonl, metrics.png, final model")
    p.add_argument("--steps", type=int, default=d.steps)
    p.add_argument("--prompts-per-step", type=int, default=d.prompts_per_step)
    p.add_argument("--group-size", type=int, default=d.group_size, help="completions sampled per prompt")
    p.add_argument("--max-new-tokens", type=int, default=d.max_new_tokens)
    p.add_argument("--max-prompt-tokens", type=int, default=d.max_prompt_tokens)
    p.add_argument("--temperature", type=float, default=d.temperature)
    p.add_argument("--top-p", type=float, default=d.top_p)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--clip-eps", type=float, default=d.clip_eps)
    p.add_argument("--kl-coef", type=float, default=d.kl_coef, help="weight of KL to the frozen reference")
    p.add_argument("--max-grad-norm", type=float, default=d.max_grad_norm)
    p.add_argument("--scoring", choices=["fraction", "all_or_nothing"], default=d.scoring)
    p.add_argument("--language", default=d.language, help="language of problems that do not say")
    p.add_argument("--reward-timeout", dest="reward_timeout_s", type=float, default=d.reward_timeout_s,
                   help="deadline for one batch's rewards, seconds; late ones count as no reward")
    p.add_argument("--reward-concurrency", type=int, default=d.reward_concurrency)
    p.add_argument("--reward-batch-size", type=int, default=d.reward_batch_size)
    p.add_argument("--micro-batch-size", type=int, default=d.micro_batch_size,
                   help="sequences per forward/backward pass (gradient accumulation); 0: all at once")
    p.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"], default=d.dtype,
                   help="model weights; auto: bfloat16 on a GPU that has it, else float32")
    p.add_argument("--pipeline-depth", type=int, default=d.pipeline_depth,
                   help="batches sampled ahead while earlier ones are scored (each is that many updates stale)")
    p.add_argument("--no-overlap", dest="pipeline_depth", action="store_const", const=0,
                   help="same as --pipeline-depth 0: wait for rewards before sampling again (for comparison)")
    p.add_argument("--no-chat-template", dest="use_chat_template", action="store_false")
    p.add_argument("--device", default=d.device, help="auto, cpu, cuda, cuda:1, ...")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--no-save", dest="save", action="store_false", help="do not save the final model")
    p.add_argument("--no-plot", dest="plot", action="store_false")


def config_from_args(args: argparse.Namespace) -> GRPOConfig:
    names = {f.name for f in fields(GRPOConfig)}
    return GRPOConfig(**{k: v for k, v in vars(args).items() if k in names})
