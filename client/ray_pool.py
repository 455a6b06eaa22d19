"""Score a training step on many service replicas from inside a Ray cluster.

    import ray
    from client.ray_pool import RewardPool
    pool = RewardPool(["http://10.0.0.5:8080", "http://10.0.0.6:8080", "http://10.0.0.7:8080"], num_actors=4)
    results = pool.reward(items)            # one result per item, in order; reward None = service failed
    pool.close()

``num_actors`` small actors (0 CPUs each: they only wait on HTTP), spread over the cluster's
nodes, each holding a ``client.fanout.ReplicaSet`` over every replica (least loaded by queue
depth, or round robin; a failed chunk goes to another replica). A step's items are split
over the actors, so the requests leave from several processes and machines, not from the
driver alone. An actor that dies with its node is replaced and its share sent again.
This is what a verl or OpenRLHF reward function on Ray calls (see docs/scale.md).

Needs ``pip install codetest[ray]``; Ray is imported only here.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .fanout import ReplicaSet
from .types import RewardItem, RewardResult


class _FanoutActor:
    def __init__(self, urls: list[str], options: dict[str, Any]):
        self.replicas = ReplicaSet(urls, **options)

    def reward(self, items: list[RewardItem], scoring: str, deadline_s: Optional[float]) -> list[RewardResult]:
        return self.replicas.reward(items, scoring=scoring, deadline_s=deadline_s)

    def stats(self) -> list[dict[str, Any]]:
        return self.replicas.stats()

    def close(self) -> None:
        self.replicas.close()


class RewardPool:
    def __init__(self, urls: Sequence[str], *, num_actors: int = 2, policy: str = "least_loaded",
                 api_key: Optional[str] = None, chunk_size: int = 32, timeout_s: float = 360.0,
                 actor_options: Optional[dict[str, Any]] = None, max_actor_restarts: int = 3):
        import ray

        if not ray.is_initialized():
            raise RuntimeError("RewardPool runs inside a Ray job: call ray.init() first")
        if num_actors < 1:
            raise ValueError("num_actors must be at least 1")
        self._ray = ray
        self._urls = list(urls)
        self._options = {"policy": policy, "api_key": api_key, "chunk_size": chunk_size, "timeout_s": timeout_s}
        ReplicaSet(self._urls, **self._options).close()  # bad arguments fail here, not in an actor
        opts = {"num_cpus": 0, "scheduling_strategy": "SPREAD", "max_concurrency": 4}
        opts.update(actor_options or {})
        self._actor_cls = ray.remote(**opts)(_FanoutActor)
        self._actors = [self._new_actor() for _ in range(num_actors)]
        self._restarts_left = max_actor_restarts

    def _new_actor(self) -> Any:
        return self._actor_cls.remote(self._urls, self._options)

    def reward(self, items: Sequence[RewardItem], *, scoring: str = "fraction",
               deadline_s: Optional[float] = None) -> list[RewardResult]:
        """One result per item, in order, the work spread over the actors."""
        ray = self._ray
        items = list(items)
        n = len(self._actors)
        size = max(1, -(-len(items) // n))
        shares = [items[k:k + size] for k in range(0, len(items), size)]
        refs = [self._actors[i % n].reward.remote(s, scoring, deadline_s) for i, s in enumerate(shares)]
        out: list[RewardResult] = []
        for i, (share, ref) in enumerate(zip(shares, refs)):
            try:
                part = ray.get(ref)
            except ray.exceptions.RayActorError:
                if self._restarts_left <= 0:
                    raise
                self._restarts_left -= 1
                self._actors[i % n] = self._new_actor()  # its node went away: a fresh one, same share
                part = ray.get(self._actors[i % n].reward.remote(share, scoring, deadline_s))
            out.extend(part)
        return out

    def stats(self) -> list[list[dict[str, Any]]]:
        return self._ray.get([a.stats.remote() for a in self._actors])

    def close(self) -> None:
        ray = self._ray
        for a in self._actors:
            try:
                ray.get(a.close.remote(), timeout=30)
            except Exception:  # noqa: BLE001 - a dead actor has nothing left to close
                pass
            ray.kill(a)
        self._actors = []
