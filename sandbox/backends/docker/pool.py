"""A warm pool of pool containers: take one, give it back, replace what breaks.

The hot path never creates a container: ``acquire`` hands out a ready one, ``release``
puts it back, or retires it after ``jobs_per_container`` executions or at once after an
anomaly. Retired and dead containers are removed, and replacements started, by one
background thread, so a request never waits on ``docker rm``. When the engine itself is
gone (restarting, say) the thread retries with a bounded backoff until it answers again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Callable, Optional

from .container import ContainerError, PoolContainer

log = logging.getLogger("codetest.docker.pool")


class ContainerPool:
    def __init__(self, make: Callable[[int], PoolContainer], size: int, *, jobs_per_container: int,
                 sweep: Optional[Callable[[set[str]], int]] = None):
        self._make = make
        self.size = size
        self.jobs_per_container = max(1, jobs_per_container)
        self._sweep = sweep
        self._cond = threading.Condition()
        self._idle: deque[PoolContainer] = deque()
        self._busy: set[PoolContainer] = set()
        self._starting = 0
        self._retired: deque[PoolContainer] = deque()
        self._closed = False
        self._next_index = 0
        self.stats = {"started": 0, "start_failures": 0, "recycled": 0, "discarded": 0, "removed": 0}
        self.last_error: Optional[str] = None
        self.last_ready = time.monotonic()
        self._failures_in_row = 0
        self._backoff = 0.0
        self._not_before = 0.0
        self.parallel_starts = 4
        self._thread = threading.Thread(target=self._keeper, name="codetest-docker-pool", daemon=True)
        self._thread.start()

    # -- the hot path

    def acquire(self, timeout: float) -> Optional[PoolContainer]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if self._closed:
                    return None
                while self._idle:
                    c = self._idle.popleft()
                    if c.alive():
                        self._busy.add(c)
                        return c
                    self._retire_locked(c, "found dead while idle")
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, 1.0))

    def release(self, c: PoolContainer) -> None:
        with self._cond:
            self._busy.discard(c)
            if self._closed:
                self._retired.append(c)
            elif not c.alive():
                self._retire_locked(c, "died")
            elif c.jobs >= self.jobs_per_container:
                self.stats["recycled"] += 1
                self._retire_locked(c, None)
            else:
                self._idle.append(c)
            self._cond.notify_all()

    def discard(self, c: PoolContainer, why: str) -> None:
        """Retire a container after an anomaly or a fault: it never runs another job."""
        with self._cond:
            self._busy.discard(c)
            try:
                self._idle.remove(c)
            except ValueError:
                pass
            self.stats["discarded"] += 1
            self._retire_locked(c, why)
            self._cond.notify_all()

    def _retire_locked(self, c: PoolContainer, why: Optional[str]) -> None:
        if why:
            log.warning("retiring container %s: %s", c.name, why)
        self._retired.append(c)
        self._cond.notify_all()

    # -- counts

    def counts(self) -> dict:
        with self._cond:
            ready = len(self._idle) + len(self._busy)
            if ready:
                self.last_ready = time.monotonic()
            return {"size": self.size, "idle": len(self._idle), "busy": len(self._busy),
                    "starting": self._starting, "retiring": len(self._retired), **self.stats}

    def down_for(self) -> float:
        """Seconds without a single ready container (0 while there is one)."""
        with self._cond:
            if self._idle or self._busy:
                self.last_ready = time.monotonic()
                return 0.0
            return time.monotonic() - self.last_ready

    def wait_ready(self, n: int, timeout: float) -> int:
        """Block until ``n`` containers are idle (or the time is up); how many are."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self._idle) < n and time.monotonic() < deadline and not self._closed:
                if self._failures_in_row >= 3 and not self.stats["started"]:
                    break  # never started one (no image, broken runtime): do not wait the whole time
                self._cond.wait(min(1.0, max(0.0, deadline - time.monotonic())))
            return len(self._idle)

    # -- the keeper thread

    def _keeper(self) -> None:
        last_sweep = 0.0
        while True:
            with self._cond:
                if self._closed:
                    return
                retired = list(self._retired)
                self._retired.clear()
                want = self.size - (len(self._idle) + len(self._busy) + self._starting)
                launch = []
                now = time.monotonic()
                while want > 0 and self._starting < self.parallel_starts and now >= self._not_before:
                    self._starting += 1
                    want -= 1
                    launch.append(self._next_index)
                    self._next_index += 1
            for index in launch:
                threading.Thread(target=self._start_one, args=(index,), name=f"codetest-docker-start-{index}",
                                 daemon=True).start()
            for c in retired:
                c.remove()
                self.stats["removed"] += 1
            if self._sweep is not None and time.monotonic() - last_sweep > 30:
                last_sweep = time.monotonic()
                self._sweep_now()
            with self._cond:
                if not self._retired and not self._closed:
                    self._cond.wait(0.5)

    def _start_one(self, index: int) -> None:
        c = self._make(index)
        try:
            c.start()
        except ContainerError as e:
            c.remove()
            with self._cond:
                self._starting -= 1
                self.stats["start_failures"] += 1
                self._failures_in_row += 1
                self.last_error = str(e)
                # Engine down or image missing: back off (bounded) before the next try.
                self._backoff = min(max(self._backoff * 2, 0.2), 5.0)
                self._not_before = time.monotonic() + self._backoff
                self._cond.notify_all()
            log.warning("pool container start failed (%s); next try in %.1fs", e, self._backoff)
            return
        with self._cond:
            self._starting -= 1
            self._failures_in_row = 0
            self._backoff = 0.0
            self.last_error = None
            self.stats["started"] += 1
            if self._closed:
                self._retired.append(c)
                remove_now = True
            else:
                self._idle.append(c)
                self.last_ready = time.monotonic()
                remove_now = False
            self._cond.notify_all()
        if remove_now:
            c.remove()

    def _sweep_now(self) -> None:
        """Remove containers of this pool the engine still lists but the pool no longer holds."""
        with self._cond:
            keep = {c.id for c in list(self._idle) + list(self._busy) if c.id}
        try:
            n = self._sweep(keep) if self._sweep else 0
            if n:
                log.warning("removed %d stray container(s) of this pool", n)
        except Exception as e:  # engine down: the next round tries again
            log.debug("sweep failed: %s", e)

    def close(self, timeout: float = 60.0) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout)
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._starting and time.monotonic() < deadline:  # starts in flight remove themselves
                self._cond.wait(0.5)
            everything = list(self._idle) + list(self._busy) + list(self._retired)
            self._idle.clear(), self._busy.clear(), self._retired.clear()
        threads = [threading.Thread(target=c.remove, daemon=True) for c in everything]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout)
        if self._sweep is not None:
            self._sweep_now()
