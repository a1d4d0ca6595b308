"""A bot's own events as Server-Sent Events, and the long-poll read of them.

Each event is one entry of the bot's capped Redis stream, numbered in order; its number is the
SSE id, so a reconnecting bot resumes with `Last-Event-ID`:

    id: 12
    event: your-turn
    data: {"match":"...","seat":1,"version":4,"deadline":null}

Every new event is announced on the store's change channel (`bot_notice`), so the stream and the
long-poll wait on the process's one change feed, like a match's, and read the events from the
shared connection pool: a waiting bot holds no Redis connection of its own, and any API process
serves any bot. The stream sends a comment line as a heartbeat whenever it has been quiet. It ends
as soon as it wakes to find the token it was opened with rotated away or the bot deleted: nothing
is sent after that to the old token's holder. A server shutting down (`ChangeFeed.stop`) wakes it,
and every long-poll, at once.

A bot that opens its stream with no cursor (neither `Last-Event-ID` nor `after`) gets no old event:
the stream starts with one `snapshot` event, numbered like the bot's newest event, holding what is
true now (its pending challenges and its live seats, each saying whether it is the bot's turn), then
every new event. A restarted bot so never replays an old `your-turn` or `match-over`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import redis

from domain.bots.challenges import ChallengeJson
from domain.bots.consent import LiveSeatJson, live_seats, pending_challenges
from domain.events.match_stream import HEARTBEAT, RETRY_MS, sse
from model.bot import BotEvent
from model.codec import dumps
from store.bots import BotStore, bot_notice
from store.changes import ChangeFeed, Watch
from store.matches import MatchStore

if TYPE_CHECKING:
    from domain.tournaments.director import Tournaments

log = logging.getLogger(__name__)

SNAPSHOT = "snapshot"
"""The event a stream opened with no cursor starts with: what is true now, instead of the events kept."""
SNAPSHOT_PAGE = 100
"""The most challenges, and the most live seats, a snapshot lists; `next_challenges` / `next_matches`
are then the cursors of `GET /v1/bots/{id}/challenges` / `matches?status=playing` for the rest."""


class SnapshotJson(TypedDict):
    """The data of a `snapshot` event: the bot's pending challenges and live seats, as their listings give them."""

    challenges: list[ChallengeJson]
    next_challenges: str | None
    matches: list[LiveSeatJson]
    next_matches: str | None


def snapshot(store: MatchStore, tournaments: Tournaments, bot_id: str) -> BotEvent:
    """The `snapshot` event: what is true now, numbered as the bot's newest event, so the stream goes on after it.

    The number is read first: an event appended while the listings are read comes after the snapshot
    too, and says again what the snapshot may already show (every event is safe to act on twice:
    a bot acts on the match as it is, with its version).
    """
    newest = store.bots.last_event(bot_id)
    challenges, next_challenges = pending_challenges(store, tournaments, bot_id, SNAPSHOT_PAGE, None)
    seats, next_matches = live_seats(store, bot_id, SNAPSHOT_PAGE, None)
    data: SnapshotJson = {
        "challenges": challenges,
        "next_challenges": next_challenges,
        "matches": seats,
        "next_matches": next_matches,
    }
    return BotEvent(newest, SNAPSHOT, dumps(data))


@dataclass
class BotEventStream:
    """The SSE text of one bot's events numbered above `after`, then each new one as it comes, while the
    bot's token is still the one the stream was opened with (`token_hash`) and the server is not stopping."""

    bots: BotStore
    feed: ChangeFeed  # the process's: once it stops, the server is shutting down
    bot_id: str
    token_hash: str
    after: int
    heartbeat: float
    opening: BotEvent | None = None  # the snapshot a stream opened with no cursor starts with (its id is `after`)

    def __iter__(self) -> Iterator[str]:
        """Chunks to write to the bot, as they happen."""
        watch = self.feed.watch(bot_notice(self.bot_id))
        try:
            yield f"retry: {RETRY_MS}\n\n"
            if self.opening is not None:
                yield sse(self.opening.event, self.opening.data, self.opening.id)
            last = self.after
            while True:
                events = events_within(self.bots, self.feed, watch, self.bot_id, last, self.heartbeat)
                if self.feed.stopping:
                    return  # the bot resumes elsewhere with Last-Event-ID
                if self.bots.token_hash(self.bot_id) != self.token_hash:
                    return  # rotated or deleted: the old token's holder gets nothing more
                if not events:
                    yield HEARTBEAT
                for event in events:
                    yield sse(event.event, event.data, event.id)
                    last = event.id
        except redis.RedisError as error:
            # The status line is sent already: end the stream, and the bot resumes with Last-Event-ID.
            log.warning("event stream of bot %s ended: %s", self.bot_id, error)
        finally:
            self.feed.unwatch(watch)


def wait_for_events(bots: BotStore, feed: ChangeFeed, bot_id: str, after: int, seconds: float) -> list[BotEvent]:
    """The bot's events numbered above `after`, as soon as there is one, or none after `seconds` (or a shutdown)."""
    events = bots.events_after(bot_id, after)
    if events or seconds <= 0:
        return events
    with feed.watching(bot_notice(bot_id)) as watch:
        return events_within(bots, feed, watch, bot_id, after, seconds)


def events_within(
    bots: BotStore, feed: ChangeFeed, watch: Watch, bot_id: str, after: int, seconds: float
) -> list[BotEvent]:
    """The bot's events above `after` as soon as there is one; none after `seconds`, or once the feed stops.

    `watch` (on `bot_notice(bot_id)`) began before the first read, so no event appended meanwhile is missed.
    """
    deadline = time.monotonic() + seconds
    while not feed.stopping:
        events = bots.events_after(bot_id, after)
        remaining = deadline - time.monotonic()
        if events or remaining <= 0:
            return events
        watch.wait(remaining)
    return []


class BotEventJson(TypedDict):
    """One event as the long-poll lists it: its number, its name and its data (the JSON the stream sends)."""

    id: int
    event: str
    data: Any  # each event's own shape: a challenge, a match started, your turn, a match over


def event_json(event: BotEvent) -> BotEventJson:
    """One event as the long-poll lists it."""
    return {"id": event.id, "event": event.event, "data": json.loads(event.data)}
