"""Who watches a match: the open event streams and long-polls on it, for its spectator pace.

* `parlour:match:{<id>}:watchers`  sorted set: one member per open stream or long-poll of the match (a random
  id), scored by the epoch ms at which it lapses unless its stream refreshes it; the key itself expires with
  its latest member, so a match nobody watches any more keeps no key

A stream refreshes its member while it runs and removes it when it ends; a process that dies leaves members
that lapse by themselves. A match is watched while one member has not lapsed. The one script is
`store/lua/watchers/watch.lua`.
"""

from __future__ import annotations

import secrets
import time

import redis

from store.connection import lua_script


def watchers_key(match_id: str) -> str:
    """The sorted set of a match's watchers, scored by the epoch ms at which each lapses (in the match's slot)."""
    return f"parlour:match:{{{match_id}}}:watchers"


def new_watcher() -> str:
    """A fresh id for one stream or long-poll."""
    return secrets.token_hex(8)


class Watchers:
    """Registers the streams and long-polls that watch a match, each for a while (refreshed by its stream)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._watch = lua_script(client, "watchers", "watch")

    def watch(self, match_id: str, watcher: str, seconds: float) -> None:
        """Count `watcher` as watching the match for the next `seconds` (again: refreshed); drop lapsed ones."""
        now_ms = int(time.time() * 1000)
        self._watch(keys=[watchers_key(match_id)], args=[watcher, now_ms + int(seconds * 1000), now_ms])

    def unwatch(self, match_id: str, watcher: str) -> None:
        """The stream or long-poll ended: it watches no longer."""
        self.client.zrem(watchers_key(match_id), watcher)

    def watched(self, match_id: str) -> bool:
        """True while a stream or long-poll watches the match (one member not lapsed)."""
        now_ms = int(time.time() * 1000)
        return int(self.client.zcount(watchers_key(match_id), f"({now_ms}", "+inf")) > 0
