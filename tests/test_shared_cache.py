"""The compile cache shared by several instances (CODETEST_SHARED_CACHE_DIR, compose's replicas
profile): what one service compiled, another answers from the cache, with the same key rules
(successes and deterministic compiler rejections only); entries are only ever seen whole, also
when the shared folder is on another filesystem than the instance's state; and an instance
never evicts an entry another one may be running."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time

import httpx
import pytest

from conftest import cache_entry, service_process
from sandbox.cache import CompileCache, STAGING_PREFIX

GOOD = {"language": "cpp", "code": "#include <cstdio>\nint main(){long a,b;scanf(\"%ld %ld\",&a,&b);"
        "printf(\"%ld\\n\",a+b);}", "tests": [{"stdin": "1 2\n", "expected_stdout": "3\n"}]}
REJECTED = {"language": "cpp", "code": "int main(){ return undeclared_name; }",
            "tests": [{"stdin": "", "expected_stdout": ""}]}


def _other_fs_dir() -> str:
    """A folder on another filesystem than the services' state (/dev/shm is a tmpfs), where
    there is one: the store must stage entries on its own filesystem before the rename."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="codetest-shared-cache-", dir=base)


@pytest.mark.slow
def test_two_services_share_compiled_programs_and_rejections():
    shared = _other_fs_dir()
    env = {"CODETEST_SHARED_CACHE_DIR": shared}
    try:
        with service_process("native", slots=1, extra_env=env) as (a, _pa), \
                service_process("native", slots=1, uid_offset=2, extra_env=env) as (b, _pb):
            first = httpx.post(a + "/v1/run", json=GOOD, timeout=120).json()
            assert first["verdict"] == "AC" and first["compile"]["cached"] is False, first
            again = httpx.post(b + "/v1/run", json=GOOD, timeout=120).json()
            assert again["verdict"] == "AC" and again["compile"]["cached"] is True, again
            rejected = httpx.post(b + "/v1/run", json=REJECTED, timeout=120).json()
            assert rejected["verdict"] == "CE" and rejected["compile"]["cached"] is False, rejected
            also = httpx.post(a + "/v1/run", json=REJECTED, timeout=120).json()
            assert also["verdict"] == "CE" and also["compile"]["cached"] is True, also
            assert also["compile"]["stderr"] == rejected["compile"]["stderr"]  # the compiler's own words
        entries = os.listdir(shared)
        assert len(entries) == 2 and not [e for e in entries if e.startswith(STAGING_PREFIX)], entries
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_shared_store_evicts_only_entries_idle_for_the_grace(tmp_path):
    shared = _other_fs_dir()
    try:
        one = CompileCache(shared, max_bytes=150_000, shared=True)
        other = CompileCache(shared, max_bytes=150_000, shared=True)
        other.shared_rescan_s = 0  # read the store's real size after every put
        one.put("k0", cache_entry(str(tmp_path), "k0", 100_000), {"ok": True})
        other.put("k1", cache_entry(str(tmp_path), "k1", 100_000), {"ok": True})  # over the bound
        assert one.get("k0") and other.get("k0") and one.get("k1")  # both recent: both kept
        old = time.time() - 3600
        os.utime(os.path.join(shared, "k0", ".meta.json"), (old, old))  # k0 idle for an hour
        other.put("k2", cache_entry(str(tmp_path), "k2", 10), {"ok": True})
        assert not os.path.exists(os.path.join(shared, "k0")) and other.get("k1") and other.get("k2")
        assert not [n for n in os.listdir(shared) if n.startswith(".")]
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_program_compiled_on_a_noexec_mount_stays_executable(tmp_path):
    """A replica's state folder is a tmpfs mounted noexec (compose): the compiled binary comes
    from there, and must keep its x bit in the cache (the mode, not access(X_OK), says so)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    state = tmp_path / "state"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "noexec,size=8m", "codetest-test", str(state)], check=True)
    try:
        folder = cache_entry(str(state), "bin", 10)
        os.chmod(os.path.join(folder, "blob"), 0o700)
        cache = CompileCache(str(tmp_path / "cache"), max_bytes=1 << 20)
        cache.put("k", folder, {"ok": True})
        assert os.stat(os.path.join(cache.path("k"), "blob")).st_mode & 0o777 == 0o755
    finally:
        subprocess.run(["umount", str(state)], check=True)
