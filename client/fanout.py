"""Fan reward batches out over many service replicas, with failover.

    from client.fanout import ReplicaSet
    with ReplicaSet(["http://10.0.0.5:8080", "http://10.0.0.6:8080"]) as rs:
        results = rs.reward(items)          # one result per item, in order

A batch is cut into chunks; each chunk goes to one replica, chosen round robin or (default)
least loaded: the queue depth the replica last reported on ``/readyz`` (``/healthz`` on
older servers) plus what this client has sent it and not yet had back. A chunk whose
replica fails (connection refused or reset, 5xx, 503 while draining, 429) is sent again to
another replica, and the failed one is left out for ``cooldown_s``. Judging code has no
side effects, so a chunk re-sent after a replica died mid-request is safe; each item still
gets exactly one result. Nothing here imports ``sandbox``, ``api`` or ``ray``
(``client.ray_pool`` puts this inside Ray actors).
"""

from __future__ import annotations

import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import httpx

from .errors import APIError, CodetestError, ConnectionFailed, DeadlineExceeded
from .sync import Client
from .types import RewardItem, RewardResult

POLICIES = ("least_loaded", "round_robin")


@dataclass
class Replica:
    url: str
    client: Client
    reported_depth: int = 0  # executions queued there, as it last said
    probed_at: float = 0.0
    in_flight: int = 0  # items this client sent and has not had back
    down_until: float = 0.0
    answered: int = 0  # chunks answered (for tests and logs)
    failed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class AllReplicasFailed(ConnectionFailed):
    """No replica answered a chunk within its attempts."""


class ReplicaSet:
    def __init__(self, urls: Sequence[str], *, policy: str = "least_loaded", api_key: Optional[str] = None,
                 chunk_size: int = 32, timeout_s: float = 360.0, max_attempts: Optional[int] = None,
                 cooldown_s: float = 5.0, probe_interval_s: float = 1.0, max_parallel: Optional[int] = None,
                 headers: Optional[Mapping[str, str]] = None):
        if not urls:
            raise ValueError("ReplicaSet needs at least one replica URL")
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self.policy = policy
        self.chunk_size = chunk_size
        self.cooldown_s = cooldown_s
        self.probe_interval_s = probe_interval_s
        self.max_attempts = max_attempts if max_attempts is not None else 2 * len(urls) + 2
        # One attempt per replica call: failing over *is* the retry.
        self.replicas = [Replica(u.rstrip("/"), Client(u, api_key=api_key, timeout_s=timeout_s, max_retries=0,
                                                       headers=headers)) for u in urls]
        self._rr = itertools.cycle(range(len(self.replicas)))
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=max_parallel or 4 * len(self.replicas),
                                        thread_name_prefix="codetest-fanout")

    # ------------------------------------------------------------------ choosing
    def _probe(self, r: Replica) -> None:
        """Refresh the replica's reported queue depth (at most every probe_interval_s)."""
        now = time.monotonic()
        if now - r.probed_at < self.probe_interval_s:
            return
        r.probed_at = now
        try:
            resp = r.client._http.get("/readyz", timeout=2.0)
            if resp.status_code == 404:
                resp = r.client._http.get("/healthz", timeout=5.0)
            body = resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
            r.reported_depth = int(body.get("queue_depth") or 0)
            if resp.status_code == 503:  # not ready (draining, no sandbox): leave it out for a while
                r.down_until = now + self.cooldown_s
        except (httpx.HTTPError, ValueError):
            r.down_until = now + self.cooldown_s

    def _pick(self, tried: set[int]) -> Optional[int]:
        now = time.monotonic()
        with self._lock:
            up = [i for i, r in enumerate(self.replicas) if i not in tried and r.down_until <= now]
            if not up:  # everything tried or cooling down: fall back to the untried, then to any
                up = [i for i in range(len(self.replicas)) if i not in tried] or list(range(len(self.replicas)))
            if self.policy == "round_robin":
                for _ in range(len(self.replicas)):
                    i = next(self._rr)
                    if i in up:
                        return i
                return up[0]
        if self.policy == "least_loaded":
            for i in up:
                self._probe(self.replicas[i])
            start = next(self._rr)  # rotate ties
            order = sorted(up, key=lambda i: (self.replicas[i].reported_depth + self.replicas[i].in_flight,
                                              (i - start) % len(self.replicas)))
            return order[0]
        return up[0]

    # ------------------------------------------------------------------ sending
    def _send_chunk(self, items: list[RewardItem], scoring: str, deadline_s: Optional[float]) -> list[RewardResult]:
        tried: set[int] = set()
        last: Optional[BaseException] = None
        for attempt in range(self.max_attempts):
            i = self._pick(tried)
            assert i is not None
            r = self.replicas[i]
            tried.add(i)
            if len(tried) == len(self.replicas):
                tried.clear()  # every replica had a go: start the round again
            with r.lock:
                r.in_flight += len(items)
            try:
                out = r.client.reward(items, scoring=scoring, deadline_s=deadline_s)
                if len(out) != len(items):
                    raise CodetestError(f"{r.url} answered {len(out)} results for {len(items)} items")
                with r.lock:
                    r.answered += 1
                return out
            except (ConnectionFailed, DeadlineExceeded, APIError, CodetestError, httpx.HTTPError) as e:
                if isinstance(e, APIError) and not e.retryable:
                    raise  # the request itself is wrong: another replica would say the same
                last = e
                with r.lock:
                    r.failed += 1
                    r.down_until = time.monotonic() + self.cooldown_s
                time.sleep(min(2.0, 0.05 * (2 ** attempt)))
            finally:
                with r.lock:
                    r.in_flight -= len(items)
        raise AllReplicasFailed(f"no replica answered after {self.max_attempts} attempts; last: {last}")

    def reward(self, items: Sequence[RewardItem], *, scoring: str = "fraction",
               deadline_s: Optional[float] = None) -> list[RewardResult]:
        """One result per item, in order. Chunks run in parallel on the replicas."""
        items = list(items)
        chunks = [items[k:k + self.chunk_size] for k in range(0, len(items), self.chunk_size)]
        futures = [self._pool.submit(self._send_chunk, c, scoring, deadline_s) for c in chunks]
        out: list[RewardResult] = []
        for f in futures:
            out.extend(f.result())
        return out

    def stats(self) -> list[dict[str, Any]]:
        return [{"url": r.url, "answered": r.answered, "failed": r.failed, "reported_depth": r.reported_depth}
                for r in self.replicas]

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for r in self.replicas:
            r.client.close()

    def __enter__(self) -> "ReplicaSet":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
