"""The bench's HTTP driver: one kept-alive ``http.client`` connection per driving thread.

The driver shares the machine with the service it measures (two cores here), so every
millisecond it spends is one the service does not get. httpx's client cost about 1 ms of CPU
per ``/run_code`` request in the driver (its transport, pool and header layers under 32 threads);
the standard library's connection does the same exchange for about a third of that. The
driver's own CPU per execution is printed beside the service's (``drv ms/ex``), so a run says
what each side cost. Trainers' own clients (verl's ``requests``, OpenRLHF's) are exercised for
their scores in ``bench/trainer_load.py``; this one only has to be cheap and correct.
"""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any, Optional
from urllib.parse import urlsplit


class KeepAliveClient:
    """``post(path, body)`` from many threads, each over a connection of its own."""

    def __init__(self, url: str, timeout_s: float = 300.0):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout_s = timeout_s
        self._local = threading.local()
        self._all: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def _connection(self) -> http.client.HTTPConnection:
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        """(status, response body). A connection the server closed is opened again once."""
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request("POST", path, body=data, headers=headers)
                r = conn.getresponse()
                payload = r.read()
            except (http.client.HTTPException, ConnectionError):
                conn.close()
                if attempt == 2:
                    raise
                continue
            if r.will_close:
                conn.close()
            return r.status, payload
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
