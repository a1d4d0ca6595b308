"""Quotas: how much one client may hold at once, counted in Redis so every API process sees the same.

What a client holds is one sorted set per kind and client in Redis (`store/quotas.py` lists the keys;
a client is its address key, as the limiter keys creations: `addr:<ip>`).

A creation reserves a place first (a placeholder member, so two concurrent creations cannot both
take the last place), then names it with the new id; a creation that fails gives its place back.
Matches, tournaments and bots are counted until they are over (finished, aborted, expired, deleted),
kept matches until they expire (a day after they end; an hour for one the AI played alone):
a set is pruned lazily, when it is full, by reading what its members are now, so nothing needs to
tell the quota when a match ends. A stream's place is a lease the stream renews as it sends (a
heartbeat at least every `PARLOUR_EVENTS_HEARTBEAT` seconds) and gives back when it closes; a
stream whose process died simply stops renewing, and its lease runs out.

A client over a quota is refused with 429 `quota-exceeded`, naming the `quota` and how many are
`in_use`; the place frees when something it holds ends, so retrying later can succeed.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

import redis

from model.match import WAITING, MatchRecord
from model.refusals import QuotaExceeded
from model.settings import LimitSettings
from store.connection import is_store_full
from store.matches import MatchStore
from store.quotas import QuotaStore
from store.tournaments import TournamentStore

log = logging.getLogger(__name__)
PENDING = "pending:"
"""Placeholder members: a creation in flight."""
PENDING_GRACE = 60.0
"""Seconds a placeholder is kept before pruning counts it as lost (its process died mid-creation)."""
Clock = Callable[[], float]
STREAMS = "streams"
"""The kind of holdings whose members are held streams' leases."""

StillHeld = Callable[[list[str]], list[bool]]
"""Given ids, whether each is still held (a match not over, a tournament running, a bot registered)."""


@dataclass
class Holdings:
    """One quota: at most `quota` things of `kind` per client (0: no quota)."""

    store: QuotaStore
    kind: str
    quota: int
    still_held: StillHeld
    ttl: int = 0
    clock: Clock = time.time

    @contextmanager
    def hold(self, holder: str) -> Iterator[Hold]:
        """A place for one new thing: name it with `Hold.confirm(id)`, or the place is given back on exit."""
        if not self.quota:
            yield Hold(self, holder, None)
            return
        placeholder = f"{PENDING}{secrets.token_urlsafe(9)}"
        self.reserve(holder, placeholder)
        hold = Hold(self, holder, placeholder)
        try:
            yield hold
        finally:
            if hold.placeholder is not None:
                self.release(holder, hold.placeholder)

    def reserve(self, holder: str, member: str) -> None:
        """Add `member` to the holder's set; prune it once if full; QuotaExceeded if it is still full."""
        if self._add(holder, member)[0]:
            return
        self.prune(holder)
        added, held = self._add(holder, member)
        if not added:
            raise QuotaExceeded(
                f"this client holds {held} {self.kind} already, the most it may; one must end first",
                quota=self.quota,
                in_use=held,
                resource=self.kind,
            )

    def _add(self, holder: str, member: str) -> tuple[bool, int]:
        return self.store.add(self.kind, holder, member, self.clock(), self.quota, self.ttl)

    def name(self, holder: str, placeholder: str, member: str) -> None:
        """Replace a placeholder with the id of what was created."""
        self.store.rename(self.kind, holder, placeholder, member, self.clock())

    def release(self, holder: str, member: str) -> None:
        """Give a place back (a creation that failed)."""
        try:
            self.store.remove(self.kind, holder, member)
        except redis.RedisError as error:  # the placeholder is pruned once its grace is over
            log.warning("quota place %s of %s not given back: %s", member, holder, error)

    def prune(self, holder: str) -> None:
        """Drop what has ended: ids no longer held, and placeholders past their grace."""
        rows = self.store.members(self.kind, holder)
        lost = self.clock() - PENDING_GRACE
        ids = [member for member, _ in rows if not member.startswith(PENDING)]
        held = dict(zip(ids, self.still_held(ids), strict=True))
        # A named id was stored before it was named, so one not held now has ended.
        gone = [m for m, at in rows if (at < lost if m.startswith(PENDING) else not held[m])]
        if gone:
            self.store.remove(self.kind, holder, *gone)

    def in_use(self, holder: str) -> int:
        """How many places the holder's set counts now (before any pruning)."""
        return self.store.count(self.kind, holder)


@dataclass
class Hold:
    """A reserved place; `confirm` names it with what was created."""

    holdings: Holdings
    holder: str
    placeholder: str | None

    def confirm(self, member: str) -> None:
        """The creation succeeded: the place is `member`'s until it ends."""
        if self.placeholder is not None:
            self.holdings.name(self.holder, self.placeholder, member)
            self.placeholder = None


@dataclass
class StreamLeases:
    """Held event streams per client: each a lease renewed while the stream sends, so a dead process's expire."""

    store: QuotaStore
    quota: int
    lease: float
    clock: Clock = time.time

    def open(self, holder: str) -> Lease:
        """A lease on one more stream for the holder; QuotaExceeded when it holds `quota` live ones."""
        stream_id = secrets.token_urlsafe(9)
        lease = Lease(self, holder, stream_id, self.clock())
        if not self.quota:
            return lease
        now = self.clock()
        try:
            added, held = self.store.add(STREAMS, holder, stream_id, now + self.lease, self.quota, self.ttl, now)
        except redis.RedisError as error:
            if not is_store_full(error):
                raise
            # A full store refuses every write, lease renewals too; reads (streams) keep working.
            log.warning("stream of %s opened without a lease: %s", holder, error)
            return lease
        if not added:
            raise QuotaExceeded(
                f"this client holds {held} event streams already, the most it may; close one first",
                quota=self.quota,
                in_use=held,
                resource=STREAMS,
            )
        return lease

    @contextmanager
    def holding(self, holder: str) -> Iterator[Lease]:
        """A lease for the length of a `with` block: a long-poll's wait holds a connection as a stream does.

        (The wait, 30 s at most, is shorter than the lease, `4 x PARLOUR_EVENTS_HEARTBEAT`: it needs no renewal.)
        """
        lease = self.open(holder)
        try:
            yield lease
        finally:
            lease.close()

    @property
    def ttl(self) -> int:
        """Seconds the holder's set is kept after a lease is taken or renewed: a second past the lease's end."""
        return max(1, int(self.lease) + 1)

    def renew(self, lease: Lease) -> None:
        """Push the lease's end on (only if it is still held: a lease that ran out stays out)."""
        self.store.renew(STREAMS, lease.holder, lease.stream_id, self.clock() + self.lease, self.ttl)

    def close(self, lease: Lease) -> None:
        """Give the stream's place back."""
        self.store.remove(STREAMS, lease.holder, lease.stream_id)

    def held(self, holder: str) -> int:
        """How many live leases the holder has."""
        return self.store.count(STREAMS, holder, above=self.clock())


@dataclass
class Lease:
    """One held stream's place in its client's quota."""

    leases: StreamLeases
    holder: str
    stream_id: str
    renewed: float

    def renew_if_due(self) -> None:
        """Renew once a third of the lease has passed (the stream calls this with every chunk it sends)."""
        if not self.leases.quota or self.leases.clock() - self.renewed < self.leases.lease / 3:
            return
        self.renewed = self.leases.clock()
        try:
            self.leases.renew(self)
        except redis.RedisError as error:  # the stream goes on; at worst its lease runs out early
            log.warning("stream lease of %s not renewed: %s", self.holder, error)

    def close(self) -> None:
        """The stream ended: free its place."""
        if not self.leases.quota:
            return
        try:
            self.leases.close(self)
        except redis.RedisError as error:  # the lease runs out by itself
            log.warning("stream lease of %s not given back: %s", self.holder, error)


Chunk = TypeVar("Chunk", str, bytes)


class HeldStream(Generic[Chunk]):
    """A streaming response body that keeps its lease: renewed as chunks go out, given back on close.

    A WSGI server calls `close` when the client goes away, even before the first chunk.
    """

    def __init__(self, chunks: Iterator[Chunk], lease: Lease) -> None:
        self.chunks: Iterator[Chunk] = chunks
        self.lease = lease

    def __iter__(self) -> Iterator[Chunk]:
        for chunk in self.chunks:
            self.lease.renew_if_due()
            yield chunk

    def close(self) -> None:
        """End the stream and free its place."""
        try:
            close = getattr(self.chunks, "close", None)
            if close is not None:
                close()
        finally:
            self.lease.close()


@dataclass
class Quotas:
    """Every quota of one process."""

    matches: Holdings
    kept: Holdings
    seats: Holdings
    tournaments: Holdings
    bots: Holdings
    streams: StreamLeases
    settings: LimitSettings

    @classmethod
    def build(
        cls,
        store: MatchStore,
        tournaments: TournamentStore,
        settings: LimitSettings,
        heartbeat: float,
    ) -> Quotas:
        """The quotas in the settings, on the match store's Redis."""
        quota_store = QuotaStore(store.client)

        def matches_open(ids: list[str]) -> list[bool]:
            return [record is not None and not record.ended for record in store.load_many(ids)]

        def tournaments_running(ids: list[str]) -> list[bool]:
            running = set(tournaments.running())
            return [tournament_id in running for tournament_id in ids]

        def bots_registered(ids: list[str]) -> list[bool]:
            return [store.bots.load(bot_id) is not None for bot_id in ids]

        def seats_waiting(ids: list[str]) -> list[bool]:
            records = store.load_many([seat.split("/")[0] for seat in ids])
            return [
                record is not None and seat in waiting_seats(record) for seat, record in zip(ids, records, strict=True)
            ]

        return cls(
            matches=Holdings(quota_store, "matches", settings.matches, matches_open, ttl=store.idle_ttl + 3600),
            kept=Holdings(quota_store, "kept-matches", settings.kept_matches, store.stored, ttl=store.idle_ttl + 3600),
            seats=Holdings(quota_store, "seats", settings.seats, seats_waiting, ttl=store.idle_ttl + 3600),
            tournaments=Holdings(quota_store, "tournaments", settings.tournaments, tournaments_running),
            bots=Holdings(quota_store, "bots", settings.bots, bots_registered),
            streams=StreamLeases(quota_store, settings.streams_held, lease=max(4 * heartbeat, 2.0)),
            settings=settings,
        )


def joined_seat(record: MatchRecord, seat: int) -> str:
    """A joined seat as the seats quota names it: `<match>/<seat>/<holder>` (its token's hash, or its bot), so a
    seat left and taken by someone else no longer counts for the one who left it."""
    held = record.seats[seat]
    return f"{record.id}/{seat}/{held.bot or (held.token_hash or '')[:16]}"


def waiting_seats(record: MatchRecord) -> set[str]:
    """The joined seats of a match that has not started: what the seats quota counts of it (none once started)."""
    if record.status != WAITING:
        return set()
    return {joined_seat(record, seat.seat) for seat in record.seats if seat.filled and seat.ai_level is None}
