"""Per-step training metrics: one JSON line per step, and a PNG of the run.

The plot shows what tells a code-RL run apart from a broken one: reward and pass
rate going up, the verdict mix shifting from CE/RE/WA to AC, loss and KL staying
sane, and reward-service latency next to the time the trainer actually waited for it
(the two differ when scoring overlaps generation).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Optional, Sequence

log = logging.getLogger("codetest.trainer")

VERDICT_COLORS = {"AC": "tab:green", "WA": "tab:orange", "TLE": "tab:purple", "MLE": "tab:brown",
                  "OLE": "tab:pink", "RE": "tab:red", "CE": "tab:gray", "SE": "black", "none": "lightgray"}


class MetricsLog:
    """Appends step records to ``metrics.jsonl`` under ``out_dir``; keeps them for the plot."""

    def __init__(self, out_dir: str | Path) -> None:
        self.dir = Path(out_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "metrics.jsonl"
        self.path.write_text("")
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        self.records.append(record)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")

    def plot(self, path: Optional[str | Path] = None) -> Optional[Path]:
        """Write the run's PNG; None (and a warning) when matplotlib is missing."""
        return plot_metrics(self.records, path or self.dir / "metrics.png")


def plot_metrics(records: Sequence[dict[str, Any]], path: str | Path) -> Optional[Path]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed: no plot (pip install 'codetest[train]')")
        return None
    steps = [r["step"] for r in records]

    def series(key: str) -> list[float]:
        # None (e.g. no reward at all in a step) plots as a gap, not an error.
        return [float("nan") if r.get(key) is None else float(r[key]) for r in records]

    fig, ax = plt.subplots(2, 2, figsize=(11, 7))
    a = ax[0][0]
    a.plot(steps, series("reward_mean"), marker="o", label="reward mean")
    a.plot(steps, series("pass_rate"), marker="s", label="pass rate (AC)")
    a.set_title("reward"), a.set_xlabel("step"), a.legend()
    a = ax[0][1]
    a.plot(steps, series("loss"), marker="o", label="loss")
    a.plot(steps, series("kl"), marker="s", label="KL to reference")
    a.set_title("objective"), a.set_xlabel("step"), a.legend()
    a = ax[1][0]
    names = sorted({v for r in records for v in r.get("verdicts", {})}, key=lambda v: list(VERDICT_COLORS).index(v)
                   if v in VERDICT_COLORS else 99)
    bottom = [0.0] * len(records)
    for v in names:
        vals = [r.get("verdicts", {}).get(v, 0) / max(r.get("completions", 1), 1) for r in records]
        a.bar(steps, vals, bottom=bottom, label=v, color=VERDICT_COLORS.get(v))
        bottom = [b + x for b, x in zip(bottom, vals)]
    a.set_title("verdict mix"), a.set_xlabel("step"), a.set_ylim(0, 1.05)
    if names:
        a.legend(fontsize="small", ncol=3)
    a = ax[1][1]
    a.plot(steps, series("reward_latency_s"), marker="o", label="service latency")
    a.plot(steps, series("reward_wait_s"), marker="s", label="trainer waited")
    a.plot(steps, series("gen_time_s"), marker="^", label="generation")
    a.set_title("seconds per step"), a.set_xlabel("step"), a.legend()
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=80)
    plt.close(fig)
    return out
