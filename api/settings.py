"""What an operator tunes on the HTTP service, kept apart from the sandbox's own settings.

Every number here is a guard: how much a client may send, how much work may wait,
how long a batch may take. Defaults suit one machine serving a trainer on loopback.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

DEFAULT_MAX_BODY_BYTES = 64 << 20  # a reward batch of hundreds of items with their tests
DEFAULT_REWARD_DEADLINE_S = 300.0
MAX_DEADLINE_S = 3600.0
DEFAULT_MAX_REWARD_ITEMS = 4096
API_KEYS_ENV = "CODETEST_API_KEYS"


def env_api_keys() -> tuple[str, ...]:
    """Keys from ``CODETEST_API_KEYS`` (comma separated): keeps secrets off the command line."""
    from sandbox.config import api_keys

    return api_keys()


def is_loopback(host: str) -> bool:
    """True only for addresses that never leave this machine; names other than localhost count as remote."""
    h = host.strip().strip("[]")
    if h.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


@dataclass
class ServiceSettings:
    # Bearer / X-API-Key secrets; empty means no authentication (loopback only, see serve()).
    api_keys: tuple[str, ...] = ()
    # Executions admitted at once (running or waiting for a slot); 0 picks 16 per slot.
    queue_size: int = 0
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    reward_deadline_s: float = DEFAULT_REWARD_DEADLINE_S
    max_reward_items: int = DEFAULT_MAX_REWARD_ITEMS
    # Executions one reward request keeps in flight at once; 0 picks 2 per slot.
    reward_window: int = 0
    # Default memory for /run_code when the caller sends memory_limit_MB <= 0 (SandboxFusion's "no limit").
    run_code_default_memory_mb: int = 1024
    # Tests x output limit one job may accumulate in memory (its stdout/stderr), MiB.
    max_output_mb: int = 4096
    extra: dict = field(default_factory=dict)

    def capacity(self, slots: int) -> int:
        return self.queue_size if self.queue_size > 0 else max(16, 16 * max(1, slots))

    def window(self, slots: int) -> int:
        return self.reward_window if self.reward_window > 0 else max(2, 2 * max(1, slots))
