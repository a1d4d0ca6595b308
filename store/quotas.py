"""The quotas' Redis keys: what each client holds, one sorted set per kind and client.

A client is its address key, as the limiter keys creations (`addr:<ip>`):

* `parlour:quota:{<client>}:matches`      sorted set: its unfinished matches (id -> when it was reserved)
* `parlour:quota:{<client>}:kept-matches` sorted set: every match it created that is still stored, finished or not
* `parlour:quota:{<client>}:seats`        sorted set: the seats it joined in matches not started yet
  (`<match>/<seat>/<holder>`)
* `parlour:quota:{<client>}:tournaments`  sorted set: its running tournaments
* `parlour:quota:{<client>}:bots`         sorted set: its registered bots
* `parlour:quota:{<client>}:streams`      sorted set: its held event streams (stream id -> when its lease ends)

Members named `pending:<random>` are places reserved by a creation in flight. The matches', kept
matches' and seats' sets expire a while after their last reservation, the streams' set a second after
its last lease would end; the others are kept. What counts, and when a place is given back, is
`domain/quotas.py`'s. The one script is `store/lua/quotas/reserve.lua`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import redis

from store.connection import lua_script

if TYPE_CHECKING:
    from redis.typing import EncodableT


def holdings_key(kind: str, client: str) -> str:
    """The sorted set of what one client holds of one kind."""
    return f"parlour:quota:{{{client}}}:{kind}"


class QuotaStore:
    """Reads and writes the holdings sets: members scored by a time (when reserved, or when a lease ends)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._reserve = lua_script(client, "quotas", "reserve")

    def add(
        self, kind: str, holder: str, member: str, score: float, quota: int, ttl: int, drop_below: float | None = None
    ) -> tuple[bool, int]:
        """Add `member` at once if the holder's set has fewer than `quota` members (those scored below `drop_below`
        dropped first); whether it was added, and how many the set holds; the set expires after `ttl` s (0: never)."""
        args: list[EncodableT] = [member, score, quota, ttl, "" if drop_below is None else drop_below]
        added, held = self._reserve(keys=[holdings_key(kind, holder)], args=args)
        return bool(added), int(held)

    def rename(self, kind: str, holder: str, old: str, new: str, score: float) -> None:
        """Replace a member with another (a placeholder with the id of what was created), at once."""
        key = holdings_key(kind, holder)
        pipe = self.client.pipeline(transaction=True)
        pipe.zrem(key, old)
        pipe.zadd(key, {new: score})
        pipe.execute()

    def renew(self, kind: str, holder: str, member: str, score: float, ttl: int) -> None:
        """Score a member anew, only if it is still there, and keep the set `ttl` more seconds."""
        key = holdings_key(kind, holder)
        pipe = self.client.pipeline(transaction=True)
        pipe.zadd(key, {member: score}, xx=True)
        pipe.expire(key, ttl)
        pipe.execute()

    def remove(self, kind: str, holder: str, *members: str) -> None:
        """Drop members from the holder's set."""
        self.client.zrem(holdings_key(kind, holder), *members)

    def members(self, kind: str, holder: str) -> list[tuple[str, float]]:
        """Every member of the holder's set with its score, lowest first."""
        scored = cast("list[tuple[str, float]]", self.client.zrange(holdings_key(kind, holder), 0, -1, withscores=True))
        return [(str(member), float(score)) for member, score in scored]

    def count(self, kind: str, holder: str, above: float | None = None) -> int:
        """How many members the holder's set has (only those scored above `above`, if given)."""
        key = holdings_key(kind, holder)
        if above is None:
            return int(self.client.zcard(key))
        return int(self.client.zcount(key, f"({above}", "+inf"))
