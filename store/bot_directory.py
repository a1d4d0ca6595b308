"""The bots listing: every registered bot by its folded name (`model.names.fold_name`), for paging and search.

* `parlour:bot-index`  sorted set: each registered bot's folded name, all at score 0, so they sort by
  name (ZRANGEBYLEX) and a search for names starting with some text is one range. The id of a name
  is in `parlour:bot-names` (the truth: the index is checked against it and mended on read). An index
  missing altogether (bots registered before it existed) is rebuilt from `parlour:bot-names`.
"""

from __future__ import annotations

from typing import TypedDict, cast

import redis

from model.names import fold_name
from store.bots import BOT_NAMES_KEY, bot_key, bot_matches_key

BOT_INDEX_KEY = "parlour:bot-index"
LAST_CHAR = "\U0010ffff"
"""Sorts after every other character: the end of the range of names with a given start."""


class BotListing(TypedDict):
    """A bot as the listing shows it: its public fields (never its token hash) and how many matches it plays and
    has finished."""

    id: str
    name: str
    created_at: str
    policy: str
    matches_playing: int
    matches_finished: int


class BotDirectory:
    """Writes and reads the index of bots by name."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client

    def add(self, name: str) -> None:
        """List a newly registered bot."""
        self.client.zadd(BOT_INDEX_KEY, {fold_name(name): 0})

    def remove(self, name: str) -> None:
        """Take a deleted bot off the listing (if no new bot took its name meanwhile)."""
        folded = fold_name(name)
        if not self.client.hexists(BOT_NAMES_KEY, folded):
            self.client.zrem(BOT_INDEX_KEY, folded)

    def page(self, prefix: str, limit: int, after: str | None) -> tuple[list[BotListing], str | None]:
        """Up to `limit` bots whose folded names start with `prefix`, by name, after the cursor; the next cursor."""
        self.rebuild_if_missing()
        start = fold_name(prefix)
        low = f"({after}" if after is not None and after >= start else f"[{start}"
        names = cast(
            "list[str]", self.client.zrangebylex(BOT_INDEX_KEY, low, f"[{start}{LAST_CHAR}", start=0, num=limit)
        )
        if not names:
            return [], None
        ids = cast("list[str | None]", self.client.hmget(BOT_NAMES_KEY, names))
        listed = [(name, bot_id) for name, bot_id in zip(names, ids, strict=True) if bot_id is not None]
        for name, bot_id in zip(names, ids, strict=True):
            if bot_id is None:
                self.remove(name)  # deleted: the index was behind
        items = self.profiles([bot_id for _, bot_id in listed])
        return items, names[-1] if len(names) == limit else None

    def profiles(self, bot_ids: list[str]) -> list[BotListing]:
        """The public listing fields of each bot (never its token hash), in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hmget(bot_key(bot_id), ["name", "created_at", "policy", "finished"])
            pipe.scard(bot_matches_key(bot_id))
        replies = pipe.execute()
        items: list[BotListing] = []
        for index, bot_id in enumerate(bot_ids):
            (name, created_at, policy, finished), playing = replies[2 * index], replies[2 * index + 1]
            if name is None:
                continue  # deleted between the two reads
            items.append(
                {
                    "id": bot_id,
                    "name": name,
                    "created_at": created_at,
                    "policy": policy or "ask",
                    "matches_playing": int(playing),
                    "matches_finished": int(finished or 0),
                }
            )
        return items

    def rebuild_if_missing(self) -> None:
        """List every registered bot if the index does not exist (it is new, or was lost)."""
        if self.client.exists(BOT_INDEX_KEY):
            return
        names = cast("list[str]", self.client.hkeys(BOT_NAMES_KEY))
        if names:
            self.client.zadd(BOT_INDEX_KEY, dict.fromkeys(names, 0), nx=True)
