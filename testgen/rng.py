"""Deterministic randomness: the same seed and names always give the same inputs.

Python's ``hash`` is salted per process, so streams are keyed by a SHA-256 of their names."""

from __future__ import annotations

import hashlib
import random


def stream(seed: int, *names: object) -> random.Random:
    h = hashlib.sha256(repr((seed,) + tuple(str(n) for n in names)).encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))
