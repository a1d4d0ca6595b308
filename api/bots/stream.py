"""A bot's own events as Server-Sent Events, and the long-poll read of them.

Each event is one entry of the bot's capped Redis stream, numbered in order; its number is the
SSE id, so a reconnecting bot resumes with `Last-Event-ID`:

    id: 12
    event: your-turn
    data: {"match":"...","seat":1,"version":4,"deadline":null}

The stream waits on Redis itself (a blocking XREAD on a connection of its own), so any API
process serves any bot, and sends a comment line as a heartbeat whenever it has been quiet. It ends
as soon as it wakes to find the token it was opened with rotated away or the bot deleted: nothing
is sent after that to the old token's holder. It blocks at most POLL_INTERVAL s at a time, so that a
server shutting down (`ChangeFeed.stop`) ends it, and answers a long-poll, within that time.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from api.bots.record import BotEvent
from api.events.feed import POLL_INTERVAL, ChangeFeed
from api.events.stream import HEARTBEAT, RETRY_MS, sse
from api.store import BotStore

log = logging.getLogger(__name__)


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

    def __iter__(self) -> Iterator[str]:
        """Chunks to write to the bot, as they happen."""
        listener = self.bots.listener(POLL_INTERVAL)
        try:
            yield f"retry: {RETRY_MS}\n\n"
            last = self.after
            while True:
                events = events_within(listener, self.feed, self.bot_id, last, self.heartbeat)
                if self.feed.stopping:
                    return  # the bot resumes elsewhere with Last-Event-ID
                if listener.token_hash(self.bot_id) != self.token_hash:
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
            listener.close()


def wait_for_events(bots: BotStore, feed: ChangeFeed, bot_id: str, after: int, seconds: float) -> list[BotEvent]:
    """The bot's events numbered above `after`, as soon as there is one, or none after `seconds` (or a shutdown)."""
    events = bots.events_after(bot_id, after)
    if events or seconds <= 0:
        return events
    listener = bots.listener(POLL_INTERVAL)
    try:
        return events_within(listener, feed, bot_id, after, seconds)
    finally:
        listener.close()


def events_within(listener: BotStore, feed: ChangeFeed, bot_id: str, after: int, seconds: float) -> list[BotEvent]:
    """The bot's events above `after` as soon as there is one; none after `seconds`, or once the feed stops.

    `listener` is a connection of its own (`BotStore.listener`), blocked at most POLL_INTERVAL s at a time.
    """
    deadline = time.monotonic() + seconds
    while not feed.stopping and (remaining := deadline - time.monotonic()) > 0:
        events = listener.events_after(bot_id, after, block=min(remaining, POLL_INTERVAL))
        if events:
            return events
    return []


def event_json(event: BotEvent) -> dict[str, Any]:
    """One event as the long-poll lists it."""
    return {"id": event.id, "event": event.event, "data": json.loads(event.data)}
