"""Where a GRPO training step's time goes: sampling, the reward path, the update.

    python bench/train_step.py                          # tiny gpt2 on CPU (or CUDA), depths 0 and 1, 8 steps
    python bench/train_step.py --device cuda --arch llama --layers 8 --width 512 --max-new-tokens 256
    python bench/train_step.py --service-url http://127.0.0.1:8080 --json out.json

Runs ``trainer.grpo.GRPOTrainer`` for ``--steps`` steps at each ``--pipeline-depth`` (side by
side, in one process, each from the same freshly built model and seed) against a real
``codetest`` service: its own ``python -m api`` on 127.0.0.1 (native backend, its own state
folder and uid base), or ``--service-url``. The model is built here from a config
(``trainer.tiny``: random weights and a locally trained tokenizer; no download).

The problems are a few built-in stdin tasks. A completion hook replaces ``--inject`` of each
group's samples with known programs, a ``--mix`` of correct, wrong-answer (passes a known share of
the tests), crashing and never-finishing (``while True: pass``, judged TLE) ones, so every step
sends real programs through the reward path and their rewards are known: ``wrong`` counts
injected completions scored anything else (must be 0; the bench exits 1 otherwise). The rest are
the model's own samples (a random model's text: mostly no code, scored 0 without running).

Per run: the model's parameter count and device; steps/s and the mean per-step seconds of
``step_time_s``, ``gen_time_s``, ``update_time_s``, ``reward_latency_s`` (the service's, slowest
request of the batch) and ``reward_wait_s`` (what training waited for it) over the steady steps
(1 .. steps-1-depth: step 0 fills the pipeline and warms up, the last ``depth`` steps sample
nothing); the reward path's share of a step as wait / step (what training lost to it) and as
latency / step (the service's time against a step's; above 1 when a batch takes longer to score
than a step, which only a deeper pipeline can hide); test executions per step; wrong scores;
completions without reward.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))
    __package__ = "bench"

import httpx  # noqa: E402

from bench.server import Server, ServerError, discard_scratch  # noqa: E402
from trainer.problems import Problem  # noqa: E402

KINDS = ("correct", "wrong", "crash", "timeout")
CRASH = "import sys\ndata = sys.stdin.read()\nprint(len(data) // 0)\n"
TIMEOUT = "import sys\nsys.stdin.read()\nwhile True:\n    pass\n"
EXPECTED_VERDICT = {"correct": "AC", "wrong": "WA", "crash": "RE", "timeout": "TLE"}
MAX_RUN_S = 1200.0  # default --max-run-s: a run stops at its next sampling past it


class RunTooLong(Exception):
    """A run went past --max-run-s (raised from the hook, at the next sampling)."""


@dataclass(frozen=True)
class Task:
    """A stdin problem, its tests, a correct and a wrong program, and how many tests the wrong one passes."""

    id: str
    prompt: str
    tests: tuple[tuple[str, str], ...]
    correct: str
    wrong: str
    wrong_passes: int


TASKS = (
    Task("double", "Read an integer n from stdin and print twice its value.",
         (("2\n", "4\n"), ("5\n", "10\n"), ("-3\n", "-6\n")),
         "print(int(input()) * 2)\n", "n = int(input())\nprint(n * n)\n", 1),
    Task("sum", "Read two integers on one line and print their sum.",
         (("1 2\n", "3\n"), ("5 7\n", "12\n"), ("0 0\n", "0\n")),
         "a, b = map(int, input().split())\nprint(a + b)\n", "a, b = map(int, input().split())\nprint(a - b)\n", 1),
    Task("reverse", "Print every line of stdin reversed.",
         (("abc\nxy\n", "cba\nyx\n"), ("hello\n", "olleh\n"), ("a\nbob\n", "a\nbob\n")),
         "import sys\nfor line in sys.stdin:\n    print(line.rstrip('\\n')[::-1])\n",
         "import sys\nfor line in sys.stdin:\n    print(line.rstrip('\\n'))\n", 1),
    Task("max", "Read n, then n integers on the next line; print the largest.",
         (("3\n1 5 2\n", "5\n"), ("1\n7\n", "7\n"), ("4\n-1 -5 -2 -9\n", "-1\n")),
         "input()\nprint(max(map(int, input().split())))\n", "input()\nprint(min(map(int, input().split())))\n", 1),
)

TASK_BY_ID = {t.id: t for t in TASKS}


def problems(time_limit_s: float) -> list[Problem]:
    suffix = " Write a python program. Answer with one fenced code block.\n"
    return [Problem(id=t.id, prompt=t.prompt + suffix, language="python", limits={"time_s": time_limit_s},
                    tests=[{"stdin": i, "expected_stdout": o} for i, o in t.tests]) for t in TASKS]


def parse_mix(text: str) -> list[str]:
    """``correct=2,wrong=1`` -> the kinds in the order they are handed out, one entry per weight unit."""
    out: list[str] = []
    for part in filter(None, (x.strip() for x in text.split(","))):
        name, _, n = part.partition("=")
        if name not in KINDS or not n.isdigit() or int(n) > 100:
            raise ValueError(f"bad --mix entry {part!r}: KIND=N with KIND in {', '.join(KINDS)} and N in 0..100")
        out += [name] * int(n)
    if not out:
        raise ValueError("--mix gives no program at all")
    return out


def parse_depths(text: str) -> list[int]:
    try:
        depths = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"bad --pipeline-depth {text!r}: comma-separated integers, e.g. 0,1") from None
    if not depths or len(depths) > 8 or any(not 0 <= d <= 8 for d in depths):
        raise ValueError("--pipeline-depth: 1 to 8 values, each between 0 and 8")
    return depths


class Injector:
    """The completion hook: puts known programs in the first ``per_group`` places of every group
    and remembers, per sampled batch, what each completion must score and which problem it is for."""

    def __init__(self, share: float, kinds: list[str], group_size: int, deadline: float) -> None:
        self.per_group = round(share * group_size)
        self.kinds = kinds
        self.group_size = group_size
        self.deadline = deadline
        self.count = 0
        self.expected: dict[int, list[Optional[tuple[float, str, str]]]] = {}
        self.problems: dict[int, list[Problem]] = {}

    def __call__(self, step: int, rows: list[Problem], texts: list[str]) -> list[Optional[str]]:
        if time.monotonic() > self.deadline:
            raise RunTooLong(f"a run took longer than --max-run-s (stopped at batch {step})")
        out: list[Optional[str]] = []
        expected: list[Optional[tuple[float, str, str]]] = []
        for i, p in enumerate(rows):
            if i % self.group_size >= self.per_group:
                out.append(None)
                expected.append(None)
                continue
            kind = self.kinds[self.count % len(self.kinds)]
            task = TASK_BY_ID[p.id]
            code = {"correct": task.correct, "wrong": task.wrong, "crash": CRASH, "timeout": TIMEOUT}[kind]
            reward = {"correct": 1.0, "wrong": task.wrong_passes / len(task.tests)}.get(kind, 0.0)
            # distinct programs: identical requests must not share work
            out.append(f"Here is my solution.\n```python\n{code}# completion {self.count}\n```\n")
            expected.append((reward, EXPECTED_VERDICT[kind], kind))
            self.count += 1
        self.expected[step] = expected
        self.problems[step] = list(rows)
        return out


def check_scores(history: list[dict[str, Any]], inj: Injector) -> dict[str, Any]:
    """Wrong scores among injected completions, completions without a reward, examples of each."""
    wrong, unrewarded, injected_unrewarded, examples = 0, 0, 0, []
    for rec in history:
        for i, (reward, verdict) in enumerate(zip(rec["rewards"], rec["verdict_list"])):
            exp = inj.expected[rec["step"]][i]
            if reward is None:
                unrewarded += 1
                injected_unrewarded += exp is not None
            elif exp is not None and (abs(reward - exp[0]) > 1e-9 or verdict != exp[1]):
                wrong += 1
                if len(examples) < 5:
                    examples.append(f"step {rec['step']} #{i} {exp[2]}: {reward} {verdict}, expected {exp[0]} {exp[1]}")
    return {"wrong": wrong, "unrewarded": unrewarded, "injected_unrewarded": injected_unrewarded,
            "wrong_examples": examples}


def executions(rec: dict[str, Any], inj: Injector) -> int:
    """Test executions behind one step's rewards: every test of each scored completion that ran (not CE)."""
    rows = inj.problems[rec["step"]]
    return sum(len(rows[i].tests) for i, (r, v) in enumerate(zip(rec["rewards"], rec["verdict_list"]))
               if r is not None and v != "CE")


def summarize(history: list[dict[str, Any]], depth: int, inj: Injector) -> dict[str, Any]:
    """Steady steps only: 1 .. steps-1-depth."""
    steady = history[1:len(history) - depth]
    total = sum(r["step_time_s"] for r in steady)
    n = len(steady)

    def mean(key: str) -> float:
        return round(sum(r[key] for r in steady) / n, 4)

    return {
        "steady_steps": [r["step"] for r in steady],
        "steps_per_s": round(n / total, 3) if total > 0 else None,
        **{key: mean(key) for key in ("step_time_s", "gen_time_s", "update_time_s", "reward_latency_s",
                                      "reward_wait_s")},
        "wait_share": round(sum(r["reward_wait_s"] for r in steady) / total, 3),
        "latency_share": round(sum(r["reward_latency_s"] for r in steady) / total, 3),
        "executions_per_step": round(sum(executions(r, inj) for r in steady) / n, 1),
        "completions_per_step": round(sum(r["completions"] for r in steady) / n, 1),
        "injected_per_step": round(sum(r["injected"] for r in steady) / n, 1),
        "updated_steps": sum(bool(r["updated"]) for r in history),
    }


def device_name(device: Any) -> str:
    import torch

    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return f"cpu ({os.cpu_count()} cores, {torch.get_num_threads()} torch threads)"


def run_one(args: argparse.Namespace, depth: int, model_dir: str, url: str, out_dir: str) -> dict[str, Any]:
    """One GRPOTrainer run at ``depth``: its timings, scores and what it ran on."""
    import torch

    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    cfg = GRPOConfig(model=model_dir, problems="", service_url=url, output_dir=out_dir, steps=args.steps,
                     prompts_per_step=args.prompts_per_step, group_size=args.group_size,
                     max_new_tokens=args.max_new_tokens, max_prompt_tokens=256,
                     reward_concurrency=args.reward_concurrency, reward_timeout_s=args.reward_timeout,
                     pipeline_depth=depth, device=args.device, dtype=args.dtype, seed=args.seed, save=False,
                     plot=False)
    inj = Injector(args.inject, args.kinds, args.group_size, time.monotonic() + args.max_run_s)
    trainer = GRPOTrainer(cfg, problems(args.time_limit), completion_hook=inj)
    if trainer.device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(trainer.device)
    row: dict[str, Any] = {
        "pipeline_depth": depth, "params": sum(p.numel() for p in trainer.model.parameters()),
        "device": device_name(trainer.device), "dtype": str(trainer.dtype).replace("torch.", ""),
    }
    t0 = time.monotonic()
    history = trainer.train()
    row["wall_s"] = round(time.monotonic() - t0, 2)
    row["steps"] = len(history)
    if trainer.device.type == "cuda":
        row["peak_gpu_mem_gib"] = round(torch.cuda.max_memory_allocated(trainer.device) / 2**30, 2)
    row.update(summarize(history, depth, inj))
    row.update(check_scores(history, inj))
    row["per_step"] = [{k: rec[k] for k in ("step", "step_time_s", "gen_time_s", "update_time_s",
                                            "reward_latency_s", "reward_wait_s", "staleness", "verdicts")}
                       for rec in history]
    del trainer
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return row


def build_model(args: argparse.Namespace, folder: str) -> str:
    from trainer.tiny import build_tiny_model

    heads = args.heads or max(1, args.width // 64)
    context = max(512, 256 + args.max_new_tokens)
    return str(build_tiny_model(folder, arch=args.arch, layers=args.layers, width=args.width, heads=heads,
                                intermediate=args.intermediate or None, context=context, seed=args.seed))


def service_health(url: str) -> dict[str, Any]:
    """The service's /healthz, or ServerError saying why there is none."""
    try:
        r = httpx.get(url.rstrip("/") + "/healthz", timeout=10)
    except httpx.HTTPError as e:
        raise ServerError(f"no answer from {url}/healthz: {e!r}") from None
    if r.status_code != 200:
        raise ServerError(f"{url}/healthz answered {r.status_code}: {r.text[:300]}")
    return r.json()


def print_table(rows: list[dict[str, Any]]) -> None:
    cols = [("depth", "pipeline_depth", "{}"), ("steps/s", "steps_per_s", "{:.3f}"), ("step s", "step_time_s", "{:.3f}"),
            ("gen s", "gen_time_s", "{:.3f}"), ("update s", "update_time_s", "{:.3f}"),
            ("rew lat s", "reward_latency_s", "{:.3f}"), ("rew wait s", "reward_wait_s", "{:.3f}"),
            ("wait/step", "wait_share", "{:.2f}"), ("lat/step", "latency_share", "{:.2f}"),
            ("exec/step", "executions_per_step", "{}"), ("wrong", "wrong", "{}"), ("no reward", "unrewarded", "{}")]
    cells = [[c[0] for c in cols]] + [[fmt.format(r[key]) if r.get(key) is not None else "-" for _, key, fmt in cols]
                                      for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    for row in cells:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
    for r in rows:
        for w in r["wrong_examples"]:
            print("   wrong:", w)


def parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python bench/train_step.py", description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=8, help="training steps per run (default 8; step 0 is warm-up)")
    p.add_argument("--pipeline-depth", default="0,1", help="comma-separated depths, one run each (default 0,1)")
    p.add_argument("--arch", choices=["gpt2", "llama"], default="gpt2")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--width", type=int, default=64, help="hidden size (default 64)")
    p.add_argument("--heads", type=int, default=0, help="attention heads (default: width / 64, at least 1)")
    p.add_argument("--intermediate", type=int, default=0, help="MLP width (default: gpt2 4 x width, llama 2 x)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N (default auto)")
    p.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"], default="auto")
    p.add_argument("--prompts-per-step", type=int, default=4)
    p.add_argument("--group-size", type=int, default=8)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--reward-concurrency", type=int, default=4, help="/v1/reward requests in flight (default 4)")
    p.add_argument("--reward-timeout", type=float, default=120.0, help="deadline of one batch's rewards, s")
    p.add_argument("--inject", type=float, default=0.5, help="share of each group replaced by known programs")
    p.add_argument("--mix", default="correct=2,wrong=1,crash=1,timeout=1",
                   help="weights of the injected kinds (default correct=2,wrong=1,crash=1,timeout=1)")
    p.add_argument("--time-limit", type=float, default=0.5, help="CPU seconds per test (default 0.5)")
    p.add_argument("--max-run-s", type=float, default=MAX_RUN_S,
                   help="stop a run that takes longer, at its next sampling (default 1200)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--service-url", default=None, help="use this service instead of starting one")
    p.add_argument("--uid-base", type=int, default=63800, help="the started service's jail uids (default 63800)")
    p.add_argument("--slots", type=int, default=0, help="the started service's slots (default: its own)")
    p.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON here")
    args = p.parse_args(argv)
    try:
        args.depths = parse_depths(args.pipeline_depth)
        args.kinds = parse_mix(args.mix)
    except ValueError as e:
        p.error(str(e))
    if not max(args.depths) + 2 <= args.steps <= 1000:
        p.error(f"--steps must be between {max(args.depths) + 2} (the deepest pipeline + 2: one warm-up step, "
                "one steady one) and 1000")
    if min(args.layers, args.width, args.prompts_per_step, args.max_new_tokens, args.reward_concurrency) < 1:
        p.error("--layers, --width, --prompts-per-step, --max-new-tokens and --reward-concurrency must be >= 1")
    if args.group_size < 2 or args.heads < 0 or args.intermediate < 0 or args.slots < 0 or args.uid_base < 1000:
        p.error("--group-size must be >= 2, --heads, --intermediate and --slots >= 0, --uid-base >= 1000")
    if args.width % (args.heads or max(1, args.width // 64)):
        p.error("--heads must divide --width")
    if not 0 <= args.inject <= 1 or not 0 < args.time_limit <= 10 or args.reward_timeout <= 0 or args.max_run_s <= 0:
        p.error("--inject must be in [0, 1], --time-limit in (0, 10], --reward-timeout and --max-run-s > 0")
    if args.device not in ("auto", "cpu") and not args.device.startswith("cuda"):
        p.error("--device: auto, cpu, cuda or cuda:N")
    return args


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    try:
        import torch
        import transformers
    except ImportError as e:
        print(f"error: the bench needs torch and transformers ({e.name} is missing): "
              "pip install 'codetest[train]'", file=sys.stderr)
        return 2
    transformers.utils.logging.disable_progress_bar()  # the bench's output is its table
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print(f"error: --device {args.device}: torch sees no CUDA device", file=sys.stderr)
        return 2
    # SIGTERM (a timeout, a test runner) unwinds like Ctrl-C: the service is stopped, not orphaned
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    scratch = tempfile.mkdtemp(prefix="codetest-train-step-")
    server: Optional[Server] = None
    rows: list[dict[str, Any]] = []
    failed = True
    try:
        if args.service_url:
            url = args.service_url.rstrip("/")
        else:
            if args.slots:
                os.environ["CODETEST_SLOTS"] = str(args.slots)
            server = Server(os.path.join(scratch, "state"), args.uid_base, os.path.join(scratch, "server.log"))
            url = server.start(timeout_s=300)  # many slots start slowly on a loaded machine
        health = service_health(url)
        model_dir = build_model(args, os.path.join(scratch, "model"))
        print(f"service {url}: {health.get('backend')} backend, {health.get('slots')} slots; "
              f"{args.prompts_per_step} prompts x {args.group_size} completions per step, "
              f"{round(args.inject * args.group_size)} of each group injected ({args.mix}); "
              f"{args.max_new_tokens} new tokens; {args.steps} steps per run")
        for depth in args.depths:
            rows.append(run_one(args, depth, model_dir, url, os.path.join(scratch, f"run-{depth}")))
            r = rows[-1]
            print(f"depth {depth}: {r['params']:,} parameters ({args.arch}, layers {args.layers}, width {args.width}) "
                  f"on {r['device']}, {r['dtype']}; {r['wall_s']} s for {r['steps']} steps")
        print("means over the steady steps (step 0 warms up and fills the pipeline; the last `depth` steps sample "
              "nothing); wait/step = reward_wait_s / step_time_s, lat/step = reward_latency_s / step_time_s")
        print_table(rows)
        failed = any(r["wrong"] for r in rows)
    except ServerError as e:
        print(f"error: the codetest service is not available: {e}", file=sys.stderr)
        return 1
    except RunTooLong as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
        discard_scratch(scratch, keep=failed and server is not None)  # the service's log is worth keeping
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": rows, "args": vars(args)}, f, indent=1)
    if failed:
        print("error: injected programs were scored wrong (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
