"""The code in an LLM completion: one function, used by the service and by every client.

What real models emit around their code, and what ``extract_code`` does with it (each shape
has a test in tests/test_rewards_extract.py and a row in docs/trainer.md):

- end-of-turn and padding tokens after the answer (``<|im_end|>``, ``<|endoftext|>``,
  ``</s>``, ``<|eot_id|>``, ...), also right after the closing fence on its line: dropped;
- a ``<think>...</think>`` section before the answer: only the text after the last
  ``</think>`` counts (code drafted while thinking is not the answer; an unclosed
  ``<think>`` means the model never answered);
- several fenced blocks: the last complete one;
- fence tags ``python``, ``python3``, ``py``, ``c++``, ``cpp``, ``cc``, ``rs``, ... mapped to one
  name per language (``TAGS``); no tag (or ``none``) gives ``language=None``, so the caller's
  language applies;
- fences indented (inside a list item): the fence's indentation is removed from each line;
- CRLF line ends: read as LF;
- an opening fence after prose on its own line, and a closing fence glued to the last code line.

Pure standard library, no I/O: ``client`` must stay installable alone, and the service imports
this module so that a completion scores the same through every door.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

# Tokens that end a turn or pad a batch. A completion decoded with skip_special_tokens=False
# (OpenRLHF's query, verl's response_str in some recipes) carries them after the answer.
SPECIAL_TOKENS = (
    "<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>", "<|end|>", "<|eom_id|>", "<|im_start|>",
    "<|return|>", "</s>", "<eos>", "<end_of_turn>", "<|EOT|>", "<｜end▁of▁sentence｜>", "<|end▁of▁sentence|>",
    "<pad>", "<|pad|>", "<|fim_pad|>",
)
_TOKEN_TAIL = re.compile(r"^(?:\s|" + "|".join(re.escape(t) for t in SPECIAL_TOKENS) + r")*$")

# Fence tag (lower case) -> the one name a sandbox knows the language by.
TAGS = {
    "python": "python", "python3": "python", "py": "python", "py3": "python",
    "cpp": "cpp", "c++": "cpp", "cc": "cpp", "cxx": "cpp", "hpp": "cpp",
    "c": "c",
    "rust": "rust", "rs": "rust",
    "java": "java",
    "javascript": "javascript", "js": "javascript", "node": "javascript", "nodejs": "javascript",
    "typescript": "typescript", "ts": "typescript",
    "go": "go", "golang": "go",
    "bash": "bash", "sh": "bash", "shell": "bash",
    "ruby": "ruby", "rb": "ruby", "perl": "perl", "pl": "perl",
}
NO_TAG = frozenset({"", "none", "text", "plaintext", "txt"})


@dataclass(frozen=True)
class Extracted:
    """The code of a completion and the language its fence names (None: untagged)."""

    code: str
    language: Optional[str]
    tag: str  # the fence tag as written, lower case ("" when there was none)


def normalize_tag(tag: str) -> Optional[str]:
    """The language a fence tag names: ``py`` -> ``python``; untagged -> None; unknown -> itself."""
    t = tag.strip().strip("{}.").lower()
    if t in NO_TAG:
        return None
    return TAGS.get(t, t)


def answer_text(text: str) -> str:
    """The part of a completion that is the answer: LF line ends, no thinking, no trailing tokens."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    elif "<think>" in text:
        return ""  # thinking never closed: the model gave no answer
    return strip_trailing_tokens(text)


def strip_trailing_tokens(text: str) -> str:
    """``text`` without the whitespace and special tokens at its end (linear, no regex)."""
    end = len(text)
    while True:
        while end > 0 and text[end - 1].isspace():
            end -= 1
        for tok in SPECIAL_TOKENS:
            if text.endswith(tok, 0, end):
                end -= len(tok)
                break
        else:
            return text[:end]


def _fence_run(line: str, start: int) -> int:
    end = start
    while end < len(line) and line[end] == "`":
        end += 1
    return end - start


def _closes(line: str, fence: int) -> tuple[bool, str]:
    """Whether ``line`` closes a fence of ``fence`` backticks, and the code before the backticks.

    A closing fence may end the last code line (``print(x)```), and may be followed on its
    line by special tokens (```` ```<|im_end|> ````)."""
    body = line.rstrip()
    if "<" in body:  # cheap guard before the regex
        cut = body.rfind("`")
        if cut >= 0 and _TOKEN_TAIL.match(body[cut + 1:]):
            body = body[:cut + 1]
    end = len(body)
    while end > 0 and body[end - 1] == "`":
        end -= 1
    if len(body) - end >= fence:
        return True, body[:end]
    return False, line


def extract_code(text: Optional[str]) -> Optional[Extracted]:
    """The last complete fenced block of the answer, or None when there is none.

    Line by line, so the cost is linear in the text whatever it holds. A fence that opens
    and closes on one line is inline code, not a block; an unterminated fence is ignored.
    """
    if not text:
        return None
    last: Optional[Extracted] = None
    fence = 0
    indent = 0
    tag = ""
    body: list[str] = []
    for line in answer_text(text).split("\n"):
        if not fence:
            at = line.find("```")
            if at < 0:
                continue
            run = _fence_run(line, at)
            info = line[at + run:]
            if "`" in info:
                continue  # inline code
            words = info.split()
            tag = words[0].lower() if words else ""
            before = line[:at]
            indent = len(before) if not before.strip() else 0
            fence, body = run, []
            continue
        closed, code = _closes(line, fence)
        if closed:
            if code.strip():
                body.append(code)
            lines = [_dedent(b, indent) for b in body]
            last = Extracted(code="\n".join(lines) + "\n", language=normalize_tag(tag), tag=tag.strip("{}.").lower())
            fence = 0
        else:
            body.append(line)
    return last


def _dedent(line: str, indent: int) -> str:
    """Remove up to ``indent`` leading spaces (the fence's own indentation), as CommonMark does."""
    if not indent:
        return line
    n = 0
    while n < indent and n < len(line) and line[n] == " ":
        n += 1
    return line[n:]


__all__ = ["Extracted", "SPECIAL_TOKENS", "TAGS", "answer_text", "extract_code", "normalize_tag",
           "strip_trailing_tokens"]
