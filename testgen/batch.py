"""Batch jobs: many problems, parallel workers, a progress bar, resumable after a kill.

The output file is append-only: one finished problem, one line, flushed and fsynced.
On restart the ids already in the file are skipped (a line cut short by the kill is
dropped first), so finished problems are never redone. A problem that fails is written
too, with ``testgen.status = "failed"`` and the reason; it never stops the batch.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Optional

from .pipeline import Settings, synthesize
from .problem import iter_records
from .runner import Runner


def finished_ids(path: str) -> set[str]:
    """Ids already written; a trailing partial line (a kill mid-write) is cut off the file."""
    done: set[str] = set()
    if not os.path.exists(path):
        return done
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            f.truncate(cut)
            data = data[:cut]
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and (rec.get("id") is not None or rec.get("task_id") is not None):
            pid = str(rec.get("id") if rec.get("id") is not None else rec.get("task_id"))
            if (rec.get("testgen") or {}).get("status") == "sandbox_error":
                done.discard(pid)  # the sandbox failed, not the problem: do it again
            else:
                done.add(pid)
    return done


def read_suites(path: str) -> list[dict[str, Any]]:
    """The records of a suites file, one per id (a problem redone after a sandbox error
    appears twice in the append-only file: the last line wins)."""
    by_id: dict[str, dict[str, Any]] = {}
    for _, rec, _err in iter_records(path):
        if rec is not None:
            by_id[str(rec.get("id") if rec.get("id") is not None else rec.get("task_id"))] = rec
    return list(by_id.values())


class _Writer:
    def __init__(self, path: str):
        self.f = open(path, "a", encoding="utf-8")
        self.lock = threading.Lock()

    def write(self, rec: dict[str, Any]) -> None:
        line = json.dumps(rec, ensure_ascii=False) + "\n"
        with self.lock:
            self.f.write(line)
            self.f.flush()
            os.fsync(self.f.fileno())

    def close(self) -> None:
        self.f.close()


def select_todo(problems_path: str, out_path: str, limit: Optional[int] = None, only: Optional[set[str]] = None
                ) -> tuple[set[str], list[dict[str, Any]], list[str]]:
    """(ids already in the output, the problems still to do, unreadable lines): the resume rule."""
    done = finished_ids(out_path)
    todo: list[dict[str, Any]] = []
    bad: list[str] = []
    seen = 0
    for no, rec, err in iter_records(problems_path):
        if limit is not None and seen >= limit:
            break
        seen += 1
        if err is not None or rec is None:
            bad.append(err or f"line {no}: unreadable")
            continue
        pid = rec.get("id") if rec.get("id") is not None else rec.get("task_id")
        if pid is None:
            bad.append(f"line {no}: record has no id")
            continue
        if (only is not None and str(pid) not in only) or str(pid) in done:
            continue
        todo.append(rec)
    return done, todo, bad


class ResultLog:
    """Where finished problems go, for every way of running a batch (threads here, Ray in
    ``distributed.py``): the output line (flushed, fsynced), the summary, the progress bar, and
    the stop rule (``abort_after`` sandbox errors in a row: the sandbox is down, stop instead of
    burning the list)."""

    def __init__(self, out_path: str, done: set[str], todo: list[dict[str, Any]], bad: list[str],
                 progress: bool = True, abort_after: int = 3):
        self.summary: dict[str, Any] = {"skipped_done": len(done), "todo": len(todo), "bad_lines": bad,
                                        "status": Counter(), "tests": 0, "problems": [], "aborted": None}
        self.writer = _Writer(out_path)
        self.bar = _bar(len(todo)) if progress else None
        self.abort_after = abort_after
        self._streak = 0

    def record(self, rec: dict[str, Any], out: Any) -> dict[str, Any]:
        """Write one finished problem (``out``: its record, or the exception that ended it)."""
        if isinstance(out, BaseException):  # synthesize catches everything; belt and braces
            out = dict(rec, tests=[], testgen={"status": "failed", "reason": f"{type(out).__name__}: {out}"})
        self.writer.write(out)
        st = out.get("testgen", {})
        sm = self.summary
        sm["status"][st.get("status", "?")] += 1
        sm["tests"] += len(out.get("tests") or [])
        sm["problems"].append({"id": out.get("id", out.get("task_id")), "status": st.get("status"),
                               "tests": len(out.get("tests") or []), "reason": st.get("reason")})
        if self.bar:
            self.bar.advance(str(out.get("id", "")), st.get("status", "?"))
        self._streak = self._streak + 1 if st.get("status") == "sandbox_error" else 0
        if self._streak >= self.abort_after:
            sm["aborted"] = f"stopped after {self._streak} sandbox errors in a row: {st.get('reason')}"
        return out

    @property
    def aborted(self) -> bool:
        return self.summary["aborted"] is not None

    def close(self) -> dict[str, Any]:
        self.writer.close()
        if self.bar:
            self.bar.close()
        self.summary["status"] = dict(self.summary["status"])
        return self.summary


def run_batch(problems_path: str, out_path: str, runner: Runner, settings: Settings, workers: int = 2,
              limit: Optional[int] = None, only: Optional[set[str]] = None, progress: bool = True,
              on_done: Optional[Callable[[dict[str, Any]], None]] = None, abort_after: int = 3) -> dict[str, Any]:
    """Synthesize suites for every problem not yet in ``out_path``; returns a summary."""
    done, todo, bad = select_todo(problems_path, out_path, limit, only)
    log = ResultLog(out_path, done, todo, bad, progress, abort_after)
    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futs: dict[Future, dict[str, Any]] = {}
            it = iter(todo)
            # keep at most `workers` problems in flight so a kill loses little work
            for rec in it:
                futs[pool.submit(synthesize, rec, runner, settings)] = rec
                if len(futs) >= workers:
                    break
            while futs:
                finished, _ = wait(list(futs), return_when=FIRST_COMPLETED)
                for fut in finished:
                    rec = futs.pop(fut)
                    exc = fut.exception()
                    out = log.record(rec, exc if exc is not None else fut.result())
                    if on_done:
                        on_done(out)
                    if log.aborted:
                        continue
                    nxt = next(it, None)
                    if nxt is not None:
                        futs[pool.submit(synthesize, nxt, runner, settings)] = nxt
    finally:
        summary = log.close()
    return summary


class _bar:
    """A rich progress bar on stderr (plain lines when stderr is not a terminal)."""

    def __init__(self, total: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.console = Console(stderr=True)
        self.progress = Progress(TextColumn("testgen"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                 TextColumn("{task.description}"), console=self.console,
                                 disable=not self.console.is_terminal)
        self.task = self.progress.add_task("", total=total)
        self.total, self.n = total, 0
        self.progress.start()

    def advance(self, pid: str, status: str) -> None:
        self.n += 1
        self.progress.update(self.task, advance=1, description=f"{pid} {status}")
        if not self.console.is_terminal:
            self.console.print(f"[{self.n}/{self.total}] {pid}: {status}", highlight=False)

    def close(self) -> None:
        self.progress.stop()
