"""The docker backend: each execution on a warm, hardened container from a pool.

    DockerBackend(SandboxConfig(backend="docker")).execute(spec) -> ExecResult

Per execution the host sends one request on an attach stream the container already has
open, and reads one reply: no container is created, no ``docker exec`` run. A container
that dies or hangs mid-request is discarded and the request retried once on a fresh one;
a second failure is ``ExecResult.error`` (verdict SE).
"""

from __future__ import annotations

import base64
import logging
import os
import secrets
import threading
import time
from typing import Any, Optional

from ...errors import SandboxUnavailable
from ...ownership import claim, remove_unowned
from ...languages import Toolchain, detect_toolchains
from ...jail import protocol
from ...jail.tree import files_to_job
from ..base import JAIL_ATTEMPTS, ExecResult, ExecSpec
from .container import (
    LABEL_BACKEND, LABEL_OWNER, LABEL_POOL, ContainerError, PoolContainer, owner_label, seccomp_profile_json,
)
from ..files import FilesTooLarge, program_key, read_dir, work_from_reply, work_into_job
from .pool import ContainerPool
from .settings import DockerSettings
from .stream import StreamClosed, StreamTimeout
from .toolchains import probe_image, probe_libraries

log = logging.getLogger("codetest.docker")

# How long a dead pool's folder outlives the sweep that found its owner gone: the engine may
# still finish creating a container the owner asked for as it died, and later sweeps look again.
DEAD_POOL_GRACE_S = 120.0

_toolchain_cache: dict[str, dict[str, Toolchain]] = {}
_library_cache: dict[str, dict] = {}
_toolchain_lock = threading.Lock()


class DockerBackend:
    name = "docker"
    inline_programs = False  # a container caches each program by its host folder (``program_key``)

    def __init__(self, config: Any, settings: Optional[DockerSettings] = None):
        self.config = config
        self.settings = s = settings or DockerSettings.from_config(config)
        self.slots = s.containers
        self.problems: list[str] = []
        self._closed = False
        self._owner_fd: Optional[int] = None
        self._secret = secrets.token_bytes(16)
        self.pool_id = secrets.token_hex(4)
        try:
            import docker  # the SDK; a dependency of codetest, imported only when this backend is chosen
        except ImportError as e:  # pragma: no cover
            raise SandboxUnavailable(f"the docker backend needs the docker Python package: {e}") from e
        try:
            self.client = docker.from_env(timeout=s.docker_timeout_s)
            self.client.ping()
            info = self.client.info()
        except Exception as e:
            raise SandboxUnavailable(f"no Docker engine reachable ({e}); start one (scripts/docker-host.sh start) "
                                     "or use the native backend") from e
        self.engine_version = info.get("ServerVersion", "?")
        registered = sorted((info.get("Runtimes") or {}).keys())
        self.runtime_note = ""
        if s.runtime:
            if s.runtime not in registered:
                raise SandboxUnavailable(f"Docker runtime {s.runtime!r} is not registered with the engine "
                                         f"(registered: {', '.join(registered)}); see docs/docker.md")
            self.runtime = s.runtime
        else:
            self.runtime = "runsc" if "runsc" in registered else "runc"
            if self.runtime == "runc":
                self.runtime_note = "runsc is not registered with the engine"
        try:
            self.image_id = self.client.images.get(s.image).id
        except Exception as e:
            raise SandboxUnavailable(f"runtime image {s.image!r} not found ({e}); build it with "
                                     "docker/build-images.sh") from e
        self.seccomp_json = seccomp_profile_json()
        self.bpf_b64, self.bpf_note = self._compile_bpf()
        self._owner_fd = self._claim_pool()
        log.info("sandbox pool %s (owner %s)%s", self.pool_id, owner_label(),
                 " holds its lock in " + self.settings.owners_dir if self._owner_fd is not None else ", no lock")
        self._dead_since: dict[str, float] = {}  # dead pools' folders: when first found dead
        self._remove_stale_containers()
        self._stop_sweeping = threading.Event()
        self._toolchains = self._probe_toolchains()
        self._argv_map = self._host_to_image_paths()
        self._uid_lock = threading.Lock()
        self._uids_used: set[int] = set()
        self.pool = self._make_pool()
        ready = self.pool.wait_ready(self.slots, s.start_timeout_s)
        if ready == 0 and not s.runtime and self.runtime == "runsc":
            # gVisor is registered but cannot start here (a nested VM without its platform):
            # report it and carry on with runc; gVisor is reported, never required.
            err = self.pool.last_error
            self.pool.close()
            self.runtime, self.runtime_note = "runc", f"runsc is registered but failed to start a container: {err}"
            log.warning("%s; falling back to runc", self.runtime_note)
            self.pool = self._make_pool()
            ready = self.pool.wait_ready(self.slots, s.start_timeout_s)
        if ready == 0:
            log.error("docker backend: no container started: %s", self.pool.last_error)
        self.selfcheck = self._self_check() if ready else {}
        # last: a constructor that raised above leaves no thread sweeping behind it
        threading.Thread(target=self._sweep_stale, name="codetest-docker-stale", daemon=True).start()

    # -- setup helpers

    def _compile_bpf(self) -> tuple[Optional[str], str]:
        try:
            import seccomp

            bpf = seccomp.compile_bpf()
            return base64.b64encode(bpf).decode(), f"and stacked again in each execution ({len(bpf) // 8} BPF instructions)"
        except Exception as e:  # the container's profile still applies
            return None, f"(the in-execution filter could not be built: {e})"

    def _probe_toolchains(self) -> dict[str, Toolchain]:
        with _toolchain_lock:
            if self.image_id not in _toolchain_cache:
                _toolchain_cache[self.image_id] = probe_image(self.client, self.settings.image)
            return dict(_toolchain_cache[self.image_id])

    def _host_to_image_paths(self) -> dict[str, str]:
        """Host toolchain paths -> the image's, for engines that build argv from host detection."""
        out: dict[str, str] = {}
        try:
            host = detect_toolchains()
        except Exception:
            return out
        for name, tc in self._toolchains.items():
            h = host.get(name)
            if h is None:
                continue
            if h.binary != tc.binary:
                out[h.binary] = tc.binary
            for tool, path in h.extra.items():
                if tool in tc.extra and tc.extra[tool] != path:
                    out[path] = tc.extra[tool]
        return out

    def _next_uid(self) -> int:
        with self._uid_lock:
            for k in range(1000):
                uid = self.settings.uid_base + k
                if uid not in self._uids_used:
                    self._uids_used.add(uid)
                    return uid
        raise ContainerError("no free program uid")

    def _make_container(self, index: int) -> PoolContainer:
        uid = self._next_uid()
        c = PoolContainer(self.client, self.settings, pool_id=self.pool_id, index=index, uid=uid,
                          runtime=self.runtime, seccomp_json=self.seccomp_json, bpf_b64=self.bpf_b64)
        orig_remove = c.remove

        def remove() -> None:
            orig_remove()
            with self._uid_lock:
                self._uids_used.discard(uid)
        c.remove = remove  # type: ignore[method-assign]
        return c

    def _make_pool(self) -> ContainerPool:
        return ContainerPool(self._make_container, self.slots, jobs_per_container=self.settings.jobs_per_container,
                             sweep=self._sweep_pool)

    def _sweep_pool(self, keep: set[str]) -> int:
        n = 0
        # The low-level listing: the high-level one inspects each container and trips over
        # containers removed while it runs.
        for c in self.client.api.containers(all=True, filters={"label": f"{LABEL_POOL}={self.pool_id}"}):
            if c["Id"] not in keep:
                self._force_remove(c["Id"])
                n += 1
        return n

    def _claim_pool(self) -> Optional[int]:
        """Hold a lock on ``<owners_dir>/pool-<id>`` for as long as this backend lives.

        The kernel drops the lock when the process dies, however it dies (SIGKILL, OOM) and
        in whatever PID namespace or container it ran: that is how a later instance sharing
        the folder knows the pool's containers are left over (sandbox/ownership.py; ``claim``
        holds the folder against the other instances' sweeps from the moment it returns)."""
        top = self.settings.owners_dir
        if not top:
            return None
        try:
            os.makedirs(top, mode=0o755, exist_ok=True)
            return claim(os.path.join(top, f"pool-{self.pool_id}"))
        except OSError as e:
            log.warning("cannot hold a lock in %s (%s): if this instance dies, only an instance in its own "
                        "PID namespace removes its containers", top, e)
            return None

    def _remove_stale_containers(self) -> None:
        """Remove the containers of instances that died without closing. Two rules, neither of
        which ever touches a live instance's containers:

        * a pool whose lock in the owners folder is free: its owner is gone, whatever PID
          namespace or container it ran in (a SIGKILLed replica);
        * an owner label in this host's and PID namespace whose process is gone (an instance
          that could hold no lock)."""
        if self.settings.owners_dir:
            dead: set[str] = set()

            def remove(folder: str) -> None:
                dead.add(folder)
                self._remove_dead_pool(folder)

            remove_unowned(self.settings.owners_dir, remove)
            # A folder found dead once and locked since (a sweep took it in the moment before
            # its owner locked it) starts its grace again should its owner die later.
            self._dead_since = {f: t for f, t in self._dead_since.items() if f in dead}
        mine = owner_label().rsplit(":", 1)[0]  # host:pid-namespace
        try:
            stale = self.client.api.containers(all=True, filters={"label": f"{LABEL_BACKEND}=docker"})
        except Exception:
            return
        for c in stale:
            owner = (c.get("Labels") or {}).get(LABEL_OWNER, "")
            where, _, pid = owner.rpartition(":")
            if where == mine and pid.isdigit() and not _pid_alive(int(pid)):
                log.warning("removing stale sandbox container %s (owner %s is gone)", c["Id"][:12], owner)
                self._force_remove(c["Id"])

    def _sweep_stale(self) -> None:
        """Every ``stale_sweep_s``, the start-up sweep again, until this backend closes."""
        while not self._stop_sweeping.wait(self.settings.stale_sweep_s):
            try:
                self._remove_stale_containers()
            except Exception as e:  # noqa: BLE001 - the next round tries again
                log.debug("sweeping stale containers: %s", e)

    def _remove_dead_pool(self, folder: str) -> None:
        """Called with the free lock of a dead pool held: remove its containers, then the folder.
        The folder, and with it the next sweep's look, stays while a removal fails and until a
        sweep finds no container of the pool ``DEAD_POOL_GRACE_S`` after the pool was first seen
        dead: the engine may still finish creating a container the owner asked for as it died."""
        name = os.path.basename(folder)
        first_seen = self._dead_since.setdefault(folder, time.monotonic())
        if name.startswith("pool-"):
            try:
                left = self.client.api.containers(all=True, filters={"label": f"{LABEL_POOL}={name[5:]}"})
            except Exception as e:
                log.debug("listing the containers of dead pool %s: %s", name[5:], e)
                return
            for c in left:
                log.warning("removing sandbox container %s of dead pool %s (its owner's lock is free)",
                            c["Id"][:12], name[5:])
                self._force_remove(c["Id"])
            if left or time.monotonic() - first_seen < DEAD_POOL_GRACE_S:
                return
        try:
            os.rmdir(folder)
            self._dead_since.pop(folder, None)
        except OSError as e:
            log.debug("rmdir %s: %s", folder, e)

    def _force_remove(self, cid: str) -> bool:
        try:
            self.client.api.remove_container(cid, force=True, v=True)
            return True
        except Exception as e:
            if getattr(getattr(e, "response", None), "status_code", None) == 404:
                return True  # already gone
            log.debug("remove %s: %s", cid[:12], e)
            return False

    def _self_check(self) -> dict:
        """Ask a pool container what a program sees: uid, capabilities, no_new_privs, seccomp, network."""
        from ..base import ExecLimits

        # NoNewPrivs via prctl: gVisor's /proc/self/status does not show it.
        code = (
            "import os,json,ctypes\n"
            "st=dict(l.split(':',1) for l in open('/proc/self/status'))\n"
            "nnp=ctypes.CDLL(None).prctl(39,0,0,0,0)\n"
            "nets=[l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]] "
            "if os.path.exists('/proc/net/dev') else []\n"
            "print(json.dumps({'uid':os.getuid(),'capeff':st['CapEff'].strip(),'nnp':str(nnp),"
            "'seccomp':st.get('Seccomp','?').strip(),'net':nets,'kernel':os.uname().release}))\n"
        )
        lim = ExecLimits(cpu_s=5, wall_s=10, memory_bytes=256 << 20, output_bytes=1 << 16, processes=16,
                         file_size_bytes=1 << 20)
        res = self.execute(ExecSpec(argv=["/usr/bin/python3", "-c", code], limits=lim))
        import json

        try:
            return json.loads(res.stdout.decode())
        except ValueError:
            return {"error": res.error or res.stderr.decode(errors="replace")[-500:]}

    # -- the Backend protocol

    def toolchains(self) -> dict[str, Toolchain]:
        """The image's toolchains (paths inside the container), by language name."""
        return dict(self._toolchains)

    def libraries(self) -> dict:
        """The image's libraries and versions, probed once per image (first /healthz)."""
        image_id = getattr(self, "image_id", None)
        if image_id is None:
            return {}
        with _toolchain_lock:
            if image_id not in _library_cache:
                _library_cache[image_id] = probe_libraries(self.client, self.settings.image)
            return dict(_library_cache[image_id])

    def execute(self, spec: ExecSpec) -> ExecResult:
        if self._closed:
            return ExecResult(error="docker backend is closed")
        s = self.settings
        job = protocol.Job(argv=[self._argv_map.get(a, a) for a in spec.argv], env=dict(spec.env), stdin=spec.stdin,
                           python_source=spec.python_inline, fetch=None if spec.fetch is None else list(spec.fetch))
        job.files.update(spec.files)
        if spec.work_dir:
            problem = work_into_job(spec.work_dir, job, s.work_mb << 20)
            if problem:
                return ExecResult(error=problem)
        key = program_key(spec.program_dir, self._secret) if spec.program_dir else None
        timeout = spec.limits.clock_budget_s() + s.reply_grace_s
        last = ""
        for attempt in range(JAIL_ATTEMPTS):
            c = self.pool.acquire(s.acquire_timeout_s)
            if c is None:
                why = self.pool.last_error or "all containers busy"
                return ExecResult(error=f"no sandbox container available within {s.acquire_timeout_s:.0f}s ({why})")
            try:
                facts, extras, blobs = self._run_on(c, job, spec, key, timeout)
            except (StreamClosed, StreamTimeout, protocol.ProtocolError, OSError, ValueError) as e:
                last = f"{type(e).__name__}: {e}"
                log.warning("container %s failed mid-request (attempt %d): %s", c.name, attempt + 1, last)
                self.pool.discard(c, last)
                continue
            except BaseException:
                self.pool.discard(c, "request interrupted")
                raise
            c.jobs += 1
            if facts.error:  # the jail failed and stopped: the execution runs again on a fresh container
                last = facts.error
                log.warning("container %s failed an execution (attempt %d): %s", c.name, attempt + 1, last)
                self.pool.discard(c, last)
                continue
            if extras.get("anomaly"):
                self.pool.discard(c, f"anomaly: {extras['anomaly']}")
            else:
                self.pool.release(c)
            return self._to_result(facts, extras, blobs, spec)
        return ExecResult(error=f"sandbox container failed {JAIL_ATTEMPTS} times: {last}")

    def _run_on(self, c: PoolContainer, job: protocol.Job, spec: ExecSpec, key: Optional[str], timeout: float):
        job = protocol.Job(**{**job.__dict__, "box": dict(job.box), "blobs": dict(job.blobs)})
        job.box.update(prog_key=key, evict=[])
        sent = False
        if key is not None:
            if key in c.prog_keys:
                c.prog_keys.move_to_end(key)
            else:
                size = self._add_program(job, spec.program_dir)
                sent = True
                budget = self.settings.prog_cache_mb << 20
                while c.prog_keys and sum(c.prog_keys.values()) + size > budget:
                    old, _ = c.prog_keys.popitem(last=False)
                    job.box["evict"].append(old)
                c.prog_keys[key] = size
        facts, extras, blobs = self._call(c, job, spec, timeout + (10 if sent else 0))
        if extras.get("missing_prog"):  # the container lost its cache (it should not): send the files
            self._add_program(job, spec.program_dir)
            facts, extras, blobs = self._call(c, job, spec, timeout + 10)
        return facts, extras, blobs

    def _call(self, c: PoolContainer, job: protocol.Job, spec: ExecSpec, timeout: float):
        data = protocol.encode_job(job)
        header = protocol.encode_header(protocol.Header(limits=spec.limits, job_size=len(data)))
        return c.call(header, data, spec.limits.output_bytes, self.settings.work_mb << 20, timeout,
                      fetch_cap=protocol.FETCH_BYTES if job.fetch is not None else 0)

    def _add_program(self, job: protocol.Job, program_dir: Optional[str]) -> int:
        assert program_dir is not None
        try:
            files, size = read_dir(program_dir, self.settings.prog_cache_mb << 20)
        except FilesTooLarge as e:
            raise ValueError(str(e)) from e
        files_to_job(files, "prog:", job)
        job.box["prog_sent"] = True
        return size

    def _to_result(self, res: ExecResult, extras: dict, blobs: list, spec: ExecSpec) -> ExecResult:
        return res if spec.work_dir is None else work_from_reply(res, extras, blobs, spec.work_dir)

    def gate(self) -> dict:
        h = self.health()  # a few counters under the pool's lock: cheap enough for every request
        return {"layers": h["layers"], "problems": h["problems"]}

    def health(self) -> dict:
        s = self.settings
        counts = self.pool.counts()
        problems = list(self.problems)
        ready = counts["idle"] + counts["busy"]
        down = self.pool.down_for()
        # A pool that is healing (a container died, the engine restarted) is not a problem
        # until it has been empty for as long as a request would wait for it.
        if ready == 0 and (counts["started"] == 0 or down > s.acquire_timeout_s):
            problems.append("no sandbox container is running" + (f": {self.pool.last_error}"
                                                                  if self.pool.last_error else ""))
        sc = self.selfcheck
        gv = self.runtime == "runsc"
        layers = {
            "namespaces": {"active": True, "detail": "container: mount (read-only root; tmpfs /work, /tmp, /mnt), pid, "
                                                     "net (none), ipc, uts"},
            "gvisor": {"active": gv, "detail": ("runsc (gVisor)" if gv else "runc") +
                       (f"; {self.runtime_note}" if self.runtime_note else "")},
            "seccomp": {"active": True, "detail": f"seccomp/policy.json as the container's profile "
                                                  f"{self.bpf_note}"},
            "cgroups": {"active": True, "detail": f"container cgroup: memory {s.memory_mb + s.memory_headroom_mb} MiB, "
                                                  f"pids {s.pids}, {s.cpus:g} CPU; each test's memory and CPU "
                                                  "limits enforced by the executor"},
            "rlimits": {"active": True, "detail": "CPU, file size, open files, processes, stack, core dumps off"},
            "uid": {"active": True, "detail": f"uid {s.uid_base}+k per container, no capabilities, "
                                              "no_new_privs, scrubbed environment"},
        }
        if sc and "error" not in sc:
            if sc.get("capeff") != "0000000000000000" or sc.get("nnp") != "1" or sc.get("uid") == 0:
                layers["uid"] = {"active": False, "detail": f"self-check failed: {sc}"}
            if sc.get("seccomp") not in ("2",):
                layers["seccomp"] = {"active": False, "detail": f"self-check: Seccomp={sc.get('seccomp')}"}
            if [n for n in sc.get("net", []) if n != "lo"]:
                layers["namespaces"] = {"active": False, "detail": f"self-check: network interfaces {sc['net']}"}
        return {
            "layers": layers, "slots": self.slots, "problems": problems,
            "docker": {"engine": self.engine_version, "runtime": self.runtime, "image": s.image,
                       "image_id": self.image_id[:19], "pool": counts, "healing": ready == 0, "selfcheck": sc,
                       "jobs_per_container": s.jobs_per_container},
        }

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop_sweeping.set()
        self.pool.close()
        if self._owner_fd is not None:  # every container is gone: give the pool's folder up
            try:
                os.rmdir(os.path.join(self.settings.owners_dir, f"pool-{self.pool_id}"))
            except OSError:
                pass
            os.close(self._owner_fd)
            self._owner_fd = None
        try:
            self.client.close()
        except Exception:
            pass


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
