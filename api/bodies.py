"""A time limit on receiving a request body, so a body sent a byte at a time cannot hold a connection.

`BodyTimeout` wraps the WSGI app: a request that has a body (a Content-Length above 0, or chunked)
gets a `wsgi.input` whose reads must all be done within `seconds` of the first one, together (a
trickle of single bytes does not renew it). Nothing is read ahead: the body is still read by the
view, after the rate limits (a Flask `before_request`) have counted the request, so a client over
its limit is refused without sending its body. Past the time the answer is a 408 problem+json and
the connection's read side is shut, so the server drops the rest of the body instead of draining it.

Under gunicorn's gevent worker (the service's) a `gevent.Timeout` interrupts a read that waits;
elsewhere (threads, the test client) the time is checked after each read.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from werkzeug.wsgi import ClosingIterator

from api.problems import problem

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


class BodyTimedOut(BaseException):
    """The body did not arrive in time (a BaseException, as gevent's Timeout is: no `except Exception` eats it)."""


def has_body(environ: WSGIEnvironment) -> bool:
    """True when the request announces a body: a Content-Length above 0, or a Transfer-Encoding."""
    length = environ.get("CONTENT_LENGTH", "")
    return bool(environ.get("HTTP_TRANSFER_ENCODING")) or (bool(length) and length != "0")


def _gevent_timeout(seconds: float) -> AbstractContextManager[Any] | None:
    """A gevent.Timeout raising BodyTimedOut when this process runs on gevent's monkey-patched sockets; else None."""
    try:
        from gevent import Timeout, monkey  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - gevent is a dependency of the service
        return None
    if not monkey.is_module_patched("socket"):
        return None
    return Timeout(seconds, BodyTimedOut)  # type: ignore[no-any-return]


class TimedInput:
    """A `wsgi.input` whose reads must be done within `seconds` of the first read, all together."""

    def __init__(self, stream: Any, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.seconds = seconds
        self.clock = clock
        self.deadline: float | None = None

    def read(self, size: int = -1) -> bytes:
        """Read as the stream would, within the time left."""
        return bytes(self._within(self.stream.read, size))

    def readline(self, size: int = -1) -> bytes:
        """Read a line as the stream would, within the time left."""
        return bytes(self._within(self.stream.readline, size))

    def readlines(self, hint: int = -1) -> list[bytes]:
        """Read lines as the stream would, within the time left."""
        return list(self._within(self.stream.readlines, hint))

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def _within(self, read: Callable[[int], Any], size: int) -> Any:
        now = self.clock()
        if self.deadline is None:
            self.deadline = now + self.seconds
        left = self.deadline - now
        if left <= 0:
            raise BodyTimedOut()
        with _gevent_timeout(left) or nullcontext():
            data = read(size)
        if self.clock() > self.deadline:
            raise BodyTimedOut()
        return data


class BodyTimeout:
    """WSGI middleware: a request's body must arrive within `seconds` of its first read, or a 408 answers it."""

    def __init__(self, app: WSGIApplication, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.seconds = seconds
        self.clock = clock

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if self.seconds <= 0 or not has_body(environ):
            return self.app(environ, start_response)  # no body, no cost
        environ["wsgi.input"] = TimedInput(environ["wsgi.input"], self.seconds, self.clock)
        try:
            return self.app(environ, start_response)
        except BodyTimedOut:
            detail = f"the request body did not arrive within {self.seconds:g} s"
            answer = problem(408, "request-timeout", "Request Timeout", detail)
            return ClosingIterator(answer(environ, start_response), lambda: stop_reading(environ))


def stop_reading(environ: WSGIEnvironment) -> None:
    """Shut the read side of gunicorn's client socket: the unread rest of the body is dropped, not drained."""
    client = environ.get("gunicorn.socket")
    if client is None:
        return
    with contextlib.suppress(OSError):  # the client is gone already
        client.shutdown(socket.SHUT_RD)
