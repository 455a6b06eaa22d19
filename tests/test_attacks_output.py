"""Issue 11, finding 4: program output cannot blow up the service's memory.

16 tests that each print 16 MiB of ``\\x01`` (a control byte: 6 bytes once JSON-escaped) is a
sixteenth of the per-job output budget the service accepts. The service runs as a real
``codetest serve`` in a memory cgroup of its own (1.5 GiB), so that a regression fails this test
instead of taking down the machine. The answer must be OLE, or 413/429 with a message, or the
output itself; never an OOM kill, a dropped connection or a 500. The service must answer after.
"""

from __future__ import annotations

import httpx
import pytest

from conftest import BACKENDS, service_log, service_process

FLOOD = "import sys\nsys.stdout.buffer.write(b'\\x01' * (16 << 20))\nsys.stdout.flush()\n"
SERVICE_MEMORY = 1536 << 20


@pytest.mark.parametrize("backend", BACKENDS)
def test_control_byte_flood_does_not_oom_the_service(backend, test_cgroup):
    cg = test_cgroup()
    cg.set_memory_limit(SERVICE_MEMORY)
    with service_process(backend, slots=2, preexec_fn=cg.preexec()) as (url, proc):
        body = {"language": "python", "code": FLOOD,
                "limits": {"time_s": 10, "wall_time_s": 60, "output_kb": 17000, "memory_mb": 256},
                "tests": [{"stdin": ""} for _ in range(16)]}
        try:
            r = httpx.post(url + "/v1/run", json=body, timeout=600)
        except httpx.HTTPError as e:
            pytest.fail(f"no answer ({type(e).__name__}: {e}); service exit {proc.poll()}, "
                        f"OOM kills in its cgroup: {cg.oom_killed()}\n{service_log(proc)}")
        assert proc.poll() is None, f"the service died ({proc.returncode})\n{service_log(proc)}"
        assert cg.oom_killed() == 0, "the kernel OOM-killed something in the service's cgroup"
        assert r.status_code in (200, 413, 429), (r.status_code, r.text[:2000])
        if r.status_code == 200:
            res = r.json()
            for t in res["tests"]:
                assert t["verdict"] in ("OLE", "AC"), t["verdict"]
                if t["verdict"] == "AC":  # accepted means the whole output came back, not a silent cut
                    assert len(t["stdout"]) == 16 << 20 and not t.get("truncated")
        else:
            detail = r.json().get("detail") or r.json().get("message") or r.json().get("error")
            assert detail, r.text
        # Still serving.
        assert httpx.get(url + "/healthz", timeout=30).status_code == 200
        small = httpx.post(url + "/v1/run", json={"language": "python", "code": "print(input())",
                                                   "tests": [{"stdin": "hi\n", "expected_stdout": "hi\n"}]},
                           timeout=120)
        assert small.status_code == 200 and small.json()["verdict"] == "AC", small.text[:1000]
