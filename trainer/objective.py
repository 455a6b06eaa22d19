"""GRPO's objective: group-relative advantages and a clipped policy-gradient loss with KL.

Advantages compare each completion with the others sampled for the same prompt, so
no value model is needed. A completion whose reward is ``None`` (the service failed)
is left out of its group's mean and std and out of the loss: it says nothing about
the code, and training on it as a 0 would punish correct programs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import torch


def group_advantages(rewards: Sequence[Optional[float]], group_size: int, eps: float = 1e-4
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """``(advantages, valid)`` for rewards laid out group after group.

    ``advantage = (r - mean(group)) / (std(group) + eps)`` over the group's scored
    completions; ``valid`` is 0 where the reward is ``None``. A group with fewer than
    two scored completions, or all equal, gives zero advantages: no signal.
    """
    if len(rewards) % group_size:
        raise ValueError(f"{len(rewards)} rewards do not split into groups of {group_size}")
    r = torch.tensor([float("nan") if x is None else float(x) for x in rewards]).view(-1, group_size)
    valid = ~torch.isnan(r)
    count = valid.sum(dim=1, keepdim=True)
    filled = torch.where(valid, r, torch.zeros_like(r))
    mean = filled.sum(dim=1, keepdim=True) / count.clamp(min=1)
    var = (torch.where(valid, (r - mean) ** 2, torch.zeros_like(r))).sum(dim=1, keepdim=True) / (count - 1).clamp(min=1)
    adv = (r - mean) / (var.sqrt() + eps)
    adv = torch.where(valid & (count >= 2), adv, torch.zeros_like(adv))
    return adv.view(-1), valid.view(-1).float()


@dataclass
class LossParts:
    loss: torch.Tensor
    pg_loss: float
    kl: float
    clip_frac: float
    ratio_mean: float


def grpo_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    ref_logp: Optional[torch.Tensor],
    advantages: torch.Tensor,
    completion_mask: torch.Tensor,
    sample_mask: torch.Tensor,
    clip_eps: float,
    kl_coef: float,
    num_sequences: Optional[float] = None,
) -> LossParts:
    """The GRPO loss over completion tokens; every tensor is (batch, completion_len)
    but ``advantages`` and ``sample_mask`` (batch,).

    Per token: ``-min(ratio*A, clip(ratio, 1-eps, 1+eps)*A) + kl_coef * KL``, where KL
    is the k3 estimator ``exp(ref-logp) - (ref-logp) - 1`` (unbiased, always >= 0).
    Tokens are averaged per sequence, sequences over those with a reward
    (``num_sequences`` of them across all micro-batches when the batch is split).
    """
    mask = completion_mask.float() * sample_mask.float().unsqueeze(1)
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(1)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps) * adv
    pg = -torch.min(unclipped, clipped)
    if ref_logp is not None and kl_coef > 0:
        d = ref_logp - logp
        kl = torch.exp(d) - d - 1
    else:
        kl = torch.zeros_like(logp)
    per_token = pg + kl_coef * kl
    tokens = mask.sum(dim=1).clamp(min=1)
    n_seq = torch.tensor(float(num_sequences)) if num_sequences else (mask.sum(dim=1) > 0).float().sum()
    n_seq = n_seq.clamp(min=1).to(logp.device)

    def seq_mean(x: torch.Tensor) -> torch.Tensor:
        return ((x * mask).sum(dim=1) / tokens).sum() / n_seq

    loss = seq_mean(per_token)
    with torch.no_grad():
        is_clipped = ((ratio < 1 - clip_eps) & (adv < 0)) | ((ratio > 1 + clip_eps) & (adv > 0))
        parts = LossParts(loss=loss, pg_loss=float(seq_mean(pg)), kl=float(seq_mean(kl)),
                          clip_frac=float(seq_mean(is_clipped.float())), ratio_mean=float(seq_mean(ratio)))
    return parts
