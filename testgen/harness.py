"""Batched calls of a Python function inside ONE sandboxed process.

Validating a few hundred candidate inputs on every gold solution, and then on dozens of
mutants, would cost one jail per (program, input) if each call were its own test. Instead
the program runs under this small driver (itself inside the sandbox, as a stdin/stdout
program): it reads a JSON list of argument lists, calls the entry point on each with an
alarm as a per-call time limit, and streams one JSON line per call. A chunk that the
sandbox kills (memory, a C-level loop the alarm cannot break) still leaves the lines
written so far; the caller resumes after the call that was running.

Entries are called and values encoded by the engine's own function-call code (``sandbox/leetcode.py``), so "equal here"
means "equal to the judge". The final suite is re-checked through the engine's real
function-call mode anyway (see ``validate.confirm_function_suite``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from sandbox.function_call import LEETCODE_SOURCE

SENTINEL = "\x1e@@testgen@@"

DRIVER = r'''
import io, json, signal, sys, time, types
_SENT = "\x1e@@testgen@@"
_out = sys.stdout
class _Timeout(BaseException):
    pass
def _alarm(signum, frame):
    raise _Timeout()
signal.signal(signal.SIGALRM, _alarm)
_job = json.loads(sys.stdin.read())
sys.stdin = io.StringIO("")
_limit = float(_job["time_s"])
_stop = bool(_job.get("stop_on_error"))
_max_tle = int(_job.get("max_timeouts") or 0)
_tles = 0
_mod = types.ModuleType("solution")
_mod.__file__ = "/prog/solution.py"
sys.modules["solution"] = _mod
_sink = io.StringIO()
sys.stdout = _sink
try:
    lc_prepare(_mod.__dict__, _ENTRY)
    exec(compile(_SOURCE, "/prog/solution.py", "exec", dont_inherit=True), _mod.__dict__)
    _call = lc_resolve(_mod.__dict__, _ENTRY)
    _classes = lc_node_classes(_mod.__dict__)
except BaseException as _e:
    _out.write(_SENT + json.dumps({"load": type(_e).__name__ + ": " + str(_e)[:200]}) + "\n")
    _out.flush()
    sys.exit(0)
for _i, _raw in enumerate(_job["inputs"]):
    _args = json.loads(_raw)
    _sink.seek(0)
    _sink.truncate()
    _t0 = time.process_time()
    _w0 = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, _limit * 1.2 + 0.05)
        _res = _call(_args)
        signal.setitimer(signal.ITIMER_REAL, 0)
        _dt = time.process_time() - _t0
        if _dt > _limit:
            _rec = {"i": _i, "s": "TLE", "t": _dt}
        else:
            try:
                _rec = {"i": _i, "s": "OK", "v": lc_encode(_res, _classes), "t": _dt}
                _line = json.dumps(_rec)
            except (ValueError, TypeError, RecursionError) as _e:
                _rec = {"i": _i, "s": "BADVALUE", "e": type(_e).__name__, "t": _dt}
    except _Timeout:
        _rec = {"i": _i, "s": "TLE", "t": time.process_time() - _t0}
    except RecursionError:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _rec = {"i": _i, "s": "RE", "e": "RecursionError", "t": time.process_time() - _t0}
    except MemoryError:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _rec = {"i": _i, "s": "MLE", "e": "MemoryError", "t": time.process_time() - _t0}
    except BaseException as _e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _rec = {"i": _i, "s": "RE", "e": type(_e).__name__, "t": time.process_time() - _t0}
    try:
        _line = json.dumps(_rec)
    except (ValueError, TypeError, RecursionError) as _e:
        _line = json.dumps({"i": _i, "s": "BADVALUE", "e": type(_e).__name__, "t": _rec.get("t", 0)})
    _out.write(_SENT + _line + "\n")
    _out.flush()
    if _stop and _rec["s"] != "OK":
        break
    if _rec["s"] == "TLE":
        _tles += 1
        if _max_tle and _tles >= _max_tle:
            _out.write(_SENT + json.dumps({"skip_from": _i + 1}) + "\n")
            _out.flush()
            break
'''


def driver_source(solution_code: str, entry_point: str) -> str:
    """The program to send to the sandbox: the driver with the solution embedded as a string,
    after the engine driver's own LeetCode support (``Class.method``, ListNode/TreeNode, the
    encoding of values: ``sandbox/leetcode.py``)."""
    return f"_SOURCE = {solution_code!r}\n_ENTRY = {entry_point!r}\n" + LEETCODE_SOURCE + "\n" + DRIVER


def job_stdin(inputs: list[list[Any]], time_s: float, stop_on_error: bool = False, max_timeouts: int = 0) -> str:
    """The driver's stdin: per-call CPU limit, stop at the first failure (judging) or after
    ``max_timeouts`` timeouts (mutants that loop), and the inputs."""
    return json.dumps({"time_s": time_s, "stop_on_error": stop_on_error, "max_timeouts": max_timeouts,
                       "inputs": [json.dumps(a) for a in inputs]})


@dataclass
class CallResult:
    """What one call did: status OK / RE / TLE / MLE / BADVALUE / LOAD / LOST / SKIP, value, CPU time."""

    status: str
    value: Any = None
    time_s: float = 0.0
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "OK"


def parse_stream(stdout: str, n: int) -> tuple[list[Optional[CallResult]], Optional[str]]:
    """Results per input index (None where the stream stopped) and a load error, if any."""
    out: list[Optional[CallResult]] = [None] * n
    load_error: Optional[str] = None
    for line in stdout.split("\n"):
        if not line.startswith(SENTINEL):
            continue
        try:
            rec = json.loads(line[len(SENTINEL):])
        except ValueError:
            continue  # a line cut short by a kill
        if "load" in rec:
            load_error = str(rec["load"])
            break
        if "skip_from" in rec:  # the driver gave up on the rest (too many timeouts)
            for j in range(int(rec["skip_from"]), n):
                if out[j] is None:
                    out[j] = CallResult(status="SKIP")
            break
        i = rec.get("i")
        if isinstance(i, int) and 0 <= i < n:
            out[i] = CallResult(status=rec.get("s", "RE"), value=rec.get("v"), time_s=float(rec.get("t", 0.0)),
                                error=str(rec.get("e", "")))
    return out, load_error
