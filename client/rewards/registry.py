"""Shared scorers for the module-level reward functions.

verl and OpenRLHF load a reward function by file and name and call it with their own
arguments only, so the function cannot be handed a scorer: it looks one up here by
its settings. One scorer per settings keeps one connection pool, one concurrency cap
and one set of counters per process.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from .scorer import RewardScorer, default_service_url

_scorers: dict[tuple, RewardScorer] = {}
_lock = threading.Lock()


def shared_scorer(service_url: Optional[str] = None, **options: Any) -> RewardScorer:
    """The process-wide scorer for these settings, created on first use."""
    url = (service_url or default_service_url()).rstrip("/")
    key = (url, tuple(sorted(options.items())))
    with _lock:
        scorer = _scorers.get(key)
        if scorer is None:
            scorer = _scorers[key] = RewardScorer(url, **options)
        return scorer


def close_all() -> None:
    """Close every shared scorer (tests; clean shutdown)."""
    with _lock:
        scorers = list(_scorers.values())
        _scorers.clear()
    for s in scorers:
        s.close()
