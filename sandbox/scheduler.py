"""Fair sharing of the sandbox's slots between requests.

Work is queued under two keys: the outer one is a caller (an HTTP request, a batch), the
inner one a program inside it. Workers take turns over outer keys, and within an outer
key over inner keys, so a batch of a thousand programs cannot starve a request of one,
and one program's hundred tests cannot starve its neighbours in a batch.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from concurrent.futures import Future
from typing import Any, Callable, Hashable


class FairScheduler:
    def __init__(self, workers: int, name: str = "codetest-worker"):
        self._cv = threading.Condition()
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

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._queues and not self._closed:
                    self._cv.wait()
                if self._closed and not self._queues:
                    return
                fn, fut = self._take()
                self._running += 1
            try:
                if fut.set_running_or_notify_cancel():
                    try:
                        fut.set_result(fn())
                    except BaseException as e:  # the caller sees it through the future
                        fut.set_exception(e)
            finally:
                with self._cv:
                    self._running -= 1

    def close(self) -> None:
        with self._cv:
            self._closed = True
            leftovers = [fut for inners in self._queues.values() for items in inners.values() for _f, fut in items]
            self._queues.clear()
            self._pending = 0
            self._cv.notify_all()
        for fut in leftovers:
            fut.cancel()
