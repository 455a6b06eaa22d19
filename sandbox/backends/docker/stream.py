"""The jail protocol's frames over a container's attached stdin/stdout.

Why not ``docker exec``: it costs 50-100 ms per call. The executor instead lives as the
container's main process and reads requests on its stdin; the host holds one attach
connection per container for its whole life. Without a TTY the engine multiplexes the
container's stdout and stderr on that connection in frames of
``[stream, 0, 0, 0, size (u32 big-endian)] + payload``; stdout carries our replies,
stderr whatever the jail server prints on a crash (kept for the error message). Inside
stdout travel the jail's own frames (``sandbox.jail.protocol``): raw bytes, bounded.
"""

from __future__ import annotations

import select
import socket
import struct
import time

from ...jail import protocol


class StreamClosed(ConnectionError):
    """The container's end went away: it died, or the engine did."""


class StreamTimeout(TimeoutError):
    """No complete reply before the deadline."""


class AttachStream:
    def __init__(self, sock: socket.socket, stderr_keep: int = 8192):
        self.sock = sock
        self._raw = bytearray()     # bytes as read from the engine (frames)
        self._out = bytearray()     # the container's stdout, demultiplexed
        self.stderr = bytearray()   # the container's stderr, last ``stderr_keep`` bytes
        self._stderr_keep = stderr_keep
        self._frames = protocol.FrameBuffer(protocol.MAX_CONTROL)
        self.closed = False

    # -- sending

    def send_raw(self, data: bytes) -> None:
        try:
            self.sock.settimeout(60)
            self.sock.sendall(data)
        except OSError as e:
            self.closed = True
            raise StreamClosed(f"send failed: {e}") from e

    # -- receiving

    def recv_frame(self, deadline: float, max_size: int = protocol.MAX_CONTROL) -> tuple[int, bytes]:
        """The next jail frame (kind, payload), or StreamTimeout / StreamClosed; a frame larger
        than ``max_size`` is a protocol error (the jail bounds what it sends)."""
        buf = self._frames
        buf.max_size = max_size
        while True:
            buf.feed(bytes(self._out))
            self._out.clear()
            got = buf.take()
            if got is not None:
                return got
            self._fill(deadline)

    def _fill(self, deadline: float) -> None:
        if self.closed:
            raise StreamClosed(self._why())
        left = deadline - time.monotonic()
        if left <= 0:
            raise StreamTimeout("no reply from the container's executor in time")
        self.sock.settimeout(min(left, 5.0))
        try:
            chunk = self.sock.recv(4 << 20)
        except socket.timeout:
            return
        except OSError as e:
            self.closed = True
            raise StreamClosed(f"{e}; {self._why()}") from e
        if not chunk:
            self.closed = True
            raise StreamClosed(self._why())
        self._raw += chunk
        self._demux()

    def _demux(self) -> None:
        raw = self._raw
        pos = 0
        while len(raw) - pos >= 8:
            kind = raw[pos]
            (size,) = struct.unpack_from(">I", raw, pos + 4)
            if len(raw) - pos < 8 + size:
                break
            payload = raw[pos + 8:pos + 8 + size]
            pos += 8 + size
            if kind == 1:
                self._out += payload
            elif kind == 2:
                self.stderr += payload
                del self.stderr[:-self._stderr_keep]
        del raw[:pos]  # once per read, not once per frame

    def _why(self) -> str:
        tail = bytes(self.stderr[-600:]).decode(errors="replace").strip()
        return "the container closed its stream" + (f" (stderr: {tail})" if tail else "")

    def peer_gone(self) -> bool:
        """Cheap check, between requests, that the container's end is still there."""
        if self.closed:
            return True
        try:
            r, _, _ = select.select([self.sock], [], [], 0)
            if not r:
                return False
            data = self.sock.recv(1 << 16, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError:
            self.closed = True
            return True
        if not data:
            self.closed = True
            return True
        self._raw += data  # stray bytes (a late stderr line): keep them for the next reply
        self._demux()
        return False

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass
