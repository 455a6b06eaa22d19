"""At most a few young executions at once: quick programs run about as many at a time as the
cores can carry, and nothing waits long behind a slow one.

The service runs many slots per core (``slots_per_core``) so that programs which sleep or loop
until their limit do not keep quick ones waiting. But when every slot is busy with quick
programs (a trainer's usual load: tests of a few milliseconds each, 32 or more requests in
flight), all of them share the cores at once, and each execution costs more CPU: the kernel
switches between dozens of forked interpreters, none of whose memory stays in the caches
(measured in docs/bench.md, "Quick programs a few at a time").

So an execution may start only while fewer than ``most`` executions that started less than
``young_s`` ago are still running. One that has run longer no longer counts: it sleeps, or it
is a long program, and the cores are shared with it as before. So a quick program waits at most
``young_s`` behind any number of slow ones, a burst of long programs starts at ``most`` per
``young_s``, and a sleeper never holds a core idle. Waiting here is waiting for a slot: it never
counts against a program's limits.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from typing import Callable, Optional


class YoungCap:
    """Which executions are young, by the ticket ``start`` gave each (the scheduler's lock held)."""

    def __init__(self, most: int, young_s: float, clock: Callable[[], float] = time.monotonic):
        self.most = max(1, most)
        self.young_s = young_s
        self.clock = clock
        self._young: "OrderedDict[int, float]" = OrderedDict()  # ticket -> start, oldest first
        self._tickets = itertools.count(1)

    def describe(self) -> dict:
        """What /healthz shows of it."""
        return {"most": self.most, "young_ms": round(self.young_s * 1000)}

    def wait_s(self) -> Optional[float]:
        """None if one more may start now, else the seconds until the oldest young one ages out."""
        now = self.clock()
        while self._young:
            ticket, since = next(iter(self._young.items()))
            if now - since < self.young_s:
                break
            del self._young[ticket]
        if len(self._young) < self.most:
            return None
        return next(iter(self._young.values())) + self.young_s - now

    def start(self) -> int:
        ticket = next(self._tickets)
        self._young[ticket] = self.clock()
        return ticket

    def ended(self, ticket: int) -> None:
        self._young.pop(ticket, None)


def young_cap_for(per_core: float, young_ms: float, cores: int) -> Optional[YoungCap]:
    """The cap for this machine's cores, or None where switched off (either setting 0)."""
    if per_core <= 0 or young_ms <= 0:
        return None
    return YoungCap(round(per_core * max(1, cores)), young_ms / 1000.0)  # at least 1: YoungCap
