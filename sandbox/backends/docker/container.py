"""One pool container: started hardened, its jail server bootstrapped, then spoken to.

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
from typing import Any, Optional

from ...jail import protocol
from ...jail.boot import BOOTSTRAP, boot_message
from .settings import DockerSettings
from .stream import AttachStream, StreamClosed, StreamTimeout

LABEL_BACKEND = "codetest.backend"
LABEL_POOL = "codetest.pool"
LABEL_OWNER = "codetest.owner"
MASKED_PATHS = (
    "/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
    "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap",
    "/proc/cmdline", "/proc/sys/kernel/random/boot_id", "/proc/kallsyms", "/proc/interrupts",
)


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
                "/mnt": f"{tmpfs_opts},size={s.tmp_mb}m,mode=1777",
                "/run/codetest": f"{tmpfs_opts},size={s.prog_cache_mb + 16}m,mode=0755",
            },
            shm_size=f"{s.shm_mb}m",
            ipc_mode="private",
            runtime=self.runtime,
            log_config={"type": "none", "config": {}},
            init=False,
        )
        # Docker's default masked paths, plus the host's kernel command line and boot id.
        host_config["MaskedPaths"] = list(MASKED_PATHS)
        try:
            created = api.create_container(
                image=s.image,
                command=["python3", "-I", "-B", "-c", BOOTSTRAP],
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
            init = {
                "box": "container", "uid": self.uid, "gid": self.uid, "bpf": self.bpf_b64,
                "poll_s": s.poll_s, "work_limit_bytes": s.work_mb << 20, "runtime": self.runtime,
            }
            self.stream.send_raw(boot_message() + protocol.json_frame(protocol.F_INIT, init))
            kind, payload = self.stream.recv_frame(time.monotonic() + s.start_timeout_s)
            reply = json.loads(payload) if kind == protocol.F_REPLY else {"error": f"unexpected frame {kind}"}
        except (StreamClosed, StreamTimeout) as e:
            raise ContainerError(f"container {self.name} did not start its executor: {e}") from e
        except Exception as e:  # docker.errors.*, requests errors
            raise ContainerError(f"container {self.name} failed to start: {e}") from e
        if not reply.get("ok"):
            raise ContainerError(f"executor in {self.name} refused to start: {reply.get('error')}")
        self.info = reply

    def call(self, header: bytes, job: bytes, output_cap: int, blob_cap: int, timeout: float, fetch_cap: int = 0):
        """Send one execution, wait for its Facts: (facts, extras, blobs). StreamClosed /
        StreamTimeout on faults; ProtocolError when the reply breaks its bounds."""
        if self.stream is None:
            raise StreamClosed("container not started")
        deadline = time.monotonic() + timeout
        with self._lock:
            self.stream.send_raw(header + job)
            reader = protocol.FactsReader(output_cap, blob_cap, fetch_cap)
            size = max(output_cap, blob_cap, fetch_cap, protocol.MAX_CONTROL)
            while not reader.add(*self.stream.recv_frame(deadline, size)):
                pass
            return reader.facts()

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


def seccomp_profile_json() -> str:
    """The shared policy as compact JSON, the form the engine's API takes."""
    import seccomp

    return json.dumps(seccomp.load_policy(), separators=(",", ":"))
