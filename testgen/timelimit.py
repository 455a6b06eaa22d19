"""The time limit of a stdin/stdout suite when the problem states none.

Kattis derives a problem's limit from its accepted solutions instead of stating one: the
problem package format's ``time_multiplier`` (legacy format; problemtools' default 5, NWERC
2023 sets 2 or 1.5) or ``time_multipliers.ac_to_time_limit`` (2023-07 format, default 2)
times the slowest accepted run on the judge, never below 1 s. A suite judged with a fixed
default instead fails correct programs that happen to be near it and passes slow ones whose
purpose is to time out.

``derive`` does what the package format does, with the golds standing in for the accepted
solutions and their CPU time (what the sandbox's limit counts; a busy machine changes it far
less than wall time) measured on the suite's own inputs, the largest stress inputs included:

    limit = clamp(max gold CPU time over the suite x multiplier x SAFETY, FLOOR_S, CAP_S)

* ``multiplier``: the problem's own (``limits.time_multiplier``) when it states one, else
  ``DEFAULT_MULTIPLIER`` (the 2023-07 format's ``ac_to_time_limit`` default).
* ``SAFETY``: the golds are a few of the accepted solutions, not all of them, and they are
  timed on a shared machine, not the contest judge: a correct program somewhat slower than
  every gold must still pass (problemtools' ``time_safety_margin`` plays the same part when it
  checks the accepted submissions against the limit).
* ``FLOOR_S``: 2 s, the default a stdin problem without a limit was judged at before, and not
  problemtools' 1 s: that minimum stands on the slowest of *all* accepted runs, and a correct
  program with a fixed cost the golds do not have (a precomputed table) needs the room
  (measured on stdio-contest: a 1 s floor failed one that takes 1.07 s on a tiny input).
* ``CAP_S``: the most a suite may cost per test.
* Wall time only catches a program that sleeps or blocks: the suite's ``wall_time_s`` is
  ``WALL_FACTOR`` x the limit + ``WALL_EXTRA_S``, so a busy machine (CPU waits) does not turn
  a correct program into a TLE (measured: 0.66 s CPU took 5.3 s wall at load 7).

While a limit is still to be derived the golds run under ``CAP_S`` and an input is kept only
when every gold finishes it within ``CAP_S / (multiplier x SAFETY)``, so that the derived
limit never has to be cut by the cap. A limit the problem states (``limits.time_s``) is
always kept as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Optional

DEFAULT_MULTIPLIER = 2.0
SAFETY = 1.5
FLOOR_S = 2.0
CAP_S = 10.0
WALL_FACTOR = 3.0
WALL_EXTRA_S = 5.0
STEP_S = 0.1  # limits are rounded up to this


@dataclass
class TimePolicy:
    """How a problem's time limit is decided: stated (kept) or derived from the golds."""

    stated_s: Optional[float]
    multiplier: float = DEFAULT_MULTIPLIER
    multiplier_source: str = "default"
    safety: float = SAFETY
    floor_s: float = FLOOR_S
    cap_s: float = CAP_S

    @property
    def derived(self) -> bool:
        return self.stated_s is None

    @property
    def factor(self) -> float:
        return self.multiplier * self.safety

    @property
    def validation_limit_s(self) -> float:
        """The CPU limit the golds run under while the limit is still to be derived."""
        return self.stated_s if self.stated_s is not None else self.cap_s

    def derive(self, gold_times: Iterable[float]) -> float:
        """The suite's limit from the golds' CPU times on its inputs (the stated one if any)."""
        if self.stated_s is not None:
            return self.stated_s
        slowest = max((t for t in gold_times if t is not None), default=0.0)
        raw = slowest * self.factor
        up = math.ceil(round(raw / STEP_S, 6)) * STEP_S
        return round(min(self.cap_s, max(self.floor_s, up)), 3)

    def wall_s(self, limit_s: float) -> float:
        """The wall-clock backstop that goes with a derived limit (the engine caps wall at 120 s)."""
        return round(min(120.0, WALL_FACTOR * limit_s + WALL_EXTRA_S), 3)

    def record(self, limit_s: float, gold_times: Iterable[float]) -> dict[str, Any]:
        """What the suite record says about its limit and where it came from."""
        if self.stated_s is not None:
            return {"time_s": limit_s, "source": "stated"}
        times = [t for t in gold_times if t is not None]
        return {"time_s": limit_s, "source": "derived",
                "gold_max_cpu_s": round(max(times, default=0.0), 4), "inputs": len(times),
                "multiplier": self.multiplier, "multiplier_source": self.multiplier_source,
                "safety": self.safety, "floor_s": self.floor_s, "cap_s": self.cap_s}

    def source_note(self, limit_s: float, gold_times: Iterable[float]) -> str:
        r = self.record(limit_s, gold_times)
        return (f"derived by codetest testgen: slowest gold {r['gold_max_cpu_s']:g} s CPU on the suite's "
                f"{r['inputs']} inputs x {r['multiplier']:g} ({r['multiplier_source']}) x safety {r['safety']:g}, "
                f"within [{r['floor_s']:g}, {r['cap_s']:g}] s")


def policy_for(rec: dict[str, Any], stated_s: Optional[float]) -> TimePolicy:
    """The policy of one problem record: its stated limit, else its multiplier or the default."""
    raw = rec.get("limits") if isinstance(rec.get("limits"), dict) else {}
    mult = (raw or {}).get("time_multiplier")
    if isinstance(mult, (int, float)) and not isinstance(mult, bool) and 1.0 <= float(mult) <= 20.0:
        return TimePolicy(stated_s=stated_s, multiplier=float(mult), multiplier_source="the problem's time_multiplier")
    return TimePolicy(stated_s=stated_s)
