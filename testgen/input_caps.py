"""How large a generated stdin input may grow: stress inputs reach these caps, not past them.

The caps in force are one ``InputCaps`` in a context variable: every drawer reads ``caps()``, and
the growth round (``testgen/growth.py``) draws the stress family again under ``caps_scaled(f)``
where the golds left room on the capped inputs.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator


@dataclass(frozen=True)
class InputCaps:
    tokens: int = 200_000  # stress inputs stay below this many tokens
    chars: int = 4_000_000  # ... and this many characters (a larger input is dropped: generators.generate)

    @property
    def grid_cells(self) -> int:
        """A stress grid stays below this many cells."""
        return 4 * self.tokens

    def scaled(self, factor: float) -> "InputCaps":
        return InputCaps(tokens=int(self.tokens * factor), chars=int(self.chars * factor))


DEFAULT_CAPS = InputCaps()
MAX_INPUT_TOKENS = DEFAULT_CAPS.tokens  # the default caps, for readers that state them
MAX_INPUT_CHARS = DEFAULT_CAPS.chars
MAX_WORD_LEN = 1_000_000  # a word's stated maximum length is kept up to this (stress words reach it)
WORD_LEN = 100_000  # the other families' words stay this short: generating and judging them stays quick

_caps: ContextVar[InputCaps] = ContextVar("testgen_input_caps", default=DEFAULT_CAPS)


def caps() -> InputCaps:
    """The caps in force here."""
    return _caps.get()


@contextmanager
def caps_in_force(limit: InputCaps) -> Iterator[InputCaps]:
    """``limit`` as the caps inside the block."""
    token = _caps.set(limit)
    try:
        yield limit
    finally:
        _caps.reset(token)


def caps_scaled(factor: float) -> AbstractContextManager[InputCaps]:
    """The default caps times ``factor`` inside the block."""
    return caps_in_force(DEFAULT_CAPS.scaled(factor))
