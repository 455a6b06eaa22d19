"""``codetest testgen --ray`` and ``codetest evaluate --ray``: the same pipeline over a Ray cluster.

One actor per node owns that node's cores: it holds one sandbox (``slots`` = the node's CPUs,
or a ``--server`` URL: a call to a service on that node) and runs up to that many problems at
once. The driver hands problems to the actors (the least busy first), writes each finished
problem to the output as it arrives (one line, flushed and fsynced: the same append-only file
and resume rule as ``testgen.batch``), and shows the progress bar.

* A worker or node that dies: its actor's problems go back in the queue and run on the
  actors that are left; nothing it had not finished was written, so nothing is written twice.
* The driver that dies: rerun the same command; finished problems are skipped.
* The same seed gives the same suites as a one-machine run: each problem is synthesized by the
  same ``synthesize`` with the same settings, and its randomness is keyed by seed and problem id.

Ray is imported here only, and only with ``--ray`` (``pip install codetest[ray]``).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any, Callable, Optional

from .batch import ResultLog, _Writer, finished_ids, select_todo

# A node's actor runs this many jail uids apart from the next one's (several Ray nodes on one
# machine, as in tests, must not share program uids).
UID_STRIDE = 2048


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster could not be reached (the CLI exits 2)."""


def connect(address: Optional[str], num_cpus: Optional[int] = None) -> Any:
    """Join the cluster at ``address``, or start a local one on 127.0.0.1 when it is None or "local"."""
    if address in (None, "", "local") or _is_loopback(address):
        # Ray turns a loopback address into the machine's outward IP before it connects; a
        # cluster on 127.0.0.1 (all of it on this machine) must be reached at 127.0.0.1.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if address not in (None, "", "local", "auto"):
        _check_reachable(address)
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'codetest[ray]'") from None
    try:
        if address in (None, "", "local"):
            ray.init(address="local", _node_ip_address="127.0.0.1", include_dashboard=False, num_cpus=num_cpus,
                     log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except Exception as e:  # noqa: BLE001 - a cluster we cannot join is bad input, not a crash
        raise RayUnavailable(f"cannot join the Ray cluster at {address or 'a new local cluster'}: {e}") from e
    return ray


def _split(address: str) -> tuple[str, Optional[int]]:
    addr = address.split("://", 1)[-1]
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        return addr, None
    return host.strip("[]"), int(port)


def _is_loopback(address: str) -> bool:
    host, _ = _split(address)
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast (ray.init would wait for minutes) when nothing listens at host:port."""
    import socket

    host, port = _split(address)
    if port is None:
        return  # a ray:// URL or a name Ray resolves itself
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as e:
        raise RayUnavailable(f"cannot join the Ray cluster at {address}: {e}") from None


class NodeWorker:
    """One per node: the node's sandbox (or a service URL) and the pipeline. Runs inside Ray."""

    def __init__(self, index: int, slots: int, runner_spec: dict[str, Any]):
        from .runner import HttpRunner, LocalRunner

        if runner_spec.get("server"):
            self.runner = HttpRunner(runner_spec["server"], api_key=runner_spec.get("api_key"), parallel=2 * slots)
        else:
            from sandbox import Sandbox, SandboxConfig

            cfg = SandboxConfig(backend=runner_spec.get("backend") or "native", slots=slots)
            cfg.uid_base += index * UID_STRIDE
            if runner_spec.get("allow_missing"):
                cfg.allow_missing = tuple(runner_spec["allow_missing"])
            sb = Sandbox(cfg)
            try:
                sb.check_isolation()
            except Exception:
                sb.close()
                raise
            self.runner = LocalRunner(sb)
            self.runner._own = True

    def ready(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()

    def synthesize(self, rec: dict[str, Any], settings: Any) -> dict[str, Any]:
        from .pipeline import synthesize

        return synthesize(rec, self.runner, settings)

    def evaluate(self, rec: dict[str, Any], options: dict[str, Any]) -> Any:
        from .evaluate import evaluate

        return evaluate([rec], self.runner, **options).problems[0]

    def close(self) -> None:
        self.runner.close()


class ActorPool:
    """Actors, one per alive node with CPUs, each taking up to ``capacity`` tasks at once.

    ``map_unordered(items, call)`` yields (item, result or exception, node id) as tasks finish; a task
    whose actor died is given to another actor (new nodes that joined meanwhile get actors)."""

    def __init__(self, ray: Any, runner_spec: dict[str, Any], per_node: Optional[int] = None):
        self.ray = ray
        self.runner_spec = runner_spec
        self.per_node = per_node
        self.actors: dict[str, tuple[Any, int]] = {}  # node id -> (actor, capacity)
        self._index = 0
        self._respawns: dict[str, int] = {}
        self.lost_nodes: list[str] = []
        self.replaced = 0  # actors that died on a node still alive and were started again there

    def _spawn(self) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        cls = self.ray.remote(NodeWorker)
        new = []
        for node in self.ray.nodes():
            cpus = int(node.get("Resources", {}).get("CPU", 0))
            nid = node["NodeID"]
            if not node.get("Alive") or cpus < 1 or nid in self.actors or nid in self.lost_nodes:
                continue
            cap = self.per_node or cpus
            actor = cls.options(num_cpus=cpus, max_concurrency=cap, max_restarts=0,
                                scheduling_strategy=NodeAffinitySchedulingStrategy(nid, soft=False)).remote(
                self._index, cpus, self.runner_spec)
            self._index += 1
            new.append((nid, actor, cap))
        for nid, actor, cap in new:  # a node whose sandbox cannot start is left out, loudly
            try:
                self.ray.get(actor.ready.remote(), timeout=120)
                self.actors[nid] = (actor, cap)
            except Exception as e:  # noqa: BLE001
                self.lost_nodes.append(nid)
                self._last_spawn_error = f"{type(e).__name__}: {e}"
        if not self.actors:
            raise RayUnavailable("no Ray node could start a sandbox: "
                                 + getattr(self, "_last_spawn_error", "the cluster has no node with a CPU"))

    def map_unordered(self, items: list[Any], call: Callable[[Any, Any], Any]):
        from ray.exceptions import GetTimeoutError, RayActorError

        self._spawn()
        queue = list(reversed(items))
        busy: dict[str, int] = {nid: 0 for nid in self.actors}
        running: dict[Any, tuple[Any, str]] = {}
        while queue or running:
            for nid in sorted(self.actors, key=lambda n: busy.get(n, 0) / self.actors[n][1]):
                actor, cap = self.actors[nid]
                while queue and busy.get(nid, 0) < cap:
                    item = queue.pop()
                    running[call(actor, item)] = (item, nid)
                    busy[nid] = busy.get(nid, 0) + 1
            if not running:
                break
            done, _ = self.ray.wait(list(running), num_returns=1, timeout=5.0)
            for ref in done:
                item, nid = running.pop(ref)
                busy[nid] -= 1
                try:
                    yield item, self.ray.get(ref), nid
                except RayActorError:  # the worker or its node died: the task goes back to the queue
                    queue.append(item)
                    self._actor_died(nid)
                    for n in self.actors:
                        busy.setdefault(n, 0)
                except GetTimeoutError:
                    queue.append(item)
                except Exception as e:  # noqa: BLE001 - the task's own error is its result
                    yield item, e, nid

    def _actor_died(self, nid: str) -> None:
        """Forget the dead actor; a node still alive gets a new one (a few times at most), a
        node that is gone is lost. Other tasks of the dead actor fail the same way and land here too."""
        if nid not in self.actors:
            return
        del self.actors[nid]
        alive = any(n["NodeID"] == nid and n.get("Alive") for n in self.ray.nodes())
        self._respawns[nid] = self._respawns.get(nid, 0) + 1
        if not alive or self._respawns[nid] > 3:
            self.lost_nodes.append(nid)
        self._spawn_or_fail()
        self.replaced += nid in self.actors

    def _spawn_or_fail(self) -> None:
        try:
            self._spawn()
        except RayUnavailable as e:
            raise RayUnavailable(f"every Ray node with a sandbox is gone ({e}); rerun the same command to resume") \
                from None

    def close(self) -> None:
        for actor, _ in self.actors.values():
            try:
                self.ray.get(actor.close.remote(), timeout=60)
            except Exception:  # noqa: BLE001 - a dead actor has nothing to close
                pass
            self.ray.kill(actor)
        self.actors = {}


def run_batch_ray(ray: Any, problems_path: str, out_path: str, runner_spec: dict[str, Any], settings: Any, *,
                  limit: Optional[int] = None, only: Optional[set[str]] = None, progress: bool = True,
                  per_node: Optional[int] = None, abort_after: int = 3) -> dict[str, Any]:
    """``testgen.batch.run_batch`` over a Ray cluster; the same summary."""
    done, todo, bad = select_todo(problems_path, out_path, limit, only)
    pool = ActorPool(ray, runner_spec, per_node)
    log = ResultLog(out_path, done, todo, bad, progress, abort_after)
    settings_ref = ray.put(settings)
    per_node: Counter = Counter()
    t0 = time.monotonic()
    try:
        for rec, out, nid in pool.map_unordered(todo, lambda a, r: a.synthesize.remote(r, settings_ref)):
            per_node[nid] += 1
            log.record(rec, out)
            if log.aborted:
                break
    finally:
        summary = log.close()
        summary["per_node"] = dict(per_node)  # problems finished by each node
        summary["nodes_lost"] = len(pool.lost_nodes)
        summary["actors_replaced"] = pool.replaced
        pool.close()
    summary["elapsed_s"] = round(time.monotonic() - t0, 3)
    return summary


def evaluate_ray(ray: Any, records: list[dict[str, Any]], runner_spec: dict[str, Any], options: dict[str, Any],
                 solutions: Optional[dict[str, Any]] = None, checkpoint: Optional[str] = None,
                 progress: Optional[Callable[[int], None]] = None, per_node: Optional[int] = None) -> Any:
    """``testgen.evaluate.evaluate`` over a Ray cluster, one problem per task; the same Report.

    With ``checkpoint`` each problem's score is appended there as it finishes, and a rerun
    scores only the problems not in it yet."""
    from dataclasses import asdict

    from .evaluate import ProblemScore, Report

    def pid_of(rec: dict[str, Any]) -> str:
        return str(rec.get("id") or rec.get("task_id"))

    scores: dict[str, ProblemScore] = {}
    if checkpoint and os.path.exists(checkpoint):
        finished_ids(checkpoint)  # cut a line left half-written by a kill
        with open(checkpoint, encoding="utf-8") as f:
            for line in f:
                try:
                    d = json.loads(line)
                    scores[str(d["id"])] = ProblemScore(**d)
                except (ValueError, TypeError, KeyError):
                    continue
    todo = [r for r in records if pid_of(r) not in scores]
    writer = _Writer(checkpoint) if checkpoint else None
    pool = ActorPool(ray, runner_spec, per_node)
    try:
        def call(actor: Any, rec: dict[str, Any]) -> Any:
            opts = dict(options)
            if solutions is not None:
                opts["solutions"] = {pid_of(rec): solutions.get(pid_of(rec)) or {"correct": [], "incorrect": []}}
            return actor.evaluate.remote(rec, opts)

        for rec, out, _nid in pool.map_unordered(todo, call):
            if isinstance(out, BaseException):
                out = ProblemScore(id=pid_of(rec), tests=0, note=f"evaluation failed: {type(out).__name__}: {out}")
            scores[pid_of(rec)] = out
            if writer:
                writer.write({"id": out.id, **{k: v for k, v in asdict(out).items() if k != "id"}})
            if progress:
                progress(1)
    finally:
        if writer:
            writer.close()
        pool.close()
    return Report(problems=[scores[pid_of(r)] for r in records if pid_of(r) in scores])


def runner_spec(args: Any) -> dict[str, Any]:
    """What each node's actor runs with, from the CLI's runner flags."""
    allow = [x.strip() for x in (getattr(args, "allow_missing", None) or "").split(",") if x.strip()]
    return {"server": getattr(args, "server", None), "api_key": getattr(args, "api_key", None),
            "backend": getattr(args, "backend", None), "allow_missing": allow}
