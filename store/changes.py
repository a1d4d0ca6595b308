"""Change notices from Redis, fanned out to the streams and long-polls this process serves.

Each API process keeps one pub/sub connection, subscribed to the store's change channel, read by
one background listener (a thread, or a greenlet under gevent) that wakes every watch on the
changed match with the version it reached. The match itself is always read from Redis, so no
other process ever needs anything kept here.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from store.matches import MatchStore

log = logging.getLogger(__name__)
SUBSCRIBE_TIMEOUT = 2.0  # seconds a first watch waits for the subscription before it relies on re-reads
RECONNECT_DELAY = 1.0  # seconds between attempts to subscribe again after Redis went away
POLL_INTERVAL = 1.0  # seconds the listener blocks on the connection before it checks for a stop
UNKNOWN = -1  # a notice without a version (the connection was lost meanwhile): read the match again


class Watch:
    """One stream's or long-poll's interest in a match: woken whenever the match may have changed."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self._changed = threading.Event()
        self._announced: int | None = None

    def notify(self, version: int = UNKNOWN) -> None:
        """Wake whoever waits on this watch, with the version announced (UNKNOWN: read the match again)."""
        previous = self._announced
        if previous is None:
            self._announced = version
        else:
            self._announced = UNKNOWN if UNKNOWN in (previous, version) else max(previous, version)
        self._changed.set()

    def wait(self, timeout: float) -> int | None:
        """Wait up to `timeout` seconds; None if nothing came, else the newest version announced, or UNKNOWN."""
        changed = self._changed.wait(max(0.0, timeout))
        # Cleared before the caller reads the match: a change stored after that read notifies again.
        self._changed.clear()
        announced, self._announced = self._announced, None
        if not changed:
            return None
        return UNKNOWN if announced is None else announced


class ChangeFeed:
    """The change notices of every match, heard once per process and handed to the watches."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store
        self._watches: dict[str, set[Watch]] = {}
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        self._stopping = threading.Event()
        self._listener: threading.Thread | None = None
        self._listener_pid: int | None = None

    def watch(self, match_id: str) -> Watch:
        """Start watching a match; read it only after this, so no change is missed."""
        self._ensure_listener()
        watch = Watch(match_id)
        with self._lock:
            self._watches.setdefault(match_id, set()).add(watch)
        if not self.stopping:
            self._subscribed.wait(SUBSCRIBE_TIMEOUT)
        return watch

    def unwatch(self, watch: Watch) -> None:
        """Stop watching."""
        with self._lock:
            watches = self._watches.get(watch.match_id)
            if watches is not None:
                watches.discard(watch)
                if not watches:
                    del self._watches[watch.match_id]

    @contextmanager
    def watching(self, match_id: str) -> Iterator[Watch]:
        """A watch on a match for the length of a `with` block."""
        watch = self.watch(match_id)
        try:
            yield watch
        finally:
            self.unwatch(watch)

    def watched(self) -> int:
        """How many watches are open in this process."""
        with self._lock:
            return sum(len(watches) for watches in self._watches.values())

    def stop(self) -> None:
        """Stop for good: the listener ends within a second, and every watch wakes (streams end, long-polls answer)."""
        self._stopping.set()
        self._wake_all()

    @property
    def stopping(self) -> bool:
        """True once `stop` was called: the process is shutting down."""
        return self._stopping.is_set()

    def _ensure_listener(self) -> None:
        """Start the listener in this process if it is not running (a forked worker starts its own)."""
        with self._lock:
            alive = self._listener is not None and self._listener.is_alive()
            if self.stopping or (alive and self._listener_pid == os.getpid()):
                return  # a stopped feed stays stopped: the process is on its way out
            self._subscribed.clear()
            self._listener = threading.Thread(target=self._listen, name="parlour-change-feed", daemon=True)
            self._listener_pid = os.getpid()
            self._listener.start()

    def _listen(self) -> None:
        """Subscribe, hand out notices, and subscribe again whenever the connection is lost."""
        while not self._stopping.is_set():
            try:
                pubsub = self.store.subscribe_changes()
                try:
                    self._pump(pubsub)
                finally:
                    pubsub.close()
            except (redis.RedisError, OSError) as error:
                log.warning("change notices interrupted (%s); subscribing again", error)
            self._subscribed.clear()
            self._stopping.wait(RECONNECT_DELAY)

    def _pump(self, pubsub: redis.client.PubSub) -> None:
        """Read notices until stopped, waking the watches of each changed match."""
        while not self._stopping.is_set():
            message = pubsub.get_message(timeout=POLL_INTERVAL)
            if message is None:
                continue
            if message["type"] == "subscribe":
                self._subscribed.set()
                self._wake_all()  # anything stored while we were not subscribed was not announced to us
            elif message["type"] == "message":
                change = self.store.change_of(message["data"])
                if change is not None:
                    self._wake(*change)

    def _wake(self, match_id: str, version: int) -> None:
        """Notify every watch on one match of its new version."""
        with self._lock:
            watches = list(self._watches.get(match_id, ()))
        for watch in watches:
            watch.notify(version)

    def _wake_all(self) -> None:
        """Notify every watch: each reads its match again."""
        with self._lock:
            watches = [watch for group in self._watches.values() for watch in group]
        for watch in watches:
            watch.notify()
