"""Fair sharing of the sandbox's slots between requests.

Work is queued under two keys: the outer one is a caller (an HTTP request, a batch), the
inner one a program inside it. Workers take turns over outer keys, and within an outer
key over inner keys, so a batch of a thousand programs cannot starve a request of one,
and one program's hundred tests cannot starve its neighbours in a batch.

A worker starts its next execution only when the ``YoungCap`` (``young_cap.py``) has room (so
quick programs run a few at a time, not all at once) and the ``CpuGate`` (``cpu_gate.py``, off by
default) admits one more: many slots let sleepers overlap, the gate keeps CPU-bound programs from
all sharing the cores at once.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from concurrent.futures import Future
from typing import Any, Callable, Hashable, Optional

from .cpu_gate import POLL_S, CpuGate
from .young_cap import YoungCap

log = logging.getLogger("codetest.scheduler")


class FairScheduler:
    def __init__(self, workers: int, name: str = "codetest-worker", gate: Optional[CpuGate] = None,
                 young_cap: Optional[YoungCap] = None):
        self._cv = threading.Condition()
        self._gate = gate
        self._young_cap = young_cap
        self._cap_wait_s: Optional[float] = None  # a full cap: when its oldest young one ages out
        self._watcher_waiting = False  # one idle worker re-reads a closed gate or a full cap; the rest sleep
        self._queues: "OrderedDict[Hashable, OrderedDict[Hashable, deque]]" = OrderedDict()
        self._pending = 0
        self._running = 0
        self._closed = False
        self._threads = [threading.Thread(target=self._loop, name=f"{name}-{i}", daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[[], Any], outer: Hashable, inner: Hashable = None) -> Future:
        fut: Future = Future()
        with self._cv:
            if self._closed:
                raise RuntimeError("scheduler is closed")
            self._queues.setdefault(outer, OrderedDict()).setdefault(inner, deque()).append((fn, fut))
            self._pending += 1
            if not self._cap_watched():
                self._cv.notify()
        return fut

    def cancel(self, outer: Hashable, inner: Hashable = None) -> int:
        """Drop the queued (not yet started) work of one program; their futures are cancelled."""
        with self._cv:
            inners = self._queues.get(outer)
            if not inners or inner not in inners:
                return 0
            items = inners.pop(inner)
            if not inners:
                self._queues.pop(outer, None)
            self._pending -= len(items)
        for _fn, fut in items:
            fut.cancel()
        return len(items)

    @property
    def depth(self) -> int:
        """Executions waiting for a slot."""
        return self._pending

    @property
    def gate(self) -> Optional[CpuGate]:
        return self._gate

    @property
    def young_cap(self) -> Optional[YoungCap]:
        return self._young_cap

    @property
    def running(self) -> int:
        return self._running

    def _take(self):
        outer, inners = next(iter(self._queues.items()))
        inner, items = next(iter(inners.items()))
        fn, fut = items.popleft()
        # Rotate: this program goes to the back of its caller's line, the caller to the back of all.
        inners.move_to_end(inner)
        if not items:
            inners.pop(inner)
        self._queues.move_to_end(outer)
        if not inners:
            self._queues.pop(outer)
        self._pending -= 1
        return fn, fut

    def _may_start(self) -> Optional[int]:
        """A gate ticket (0 where there is no gate) if the next execution may start, else None."""
        self._cap_wait_s = None
        if not self._queues:
            return None
        if self._young_cap is not None:
            self._cap_wait_s = self._young_cap.wait_s()
            if self._cap_wait_s is not None:
                return None
        if self._gate is None:
            return 0
        try:
            return self._gate.admits(self._running)
        except Exception:  # noqa: BLE001 - the gate only orders work: a fault in it opens it
            log.exception("the CPU gate failed; starting the execution")
            return 0

    def _cap_watched(self) -> bool:
        """The cap is full and a worker already waits for its oldest young execution to age out
        (waking another would only send it back to sleep)."""
        return self._watcher_waiting and self._young_cap is not None and self._young_cap.wait_s() is not None

    def _loop(self) -> None:
        while True:
            with self._cv:
                ticket = None
                while not self._closed and (ticket := self._may_start()) is None:
                    if self._queues and not self._watcher_waiting:  # work waits at a closed gate or a full cap
                        self._watcher_waiting = True
                        try:
                            self._cv.wait(POLL_S if self._cap_wait_s is None else max(self._cap_wait_s, 0.0005))
                        finally:
                            self._watcher_waiting = False
                    else:
                        self._cv.wait()
                if self._closed and not self._queues:
                    return
                fn, fut = self._take()
                self._running += 1
                young = self._young_cap.start() if self._young_cap is not None else 0
                if self._queues and (self._gate is not None or self._young_cap is not None) and not self._cap_watched():
                    self._cv.notify()  # the next in line checks the gate and the cap for itself
            try:
                if fut.set_running_or_notify_cancel():
                    try:
                        fut.set_result(fn())
                    except BaseException as e:  # the caller sees it through the future
                        fut.set_exception(e)
            finally:
                with self._cv:
                    self._running -= 1
                    if ticket and self._gate is not None:
                        self._gate.ended(ticket)
                    if young:
                        self._young_cap.ended(young)
                # No one else is woken for the room this leaves: this worker takes the next itself.

    def close(self) -> None:
        with self._cv:
            self._closed = True
            leftovers = [fut for inners in self._queues.values() for items in inners.values() for _f, fut in items]
            self._queues.clear()
            self._pending = 0
            self._cv.notify_all()
        for fut in leftovers:
            fut.cancel()
