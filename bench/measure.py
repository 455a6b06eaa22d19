"""One measurement: drive a workload through a runner at bounded concurrency, within a time budget.

Every mode (floor, library, CLI, HTTP, Docker) is a function from one *item* (a whole
submission, or one test of it) to an ``ItemResult``; this module times the items, keeps the
verdicts per test, and turns them into the numbers the table prints. Verdict agreement is
checked here, once, for every mode alike.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from .workloads import Submission

ERROR = "ERR"  # the runner itself failed for this item (HTTP error, CLI crash): never agrees
SHOW_DISAGREEMENTS = 5


@dataclass
class ItemResult:
    """What a runner returns for one item: a verdict per test it covered, and what it cost."""

    verdicts: list[str]
    exec_s: list[float] = field(default_factory=list)  # per-execution times, where the runner knows them
    compiles: int = 0
    compile_s: float = 0.0
    retries: int = 0
    notes: list[str] = field(default_factory=list)  # one line per test that deserves a look (stderr, message)


@dataclass
class Item:
    sub_index: int
    test_index: Optional[int]  # None: the whole submission
    submission: Submission


@dataclass
class Measurement:
    mode: str
    workload: str
    latency_unit: str  # "exec" (one test per call) or "request" (one submission with all its tests)
    submissions: int = 0
    executions: int = 0
    planned_executions: int = 0
    wall_s: float = 0.0
    latencies_s: list[float] = field(default_factory=list)
    exec_latencies_s: list[float] = field(default_factory=list)
    # per-test modes: each submission's executions added up, i.e. what judging it one test
    # after the other would take; the reference for modes that report per-request latency
    serial_request_s: list[float] = field(default_factory=list)
    verdict_counts: dict[str, int] = field(default_factory=dict)
    disagreements: int = 0
    disagreement_examples: list[dict[str, Any]] = field(default_factory=list)
    se: int = 0
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    partial: bool = False
    compiles: int = 0
    compile_s: float = 0.0
    retries: int = 0
    concurrency: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    skipped: Optional[str] = None

    @property
    def exec_per_s(self) -> float:
        return self.executions / self.wall_s if self.wall_s > 0 else 0.0

    def latency(self, q: float, per_exec: bool = False) -> Optional[float]:
        return percentile(self.exec_latencies_s if per_exec else self.latencies_s, q)

    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items()
             if k not in ("latencies_s", "exec_latencies_s", "serial_request_s")}
        d["exec_per_s"] = round(self.exec_per_s, 3)
        d["wall_s"] = round(self.wall_s, 3)
        d["compile_s"] = round(self.compile_s, 3)
        for q in (50, 99):
            v = self.latency(q)
            d[f"p{q}_s"] = round(v, 5) if v is not None else None
        return d


def percentile(values: Sequence[float], q: float) -> Optional[float]:
    """Nearest-rank percentile; None for no values."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def items_of(subs: Sequence[Submission], per_test: bool) -> list[Item]:
    if per_test:
        return [Item(i, j, s) for i, s in enumerate(subs) for j in range(len(s.tests))]
    return [Item(i, None, s) for i, s in enumerate(subs)]


def drive(mode: str, workload: str, subs: Sequence[Submission], fn: Callable[[Item], ItemResult], *,
          per_test: bool, concurrency: int, budget_s: float) -> Measurement:
    """Run every item through ``fn`` with at most ``concurrency`` in flight; start none after ``budget_s``.

    Latency of an item is its own call's wall time (queueing inside the system included,
    queueing in front of it excluded: the bench never has more than ``concurrency`` out).
    """
    items = items_of(subs, per_test)
    m = Measurement(mode=mode, workload=workload, latency_unit="exec" if per_test else "request",
                    concurrency=concurrency, planned_executions=sum(s.executions for s in subs))
    got: list[list[Optional[str]]] = [[None] * len(s.tests) for s in subs]
    notes: dict[tuple[int, int], str] = {}
    per_sub_s: dict[int, float] = {}
    lock = threading.Lock()
    next_index = [0]
    start = time.perf_counter()
    deadline = start + budget_s
    finished_at = [start]

    def worker() -> None:
        while True:
            with lock:
                if next_index[0] >= len(items) or time.perf_counter() > deadline:
                    if next_index[0] < len(items):
                        m.partial = True
                    return
                item = items[next_index[0]]
                next_index[0] += 1
            t0 = time.perf_counter()
            try:
                res = fn(item)
            except Exception as e:  # noqa: BLE001 - a runner failure is this item's error, counted
                n = 1 if item.test_index is not None else len(item.submission.tests)
                res = ItemResult(verdicts=[ERROR] * n, notes=[f"{type(e).__name__}: {e}"[:300]] * n)
            took = time.perf_counter() - t0
            with lock:
                finished_at[0] = max(finished_at[0], time.perf_counter())
                m.latencies_s.append(took)
                if item.test_index is not None:
                    m.exec_latencies_s.append(took)
                    per_sub_s[item.sub_index] = per_sub_s.get(item.sub_index, 0.0) + took
                else:
                    m.exec_latencies_s.extend(res.exec_s)
                m.compiles += res.compiles
                m.compile_s += res.compile_s
                m.retries += res.retries
                first = item.test_index if item.test_index is not None else 0
                for k, v in enumerate(res.verdicts):
                    got[item.sub_index][first + k] = v
                    if k < len(res.notes) and res.notes[k]:
                        notes[(item.sub_index, first + k)] = res.notes[k]

    threads = [threading.Thread(target=worker, name=f"bench-{mode}-{k}", daemon=True)
               for k in range(max(1, concurrency))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    m.wall_s = finished_at[0] - start
    m.serial_request_s = list(per_sub_s.values())
    judge(m, subs, got, notes)
    return m


def judge(m: Measurement, subs: Sequence[Submission], got: list[list[Optional[str]]],
          notes: Optional[dict[tuple[int, int], str]] = None) -> None:
    """Compare every verdict with what the workload accepts for that test."""
    notes = notes or {}
    for i, (s, verdicts) in enumerate(zip(subs, got)):
        if any(v is not None for v in verdicts):
            m.submissions += 1
        for j, v in enumerate(verdicts):
            if v is None:
                continue
            m.executions += 1
            m.verdict_counts[v] = m.verdict_counts.get(v, 0) + 1
            if v == "SE":
                m.se += 1
            if v == ERROR:
                m.errors += 1
                if len(m.error_examples) < SHOW_DISAGREEMENTS:
                    m.error_examples.append(f"{s.id} test {j}: {notes.get((i, j), '')}")
            if v not in s.tests[j].accept:
                m.disagreements += 1
                if len(m.disagreement_examples) < SHOW_DISAGREEMENTS:
                    m.disagreement_examples.append({
                        "id": s.id, "kind": s.kind, "test": j, "expected": list(s.tests[j].accept), "got": v,
                        "note": notes.get((i, j), "")[:300],
                    })
