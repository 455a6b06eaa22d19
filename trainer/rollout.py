"""Sampling a group of completions per prompt, and the log-probabilities GRPO needs.

A ``Rollout`` holds everything the update needs without the model that made it: the
token ids, masks, decoded texts and the sampling policy's per-token log-probabilities
(``old_logp``). Taking ``old_logp`` at sampling time is what lets the trainer update
on batch k while batch k+1 was sampled before that update: the ratio and its clip
correct for the one step of staleness.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import torch
import torch.nn.functional as F

from .problems import Problem

# (step, problems one per completion, sampled texts) -> replacement texts (None keeps the sample)
CompletionHook = Callable[[int, list[Problem], list[str]], Sequence[Optional[str]]]


@dataclass
class Rollout:
    step: int
    problems: list[Problem]
    group_size: int
    input_ids: torch.Tensor          # (B, P + C): prompt left-padded, completion right-padded
    attention_mask: torch.Tensor     # (B, P + C)
    prompt_len: int                  # P
    completion_mask: torch.Tensor    # (B, C): 1 on completion tokens, EOS included
    texts: list[str]
    old_logp: torch.Tensor           # (B, C), sampling policy
    ref_logp: Optional[torch.Tensor]  # (B, C), frozen reference
    injected: list[bool] = field(default_factory=list)
    gen_time_s: float = 0.0
    policy_version: int = 0          # optimizer steps taken when this batch was sampled

    @property
    def completion_lengths(self) -> list[int]:
        return self.completion_mask.sum(dim=1).tolist()


def encode_prompt(tokenizer: Any, prompt: str, use_chat_template: bool, max_tokens: int) -> list[int]:
    """Prompt token ids, through the chat template when the tokenizer has one; left-truncated."""
    if use_chat_template and getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                             add_generation_prompt=True)
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    else:
        ids = tokenizer(prompt)["input_ids"]
    return list(ids[-max_tokens:])


def _left_pad(rows: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        if r:
            ids[i, width - len(r):] = torch.tensor(r, dtype=torch.long)
            mask[i, width - len(r):] = 1
    return ids, mask


def _right_pad(rows: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(1, max(len(r) for r in rows))
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        if r:
            ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
            mask[i, :len(r)] = 1
    return ids, mask


def token_logprobs(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor, prompt_len: int,
                   temperature: float = 1.0, micro_batch: int = 0) -> torch.Tensor:
    """Log-probability of each completion token under ``model``: (B, C).

    Position ids follow the attention mask so left padding does not shift positions
    (as ``generate`` does); logits are divided by the sampling temperature so the
    numbers are those of the distribution the tokens were drawn from.
    """
    outs = []
    step = micro_batch or input_ids.size(0)
    for s in range(0, input_ids.size(0), step):
        ids, am = input_ids[s:s + step], attention_mask[s:s + step]
        pos = (am.cumsum(dim=1) - 1).clamp(min=0)
        logits = model(input_ids=ids, attention_mask=am, position_ids=pos).logits
        logits = logits[:, prompt_len - 1:-1, :].float() / temperature
        targets = ids[:, prompt_len:]
        outs.append(torch.gather(F.log_softmax(logits, dim=-1), 2, targets.unsqueeze(-1)).squeeze(-1))
    return torch.cat(outs, dim=0)


@torch.no_grad()
def sample_rollout(
    model: Any,
    ref_model: Optional[Any],
    tokenizer: Any,
    problems: list[Problem],
    *,
    step: int,
    group_size: int,
    max_new_tokens: int,
    max_prompt_tokens: int,
    temperature: float,
    top_p: float,
    use_chat_template: bool,
    device: torch.device,
    micro_batch: int = 0,
    hook: Optional[CompletionHook] = None,
) -> Rollout:
    """Sample ``group_size`` completions for each problem and score their tokens."""
    t0 = time.monotonic()
    eos = tokenizer.eos_token_id
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else eos
    prompt_rows = [encode_prompt(tokenizer, p.prompt, use_chat_template, max_prompt_tokens) for p in problems]
    p_ids, p_mask = _left_pad(prompt_rows, pad)
    p_ids = p_ids.repeat_interleave(group_size, dim=0).to(device)
    p_mask = p_mask.repeat_interleave(group_size, dim=0).to(device)
    rows = [p for p in problems for _ in range(group_size)]

    generated = model.generate(input_ids=p_ids, attention_mask=p_mask, do_sample=True, temperature=temperature,
                               top_p=top_p, top_k=0, max_new_tokens=max_new_tokens, pad_token_id=pad,
                               eos_token_id=eos)
    completions: list[list[int]] = []
    for row in generated[:, p_ids.size(1):].tolist():
        cut = row.index(eos) + 1 if eos in row else len(row)
        completions.append(row[:cut])
    texts = [tokenizer.decode(c, skip_special_tokens=True) for c in completions]

    injected = [False] * len(rows)
    if hook is not None:
        for i, new in enumerate(hook(step, rows, list(texts))):
            if new is not None:
                completions[i] = list(tokenizer(new, add_special_tokens=False)["input_ids"]) + [eos]
                texts[i] = new
                injected[i] = True

    c_ids, c_mask = _right_pad(completions, pad)
    c_ids, c_mask = c_ids.to(device), c_mask.to(device)
    input_ids = torch.cat([p_ids, c_ids], dim=1)
    attention_mask = torch.cat([p_mask, c_mask], dim=1)
    prompt_len = p_ids.size(1)
    old_logp = token_logprobs(model, input_ids, attention_mask, prompt_len, temperature, micro_batch)
    ref_logp = (token_logprobs(ref_model, input_ids, attention_mask, prompt_len, temperature, micro_batch)
                if ref_model is not None else None)
    return Rollout(step=step, problems=rows, group_size=group_size, input_ids=input_ids,
                   attention_mask=attention_mask, prompt_len=prompt_len, completion_mask=c_mask, texts=texts,
                   old_logp=old_logp, ref_logp=ref_logp, injected=injected, gen_time_s=time.monotonic() - t0)
