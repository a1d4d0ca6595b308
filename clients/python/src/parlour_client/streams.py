"""Event streams as iterators that resume by themselves with `Last-Event-ID` after a dropped connection."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager

import httpx

from parlour_client.sse import Event, events

Opener = Callable[[int | None], AbstractContextManager[httpx.Response]]
"""Opens the stream resuming after an event id (None: from the start), answering the open response."""
Backoff = Callable[[int, float | None], None]
"""Waits before a reconnection: given the failures in a row before it (0: the first reconnection) and the
server's `retry:` in seconds (None when it sent none)."""


class EventStream(Iterator[Event]):
    """The events of one Server-Sent Events endpoint, across reconnections, until an `end` event.

    A connection that drops (or closes without `end`) is opened again with `Last-Event-ID` set to the
    last event's `id`, so no event is missed or repeated, after `backoff` waited: the server's last
    `retry:` (`retry`, in seconds) when it sent one. `drop()` closes the current connection as a
    network failure would; the next read resumes.
    """

    def __init__(self, opener: Opener, last_event_id: int | None, backoff: Backoff, attempts: int) -> None:
        self.last_event_id = last_event_id
        self.reconnects = 0
        self.retry: float | None = None
        """The reconnection time the server last asked for (`retry:`), in seconds; None before it asks."""
        self._opener = opener
        self._backoff = backoff
        self._attempts = attempts
        self._response: httpx.Response | None = None
        self._stopped = False
        self._events = self._run()

    def __next__(self) -> Event:
        return next(self._events)

    def drop(self) -> None:
        """Close the current connection (the stream resumes from `last_event_id` on the next read)."""
        if self._response is not None:
            self._response.close()

    def close(self) -> None:
        """Stop following the stream (from the thread reading it)."""
        self._events.close()

    def stop(self) -> None:
        """Stop following the stream from another thread: the reader's iteration ends instead of resuming."""
        self._stopped = True
        self.drop()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _run(self) -> Generator[Event, None, None]:
        failures = 0
        while not self._stopped:
            if failures >= self._attempts:
                raise httpx.ReadError(f"the event stream dropped {failures} times in a row without an event")
            try:
                with self._opener(self.last_event_id) as response:
                    self._response = response
                    if self._stopped:
                        return
                    for event in events(response.iter_lines(), self._set_retry):
                        failures = 0
                        if event.id is not None:
                            self.last_event_id = event.id
                        yield event
                        if event.event == "end":
                            return
            except (httpx.TransportError, httpx.StreamError):
                pass  # dropped: resume below
            finally:
                self._response = None
            if self._stopped:
                return
            self._backoff(failures, self.retry)
            failures += 1
            self.reconnects += 1

    def _set_retry(self, milliseconds: int) -> None:
        self.retry = milliseconds / 1000
