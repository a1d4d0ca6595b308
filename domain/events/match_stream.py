"""One viewer's events of one match, as Server-Sent Events, and the long-poll wait.

An event is the viewer's view of the match at a version, with the log entries applied since the
viewer's previous event, redacted for that viewer exactly as `GET /v1/matches/{id}/log` does:

    id: 7
    event: match
    data: {"version": 7, "match": {...}, "log": [{"version": 6, ...}, {"version": 7, ...}],
           "log_after": 5, "log_earlier": null, "legal_actions": {"version": 7, "seat": 1, "may_act": true, ...}}

A seat's event carries `legal_actions`, what that seat may do at the event's version (exactly what
`GET .../legal-actions` answers there), so a player needs no other request before its move; the
public's events never carry any.

Changes that land between two reads are sent as one event (its log has every entry). An event
carries at most the newest `LOG_WINDOW` entries: when more are due (the first event of a long
match, a client far behind), `log_after` says after which version its log starts and
`log_earlier` is the `/log` page where the entries left out begin. The stream ends with an `end`
event once the match is finished, aborted or gone, and sends a comment line as a heartbeat
whenever it has been quiet for `heartbeat` seconds. A stream opened with `?rematch=true` stays
open after the match finished, sending the rematch offer's changes as `match` events, until the
rematch starts (the match's `rematch.match`), and ends then. While a stream is open, and while a
long-poll waits, the match counts as watched (`store/watchers.py`), for its spectator pace
(`domain/matches/pace.py`).
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, TypedDict

import redis

from domain.links import LOG_PAGE_MAX, with_query
from domain.matches import commands
from domain.matches.pace import counts_watchers, watch_best_effort
from domain.matches.reads import Reads, StateOf, state_of
from engine import GameState
from model import codec as jsoncodec
from model.match import MatchRecord, SeatRecord
from model.refusals import NotFound, RulesChanged
from model.tokens import Credential
from store.changes import ChangeFeed, Watch
from store.matches import RULES_CHANGED, LogPage, MatchStore
from store.watchers import new_watcher

log = logging.getLogger(__name__)
RETRY_MS = 2000  # how long a disconnected EventSource waits before it reconnects
HEARTBEAT = ": heartbeat\n\n"
RENDERS_KEPT = 128  # recent (match, version, viewer) renders a process keeps for its streams
FRAMES_KEPT = 8
"""Event frames one render keeps (for different `after`s): enough for the streams that keep up."""
LOG_WINDOW = 100
"""The newest log entries a `match` event carries at most; earlier ones are read from `/log`."""
WATCH_SLACK = 5.0
"""Seconds a stream's or long-poll's watch outlives its next refresh (or its end) should its process die."""


def sse(event: str, data: str, event_id: int | None = None) -> str:
    """One Server-Sent Event whose data is one line of JSON text (JSON never holds a raw newline)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


def sse_bytes(event: str, data: str, event_id: int | None = None) -> bytes:
    """`sse`, encoded as it goes on the wire (the server then writes it as is)."""
    return sse(event, data, event_id).encode()


def compact(value: Any) -> str:
    """JSON text without spaces."""
    return jsoncodec.dumps(value)


class EndJson(TypedDict):
    """The data of the `end` event: the last version sent (None if none was) and why the stream ends."""

    version: int | None
    reason: str  # the match's status (finished, aborted), `expired`, `rules-changed`, or a SeatLost


def end_event(version: int | None, reason: str) -> bytes:
    """The `end` event a stream closes with."""
    data: EndJson = {"version": version, "reason": reason}
    return sse_bytes("end", compact(data))


@dataclass(frozen=True)
class Rendered:
    """A match at one version as one viewer sees it, with the newest `LOG_WINDOW` log entries, as JSON."""

    version: int
    ended: bool  # finished or aborted: the stream ends after this
    status: str
    match: str
    versions: tuple[int, ...]  # of the log entries kept, oldest first
    entries: tuple[str, ...]  # those entries' JSON, redacted for the viewer as in the whole log
    before: int | None  # the version of the newest entry left out; None when every entry after `log_from` is kept
    rematch_open: bool = False  # finished, and a rematch may still start (streams asked to follow it stay open)
    holder: SeatRecord | None = None  # the viewer's seat as it is held at this version (None for the public)
    legal_actions: str | None = None  # what the viewer's seat may do at this version, as JSON (None for the public)
    log_from: int = 0  # the entries are those after this version (the newest `LOG_WINDOW` of them, see `before`)

    frames: dict[tuple[int, str, int | None], bytes] = field(default_factory=dict, compare=False, repr=False)
    """The `match` events written so far, whole and encoded, per (after, log_url, seat): the streams of one viewer
    are mostly at the same version, so one event serves them all."""

    def covers(self, after: int | None) -> bool:
        """True when this render holds the log a client that has seen up to `after` needs (else read it again)."""
        return (after or 0) >= self.log_from or self.before is not None

    def frame(self, after: int | None, log_url: str, seat: int | None) -> bytes:
        """The `match` event for a client that has seen up to version `after` (nothing if None).

        `log_url` is the match's `/log`, where the viewer (`seat`) reads the entries left out.
        """
        seen = after or 0
        key = (seen, log_url, seat)
        frame = self.frames.get(key)
        if frame is None:
            frame = sse_bytes("match", self._data(seen, log_url, seat), self.version)
            if len(self.frames) < FRAMES_KEPT:  # clients far behind each get their own, unkept
                self.frames[key] = frame
        return frame

    def _data(self, seen: int, log_url: str, seat: int | None) -> str:
        log = ",".join(self.entries[bisect.bisect_right(self.versions, seen) :])
        left_out = self.before is not None and self.before > seen
        log_after = self.before if left_out else seen
        earlier = compact(with_query(log_url, after=seen, limit=LOG_PAGE_MAX, seat=seat)) if left_out else "null"
        legal = f',"legal_actions":{self.legal_actions}' if self.legal_actions is not None else ""
        return (
            f'{{"version":{self.version},"match":{self.match},"log":[{log}],'
            f'"log_after":{log_after},"log_earlier":{earlier}{legal}}}'
        )


def render(
    store: MatchStore,
    reads: Reads,
    record: MatchRecord,
    viewer: int | None,
    token: Credential | None = None,
    after: int = 0,
    window: LogPage | None = None,
    state: StateOf | None = None,
) -> Rendered:
    """The viewer's view of the match and a seat's legal actions (both shared with the reads), and the newest
    log entries after version `after` as `GET .../log` shows them to that viewer.

    A stream that keeps up needs the entry or two since its last event, so only those are read (`window`, when
    the caller read them with the record): the log's whole window cost more than the rest of an event.
    """
    # The newest entries are the log's tail, so they are redacted as in the whole log (see GameState.log_tail).
    if window is None:
        window = newest_entries(store, record, after)
    entries = window.entries
    left_out = window.before if window.before is not None and window.before > after else None
    state = state or state_of(record)
    if not record.ended:
        entries = commands.redacted(state(), window.entries, [], viewer)
    return Rendered(
        record.version,
        record.ended,
        record.status,
        reads.match(record, viewer, token, state),
        tuple(entry["version"] for entry in entries),
        tuple(compact(entry) for entry in entries),
        left_out,
        record.rematch_open,
        record.seats[viewer] if viewer is not None else None,
        reads.legal_actions(record, viewer, state) if viewer is not None else None,
        after,
    )


def known_state(state: GameState) -> StateOf:
    """A state at hand, given where a parse would be."""
    return lambda: state


def newest_entries(store: MatchStore, record: MatchRecord, after: int) -> LogPage:
    """The newest `LOG_WINDOW` log entries after version `after` up to the record's: those this process wrote
    itself when it stored every version since (a stream that keeps up), else read."""
    if 0 <= record.version - after <= LOG_WINDOW:
        written = store.written_entries(record.id, after, record.version)
        if written is not None:
            return LogPage(written, [], None, False)
    return store.log_page(record.id, after, LOG_WINDOW, record.version, newest=True)


class Renders:
    """Renders shared by every stream of this process: one per (match, version, viewer), however many follow it.

    The versions this process stored itself (`remember`, a listener of every stored change) or read for an
    event are kept, so their events read only the new log entries, never the match; a socket's action chosen at
    such a version is checked on it without reading the match (`stored`).
    """

    def __init__(self, reads: Reads, size: int = RENDERS_KEPT) -> None:
        self.reads = reads
        self.size = size
        self._kept: OrderedDict[tuple[str, int, int | None], Rendered] = OrderedDict()
        self._stored: OrderedDict[tuple[str, int], tuple[MatchRecord, GameState | None]] = OrderedDict()
        self._newest: dict[str, int] = {}  # the newest version held of each match in `_stored`
        self._rendering: dict[tuple[str, int, int | None], threading.Event] = {}
        self._lock = threading.Lock()

    def get(
        self,
        store: MatchStore,
        match_id: str,
        version: int | None,
        viewer: int | None,
        token: Credential | None = None,
        after: int | None = None,
    ) -> Rendered | None:
        """The match at `version` (or a newer one) for the viewer, with the log after `after`, rendered once; None
        if it is gone.

        A change wakes every stream of the match at once: the first to ask renders, and the others
        wait for its render instead of each reading and rendering the same version again. A stream further
        behind than the kept render's log reads it again, from where it is.
        """
        if version is None:
            return None
        key = (match_id, version, viewer)
        while True:
            with self._lock:
                kept = self._kept.get(key)
                if kept is not None and kept.covers(after):
                    self._kept.move_to_end(key)
                    return kept
                rendering = self._rendering.get(key)
                if rendering is None:
                    rendering = self._rendering[key] = threading.Event()
                    break
            # No timeout (each would cost a timer): the render sets the event however it ends. Then look again:
            # kept, or render it ourselves if that render failed (or read less of the log than we need).
            rendering.wait()
        try:
            return self._render(store, key, token, after or 0)
        finally:
            with self._lock:
                del self._rendering[key]
            rendering.set()

    def remember(self, record: MatchRecord, state: GameState) -> None:
        """A version this process has just stored, and its engine state (only read from here on)."""
        with self._lock:
            self._hold(record, state)

    def stored(self, match_id: str, version: object) -> MatchRecord | None:
        """The match at `version` if this process stored it or read it for an event lately (a stored version never
        changes; whether it is still the newest, only the store can say). `version` as a client sent it: None
        unless it is a version number."""
        if not isinstance(version, int) or isinstance(version, bool):
            return None
        with self._lock:
            kept = self._stored.get((match_id, version))
        return kept[0] if kept is not None else None

    def _remember_read(self, record: MatchRecord) -> None:
        """A version read for an event, kept for `stored` (its engine state is not kept: it is parsed when needed)."""
        with self._lock:
            if (record.id, record.version) not in self._stored:
                self._hold(record, None)

    def _hold(self, record: MatchRecord, state: GameState | None) -> None:
        """Hold a version (under the lock), forgetting the oldest held beyond `size`."""
        self._stored[(record.id, record.version)] = (record, state)
        if record.version > self._newest.get(record.id, -1):
            self._newest[record.id] = record.version
        while len(self._stored) > self.size:
            (match_id, version), _ = self._stored.popitem(last=False)
            if self._newest.get(match_id) == version:
                del self._newest[match_id]

    def _render(
        self, store: MatchStore, key: tuple[str, int, int | None], token: Credential | None, after: int
    ) -> Rendered | None:
        """Read and render the match, kept under the version asked for and the version read."""
        match_id, version, viewer = key
        with self._lock:  # the newest version held, so changes announced apart still make one event
            newest = self._newest.get(match_id, version)
            stored = self._stored.get((match_id, max(version, newest)))
        if stored is not None:  # stored or read here: only the new log entries are read
            record, state = stored
            parsed = state_of(record) if state is None else known_state(state)
            rendered = render(store, self.reads, record, viewer, token, min(after, record.version), state=parsed)
        else:
            read = store.load_with_log(match_id, after, LOG_WINDOW)
            if read is None:
                return None
            record, window = read
            rendered = render(store, self.reads, record, viewer, token, min(after, record.version), window)
            self._remember_read(record)
        with self._lock:  # a stored version never changes, so its render can be kept
            self._kept[key] = self._kept[(match_id, rendered.version, viewer)] = rendered
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return rendered


@dataclass
class EventStream:
    """The SSE text of one match for one viewer, from the version after `after` (everything if None)."""

    store: MatchStore
    feed: ChangeFeed
    renders: Renders
    match_id: str
    viewer: int | None
    after: int | None
    heartbeat: float
    log_url: str  # the match's `/log`, for the entries an event leaves out
    rematch: bool = False  # stay open after the match finished until its rematch starts (`?rematch=true`)
    token: Credential | None = None  # what the viewer's seat was checked with: checked again before each send
    watcher: str = field(default_factory=new_watcher, init=False)  # this stream as one of the match's watchers
    watch_refresh: float = field(default=0.0, init=False)  # monotonic time from which the watch is refreshed

    def __iter__(self) -> Iterator[bytes]:
        """Chunks to write to the client, as they happen; ends when the match is finished or gone."""
        watch = self.feed.watch(self.match_id)
        try:
            self._keep_watching()
            yield f"retry: {RETRY_MS}\n\n".encode()
            yield from self._events(watch)
        except redis.RedisError as error:
            # The status line is sent already: end the stream, and the client resumes with Last-Event-ID.
            log.warning("event stream of %s ended: %s", self.match_id, error)
        finally:
            self.feed.unwatch(watch)
            self._stop_watching()

    def _keep_watching(self) -> None:
        """Count this stream among the match's watchers for two heartbeats more (refreshed every half heartbeat
        at most: a stream wakes at least once a heartbeat)."""
        now = time.monotonic()
        if now >= self.watch_refresh:
            watch_best_effort(self.store.watchers, self.match_id, self.watcher, 2 * self.heartbeat + WATCH_SLACK)
            self.watch_refresh = now + self.heartbeat / 2

    def _stop_watching(self) -> None:
        """The stream ended: it no longer watches (should Redis be away, the watch lapses by itself)."""
        with contextlib.suppress(redis.RedisError):
            self.store.watchers.unwatch(self.match_id, self.watcher)

    def _events(self, watch: Watch) -> Iterator[bytes]:
        """An event per change seen (a catch-up first if the client is behind), then `end`."""
        last = self.after
        version = self.store.version(self.match_id)  # read after the watch began, so no change slips between
        while True:
            try:
                rendered = self.renders.get(self.store, self.match_id, version, self.viewer, self.token, last)
            except RulesChanged:  # stored under earlier rules of its game: nothing to show any more
                yield end_event(last, RULES_CHANGED)
                return
            if rendered is None:
                yield end_event(last, "expired")
                return
            lost = self._seat_lost(rendered.holder)
            if lost is not None:
                yield end_event(last, lost)
                return
            if last is None or rendered.version != last:  # newer, or a client ahead of us: resync
                yield rendered.frame(last, self.log_url, self.viewer)
                last = rendered.version
            if rendered.ended and not (self.rematch and rendered.rematch_open):
                yield end_event(last, rendered.status)
                return
            version = yield from self._next_version(watch, last, rendered.holder)
            if self.feed.stopping:
                return

    def _seat_lost(self, holder: SeatRecord | None) -> commands.SeatLost | None:
        """Why the stream's token no longer acts for its seat as `holder` shows it (None: it does, or public)."""
        if holder is None or self.token is None:
            return None
        return commands.seat_lost(self.store, holder, self.token)

    def _next_version(
        self, watch: Watch, version: int, holder: SeatRecord | None
    ) -> Generator[bytes, None, int | None]:
        """Heartbeats while the match stays at `version`; then its new version (None if it is gone).

        Each wake checks the token again (a bot's token is rotated without a new version): once it no longer
        acts for its seat, the current version is answered, whose render ends the stream.
        """
        while True:
            announced = watch.wait(self.heartbeat)
            if self.feed.stopping:  # the server is shutting down: the client resumes elsewhere
                return None
            self._keep_watching()
            if self._seat_lost(holder) is not None:
                return self.store.version(self.match_id)
            if announced is None:
                yield HEARTBEAT.encode()
            # Without a version announced (a quiet spell, a lost connection) the store says which it is.
            current = announced if announced is not None and announced > version else None
            if current is None:
                current = self.store.version(self.match_id)
            if current != version:
                return current


def wait_for_change(
    store: MatchStore, feed: ChangeFeed, record: MatchRecord, after: int, seconds: float
) -> MatchRecord:
    """The match as soon as its version passes `after`, or as it stands after `seconds` (or once it is settled)."""
    if record.version > after or record.settled or seconds <= 0:
        return record
    deadline = time.monotonic() + seconds
    watcher = new_watcher() if counts_watchers(record) else None
    if watcher is not None:  # a long-poll watches the match too
        watch_best_effort(store.watchers, record.id, watcher, seconds + WATCH_SLACK)
    try:
        with feed.watching(record.id) as watch:
            while True:
                latest = store.load(record.id)  # read after the watch began, so no change slips between
                if latest is None:
                    raise NotFound(f"no match {record.id!r} (it expired)")
                remaining = deadline - time.monotonic()
                if latest.version > after or latest.settled or remaining <= 0 or feed.stopping:
                    return latest
                watch.wait(remaining)
    finally:
        if watcher is not None:
            with contextlib.suppress(redis.RedisError):
                store.watchers.unwatch(record.id, watcher)
