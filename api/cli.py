"""``codetest serve``: registered into the main CLI by ``register(subparsers)``."""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument("--backend", choices=["native", "docker"], default=None,
                   help="sandbox backend (default native, or $CODETEST_BACKEND)")
    p.add_argument("--slots", type=int, default=None,
                   help="concurrent executions (default: $CODETEST_SLOTS, else 64 per CPU core on native, at most 256)")
    p.add_argument("--api-key", action="append", default=[], metavar="KEY",
                   help="accepted API key; repeatable. Required off loopback. CODETEST_API_KEYS adds more")
    p.add_argument("--queue-size", type=int, default=0, metavar="N",
                   help="hard cap on executions admitted at once (default 64 per slot); admission is by deadline")
    p.add_argument("--max-body-mb", type=float, default=None, help="request body cap in MiB (default 64)")
    p.add_argument("--drain-timeout", type=float, default=None, metavar="S",
                   help="on SIGTERM, finish admitted work for at most S seconds (default 60, or $CODETEST_DRAIN_TIMEOUT_S)")
    p.add_argument("--drain-grace", type=float, default=None, metavar="S", help="on SIGTERM, keep answering (503 to new work) at least S seconds so load "
                                     "balancers see /readyz fail (default 0, or $CODETEST_DRAIN_GRACE_S; 5 in Kubernetes)")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])


def run(args: argparse.Namespace) -> int:
    from sandbox.config import env
    from sandbox.errors import ConfigError as SandboxConfigError

    from .server import ConfigError, serve

    try:
        if args.backend is None:
            args.backend = env("CODETEST_BACKEND", str, "native")
        if args.drain_timeout is None:
            args.drain_timeout = env("CODETEST_DRAIN_TIMEOUT_S", float, 60.0)
        if args.drain_grace is None:
            args.drain_grace = env("CODETEST_DRAIN_GRACE_S", float, 0.0)
    except SandboxConfigError as e:
        print(f"codetest serve: {e}", file=sys.stderr)
        return 2

    if args.slots is not None and args.slots < 1:
        print("codetest serve: --slots must be at least 1", file=sys.stderr)
        return 2
    if args.drain_timeout < 0 or args.drain_grace < 0:
        print("codetest serve: --drain-timeout and --drain-grace must not be negative", file=sys.stderr)
        return 2
    if args.queue_size < 0:
        print("codetest serve: --queue-size must not be negative", file=sys.stderr)
        return 2
    try:
        serve(args.host, args.port, args.backend, slots=args.slots, api_keys=args.api_key,
              queue_size=args.queue_size, max_body_mb=args.max_body_mb, log_level=args.log_level,
              drain_timeout_s=args.drain_timeout, drain_grace_s=args.drain_grace)
    except ConfigError as e:
        print(f"codetest serve: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0


def register(subparsers: "argparse._SubParsersAction") -> None:
    p = subparsers.add_parser("serve", help="run the HTTP service (uvicorn)",
                              description="Serve /v1/run, /v1/reward, /run_code, /get_reward, /healthz, /metrics.")
    add_arguments(p)
    p.set_defaults(func=run)


def main(argv: list[str] | None = None) -> int:
    """``python -m api`` — the same as ``codetest serve`` without the main CLI."""
    parser = argparse.ArgumentParser(prog="python -m api")
    add_arguments(parser)
    return run(parser.parse_args(argv))
