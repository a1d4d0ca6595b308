"""What a socket sends, written by one writer thread, so nobody else ever waits on a slow client.

The events pump and the message handler put messages in the outbox and go on; the writer sends them
in order. The pump waits for the outbox to drain before it reads the next change (so a slow reader
gets the newest version with every entry since, as a stream's catching up does, rather than a pile of
old ones). A socket whose outbox holds more than `max_bytes`, or whose writer has been stuck on one
send for `lag_seconds`, is lagging: what is queued is dropped and it is closed with `LAGGING`; the
client reconnects and resumes from its last event with `after`, losing nothing.

Under gunicorn's gevent worker the threads are greenlets; under `gthread` they are threads.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections import deque
from typing import Any

from api.socket.protocol import LAGGING

log = logging.getLogger(__name__)
CLOSE_GRACE = 2.0
"""Seconds the client has to answer the server's close frame before its connection is shut."""


class SendAllSocket:
    """The connection's socket as simple-websocket sees it: each `send` sends all of its bytes, one at a time
    (the library sends with `send`, which may send part of a frame; its reader and our writer both send)."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self._lock = threading.Lock()

    def send(self, data: bytes) -> int:
        with self._lock:
            self.sock.sendall(data)
        return len(data)

    def recv(self, size: int) -> bytes:
        return bytes(self.sock.recv(size))

    def fileno(self) -> int:
        return int(self.sock.fileno())

    def shutdown(self) -> None:
        """End both directions at once (wakes a thread blocked reading or writing it)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.sock.close()


class Outbox:
    """The messages waiting to be sent on one socket (`ws`: a simple-websocket connection), and its writer."""

    def __init__(self, ws: Any, max_bytes: int, lag_seconds: float) -> None:
        self.ws = ws
        self.max_bytes = max_bytes
        self.lag_seconds = lag_seconds
        self.raw = SendAllSocket(ws.sock)
        ws.sock = self.raw
        self._queue: deque[str] = deque()
        self._bytes = 0
        self._changed = threading.Condition()
        self._sending_since: float | None = None
        self.close_code: int | None = None  # set once the socket is to close
        self.close_reason = ""
        self.closed = False  # the writer is done: nothing more is sent
        self._writer = threading.Thread(target=self._write, name="socket-writer", daemon=True)
        self._writer.start()

    def put(self, message: str) -> bool:
        """Queue a message; False once the socket is closing (or has just been found lagging)."""
        with self._changed:
            if self.close_code is not None:
                return False
            self._queue.append(message)
            self._bytes += len(message)
            self._changed.notify_all()
            if self._bytes <= self.max_bytes:
                return True
        self.lagging(f"more than {self.max_bytes} bytes waited to be sent")
        return False

    def put_when_drained(self, message: str) -> bool:
        """Queue a message once everything before it is sent; lagging if that takes `lag_seconds`."""
        with self._changed:
            drained = self._changed.wait_for(lambda: not self._queue or self.close_code is not None, self.lag_seconds)
        if not drained:
            self.lagging(f"a message waited {self.lag_seconds:g} s to be sent")
            return False
        return self.put(message)

    def check_lag(self) -> None:
        """Close the socket if one send has been stuck for `lag_seconds` (the handler calls this when idle)."""
        since = self._sending_since
        if since is not None and time.monotonic() - since > self.lag_seconds:
            self.lagging(f"a send was stuck for {self.lag_seconds:g} s")

    def lagging(self, why: str) -> None:
        """Drop what waits and close with LAGGING: the client resumes with `after`."""
        log.info("socket closed as lagging: %s", why)
        with self._changed:
            self._queue.clear()
            self._bytes = 0
        self.close(LAGGING, "lagging: reconnect and resume with after")
        if self._sending_since is not None:  # the writer is stuck: unblock it (no close frame can get through)
            self.raw.shutdown()

    def close(self, code: int, reason: str) -> None:
        """Send what is queued, then a close frame with `code` (the first close asked for wins)."""
        with self._changed:
            if self.close_code is None:
                self.close_code = code
                self.close_reason = reason
            self._changed.notify_all()

    def wait_closed(self, seconds: float) -> bool:
        """Wait until the writer is done; True if it is."""
        self._writer.join(seconds)
        return not self._writer.is_alive()

    def _write(self) -> None:
        try:
            while True:
                with self._changed:
                    self._changed.wait_for(lambda: bool(self._queue) or self.close_code is not None)
                    if not self._queue:
                        break
                    message = self._queue.popleft()
                    self._bytes -= len(message)
                    self._sending_since = time.monotonic()
                try:
                    self.ws.send(message)
                finally:
                    self._sending_since = None
                with self._changed:
                    self._changed.notify_all()
            self._send_close()
        except Exception as error:  # the client went away: nothing more can be sent
            log.debug("socket writer ended: %r", error)
        finally:
            with self._changed:
                self.closed = True
                if self.close_code is None:
                    self.close_code = 1006  # abnormal: the connection was lost
                self._queue.clear()
                self._changed.notify_all()
            self.ws.event.set()  # wake the handler waiting for a message

    def _send_close(self) -> None:
        """The close frame, then a short wait for the client's, then the connection shut."""
        with contextlib.suppress(Exception):
            self.ws.close(self.close_code, self.close_reason)
        thread = getattr(self.ws, "thread", None)
        if thread is not None:
            thread.join(CLOSE_GRACE)
        self.raw.shutdown()
