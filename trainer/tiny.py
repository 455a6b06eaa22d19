"""A tiny causal LM and a locally trained tokenizer, for tests and demos without downloads.

    python -m trainer.tiny OUT_DIR [--arch gpt2|llama] [--layers 2] [--width 64] [--heads 4]
                                   [--intermediate N] [--context 512]

writes a directory that ``AutoModelForCausalLM`` / ``AutoTokenizer`` load, so the
trainer runs end to end on a laptop CPU with no model hub. The tokenizer is
byte-level BPE: every string, code included, survives encode -> decode unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable, Optional

EOS = "<|endoftext|>"
PAD = "<|pad|>"

CORPUS = [
    "```python\nprint(int(input()) * 2)\n```",
    "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    "```python\nn = int(input())\nprint(sum(range(n + 1)))\n```",
    "```python\nimport sys\nfor line in sys.stdin:\n    print(line.strip()[::-1])\n```",
    "```python\ndef solve(x):\n    return x * x\n```",
    "```python\nwhile True:\n    pass\n```",
    "Read an integer n from stdin and print twice its value.",
    "Read two integers and print their sum.",
    "Write a python program. Answer with one fenced code block.",
]


def train_tokenizer(corpus: Iterable[str], vocab_size: int = 384):
    """A byte-level BPE tokenizer trained on ``corpus``, as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS, PAD],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(corpus) * 4, trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, bos_token=EOS, pad_token=PAD,
                                   unk_token=None, padding_side="left")


def build_tiny_model(
    out_dir: str | Path,
    *,
    arch: str = "gpt2",
    layers: int = 2,
    width: int = 64,
    heads: int = 4,
    intermediate: Optional[int] = None,
    context: int = 512,
    vocab_size: int = 384,
    corpus: Optional[Iterable[str]] = None,
    seed: int = 0,
) -> Path:
    """Write a randomly initialised ``arch`` model and its tokenizer to ``out_dir``.

    ``intermediate`` is the MLP's inner width; None keeps each architecture's default here
    (gpt2: 4 x ``width``, llama: 2 x ``width``).
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(corpus if corpus is not None else CORPUS, vocab_size)
    ids = dict(vocab_size=len(tokenizer), bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id,
               pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(seed)
    if arch == "gpt2":
        model = GPT2LMHeadModel(GPT2Config(n_layer=layers, n_head=heads, n_embd=width, n_inner=intermediate,
                                           n_positions=context, **ids))
    elif arch == "llama":
        model = LlamaForCausalLM(LlamaConfig(num_hidden_layers=layers, num_attention_heads=heads,
                                             num_key_value_heads=heads, hidden_size=width,
                                             intermediate_size=intermediate or width * 2,
                                             max_position_embeddings=context, **ids))
    else:
        raise ValueError(f"unknown arch {arch!r}: gpt2 or llama")
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trainer.tiny", description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--arch", choices=["gpt2", "llama"], default="gpt2")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--heads", type=int, default=4, help="attention heads (must divide --width)")
    p.add_argument("--intermediate", type=int, default=None,
                   help="MLP inner width (default: gpt2 4 x width, llama 2 x width)")
    p.add_argument("--context", type=int, default=512, help="positions the model takes")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if min(args.layers, args.width, args.heads, args.context, args.intermediate or 1) < 1 or args.width % args.heads:
        p.error("--layers, --width, --heads, --intermediate and --context must be at least 1, "
                "and --heads must divide --width")
    path = build_tiny_model(args.out_dir, arch=args.arch, layers=args.layers, width=args.width, heads=args.heads,
                            intermediate=args.intermediate, context=args.context, seed=args.seed)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
