"""The service's state: one sandbox, one admission queue, one job pool, one metrics registry."""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Optional

from .admission import Admission
from .metrics import Metrics
from .rejoin import SharedRuns
from .runner import JobRunner
from .settings import ServiceSettings

log = logging.getLogger("codetest.api")


class Service:
    def __init__(self, settings: ServiceSettings, sandbox: Any = None, *, backend: Optional[str] = None,
                 slots: Optional[int] = None):
        self.settings = settings
        self.metrics = Metrics()
        self.sandbox = sandbox
        self.owns_sandbox = sandbox is None
        self._backend = backend
        self._slots = slots
        self.startup_problem: Optional[str] = None
        self.languages: set[str] = set()
        self.admission: Optional[Admission] = None
        self.runner: Optional[JobRunner] = None
        self.shared_runs = SharedRuns()
        self.started_at = time.time()

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Build the sandbox if we own it; learn its slots and languages; size the queue."""
        if self.sandbox is None:
            from sandbox import Sandbox, SandboxConfig, SandboxUnavailable
            from sandbox.config import slots_from_env

            cfg = SandboxConfig()
            if self._backend:
                cfg.backend = self._backend
            if self._slots:
                cfg.slots = self._slots
            elif not slots_from_env() and cfg.backend == "native":
                cfg.slots = self.settings.default_slots(os.cpu_count() or 1)
            try:
                self.sandbox = Sandbox(cfg)
            except SandboxUnavailable as e:  # serve anyway: /healthz says why, runs answer 503
                self.startup_problem = str(e)
                log.error("sandbox unavailable: %s", e)
        slots = self._sandbox_slots()
        capacity = self.settings.capacity(slots)
        self.admission = Admission(capacity, slots)
        self.metrics.queue_capacity.set(capacity)
        self.metrics.queue_depth.set_function(lambda: self.admission.depth if self.admission else 0)
        self.runner = JobRunner(self.sandbox, self.metrics, max_workers=capacity + self.settings.window(slots))
        self.languages = set(self._health().get("languages", {}) or {})

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.close()
        if self.owns_sandbox and self.sandbox is not None:
            try:
                self.sandbox.close()
            except Exception:  # noqa: BLE001 - closing must not mask the shutdown
                log.exception("closing the sandbox failed")

    # ------------------------------------------------------------------ facts
    def _sandbox_slots(self) -> int:
        sb = self.sandbox
        for src in (getattr(getattr(sb, "backend", None), "slots", None), getattr(sb, "slots", None),
                    getattr(getattr(sb, "config", None), "slots", None), self._slots):
            if isinstance(src, int) and src > 0:
                return src
        return 1

    @property
    def slots(self) -> int:
        return self._sandbox_slots()

    def window(self) -> int:
        return self.settings.window(self.slots)

    def _health(self) -> dict:
        if self.sandbox is None:
            return {"ok": False, "problems": [self.startup_problem or "no sandbox"]}
        try:
            return dict(self.sandbox.health())
        except Exception as e:  # noqa: BLE001 - a broken health check is itself a health fact
            log.exception("sandbox health check failed")
            return {"ok": False, "problems": [f"health check failed: {type(e).__name__}: {e}"]}

    def health(self) -> dict:
        h = self._health()
        problems = list(h.get("problems") or [])
        if self.startup_problem and self.startup_problem not in problems:
            problems.append(self.startup_problem)
        h["problems"] = problems
        h["ok"] = bool(h.get("ok", False)) and self.sandbox is not None
        h["sandbox_queue_depth"] = h.get("queue_depth", 0)
        h["queue_depth"] = self.admission.depth if self.admission else 0
        h["queue_capacity"] = self.admission.capacity if self.admission else 0
        h["admission"] = {"slot_wait_s": round(self.admission.wait_s(), 4) if self.admission else 0.0,
                          "avg_execution_s": round(self.admission.avg_exec_s, 4) if self.admission else 0.0,
                          "refused": self.admission.refused if self.admission else 0}
        h["executions_in_flight"] = self.runner.in_flight if self.runner else 0
        h["uptime_s"] = round(time.time() - self.started_at, 3)
        if h.get("languages"):
            self.languages = set(h["languages"])
        return h
