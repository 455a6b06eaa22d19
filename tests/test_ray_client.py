"""The trainer-side fan-out: reward batches spread over several real replicas (each a real
`codetest` app with its own native sandbox on 127.0.0.1), with failover, plain and on Ray."""

from __future__ import annotations

import os
import socket
import sys
from contextlib import ExitStack, contextmanager
from typing import Iterator

import pytest

from _reward_service import BAD, DOUBLE_TESTS, GOOD

pytestmark = pytest.mark.timeout(240)


def items(n: int) -> list[dict]:
    return [{"id": f"i{k}", "completion": GOOD if k % 3 else BAD, "language": "python", "tests": DOUBLE_TESTS}
            for k in range(n)]


def check(results: list[dict], n: int) -> None:
    assert [r["id"] for r in results] == [f"i{k}" for k in range(n)]  # each item once, in order
    for k, r in enumerate(results):
        assert r["error"] is None and r["reward"] == (1.0 if k % 3 else 0.5), r


@contextmanager
def replicas(n: int, tmp_path) -> Iterator[list]:
    """n real services, one native sandbox slot each; yields (url, app) pairs."""
    from api import create_app
    from api.testing import serve_in_thread

    os.environ.setdefault("CODETEST_STATE_DIR", str(tmp_path / "state"))
    with ExitStack() as stack:
        out = []
        for k in range(n):
            app = create_app(slots=1)
            out.append((stack.enter_context(serve_in_thread(app)), app))
        yield out


def dead_url() -> str:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("policy", ["round_robin", "least_loaded"])
def test_fanout_spreads_over_replicas(policy, tmp_path):
    from client.fanout import ReplicaSet

    with replicas(3, tmp_path) as reps, ReplicaSet([u for u, _ in reps], policy=policy, chunk_size=4) as rs:
        check(rs.reward(items(24)), 24)
        stats = rs.stats()
    assert all(s["answered"] >= 1 for s in stats), stats  # every replica took a share
    assert sum(s["answered"] for s in stats) == 6 and all(s["failed"] == 0 for s in stats)


def test_fanout_fails_over_from_dead_and_draining_replicas(tmp_path):
    from client.fanout import ReplicaSet

    with replicas(2, tmp_path) as reps:
        (live, _), (draining, app) = reps
        app.state.lifecycle.begin_drain()  # answers work 503 + Retry-After, as after SIGTERM
        with ReplicaSet([dead_url(), draining, live], policy="round_robin", chunk_size=3, cooldown_s=30) as rs:
            check(rs.reward(items(12)), 12)
            stats = {s["url"]: s for s in rs.stats()}
    assert stats[live]["answered"] == 4  # every chunk ended up on the live replica, once
    assert stats[draining]["answered"] == 0 and stats[draining]["failed"] >= 1


def test_fanout_raises_a_bad_request_at_once(tmp_path):
    from client.errors import APIError
    from client.fanout import ReplicaSet

    with replicas(1, tmp_path) as reps, ReplicaSet([reps[0][0]]) as rs:
        with pytest.raises(APIError) as e:
            rs.reward([{"id": "x", "code": "print(1)", "language": "python", "tests": "not a list"}])
        assert e.value.status_code == 422
        assert rs.stats()[0]["failed"] == 0


def test_client_does_not_import_sandbox_api_or_ray():
    import subprocess

    code = ("import sys, client.fanout, client.ray_pool; "
            "bad = [m for m in ('sandbox', 'api', 'ray') if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ray_reward_pool_scores_on_every_replica(tmp_path):
    ray = pytest.importorskip("ray")
    from client.ray_pool import RewardPool

    with replicas(2, tmp_path) as reps:
        ray.init(num_cpus=1, _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
        try:
            pool = RewardPool([u for u, _ in reps], num_actors=2, chunk_size=4, policy="round_robin")
            try:
                check(pool.reward(items(32)), 32)
                per_replica: dict[str, int] = {}
                for actor_stats in pool.stats():
                    for s in actor_stats:
                        per_replica[s["url"]] = per_replica.get(s["url"], 0) + s["answered"]
            finally:
                pool.close()
        finally:
            ray.shutdown()
    assert sum(per_replica.values()) == 8 and all(v >= 1 for v in per_replica.values()), per_replica
