"""Load on loopback: hundreds of concurrent requests for a bounded time against `codetest serve`.

Every request must come back answered and correct (each carries its own number and
must get its own answer back), the server's own counters must agree with ours, and
after SIGTERM no process the server started may be left: not the jail servers, not a
program they ran (those run under this test's own uid range, so a stray is unambiguous).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from client import AsyncClient

pytestmark = pytest.mark.timeout(180)

REQUESTS = 400  # hundreds in total ...
WORKERS = 200  # ... and up to this many in flight at once
TIME_LIMIT_S = 100.0  # the loop stops sending after this even if the machine is slow
UID_BASE = 63_100  # this server's slot uids: nobody else's jails use them
SLOTS = 2
REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_table() -> dict[int, tuple[int, int, str]]:
    """pid -> (ppid, uid, start time) for every process we can read."""
    table = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            uid = os.stat(f"/proc/{d}").st_uid
        except (OSError, ValueError):
            continue
        table[int(d)] = (int(fields[1]), uid, fields[19])
    return table


def descendants(root: int) -> set[tuple[int, str]]:
    table = proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, stack = set(), [root]
    while stack:
        for c in children.get(stack.pop(), []):
            out.add((c, table[c][2]))
            stack.append(c)
    return out


def alive(seen: set[tuple[int, str]]) -> list[int]:
    table = proc_table()
    return [pid for pid, start in seen if pid in table and table[pid][2] == start]


def jailed() -> list[int]:
    return [pid for pid, (_, uid, _) in proc_table().items() if UID_BASE <= uid < UID_BASE + SLOTS]


@pytest.fixture
def server(tmp_path):
    port = free_port()
    env = dict(os.environ, CODETEST_UID_BASE=str(UID_BASE), CODETEST_STATE_DIR=str(tmp_path / "state"),
               PYTHONPATH=str(REPO))
    env.pop("CODETEST_API_KEYS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "codetest", "serve", "--port", str(port), "--slots", str(SLOTS), "--queue-size", "2048",
         "--log-level", "warning"],
        cwd=str(REPO), env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "server.log", "wb"),
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("server did not come up:\n" + (tmp_path / "server.log").read_text()[-3000:])
        time.sleep(0.1)
    try:
        yield url, proc, tmp_path / "server.log"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


async def drive(url: str, server_pid: int) -> tuple[dict, set]:
    counts = {"run": 0, "run_code": 0, "reward": 0, "errors": []}
    seen: set[tuple[int, str]] = set()
    stop_at = time.monotonic() + TIME_LIMIT_S
    sent = 0

    async with AsyncClient(url, max_concurrency=WORKERS, max_retries=3, timeout_s=60) as c:
        async def worker(w: int) -> None:
            nonlocal sent
            rng = random.Random(w)
            while time.monotonic() < stop_at and sent < REQUESTS:
                sent += 1
                n = rng.randrange(10**9)
                kind = rng.random()
                try:
                    if kind < 0.8:
                        res = await c.run("python", "print(int(input()) + 1)",
                                          [{"stdin": f"{n}\n", "expected_stdout": f"{n + 1}\n"}])
                        ok = res["verdict"] == "AC" and res["tests"][0]["stdout"] == f"{n + 1}\n"
                        counts["run"] += 1
                    elif kind < 0.9:
                        res = await c.run_code("print(int(input()) * 2)", "python", f"{n}\n")
                        ok = res["status"] == "Success" and res["run_result"]["stdout"] == f"{2 * n}\n"
                        counts["run_code"] += 1
                    else:
                        items = [{"id": f"{n}-{k}", "completion": f"```python\nprint({k} + int(input()))\n```",
                                  "tests": [{"stdin": f"{n}\n", "expected_stdout": f"{n + k}\n"}]} for k in range(3)]
                        res = await c.reward(items)
                        ok = [r["id"] for r in res] == [i["id"] for i in items] and all(
                            r["reward"] == 1.0 for r in res)
                        counts["reward"] += 1
                    if not ok:
                        counts["errors"].append(f"wrong answer for {n}: {res}")
                except Exception as e:  # noqa: BLE001 - every failure is counted and reported
                    counts["errors"].append(f"{type(e).__name__}: {e}")

        async def watch() -> None:
            while not done.is_set():
                seen.update(descendants(server_pid))
                await asyncio.sleep(0.25)

        async def workers() -> None:
            await asyncio.gather(*[worker(w) for w in range(WORKERS)])
            done.set()

        done = asyncio.Event()
        await asyncio.gather(watch(), workers())
    counts["sent"] = sent
    return counts, seen


def metric_sum(text: str, route: str, status: str = "200") -> float:
    pat = re.compile(r'^codetest_http_requests_total\{(.*)\} (\S+)$')
    total = 0.0
    for line in text.splitlines():
        m = pat.match(line)
        if m and f'route="{route}"' in m.group(1) and f'status="{status}"' in m.group(1):
            total += float(m.group(2))
    return total


def test_loopback_load_no_error_no_loss_no_leftover(server):
    url, proc, log = server
    t0 = time.monotonic()
    counts, seen = asyncio.run(drive(url, proc.pid))
    elapsed = time.monotonic() - t0
    answered = counts["run"] + counts["run_code"] + counts["reward"]
    assert not counts["errors"], counts["errors"][:5]
    assert answered == counts["sent"] == REQUESTS, counts  # every request sent, every one answered
    print(f"load: {answered} requests in {elapsed:.1f}s, {WORKERS} concurrent: {counts}")
    assert elapsed < TIME_LIMIT_S + 60

    metrics = httpx.get(url + "/metrics", timeout=10).text
    assert metric_sum(metrics, "/v1/run") == counts["run"]
    assert metric_sum(metrics, "/run_code") == counts["run_code"]
    assert metric_sum(metrics, "/v1/reward") == counts["reward"]
    health = httpx.get(url + "/healthz", timeout=10).json()
    assert health["ok"] and health["queue_depth"] == 0

    seen |= descendants(proc.pid)
    assert seen, "the server started no jail processes?"
    proc.send_signal(signal.SIGTERM)
    # uvicorn shuts down gracefully (lifespan closes the sandbox), then re-raises the signal.
    assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
    end = time.monotonic() + 10
    while (alive(seen) or jailed()) and time.monotonic() < end:
        time.sleep(0.1)
    assert not alive(seen), f"processes left behind: {alive(seen)}"
    assert not jailed(), f"jailed programs left behind: {jailed()}"


# ---------------------------------------------------------------- oversize bodies: a readable 413

def _small_cap_server():
    from api import create_app
    from api.testing import serve_in_thread

    return serve_in_thread(create_app(None, max_body_bytes=100_000, slots=1))


def test_oversize_body_gets_a_readable_413_not_a_broken_pipe() -> None:
    """A client that keeps writing after the server has answered 413 must be able to finish
    writing and read the answer: the server drains the body instead of resetting the socket."""
    import requests

    size = 40 << 20
    body = b'{"language":"python","code":"' + b"x" * size + b'"}'
    with _small_cap_server() as url:
        host, port = url.rsplit(":", 1)[0].split("//")[1], int(url.rsplit(":", 1)[1])
        # Raw socket: headers, 1 MiB, read the early 413, then keep sending the other 39 MiB;
        # with keep-alive and with "Connection: close" (after which the server closes).
        for connection in (b"keep-alive", b"close"):
            with socket.create_connection((host, port), timeout=30) as s:
                s.sendall(b"POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: "
                          + connection + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n")
                s.sendall(body[: 1 << 20])
                head = s.recv(65536)
                assert head.startswith(b"HTTP/1.1 413"), head[:200]
                assert b"payload_too_large" in head or b"payload_too_large" in s.recv(65536)
                s.sendall(body[1 << 20:])  # BrokenPipeError / ConnectionResetError if the server did not drain
        # The clients trainers use: httpx (Content-Length and chunked) and requests.
        for _ in range(2):
            r = httpx.post(url + "/v1/run", content=body, headers={"content-type": "application/json"}, timeout=60)
            assert r.status_code == 413 and "at most 100000 bytes" in r.json()["message"]
        r = httpx.post(url + "/v1/run", content=(body[i:i + 65536] for i in range(0, len(body), 65536)),
                       headers={"content-type": "application/json"}, timeout=60)
        assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
        r = requests.post(url + "/v1/run", data=body, headers={"content-type": "application/json"}, timeout=60)
        assert r.status_code == 413 and r.json()["error"] == "payload_too_large"
        # and the server is fine afterwards
        assert httpx.get(url + "/healthz", timeout=30).status_code == 200
