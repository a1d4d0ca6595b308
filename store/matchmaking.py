"""The matchmaking store: pools of waiting tickets, the tickets, and the groups being seated.

Key names (a pool's keys share the hash tag `{<game>:<players>:<rated|unrated>}`, so one script pairs a pool):

* `parlour:matchmaking:{<pool>}:ticket:<ticket id>`  hash: `record` (the ticket's unchanging part, JSON),
  `status`, `version`, and once paired `match` and `seat` (or `reason` when the server cancelled it)
* `parlour:matchmaking:{<pool>}:waiting`   sorted set: the pool's waiting tickets by creation (ms)
* `parlour:matchmaking:{<pool>}:entries`   hash: waiting ticket id -> its record (what the pairing reads)
* `parlour:matchmaking:{<pool>}:bots`      hash: bot id -> its waiting ticket in the pool (one per bot)
* `parlour:matchmaking:{<pool>}:forming`   hash: match id -> the group paired for it ({tickets, at}) until
  its match is stored (or could not be): a process that died between the two leaves it to the sweep
* `parlour:matchmaking:claims`             sorted set: matchmade matches with seats reserved for people's
  tickets, by the time (ms) they are aborted unless every such seat was taken

A ticket is kept `PARLOUR_MATCHMAKING_SECONDS` plus an hour while it waits, and an hour once it left its
pool. Each change of a ticket is announced on `parlour:changes` as `parlour:match:{ticket:<id>} <version>`,
which `MatchStore.change_of` reads as the notice `ticket:<id>` (a match id never holds a colon), so a
long-poll on the ticket wakes. The scripts are `store/lua/matchmaking/*.lua`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import redis

from model.matchmaking import Pool, Ticket, TicketStatus, pool_of_ticket, stored_ticket
from store.connection import lua_script

if TYPE_CHECKING:
    from redis.typing import EncodableT

KEPT_AFTER = 3600
"""Seconds a ticket is kept once it left its pool (matched, expired or cancelled), and past its expiry."""
PAIRING_SCAN = 500
"""The oldest waiting tickets of a pool one pairing looks at (a script's work stays bounded)."""
CLAIMS_KEY = "parlour:matchmaking:claims"


def pool_key(pool_name: str, part: str) -> str:
    """One key of a pool (`Pool.name`): `waiting`, `entries`, `bots` or `forming`."""
    return f"parlour:matchmaking:{{{pool_name}}}:{part}"


def ticket_key(pool_name: str, ticket_id: str) -> str:
    """A ticket's hash, in its pool's hash slot."""
    return f"{pool_key(pool_name, 'ticket')}:{ticket_id}"


def ticket_notice(ticket_id: str) -> str:
    """The name a ticket's changes are announced under on the change feed (what `MatchStore.change_of` reads)."""
    return f"ticket:{ticket_id}"


@dataclass(frozen=True)
class Group:
    """Tickets paired for one match: each ticket's id and its seat there."""

    match_id: str
    seats: dict[str, int]


@dataclass(frozen=True)
class Pairing:
    """What one pairing did: the tickets it expired and the groups it formed."""

    expired: list[str]
    groups: list[Group]


class MatchmakingStore:
    """Reads and writes the pools and their tickets; every change of a pool is one script."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._enter = lua_script(client, "matchmaking", "enter")
        self._pair = lua_script(client, "matchmaking", "pair")
        self._settle = lua_script(client, "matchmaking", "settle")
        self._cancel = lua_script(client, "matchmaking", "cancel")

    def pool_keys(self, pool: Pool) -> list[str]:
        """The keys every script of a pool names first: waiting, entries, bots."""
        return [pool_key(pool.name, "waiting"), pool_key(pool.name, "entries"), pool_key(pool.name, "bots")]

    def enter(self, ticket: Ticket, wait_seconds: int) -> tuple[bool, str]:
        """Store a new waiting ticket: (True, its id); (False, the waiting one's id) if its bot waits there already."""
        pool = ticket.pool
        record = json.dumps(stored_ticket(ticket), separators=(",", ":"))
        keys = [ticket_key(pool.name, ticket.id), *self.pool_keys(pool)]
        args: list[EncodableT] = [ticket.id, record, ticket.created_ms, ticket.bot or "", wait_seconds + KEPT_AFTER]
        entered, ticket_id = cast("list[int | str]", self._enter(keys=keys, args=args))
        return bool(int(entered)), str(ticket_id)

    def waiting_ticket_of(self, pool: Pool, bot_id: str) -> str | None:
        """The id of the bot's waiting ticket in the pool, if it has one."""
        return cast("str | None", self.client.hget(pool_key(pool.name, "bots"), bot_id))

    def load(self, ticket_id: str) -> Ticket | None:
        """The stored ticket, or None (no such ticket, or it expired)."""
        pool = pool_of_ticket(ticket_id)
        if pool is None:
            return None
        fields = cast("dict[str, str]", self.client.hgetall(ticket_key(pool.name, ticket_id)))
        if "record" not in fields:
            return None
        stored = json.loads(fields["record"])
        return Ticket(
            id=ticket_id,
            pool=pool,
            status=TicketStatus(fields["status"]),
            bot=stored["bot"],
            name=stored["name"],
            rating=float(stored["rating"]),
            window=float(stored["window"]),
            created_ms=int(stored["created_ms"]),
            expires_ms=int(stored["expires_ms"]),
            token_hash=stored["token_hash"],
            client=stored["client"],
            match=fields.get("match"),
            seat=int(fields["seat"]) if "seat" in fields else None,
            reason=fields.get("reason"),
            version=int(fields.get("version", 1)),
        )

    def pair(self, pool: Pool, now_ms: int, widen: float, cap: float, groups: list[tuple[str, list[int]]]) -> Pairing:
        """Expire the pool's overdue tickets and pair its waiting ones, forming at most `len(groups)` groups.

        `groups`: for each group it may form, the new match's id and the seat of each member in the order picked.
        """
        keys = [*self.pool_keys(pool), pool_key(pool.name, "forming")]
        args: list[EncodableT] = [now_ms, pool.players, widen, cap, KEPT_AFTER, PAIRING_SCAN, ticket_key(pool.name, "")]
        args += [" ".join([match_id, *map(str, seats)]) for match_id, seats in groups]
        expired, formed = cast("list[list[str]]", self._pair(keys=keys, args=args))
        found = []
        for row in cast("list[list[str]]", formed):
            members = row[1:]
            seats = {members[i]: int(members[i + 1]) for i in range(0, len(members), 2)}
            found.append(Group(row[0], seats))
        return Pairing(list(expired), found)

    def settle(self, pool: Pool, group: Group, outcomes: dict[str, str]) -> int:
        """The group's match was stored (`matched` for each ticket) or not (`waiting`, or a reason to cancel it)."""
        ticket_ids = list(group.seats)
        keys = [*self.pool_keys(pool), pool_key(pool.name, "forming"), *(ticket_key(pool.name, t) for t in ticket_ids)]
        args: list[EncodableT] = [group.match_id, KEPT_AFTER, *(outcomes[t] for t in ticket_ids)]
        return int(cast(int, self._settle(keys=keys, args=args)))

    def forming(self, pool: Pool) -> list[tuple[Group, int]]:
        """The groups paired in the pool whose match is not settled yet, each with when it was paired (ms)."""
        rows = cast("dict[str, str]", self.client.hgetall(pool_key(pool.name, "forming")))
        found = []
        for match_id, raw in rows.items():
            data = json.loads(raw)
            tickets = [self.load(ticket_id) for ticket_id in data["tickets"]]
            seats = {t.id: t.seat for t in tickets if t is not None and t.seat is not None and t.match == match_id}
            found.append((Group(match_id, seats), int(data["at"])))
        return found

    def drop_forming(self, pool: Pool, match_id: str) -> None:
        """Forget a group none of whose tickets is paired to its match any more."""
        self.client.hdel(pool_key(pool.name, "forming"), match_id)

    def cancel(self, ticket: Ticket, reason: str = "") -> str:
        """Cancel the ticket if it waits; its status after the call ('' if it is gone)."""
        pool = ticket.pool
        keys = [ticket_key(pool.name, ticket.id), *self.pool_keys(pool)]
        return str(self._cancel(keys=keys, args=[ticket.id, KEPT_AFTER, reason]))

    def waiting_counts(self, pools: list[Pool]) -> list[int]:
        """How many tickets wait in each pool."""
        pipe = self.client.pipeline(transaction=False)
        for pool in pools:
            pipe.zcard(pool_key(pool.name, "waiting"))
        return [int(count) for count in pipe.execute()]

    def busy_pools(self, pools: list[Pool]) -> list[Pool]:
        """The pools with a waiting ticket or a group being seated."""
        pipe = self.client.pipeline(transaction=False)
        for pool in pools:
            pipe.zcard(pool_key(pool.name, "waiting"))
            pipe.hlen(pool_key(pool.name, "forming"))
        replies = pipe.execute()
        return [pool for i, pool in enumerate(pools) if replies[2 * i] or replies[2 * i + 1]]

    def add_claims(self, match_id: str, deadline_ms: int) -> None:
        """Note a match whose seats reserved for people must be taken by `deadline_ms`."""
        self.client.zadd(CLAIMS_KEY, {match_id: deadline_ms})

    def due_claims(self, now_ms: int) -> list[str]:
        """The matches whose reserved seats are overdue."""
        return list(cast("list[str]", self.client.zrangebyscore(CLAIMS_KEY, "-inf", now_ms)))

    def drop_claims(self, match_id: str) -> None:
        """Forget a match whose reserved seats were all taken, or that ended."""
        self.client.zrem(CLAIMS_KEY, match_id)
