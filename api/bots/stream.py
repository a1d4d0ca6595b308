"""A bot's own events as Server-Sent Events, and the long-poll read of them.

Each event is one entry of the bot's capped Redis stream, numbered in order; its number is the
SSE id, so a reconnecting bot resumes with `Last-Event-ID`:

    id: 12
    event: your-turn
    data: {"match":"...","seat":1,"version":4,"deadline":null}

The stream waits on Redis itself (a blocking XREAD on a connection of its own), so any API
process serves any bot, and sends a comment line as a heartbeat whenever it has been quiet. It ends
as soon as it wakes to find the token it was opened with rotated away or the bot deleted: nothing
is sent after that to the old token's holder.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from api.bots.record import BotEvent
from api.events.stream import HEARTBEAT, RETRY_MS, sse
from api.store import BotStore

log = logging.getLogger(__name__)


@dataclass
class BotEventStream:
    """The SSE text of one bot's events numbered above `after`, then each new one as it comes, while the
    bot's token is still the one the stream was opened with (`token_hash`)."""

    bots: BotStore
    bot_id: str
    token_hash: str
    after: int
    heartbeat: float

    def __iter__(self) -> Iterator[str]:
        """Chunks to write to the bot, as they happen."""
        listener = self.bots.listener(self.heartbeat)
        try:
            yield f"retry: {RETRY_MS}\n\n"
            last = self.after
            while True:
                events = listener.events_after(self.bot_id, last, block=self.heartbeat)
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


def wait_for_events(bots: BotStore, bot_id: str, after: int, seconds: float) -> list[BotEvent]:
    """The bot's events numbered above `after`, as soon as there is one, or none after `seconds`."""
    events = bots.events_after(bot_id, after)
    if events or seconds <= 0:
        return events
    listener = bots.listener(seconds)
    try:
        return listener.events_after(bot_id, after, block=seconds)
    finally:
        listener.close()


def event_json(event: BotEvent) -> dict[str, Any]:
    """One event as the long-poll lists it."""
    return {"id": event.id, "event": event.event, "data": json.loads(event.data)}
