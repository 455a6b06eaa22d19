"""Prometheus metrics, one registry per app so several apps can live in one process (tests)."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "codetest_http_requests", "HTTP requests answered, by route template and status",
            ["route", "method", "status"], registry=r,
        )
        self.request_latency = Histogram(
            "codetest_http_request_duration_seconds", "HTTP request latency by route template",
            ["route"], buckets=LATENCY_BUCKETS, registry=r,
        )
        self.executions = Counter(
            "codetest_executions", "programs judged, by language and overall verdict",
            ["language", "verdict"], registry=r,
        )
        self.execution_latency = Histogram(
            "codetest_execution_duration_seconds", "wall time of one judged program (compile + all tests)",
            ["language"], buckets=LATENCY_BUCKETS, registry=r,
        )
        self.queue_depth = Gauge("codetest_queue_depth", "executions admitted and not yet finished", registry=r)
        self.queue_capacity = Gauge("codetest_queue_capacity", "executions that may be admitted at once", registry=r)
        # For an autoscaler: depth / capacity, 0..1 (a HorizontalPodAutoscaler targets its average).
        self.queue_utilization = Gauge("codetest_queue_utilization",
                                       "admitted executions as a share of capacity (0..1)", registry=r)
        self.requests_in_flight = Gauge("codetest_requests_in_flight", "work requests being answered", registry=r)
        self.draining = Gauge("codetest_draining", "1 while the replica drains after SIGTERM", registry=r)
        self.rejections = Counter(
            "codetest_rejections", "requests refused before running anything, by reason",
            ["reason"], registry=r,
        )
        self.run_code_rejoined = Counter(
            "codetest_run_code_rejoined", "/run_code requests that joined a run already there (the retry of a 504, "
            "or the same request twice at once)", registry=r,
        )
        self.run_code_still_running = Counter(
            "codetest_run_code_still_running", "/run_code requests answered 504 while their run went on", registry=r,
        )
        self.reward_items = Counter(
            "codetest_reward_items", "reward items scored, by outcome (scored, null, no_code)", ["outcome"], registry=r,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)
