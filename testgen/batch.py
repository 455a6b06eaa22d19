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


def run_batch(problems_path: str, out_path: str, runner: Runner, settings: Settings, workers: int = 2,
              limit: Optional[int] = None, only: Optional[set[str]] = None, progress: bool = True,
              on_done: Optional[Callable[[dict[str, Any]], None]] = None, abort_after: int = 3) -> dict[str, Any]:
    """Synthesize suites for every problem not yet in ``out_path``; returns a summary."""
    done = finished_ids(out_path)
    todo: list[dict[str, Any]] = []
    bad_lines: list[str] = []
    seen = 0
    for no, rec, err in iter_records(problems_path):
        if limit is not None and seen >= limit:
            break
        seen += 1
        if err is not None or rec is None:
            bad_lines.append(err or f"line {no}: unreadable")
            continue
        pid = rec.get("id") if rec.get("id") is not None else rec.get("task_id")
        if pid is None:
            bad_lines.append(f"line {no}: record has no id")
            continue
        if only is not None and str(pid) not in only:
            continue
        if str(pid) in done:
            continue
        todo.append(rec)
    summary: dict[str, Any] = {"skipped_done": len(done), "todo": len(todo), "bad_lines": bad_lines,
                               "status": Counter(), "tests": 0, "problems": [], "aborted": None}
    streak = 0  # consecutive sandbox errors: the sandbox is down, stop instead of burning the list
    writer = _Writer(out_path)
    bar = _bar(len(todo)) if progress else None
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
                    try:
                        out = fut.result()
                    except Exception as e:  # synthesize catches everything; belt and braces
                        out = dict(rec, tests=[], testgen={"status": "failed", "reason": f"{type(e).__name__}: {e}"})
                    writer.write(out)
                    st = out.get("testgen", {})
                    summary["status"][st.get("status", "?")] += 1
                    summary["tests"] += len(out.get("tests") or [])
                    summary["problems"].append({"id": out.get("id", out.get("task_id")), "status": st.get("status"),
                                                "tests": len(out.get("tests") or []), "reason": st.get("reason")})
                    if on_done:
                        on_done(out)
                    if bar:
                        bar.advance(str(out.get("id", "")), st.get("status", "?"))
                    streak = streak + 1 if st.get("status") == "sandbox_error" else 0
                    if streak >= abort_after:
                        summary["aborted"] = f"stopped after {streak} sandbox errors in a row: {st.get('reason')}"
                        continue
                    nxt = next(it, None)
                    if nxt is not None:
                        futs[pool.submit(synthesize, nxt, runner, settings)] = nxt
    finally:
        writer.close()
        if bar:
            bar.close()
    summary["status"] = dict(summary["status"])
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
