"""How large a generated stdin input may grow: stress inputs reach these caps, not past them."""

MAX_INPUT_TOKENS = 200_000  # stress inputs stay below this many tokens
MAX_INPUT_CHARS = 4_000_000  # ... and this many characters (a larger input is dropped: generators.generate)
MAX_WORD_LEN = 1_000_000  # a word's stated maximum length is kept up to this (stress words reach it)
WORD_LEN = 100_000  # the other families' words stay this short: generating and judging them stays quick
GRID_CELLS = 4 * MAX_INPUT_TOKENS  # ... and a stress grid below this many cells
