"""The bots' public histories in Redis: each bot's matches, and the summaries of finished matches.

* `parlour:bot:{<id>}:history`    sorted set: the bot's matches by creation time (µs), the newest
  `HISTORY_KEPT` kept; deleted with the bot
* `parlour:match-summary:{<id>}`  string: a finished match's public summary (JSON), kept `SUMMARY_TTL`
  seconds, so a history outlives the match record it lists

What goes in a history and a summary, and when, is `domain/bots/history.py`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import redis

from store.bots import bot_key
from store.connection import TIE_MARGIN
from store.matches import Cursor

HISTORY_KEPT = 10_000
"""Matches a bot's history keeps (the newest)."""
SUMMARY_TTL = 365 * 24 * 3600
"""Seconds a finished match's summary is kept for the histories that list it."""


def history_key(bot_id: str) -> str:
    """The sorted set of a bot's matches."""
    return f"{bot_key(bot_id)}:history"


def summary_key(match_id: str) -> str:
    """A finished match's kept summary."""
    return f"parlour:match-summary:{{{match_id}}}"


class BotHistoryStore:
    """Writes and reads the bots' histories and the finished matches' summaries."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    def write(self, match_id: str, created_us: int, bot_ids: Sequence[str], listed: bool, summary: str | None) -> None:
        """List the match in each bot's history (or take it out when not `listed`), and keep its summary (JSON) if
        given."""
        pipe = self.client.pipeline(transaction=False)
        for bot_id in bot_ids:
            if not listed:
                pipe.zrem(history_key(bot_id), match_id)
                continue
            pipe.zadd(history_key(bot_id), {match_id: created_us}, nx=True)
            pipe.zremrangebyrank(history_key(bot_id), 0, -HISTORY_KEPT - 1)
        if summary is not None:
            pipe.set(summary_key(match_id), summary, ex=SUMMARY_TTL)
        pipe.execute()

    def rows(self, bot_id: str, limit: int, after: Cursor | None) -> list[Cursor]:
        """Up to `limit` (creation time, match id) of the history, newest first, strictly after the cursor."""
        high = str(after.created_us) if after else "+inf"
        found = cast(
            "list[tuple[str, float]]",
            self.client.zrevrangebyscore(
                history_key(bot_id), high, "-inf", start=0, num=limit + TIE_MARGIN, withscores=True
            ),
        )
        cursors = [Cursor(int(score), member) for member, score in found]
        return [c for c in cursors if after is None or c.comes_after(after)][:limit]

    def summaries(self, match_ids: Sequence[str]) -> list[str | None]:
        """The kept summary (JSON) of each match, None where there is none (one round trip)."""
        pipe = self.client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.get(summary_key(match_id))
        return cast("list[str | None]", pipe.execute())

    def drop(self, bot_id: str, match_id: str) -> None:
        """Take a match out of a bot's history (it expired, or was aborted)."""
        self.client.zrem(history_key(bot_id), match_id)

    def forget(self, bot_id: str) -> None:
        """Delete a bot's history (the summaries stay for the other seats' histories)."""
        self.client.delete(history_key(bot_id))
