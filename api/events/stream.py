"""One viewer's events of one match, as Server-Sent Events, and the long-poll wait.

An event is the viewer's view of the match at a version, with the log entries applied since the
viewer's previous event, redacted for that viewer exactly as `GET /v1/matches/{id}/log` does:

    id: 7
    event: match
    data: {"version": 7, "match": {...}, "log": [{"version": 6, ...}, {"version": 7, ...}]}

Changes that land between two reads are sent as one event (its log has every entry). The stream
ends with an `end` event once the match is finished (or gone), and sends a comment line as a
heartbeat whenever it has been quiet for `heartbeat` seconds.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from api.errors import NotFound
from api.events.feed import ChangeFeed, Watch
from api.matches import service
from api.record import FINISHED, MatchRecord
from api.store import MatchStore

log = logging.getLogger(__name__)
RETRY_MS = 2000  # how long a disconnected EventSource waits before it reconnects
HEARTBEAT = ": heartbeat\n\n"


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> str:
    """One Server-Sent Event; the JSON is on one line (it never holds a raw newline)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def change_data(store: MatchStore, record: MatchRecord, viewer: int | None, after: int | None) -> dict[str, Any]:
    """The data of a `match` event: the viewer's view, and the log entries after version `after`."""
    match = service.match_json(record, service.engine_state(record), viewer)
    # The whole log is redacted, as /log does, since a game may hide an entry by its place in the log.
    entries = service.log_json(record, store.log(record.id), viewer)["entries"]
    since = after or 0
    return {"version": record.version, "match": match, "log": [e for e in entries if e["version"] > since]}


@dataclass
class EventStream:
    """The SSE text of one match for one viewer, from the version after `after` (everything if None)."""

    store: MatchStore
    feed: ChangeFeed
    match_id: str
    viewer: int | None
    after: int | None
    heartbeat: float

    def __iter__(self) -> Iterator[str]:
        """Chunks to write to the client, as they happen; ends when the match is finished or gone."""
        watch = self.feed.watch(self.match_id)
        try:
            yield f"retry: {RETRY_MS}\n\n"
            yield from self._events(watch)
        except redis.RedisError as error:
            # The status line is sent already: end the stream, and the client resumes with Last-Event-ID.
            log.warning("event stream of %s ended: %s", self.match_id, error)
        finally:
            self.feed.unwatch(watch)

    def _events(self, watch: Watch) -> Iterator[str]:
        """An event per change seen (a catch-up first if the client is behind), then `end`."""
        last = self.after
        while True:
            record = self.store.load(self.match_id)
            if record is None:
                yield sse("end", {"version": last, "reason": "expired"})
                return
            if last is None or record.version != last:  # newer, or a client ahead of us: resync
                yield sse("match", change_data(self.store, record, self.viewer, last), record.version)
                last = record.version
            if record.status == FINISHED:
                yield sse("end", {"version": last, "reason": "finished"})
                return
            yield from self._until_changed(watch, last)

    def _until_changed(self, watch: Watch, version: int) -> Iterator[str]:
        """Heartbeats while the stored version stays `version`; returns once it differs."""
        while True:
            if not watch.wait(self.heartbeat):
                yield HEARTBEAT
            # After a quiet spell too: a notice lost with a dropped connection delays an event, never loses it.
            if self.store.version(self.match_id) != version:
                return


def wait_for_change(
    store: MatchStore, feed: ChangeFeed, record: MatchRecord, after: int, seconds: float
) -> MatchRecord:
    """The match as soon as its version passes `after`, or as it stands after `seconds`."""
    if record.version > after or record.status == FINISHED or seconds <= 0:
        return record
    deadline = time.monotonic() + seconds
    with feed.watching(record.id) as watch:
        while True:
            latest = store.load(record.id)  # read after the watch began, so no change slips between
            if latest is None:
                raise NotFound(f"no match {record.id!r} (it expired)")
            remaining = deadline - time.monotonic()
            if latest.version > after or latest.status == FINISHED or remaining <= 0:
                return latest
            watch.wait(remaining)
