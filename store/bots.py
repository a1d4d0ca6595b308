"""The bot store: registered bots, their names, event streams, running matches and challenges.

Key names (the `{id}` braces are a Redis Cluster hash tag, so a bot's keys share one slot):

* `parlour:bot:{<id>}`              hash: a registered bot (`name`, `token_hash`, `created_at`, `policy`,
  `max_matches`) and its counters `last_event` (the number of its newest event) and `finished` (matches it
  saw end)
* `parlour:bot:{<id>}:events`       stream: the bot's events, entry id `<n>-0` for event n, capped
* `parlour:bot:{<id>}:matches`      set: ids of the bot's matches that started and are not over
* `parlour:bot:{<id>}:seat:<match id>:<seat>`  string: `<phase> <version>`, what the bot was told of
  that seat (`playing` and the version of its last `your-turn`, or `over`), so each event is sent once
* `parlour:bot-names`               hash: a bot's name case-folded (`model.names.fold_name`) -> its id (names are
  unique, and no human or AI seat may take one)
* `parlour:bot:{<id>}:challenges`   sorted set: the bot's pending challenges by expiry (ms), an index
  checked against the match or tournament each names (they are the truth)
* `parlour:bot:{<id>}:challenge:<challenge id>`  string: `pending` or `over`, so a challenge is told
  (and its cancellation) once
* `parlour:bot:{<id>}:challenge-events`  stream: the bot's challenge events, numbered with its other
  events but capped on their own, so no flood of challenges pushes a match event out

A deleted bot leaves none of these keys (`BotStore.unregister`, then `BotStore.purge`). Each new event is
announced on `parlour:changes` as `<bot key> <event number>` by the script that appends it (read back with
`MatchStore.change_of`, as `bot_notice(<id>)`). Its scripts are `store/lua/bots/*.lua`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import redis

from model.bot import ASK, BotEvent, BotRecord, SeatNotice
from model.names import fold_name
from store.connection import TIE_MARGIN, lua_script

if TYPE_CHECKING:
    from redis.typing import EncodableT

# The store's clients decode replies (`decode_responses=True`), so every reply is text, while
# redis-py's hints say `bytes | str` whatever the client: the casts below say what they return.
StreamEntry = tuple[str, dict[str, str]]
"""One entry of a stream as the store reads it: its id and its fields."""

BOT_KEY_PREFIX = "parlour:bot:{"
BOT_EVENTS_PAGE = 100
"""The most events one read of a bot's events gives (a long-poll's answer; the stream reads on)."""
BOT_NAMES_KEY = "parlour:bot-names"
BOT_EVENTS_KEPT = 1000
"""Events a bot's stream keeps (about: Redis trims whole nodes); a bot away longer resyncs on reconnect."""
BOT_CHALLENGES_KEPT = 1000
"""Challenge events a bot's stream keeps, apart from its match events (about, as for BOT_EVENTS_KEPT)."""


def bot_key(bot_id: str) -> str:
    """The hash holding a bot's record and counters."""
    return f"{BOT_KEY_PREFIX}{bot_id}}}"


def bot_notice(bot_id: str) -> str:
    """The name a bot's new events are announced under on the change feed (a match id never holds a colon)."""
    return f"bot:{bot_id}"


def bot_events_key(bot_id: str) -> str:
    """The capped stream of a bot's events."""
    return f"{bot_key(bot_id)}:events"


def bot_matches_key(bot_id: str) -> str:
    """The set of a bot's running matches."""
    return f"{bot_key(bot_id)}:matches"


def bot_seat_key(bot_id: str, match_id: str, seat: int) -> str:
    """What a bot was told of one of its seats."""
    return f"{bot_key(bot_id)}:seat:{match_id}:{seat}"


def bot_challenges_key(bot_id: str) -> str:
    """The sorted set of a bot's pending challenges, by expiry."""
    return f"{bot_key(bot_id)}:challenges"


def bot_challenge_key(bot_id: str, challenge_id: str) -> str:
    """What a bot was told of one challenge: `pending` or `over`."""
    return f"{bot_key(bot_id)}:challenge:{challenge_id}"


def bot_challenge_events_key(bot_id: str) -> str:
    """The capped stream of a bot's challenge events."""
    return f"{bot_key(bot_id)}:challenge-events"


class BotStore:
    """Reads and writes registered bots and their event streams (`MatchStore.bots`)."""

    def __init__(self, client: redis.Redis, finished_ttl: int, idle_ttl: int) -> None:
        self.client = client
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        self._announce = lua_script(client, "bots", "announce")
        self._rotate = lua_script(client, "bots", "rotate")
        self._unregister = lua_script(client, "bots", "unregister")
        self._free_name = lua_script(client, "bots", "free_name")
        self._issue = lua_script(client, "bots", "issue_challenge")
        self._resolve = lua_script(client, "bots", "resolve_challenge")
        self._reserve = lua_script(client, "bots", "reserve_match")
        self._set_policy = lua_script(client, "bots", "set_policy")

    def register(self, bot: BotRecord) -> bool:
        """Store a new bot; False (and nothing stored) if its name is taken."""
        if not self.client.hsetnx(BOT_NAMES_KEY, fold_name(bot.name), bot.id):
            return False
        fields: dict[EncodableT, EncodableT] = {
            "name": bot.name,
            "token_hash": bot.token_hash,
            "created_at": bot.created_at,
        }
        self.client.hset(bot_key(bot.id), mapping={**fields, "last_event": 0, "finished": 0})
        return True

    def bot_named(self, name: str) -> str | None:
        """The id of the bot registered under this name, compared case-folded (`fold_name`); None if none is."""
        bot_id = self.client.hget(BOT_NAMES_KEY, fold_name(name))
        return str(bot_id) if bot_id is not None else None

    def load(self, bot_id: str) -> BotRecord | None:
        """The stored bot, or None if there is none."""
        raw = cast(
            "list[Any]",
            self.client.hmget(bot_key(bot_id), ["name", "token_hash", "created_at", "policy", "max_matches"]),
        )
        if raw[0] is None:
            return None
        return BotRecord(
            bot_id, raw[0], raw[1], raw[2], raw[3] or ASK, int(raw[4]) if raw[4] and raw[4] != "0" else None
        )

    def set_policy(self, bot_id: str, policy: str, max_matches: int | None) -> bool:
        """Store the bot's policy and cap (None: no cap); False when there is no such bot."""
        return bool(self._set_policy(keys=[bot_key(bot_id)], args=[policy, max_matches or 0]))

    def reserve(self, bot_id: str, match_id: str, cap: int | None) -> int:
        """Count the match among the bot's matches at once if `cap` leaves room: 1 added, 2 counted already, 0 full."""
        return int(self._reserve(keys=[bot_matches_key(bot_id)], args=[match_id, cap or 0]))

    def issue_challenge(self, bot_id: str, challenge_id: str, expires_ms: int, data: str) -> list[int]:
        """Tell the bot of a challenge and list it as pending, once; the number of the event appended."""
        keys = self._challenge_keys(bot_id, challenge_id)
        args: list[EncodableT] = [challenge_id, expires_ms, data, self.idle_ttl, BOT_CHALLENGES_KEPT]
        return [int(n) for n in self._issue(keys=keys, args=args)]

    def resolve_challenge(self, bot_id: str, challenge_id: str, canceled: str = "") -> list[int]:
        """A challenge is over: no longer pending; `canceled` (event data) tells a bot that was told of it, once."""
        keys = self._challenge_keys(bot_id, challenge_id)
        args: list[EncodableT] = [challenge_id, canceled, self.finished_ttl, BOT_CHALLENGES_KEPT]
        return [int(n) for n in self._resolve(keys=keys, args=args)]

    def _challenge_keys(self, bot_id: str, challenge_id: str) -> list[str]:
        return [
            bot_key(bot_id),
            bot_challenges_key(bot_id),
            bot_challenge_key(bot_id, challenge_id),
            bot_challenge_events_key(bot_id),
        ]

    def pending_challenges(self, bot_id: str, limit: int, after: tuple[int, str] | None) -> list[tuple[str, int]]:
        """Up to `limit` (challenge id, expiry ms) of the bot's pending challenges, soonest first, after the cursor."""
        low = str(after[0]) if after else "-inf"
        rows = cast(
            "list[tuple[str, float]]",
            self.client.zrangebyscore(
                bot_challenges_key(bot_id), low, "+inf", start=0, num=limit + TIE_MARGIN, withscores=True
            ),
        )
        found = [(member, int(score)) for member, score in rows]
        if after is not None:
            found = [(member, score) for member, score in found if (score, member) > (after[0], after[1])]
        return found[:limit]

    def pending_count(self, bot_id: str) -> int:
        """How many challenges the bot has pending (as far as its index knows)."""
        return int(self.client.zcard(bot_challenges_key(bot_id)))

    def token_hash(self, bot_id: str) -> str | None:
        """The hash of the bot's current token, or None once the bot is deleted."""
        return cast("str | None", self.client.hget(bot_key(bot_id), "token_hash"))

    def rotate(self, bot_id: str, old_hash: str, new_hash: str) -> bool:
        """Replace the bot's token hash if it is still `old_hash` (the old token stops working at once)."""
        return bool(self._rotate(keys=[bot_key(bot_id)], args=[old_hash, new_hash]))

    def unregister(self, bot: BotRecord) -> bool:
        """Delete the bot's name and token if its token hash is still the one read; frees its name."""
        if not self._unregister(keys=[bot_key(bot.id)], args=[bot.token_hash]):
            return False
        self._free_name(keys=[BOT_NAMES_KEY], args=[fold_name(bot.name), bot.id])
        return True

    def purge(self, bot_id: str) -> int:
        """Delete every key left of an unregistered bot (counters, events, matches, challenges, marks); how many.

        The seat and challenge marks are found with one SCAN of the key space each (a bot is deleted rarely).
        """
        deleted = 0
        keys = [bot_key(bot_id), bot_events_key(bot_id), bot_matches_key(bot_id)]
        keys += [bot_challenges_key(bot_id), bot_challenge_events_key(bot_id)]
        batch: list[str] = []
        for pattern in (f"{bot_key(bot_id)}:seat:*", f"{bot_key(bot_id)}:challenge:*"):
            for key in self.client.scan_iter(match=pattern, count=1000):
                batch.append(key)
                if len(batch) >= 500:
                    deleted += int(self.client.unlink(*batch))
                    batch = []
        return deleted + int(self.client.unlink(*keys, *batch))

    def counts(self, bot_id: str) -> tuple[int, int]:
        """How many of the bot's matches are running, and how many it saw finish."""
        pipe = self.client.pipeline(transaction=False)
        pipe.scard(bot_matches_key(bot_id))
        pipe.hget(bot_key(bot_id), "finished")
        playing, finished = pipe.execute()
        return int(playing), int(finished or 0)

    def last_event(self, bot_id: str) -> int:
        """The number of the bot's newest event (0 before its first)."""
        return int(cast("str | None", self.client.hget(bot_key(bot_id), "last_event")) or 0)

    def matches(self, bot_id: str) -> list[str]:
        """Ids of the bot's running matches (as far as it was told)."""
        return sorted(cast("set[str]", self.client.smembers(bot_matches_key(bot_id))))

    def forget_match(self, bot_id: str, match_id: str) -> None:
        """Drop a match that expired before the bot was told it ended."""
        self.client.srem(bot_matches_key(bot_id), match_id)

    def announce(self, notice: SeatNotice) -> list[int]:
        """Append the events this change means for one bot seat, each at most once; their numbers."""
        keys = [
            bot_key(notice.bot_id),
            bot_matches_key(notice.bot_id),
            bot_seat_key(notice.bot_id, notice.match_id, notice.seat),
            bot_events_key(notice.bot_id),
        ]
        args: list[EncodableT] = [
            notice.match_id,
            notice.version,
            int(notice.finished),
            int(notice.may_act),
            notice.started,
            notice.your_turn,
            notice.over,
            self.idle_ttl,
            self.finished_ttl,
            BOT_EVENTS_KEPT,
        ]
        return [int(n) for n in self._announce(keys=keys, args=args)]

    def events_after(self, bot_id: str, after: int, count: int = BOT_EVENTS_PAGE) -> list[BotEvent]:
        """The bot's kept events numbered above `after`, oldest first (at most `count`)."""
        keys = (bot_events_key(bot_id), bot_challenge_events_key(bot_id))
        rows = [
            row
            for key in keys
            for row in cast("list[StreamEntry]", self.client.xrange(key, f"({after}-0", "+", count=count))
        ]
        # Both streams are numbered from one counter: merged in order, the first `count` are all there is up to there.
        events = sorted((bot_event(entry_id, fields) for entry_id, fields in rows), key=lambda event: event.id)
        return events[:count]


def bot_event(entry_id: str, fields: dict[str, str]) -> BotEvent:
    """A stream entry (`<n>-0`, event and data) as a bot event."""
    return BotEvent(int(entry_id.split("-")[0]), fields["event"], fields["data"])
