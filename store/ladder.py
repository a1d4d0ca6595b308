"""The ladder's Redis keys, one game's keys in one hash slot (`{ladder:<game>}`), so a count is one transaction.

* `parlour:{ladder:<game>}:ratings`  hash: entrant (`bot:<id>`, `ai:<level>`) -> JSON {name, mu, sigma, games}
* `parlour:{ladder:<game>}:board`    sorted set: entrant by its displayed rating (mu - 3 sigma)
* `parlour:{ladder:<game>}:history:<entrant>`  list: a bot's rating after each counted match, oldest first,
  the newest `HISTORY_KEPT` kept
* `parlour:{ladder:<game>}:counted:<match id>`  string: `rated` or `unrated`, set once the match's end was
  counted (in the same transaction as the ratings it changed), so each match counts once
* `parlour:ladder-sweep`              string: held while one worker sweeps finished matches
* `parlour:ladder-swept`              string: the time (µs) through which the last sweep read the ends
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypedDict, cast

import redis

from model.ladder import Entrant, Rating

HISTORY_KEPT = 1000
"""Rating-history entries kept per bot and game (the newest)."""
RATED, UNRATED = "rated", "unrated"
SWEEP_LOCK_KEY = "parlour:ladder-sweep"
SWEPT_KEY = "parlour:ladder-swept"


def ladder_key(game: str, part: str) -> str:
    """One key of a game's ladder."""
    return f"parlour:{{ladder:{game}}}:{part}"


def history_key(game: str, entrant: str) -> str:
    """The list of an entrant's ratings after each counted match."""
    return ladder_key(game, f"history:{entrant}")


def counted_key(game: str, match_id: str) -> str:
    """The marker of a match whose end was counted."""
    return ladder_key(game, f"counted:{match_id}")


class StoredRating(TypedDict):
    """An entrant's rating as the `ratings` hash holds it (JSON): its display name, mu, sigma and matches counted."""

    name: str
    mu: float
    sigma: float
    games: int


class StoredHistoryEntry(TypedDict):
    """A bot's rating after one counted match, as its `history:<entrant>` list holds it (JSON)."""

    match: str
    at: str
    mu: float
    sigma: float


Update = Callable[[list[Rating | None]], list[Rating]]
"""The ratings of a match's entrants after it, given those stored before (None: not rated yet)."""


class LadderStore:
    """Reads and writes the ladders: ratings, boards, histories and counted markers."""

    def __init__(self, client: redis.Redis, counted_ttl: int) -> None:
        self.client = client
        self.counted_ttl = counted_ttl

    def count(
        self,
        game: str,
        match_id: str,
        entrants: Sequence[Entrant],
        update: Update,
        at: str,
        anchors: dict[str, Rating],
    ) -> bool:
        """Apply `update` to the entrants' ratings and mark the match counted, atomically; False if counted already.

        WATCH/MULTI on the marker and the game's ratings: a second process counting the same match, or another
        match of the game at the same moment, makes this one read again and retry.
        """
        ratings, board, marker = ladder_key(game, "ratings"), ladder_key(game, "board"), counted_key(game, match_id)
        keys = [entrant.key for entrant in entrants]

        with self.client.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(marker, ratings)  # type: ignore[no-untyped-call, unused-ignore]
                    if pipe.exists(marker):
                        return False
                    stored = [rating_of(raw) for raw in cast("list[str | None]", pipe.hmget(ratings, keys))]
                    after = update(stored)
                    pipe.multi()
                    pipe.set(marker, RATED, ex=self.counted_ttl)
                    for level, rating in anchors.items():  # the AI levels stand on the board from the first count
                        anchored = Entrant(f"ai:{level}", level)
                        pipe.hsetnx(ratings, anchored.key, rating_text(anchored, rating))
                        pipe.zadd(board, {anchored.key: rating.ordinal}, nx=True)
                    for entrant, rating in zip(entrants, after, strict=True):
                        pipe.hset(ratings, entrant.key, rating_text(entrant, rating))
                        pipe.zadd(board, {entrant.key: rating.ordinal})
                        if not entrant.anchored:
                            entry: StoredHistoryEntry = {
                                "match": match_id,
                                "at": at,
                                "mu": rating.mu,
                                "sigma": rating.sigma,
                            }
                            pipe.rpush(history_key(game, entrant.key), json.dumps(entry, separators=(",", ":")))
                            pipe.ltrim(history_key(game, entrant.key), -HISTORY_KEPT, -1)
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue  # another process counted a match of this game meanwhile: read again

    def mark_unrated(self, game: str, match_id: str) -> None:
        """Remember that a finished match was looked at and rates nobody."""
        self.client.set(counted_key(game, match_id), UNRATED, ex=self.counted_ttl, nx=True)

    def uncounted(self, game: str, match_ids: Sequence[str]) -> list[str]:
        """The matches not counted yet; the markers of the others live `counted_ttl` longer (the sweep keeps them)."""
        pipe = self.client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.expire(counted_key(game, match_id), self.counted_ttl)
        return [match_id for match_id, kept in zip(match_ids, pipe.execute(), strict=True) if not kept]

    def is_counted(self, game: str, match_id: str) -> str | None:
        """`rated` or `unrated` once the match's end was counted, else None."""
        return cast("str | None", self.client.get(counted_key(game, match_id)))

    def board(self, game: str, offset: int, limit: int) -> tuple[list[tuple[str, StoredRating]], int]:
        """A page of the board, best first, from rank `offset` (0-based): (entrant, stored rating); the board's size."""
        pipe = self.client.pipeline(transaction=False)
        pipe.zrevrange(ladder_key(game, "board"), offset, offset + limit - 1)
        pipe.zcard(ladder_key(game, "board"))
        keys, size = pipe.execute()
        if not keys:
            return [], int(size)
        raws = cast("list[str | None]", self.client.hmget(ladder_key(game, "ratings"), keys))
        return [(key, json.loads(raw)) for key, raw in zip(keys, raws, strict=True) if raw], int(size)

    def standing(self, games: Sequence[str], entrant: str) -> dict[str, tuple[StoredRating, int]]:
        """The entrant's stored rating and 0-based rank in each game it is rated in."""
        pipe = self.client.pipeline(transaction=False)
        for game in games:
            pipe.hget(ladder_key(game, "ratings"), entrant)
            pipe.zrevrank(ladder_key(game, "board"), entrant)
        replies = pipe.execute()
        found: dict[str, tuple[StoredRating, int]] = {}
        for index, game in enumerate(games):
            raw, rank = replies[2 * index], replies[2 * index + 1]
            if raw is not None and rank is not None:
                found[game] = (json.loads(raw), int(rank))
        return found

    def history(self, game: str, entrant: str, start: int, limit: int) -> tuple[list[StoredHistoryEntry], int]:
        """Up to `limit` history entries from position `start`, oldest first; how many are kept."""
        pipe = self.client.pipeline(transaction=False)
        pipe.lrange(history_key(game, entrant), start, start + limit - 1)
        pipe.llen(history_key(game, entrant))
        rows, size = pipe.execute()
        return [json.loads(row) for row in rows], int(size)

    def forget(self, games: Sequence[str], entrant: str) -> None:
        """Take an entrant off every game's ladder (a deleted bot)."""
        pipe = self.client.pipeline(transaction=False)
        for game in games:
            pipe.hdel(ladder_key(game, "ratings"), entrant)
            pipe.zrem(ladder_key(game, "board"), entrant)
            pipe.delete(history_key(game, entrant))
        pipe.execute()

    def hold_sweep(self, seconds: int) -> bool:
        """Take the sweep for `seconds` unless another worker holds it."""
        return bool(self.client.set(SWEEP_LOCK_KEY, "1", ex=seconds, nx=True))

    def swept_through(self) -> int:
        """The time (µs) through which the last sweep read the matches' ends; 0 before the first."""
        return int(cast("str | None", self.client.get(SWEPT_KEY)) or 0)

    def mark_swept(self, through_us: int) -> None:
        """Note that a sweep read every end indexed through `through_us`."""
        self.client.set(SWEPT_KEY, str(through_us))


def rating_of(raw: str | None) -> Rating | None:
    """A stored rating, or None."""
    if raw is None:
        return None
    data = json.loads(raw)
    return Rating(float(data["mu"]), float(data["sigma"]), int(data["games"]))


def rating_text(entrant: Entrant, rating: Rating) -> str:
    """A rating as stored."""
    data: StoredRating = {"name": entrant.name, "mu": rating.mu, "sigma": rating.sigma, "games": rating.games}
    return json.dumps(data, separators=(",", ":"))
