"""One pool container: started hardened, its executor bootstrapped, then spoken to.

Every setting here is one layer of ARCHITECTURE.md's list, given to the engine as data:
no network, read-only root, tmpfs for everything writable, no capabilities but the three
the executor needs to become the program's uid, no_new_privs, the shared seccomp
profile, pids / memory / CPU limits, gVisor when asked for.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections import OrderedDict
from importlib import resources
from typing import Any, Optional

from .settings import DockerSettings
from .stream import AttachStream, StreamClosed, StreamTimeout

LABEL_BACKEND = "codetest.backend"
LABEL_POOL = "codetest.pool"
LABEL_OWNER = "codetest.owner"
EXECUTOR_MODULE = "codetest_executor"


def _module_sources() -> dict[str, str]:
    here = resources.files("sandbox.backends.docker")
    native = resources.files("sandbox.backends.native")
    return {
        "jail_server": (native / "jail_server.py").read_text(encoding="utf-8"),
        EXECUTOR_MODULE: (here / "executor.py").read_text(encoding="utf-8"),
    }


def owner_label() -> str:
    """host:pid-namespace:pid of this process: enough to tell, later, whether it is gone.

    The PID namespace is part of it because an API in a container and a test on the host
    share a hostname but not PIDs.
    """
    return f"{socket.gethostname()}:{_pid_ns()}:{os.getpid()}"


def _pid_ns() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


class ContainerError(RuntimeError):
    """Starting or talking to a container failed (an infrastructure fault, never the program's)."""


class PoolContainer:
    """A started container with its executor ready; one request at a time."""

    def __init__(self, client: Any, settings: DockerSettings, *, pool_id: str, index: int, uid: int,
                 runtime: str, seccomp_json: str, bpf_b64: Optional[str]):
        self.client = client
        self.settings = settings
        self.pool_id = pool_id
        self.index = index
        self.uid = uid
        self.runtime = runtime
        self.seccomp_json = seccomp_json
        self.bpf_b64 = bpf_b64
        self.name = f"codetest-{pool_id}-{index}"
        self.id: Optional[str] = None
        self.stream: Optional[AttachStream] = None
        self.jobs = 0
        self.started_at = 0.0
        self.info: dict = {}
        # Program keys cached in the container, oldest first, with their sizes.
        self.prog_keys: "OrderedDict[str, int]" = OrderedDict()
        self._lock = threading.Lock()

    # -- life

    def start(self) -> None:
        s = self.settings
        api = self.client.api
        tmpfs_opts = "rw,exec,nosuid,nodev"
        host_config = api.create_host_config(
            network_mode="none",
            read_only=True,
            cap_drop=["ALL"],
            cap_add=["SETUID", "SETGID", "KILL"],
            security_opt=["no-new-privileges:true", f"seccomp={self.seccomp_json}"],
            pids_limit=s.pids_runsc if self.runtime.startswith("runsc") else s.pids,
            mem_limit=f"{s.memory_mb + s.memory_headroom_mb}m",
            memswap_limit=f"{s.memory_mb + s.memory_headroom_mb}m",
            nano_cpus=int(s.cpus * 1e9),
            tmpfs={
                "/work": f"{tmpfs_opts},size={s.work_mb}m,uid={self.uid},gid={self.uid},mode=0755",
                "/tmp": f"{tmpfs_opts},size={s.tmp_mb}m,mode=1777",
                "/run/codetest": f"{tmpfs_opts},size={s.prog_cache_mb + 16}m,mode=0755",
            },
            shm_size=f"{s.shm_mb}m",
            ipc_mode="private",
            runtime=self.runtime,
            log_config={"type": "none", "config": {}},
            init=False,
        )
        try:
            created = api.create_container(
                image=s.image,
                command=["python3", "-I", "-c", _bootstrap()],
                name=self.name,
                user="0:0",
                working_dir="/work",
                stdin_open=True,
                tty=False,
                network_disabled=True,
                hostname="sandbox",
                environment={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                labels={LABEL_BACKEND: "docker", LABEL_POOL: self.pool_id, LABEL_OWNER: owner_label()},
                host_config=host_config,
            )
            self.id = created["Id"]
            sock = api.attach_socket(self.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            raw = getattr(sock, "_sock", sock)
            self.stream = AttachStream(raw)
            self._sock_holder = sock  # keeps the HTTP response (and so the socket) alive
            api.start(self.id)
            self.started_at = time.monotonic()
            sources = _module_sources()
            boot = {"order": ["jail_server", EXECUTOR_MODULE], "modules": sources, "main": EXECUTOR_MODULE}
            self.stream.send(boot)
            self.stream.send({
                "op": "init", "uid": self.uid, "gid": self.uid, "bpf": self.bpf_b64,
                "poll_s": s.poll_s, "work_limit_bytes": s.work_mb << 20, "runtime": self.runtime,
            })
            reply = self.stream.recv(timeout=s.start_timeout_s)
        except (StreamClosed, StreamTimeout) as e:
            raise ContainerError(f"container {self.name} did not start its executor: {e}") from e
        except Exception as e:  # docker.errors.*, requests errors
            raise ContainerError(f"container {self.name} failed to start: {e}") from e
        if not reply.get("ok"):
            raise ContainerError(f"executor in {self.name} refused to start: {reply.get('error')}")
        self.info = reply

    def call(self, request: dict, timeout: float) -> dict:
        """Send one request, wait for its reply; StreamClosed / StreamTimeout on faults."""
        if self.stream is None:
            raise StreamClosed("container not started")
        with self._lock:
            self.stream.send(request)
            return self.stream.recv(timeout=timeout)

    def remove(self) -> None:
        """Kill and remove the container (and its anonymous volumes); never raises."""
        if self.stream is not None:
            self.stream.close()
        if self.id is None:
            try:  # created under its name but the create call failed half-way
                self.client.api.remove_container(self.name, force=True, v=True)
            except Exception:
                pass
            return
        for _ in range(3):
            try:
                self.client.api.remove_container(self.id, force=True, v=True)
                return
            except Exception as e:
                if "No such container" in str(e) or getattr(getattr(e, "response", None), "status_code", 0) == 404:
                    return
                time.sleep(0.2)

    def alive(self) -> bool:
        return self.stream is not None and not self.stream.peer_gone()


def _bootstrap() -> str:
    from .executor import BOOTSTRAP

    return BOOTSTRAP


def seccomp_profile_json() -> str:
    """The shared policy as compact JSON, the form the engine's API takes."""
    import seccomp

    return json.dumps(seccomp.load_policy(), separators=(",", ":"))
