"""GRPO on torch + transformers, with verifiable rewards from a codetest service.

    python -m trainer.grpo --model DIR --problems problems.jsonl --service-url URL

Each step samples ``group_size`` completions for ``prompts_per_step`` problems,
scores them through ``/v1/reward``, turns rewards into group-relative advantages and
takes one clipped policy-gradient step with a KL penalty to a frozen copy of the
starting model.

Scoring runs on the client's own thread while the model keeps working: batch k+1 is
sampled while batch k's rewards are in flight, and the update on batch k waits only
for whatever scoring time generation did not already cover (``reward_wait_s`` in the
log against ``reward_latency_s``). A reward the service could not give (down, slow,
SE) is ``None``: it is counted, logged, and left out of the update, never trained on
as a 0; the deadline bounds every wait, so a dead service cannot hang training.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import logging
import random
import sys
import time
from collections import Counter, deque
from pathlib import Path
from typing import Any, Optional, Sequence

from client.rewards.inputs import RewardItem
from client.rewards.scorer import RewardOutcome, RewardScorer

from .config import GRPOConfig, add_arguments, config_from_args
from .problems import Problem, load_problems

log = logging.getLogger("codetest.trainer")


def pick_device(name: str) -> Any:
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def pick_dtype(name: str, device: Any) -> Any:
    import torch

    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
    return getattr(torch, name)


class GRPOTrainer:
    """One run: a policy, its frozen reference, problems, and a reward scorer."""

    def __init__(
        self,
        config: GRPOConfig,
        problems: Sequence[Problem],
        *,
        model: Any = None,
        tokenizer: Any = None,
        scorer: Optional[RewardScorer] = None,
        completion_hook: Any = None,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        config.validate()
        if not problems:
            raise ValueError("no usable problems")
        self.cfg = config
        self.problems = list(problems)
        self.device = pick_device(config.device)
        torch.manual_seed(config.seed)
        self.rng = random.Random(config.seed)
        self.tokenizer = tokenizer or AutoTokenizer.from_pretrained(config.model)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"
        self.dtype = pick_dtype(config.dtype, self.device)
        if model is None:
            import transformers

            key = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
            model = AutoModelForCausalLM.from_pretrained(config.model, **{key: self.dtype})
        self.model = model
        self.model.to(device=self.device, dtype=self.dtype)
        # Eval mode throughout: no dropout, so sampling, old_logp and the update see one policy.
        self.model.eval()
        self.ref_model = None
        if config.kl_coef > 0:
            self.ref_model = copy.deepcopy(self.model).eval()
            for p in self.ref_model.parameters():
                p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW([p for p in self.model.parameters() if p.requires_grad], lr=config.lr)
        self.owns_scorer = scorer is None
        self.scorer = scorer or RewardScorer(config.service_url, scoring=config.scoring,
                                             batch_size=config.reward_batch_size,
                                             max_concurrency=config.reward_concurrency,
                                             timeout_s=config.reward_timeout_s)
        self.hook = completion_hook
        self.micro_batch = config.micro_batch_size
        self._order: list[int] = []
        self._updates = 0

    # -- the loop -------------------------------------------------------------------------

    def train(self, metrics: Any = None) -> list[dict[str, Any]]:
        """Run ``cfg.steps`` steps; returns the per-step records (also written to ``metrics``).

        Up to ``pipeline_depth`` batches are sampled ahead and sent for scoring before the
        trainer waits on the oldest one, so generation runs while rewards are in flight.
        """
        history: list[dict[str, Any]] = []
        in_flight: deque[tuple[Any, concurrent.futures.Future]] = deque()
        sampled = 0
        try:
            for step in range(self.cfg.steps):
                t0 = time.monotonic()
                while sampled < self.cfg.steps and len(in_flight) <= self.cfg.pipeline_depth:
                    rollout = self._sample(sampled)
                    rollout.policy_version = self._updates
                    in_flight.append((rollout, self._submit(rollout)))
                    sampled += 1
                current, future = in_flight.popleft()
                tw = time.monotonic()
                outcomes = self._wait(future, len(current.texts))
                wait_s = time.monotonic() - tw
                staleness = self._updates - current.policy_version
                record = self._update(current, outcomes)
                record.update(step=step, reward_wait_s=wait_s, step_time_s=time.monotonic() - t0,
                              gen_time_s=current.gen_time_s, staleness=staleness)
                history.append(record)
                if metrics is not None:
                    metrics.write(record)
                log.info("step %d  reward %.3f  pass %.2f  loss %.4f  kl %.4f  verdicts %s  wait %.2fs",
                         step, record["reward_mean"] or 0.0, record["pass_rate"], record["loss"], record["kl"],
                         record["verdicts"], wait_s)
        finally:
            for _, f in in_flight:
                f.cancel()
            if self.owns_scorer:
                self.scorer.close()
        return history

    def _next_problems(self) -> list[Problem]:
        out = []
        for _ in range(self.cfg.prompts_per_step):
            if not self._order:
                self._order = list(range(len(self.problems)))
                self.rng.shuffle(self._order)
            out.append(self.problems[self._order.pop()])
        return out

    def _sample(self, step: int) -> Any:
        from .rollout import sample_rollout

        return sample_rollout(
            self.model, self.ref_model, self.tokenizer, self._next_problems(), step=step,
            group_size=self.cfg.group_size, max_new_tokens=self.cfg.max_new_tokens,
            max_prompt_tokens=self.cfg.max_prompt_tokens, temperature=self.cfg.temperature, top_p=self.cfg.top_p,
            use_chat_template=self.cfg.use_chat_template, device=self.device, micro_batch=self.micro_batch,
            hook=self.hook,
        )

    def _submit(self, rollout: Any) -> concurrent.futures.Future:
        items = [RewardItem(completion=text, tests=p.tests, language=p.language, limits=p.limits,
                            entry_point=p.entry_point) for text, p in zip(rollout.texts, rollout.problems)]
        return self.scorer.submit(items, scoring=self.cfg.scoring)

    def _wait(self, future: concurrent.futures.Future, n: int) -> list[RewardOutcome]:
        # submit() resolves by its deadline; the extra margin only guards against a bug there.
        try:
            return future.result(timeout=self.cfg.reward_timeout_s + 30)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return [RewardOutcome(None, error="reward future never resolved", failure="timeout")] * n

    def _update(self, r: Any, outcomes: list[RewardOutcome]) -> dict[str, Any]:
        import torch

        from .objective import grpo_loss, group_advantages
        from .rollout import token_logprobs

        t0 = time.monotonic()
        rewards = [o.reward for o in outcomes]
        adv, valid = group_advantages(rewards, r.group_size)
        adv, valid = adv.to(self.device), valid.to(self.device)
        n_valid = float(valid.sum())
        loss_v = pg_v = kl_v = clip_v = ratio_v = 0.0
        grad_norm = 0.0
        updated = False
        if n_valid > 0:
            self.optimizer.zero_grad(set_to_none=True)
            batch = r.input_ids.size(0)
            mb = self.micro_batch or batch
            for s in range(0, batch, mb):
                sl = slice(s, s + mb)
                logp = token_logprobs(self.model, r.input_ids[sl], r.attention_mask[sl], r.prompt_len,
                                      self.cfg.temperature)
                parts = grpo_loss(logp, r.old_logp[sl], r.ref_logp[sl] if r.ref_logp is not None else None,
                                  adv[sl], r.completion_mask[sl], valid[sl], self.cfg.clip_eps, self.cfg.kl_coef,
                                  num_sequences=n_valid)
                parts.loss.backward()
                loss_v += float(parts.loss.detach())
                pg_v += parts.pg_loss * float(valid[sl].sum()) / n_valid
                kl_v += parts.kl * float(valid[sl].sum()) / n_valid
                clip_v += parts.clip_frac * float(valid[sl].sum()) / n_valid
                ratio_v += parts.ratio_mean * float(valid[sl].sum()) / n_valid
            grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm))
            self.optimizer.step()
            self._updates += 1
            updated = True
        else:
            log.warning("step %d: no completion got a reward; update skipped", r.step)

        scored = [o for o in outcomes if o.ok]
        verdicts = Counter(o.verdict if o.ok and o.verdict else "none" for o in outcomes)
        lat = [o.latency_s for o in outcomes if o.latency_s > 0]
        lengths = r.completion_lengths
        return {
            "loss": loss_v, "pg_loss": pg_v, "kl": kl_v, "clip_frac": clip_v, "ratio_mean": ratio_v,
            "grad_norm": grad_norm, "updated": updated,
            "completions": len(outcomes), "scored": len(scored),
            "reward_mean": sum(o.reward for o in scored) / len(scored) if scored else None,
            "pass_rate": sum(o.verdict == "AC" for o in scored) / len(scored) if scored else 0.0,
            "verdicts": dict(verdicts),
            "verdict_list": [o.verdict if o.ok else f"none:{o.failure}" for o in outcomes],
            "timeouts": sum(o.failure == "timeout" for o in outcomes),
            "service_errors": sum(o.failure == "service" for o in outcomes),
            "bad_inputs": sum(o.failure == "bad_input" for o in outcomes),
            "reward_latency_s": max(lat) if lat else 0.0,
            "completion_len_mean": sum(lengths) / len(lengths),
            "injected": sum(r.injected), "rewards": rewards,
            "update_time_s": time.monotonic() - t0,
        }

    def save(self, out_dir: str | Path) -> Path:
        path = Path(out_dir) / "final"
        self.model.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        return path


def run(config: GRPOConfig) -> int:
    """The command: load, train, log, plot, save. Exit 0, or 2 with a message on bad input."""
    try:
        config.validate()
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not Path(config.model).is_dir():
        print(f"error: --model {config.model!r} is not a directory", file=sys.stderr)
        return 2
    if not Path(config.problems).is_file():
        print(f"error: --problems {config.problems!r} is not a file", file=sys.stderr)
        return 2
    try:
        problems, skipped = load_problems(config.problems, config.language)
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: cannot read {config.problems}: {e}", file=sys.stderr)
        return 2
    if not problems:
        print(f"error: no usable problems in {config.problems} ({len(skipped)} skipped"
              + (f"; first: {skipped[0]}" if skipped else "") + ")", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        print(f"error: the trainer needs torch and transformers ({e.name} is missing): "
              "pip install 'codetest[train]'", file=sys.stderr)
        return 2
    from .metrics import MetricsLog

    metrics = MetricsLog(config.output_dir)
    try:
        trainer = GRPOTrainer(config, problems)
    except (OSError, ValueError) as e:
        print(f"error: cannot load the model from {config.model}: {e}", file=sys.stderr)
        return 2
    trainer.train(metrics)
    if config.plot:
        metrics.plot()
    if config.save:
        trainer.save(config.output_dir)
    print(f"{len(metrics.records)} steps; metrics in {metrics.path}")
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trainer.grpo", description="GRPO with rewards from codetest")
    add_arguments(p)
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    return run(config_from_args(args))


if __name__ == "__main__":
    sys.exit(main())
