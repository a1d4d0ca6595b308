"""Adversity inside the process: an httpx transport around the real one that answers 429 storms and 503s,
refuses connections, drops event streams and slows answers, as a busy or restarting server would."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx


@dataclass
class Faults:
    """What the transport does to the next requests; changed by `parlour-bot check` while the bot plays."""

    storm: int = 0
    """The next this-many requests are answered `429` with `Retry-After: 1`."""
    outage_until: float = 0.0
    """Until this monotonic time every request is refused (a connection error, then a `503`, in turn)."""
    slow: int = 0
    """The next this-many requests of a move (`legal-actions`, or the action: a bot acting on its events' legal
    actions sends only that) are held for `delay` seconds."""
    delay: float = 0.0
    injected: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, what: str) -> None:
        """Note one fault injected."""
        self.injected[what] = self.injected.get(what, 0) + 1


class DroppableStream(httpx.SyncByteStream):
    """A streamed body that `FaultTransport.drop_streams` can cut, as a dropped connection would."""

    def __init__(self, inner: httpx.SyncByteStream) -> None:
        self.inner = inner
        self.cut = False

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self.inner:
                if self.cut:
                    break
                yield chunk
        except Exception as error:
            raise httpx.ReadError(f"the connection dropped: {error}") from error
        if self.cut:
            raise httpx.ReadError("the connection dropped (fault injected)")

    def close(self) -> None:
        self.inner.close()

    def drop(self) -> None:
        """Cut the body now: the reader's next read fails."""
        self.cut = True
        self.inner.close()


class FaultTransport(httpx.BaseTransport):
    """The real transport, with `faults` applied to every request first."""

    def __init__(self, inner: httpx.BaseTransport | None = None, faults: Faults | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.faults = faults or Faults()
        self.streams: list[DroppableStream] = []
        self._turn = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        faults = self.faults
        with faults.lock:
            if time.monotonic() < faults.outage_until:
                self._turn += 1
                faults.count("outage")
                if self._turn % 2:
                    raise httpx.ConnectError("connection refused (the server is restarting: fault injected)")
                return _problem(503, "service-unavailable", "the server is restarting (fault injected)")
            if faults.storm > 0:
                faults.storm -= 1
                faults.count("429")
                return _problem(429, "rate-limited", "too many requests (fault injected)")
            slow = faults.slow > 0 and request.url.path.endswith(("/legal-actions", "/actions"))
            if slow:
                faults.slow -= 1
                faults.count("slow")
        if slow:
            time.sleep(faults.delay)
        response = self.inner.handle_request(request)
        if request.headers.get("Accept") == "text/event-stream" and isinstance(response.stream, httpx.SyncByteStream):
            stream = DroppableStream(response.stream)
            self.streams.append(stream)
            return httpx.Response(response.status_code, headers=response.headers, stream=stream, request=request)
        return response

    def drop_streams(self, *, counted: bool = True) -> int:
        """Cut every open event stream (`counted`: as the fault of its own); how many were cut."""
        open_streams, self.streams = self.streams, []
        for stream in open_streams:
            stream.drop()
        if counted:
            self.faults.count("dropped stream")
        return len(open_streams)

    def outage(self, seconds: float) -> None:
        """A server restart: the streams drop, then every request is refused for `seconds`."""
        with self.faults.lock:
            self.faults.outage_until = time.monotonic() + seconds
        self.drop_streams(counted=False)

    def close(self) -> None:
        self.inner.close()


def _problem(status: int, code: str, detail: str) -> httpx.Response:
    """A problem+json answer, with `Retry-After: 1`."""
    body = {"type": "about:blank", "title": code, "status": status, "detail": detail, "code": code}
    headers = {"Retry-After": "1", "Content-Type": "application/problem+json"}
    return httpx.Response(status, headers=headers, json=body)
