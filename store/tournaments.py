"""The tournament store: every Redis key of the tournaments, beside the match store's own.

Key names (the `{id}` braces are a Redis Cluster hash tag, so a tournament's keys share one slot):

* `parlour:tournament:{<id>}`          hash: `plan` (JSON), `status`, `seed_given`, `owner_hash`,
  `created_us`, `created_at`, `finished_at` (when it finished or was cancelled)
* `parlour:tournament:{<id>}:slots`    hash: match index -> the planned match (round, entrant per seat)
* `parlour:tournament:{<id>}:matches`  hash: match index -> id of the match started for it (claimed once,
  and only while the tournament runs; empty for a slot voided without a match)
* `parlour:tournament:{<id>}:outcomes` hash: match index -> how it ended (HSETNX: recorded once)
* `parlour:tournament:{<id>}:lock`     string: held by the process advancing the tournament
* `parlour:tournament:{<id>}:dirty`    string: set by whoever asks for an advance
* `parlour:tournament:{<id>}:handed-over` string: an advance job is queued (set NX, so one at a time;
  its job clears it when it starts, and it expires with the lock's timeout if that job is lost)
* `parlour:tournament-of:<match id>`   string: `<tournament id> <index>` of a tournament's match
* `parlour:tournaments`                sorted set: tournament ids by creation time, for listing
* `parlour:tournament:{<id>}:consent`  hash: bot id -> `pending`, `accepted` or `declined`, its answer
  to the tournament's one challenge (the head's `challenge_expires_at` says until when)
* `parlour:running-tournaments`        set: ids of tournaments not over (waiting or running), for the workers' sweep

A finished, cancelled or aborted tournament's own keys are kept `KEEP_FINISHED` seconds. Its scripts are
`store/lua/tournaments/*.lua` (see `store/connection.py`).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

import redis

from model.tournament import Outcome, Plan, Slot
from store.connection import lua_script, redis_client

if TYPE_CHECKING:
    from redis.typing import EncodableT

RUNNING, FINISHED, CANCELLED = "running", "finished", "cancelled"
WAITING, ABORTED = "waiting", "aborted"
"""A tournament with bot entrants waits until each accepted its challenge; declined or expired, it is aborted."""
STATUSES = (WAITING, RUNNING, FINISHED, CANCELLED, ABORTED)
PENDING, ACCEPTED, DECLINED = "pending", "accepted", "declined"
PARTS = ("", "slots", "matches", "outcomes", "consent")
LIST_KEY = "parlour:tournaments"
RUNNING_KEY = "parlour:running-tournaments"
LOCK_MS = 30_000
"""How long an advance may hold a tournament's lock before another process may take it."""
KEEP_FINISHED = 30 * 24 * 3600
"""Seconds a finished tournament (plan, outcomes, ratings) is kept."""


def tournament_key(tournament_id: str, part: str = "") -> str:
    """A key of one tournament: its hash, or one of its parts (`slots`, `matches`, `outcomes`, `lock`, `dirty`)."""
    key = f"parlour:tournament:{{{tournament_id}}}"
    return f"{key}:{part}" if part else key


def membership_key(match_id: str) -> str:
    """Which tournament (and match index) a match belongs to."""
    return f"parlour:tournament-of:{match_id}"


class TournamentHead(TypedDict):
    """A tournament's hash as stored, every field text: its plan (JSON), status and times, its owner token's hash."""

    plan: str
    status: str
    seed_given: str  # `1` or `0`
    owner_hash: NotRequired[str]  # absent from tournaments stored before owner tokens
    created_us: str
    created_at: str
    finished_at: NotRequired[str]
    challenge_expires_at: NotRequired[str]
    abort_reason: NotRequired[str]


@dataclass
class TournamentRecord:
    """A tournament as stored: its plan, status and times, its planned matches, started matches and outcomes."""

    id: str
    plan: Plan
    status: str
    seed_given: bool
    created_us: int
    created_at: str
    finished_at: str | None
    slots: list[Slot]
    matches: dict[int, str]  # an empty id: the slot was voided without a match
    outcomes: dict[int, Outcome]
    owner_hash: str | None = None
    consent: dict[str, str] = field(default_factory=dict)  # bot id -> its answer to the tournament's challenge
    challenge_expires_at: str | None = None
    abort_reason: str | None = None


class TournamentStore:
    """Reads and writes tournaments in Redis; the only module that knows their key names."""

    @classmethod
    def from_url(cls, url: str, match_ttl: int) -> TournamentStore:
        """A store on the Redis server at `url`; `match_ttl` is how long a match's membership is kept."""
        return cls(redis_client(url, decode_responses=True), match_ttl)

    def __init__(self, client: redis.Redis, match_ttl: int) -> None:
        self.client = client
        self.match_ttl = match_ttl
        self._release = lua_script(client, "tournaments", "release_lock")
        self._claim = lua_script(client, "tournaments", "claim_slot")
        self._end = lua_script(client, "tournaments", "end")
        self._answer = lua_script(client, "tournaments", "answer_challenge")
        self._settle = lua_script(client, "tournaments", "settle")

    def create(
        self,
        tournament_id: str,
        plan: Plan,
        seed_given: bool,
        created_at: str,
        owner_hash: str,
        consent: dict[str, str] | None = None,
        challenge_expires_at: str | None = None,
    ) -> None:
        """Store a new tournament (no slots yet) and its owner token's hash: running, or waiting on a bot's consent."""
        created_us = time.time_ns() // 1000
        waiting = any(answer != ACCEPTED for answer in (consent or {}).values())
        fields: dict[EncodableT, EncodableT] = {
            "plan": json.dumps(plan.to_json()),
            "status": WAITING if waiting else RUNNING,
            "seed_given": int(seed_given),
            "owner_hash": owner_hash,
        }
        if challenge_expires_at is not None:
            fields["challenge_expires_at"] = challenge_expires_at
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(tournament_key(tournament_id), mapping={**fields, "created_us": created_us, "created_at": created_at})
        if consent:
            pipe.hset(tournament_key(tournament_id, "consent"), mapping=cast("dict[EncodableT, EncodableT]", consent))
        pipe.sadd(RUNNING_KEY, tournament_id)
        pipe.zadd(LIST_KEY, {tournament_id: created_us})
        pipe.execute()

    def load(self, tournament_id: str) -> TournamentRecord | None:
        """The stored tournament with its slots, matches and outcomes, or None."""
        pipe = self.client.pipeline(transaction=True)
        for part in PARTS:
            pipe.hgetall(tournament_key(tournament_id, part))
        head, slots, matches, outcomes, consent = pipe.execute()
        if not head:
            return None
        return TournamentRecord(
            id=tournament_id,
            plan=Plan.from_json(json.loads(head["plan"])),
            status=head["status"],
            seed_given=head["seed_given"] == "1",
            created_us=int(head["created_us"]),
            created_at=head["created_at"],
            finished_at=head.get("finished_at"),
            slots=sorted((Slot.from_json(json.loads(raw)) for raw in slots.values()), key=lambda slot: slot.index),
            matches={int(index): match_id for index, match_id in matches.items()},
            outcomes={int(index): Outcome.from_json(json.loads(raw)) for index, raw in outcomes.items()},
            owner_hash=head.get("owner_hash"),
            consent=consent,
            challenge_expires_at=head.get("challenge_expires_at"),
            abort_reason=head.get("abort_reason"),
        )

    def owner_hash(self, tournament_id: str) -> str | None:
        """The stored hash of the tournament's owner token, if there is such a tournament."""
        return cast("str | None", self.client.hget(tournament_key(tournament_id), "owner_hash"))

    def add_slots(self, tournament_id: str, slots: list[Slot]) -> None:
        """Plan more matches."""
        if slots:
            mapping: dict[EncodableT, EncodableT] = {str(slot.index): json.dumps(slot.to_json()) for slot in slots}
            self.client.hset(tournament_key(tournament_id, "slots"), mapping=mapping)

    def claim_slot(self, tournament_id: str, index: int, match_id: str) -> str:
        """Record the match started for a slot: `claimed`; `taken` if the slot has one already, `closed`
        if the tournament no longer runs (either way the slot is left alone)."""
        keys = [tournament_key(tournament_id), tournament_key(tournament_id, "matches")]
        outcome = str(self._claim(keys=keys, args=[index, match_id]))
        if outcome == "claimed" and match_id:
            self.client.set(membership_key(match_id), f"{tournament_id} {index}", ex=self.match_ttl)
        return outcome

    def record_outcome(self, tournament_id: str, outcome: Outcome) -> bool:
        """Record how a match ended, once: False when it was already recorded."""
        raw = json.dumps(outcome.to_json())
        return bool(self.client.hsetnx(tournament_key(tournament_id, "outcomes"), str(outcome.index), raw))

    def finish(self, tournament_id: str, finished_at: str) -> str:
        """Mark a running tournament finished; the status it had (only `running` changes)."""
        return self.end(tournament_id, FINISHED, finished_at)

    def cancel(self, tournament_id: str, cancelled_at: str) -> str:
        """Mark a running tournament cancelled, so no slot is claimed after; the status it had."""
        return self.end(tournament_id, CANCELLED, cancelled_at)

    def end(self, tournament_id: str, status: str, at: str) -> str:
        """End a running tournament with `status`, its keys kept KEEP_FINISHED seconds; the status it had
        (`''` when there is no such tournament)."""
        parts = [tournament_key(tournament_id, part) for part in ("slots", "matches", "outcomes", "consent")]
        keys = [tournament_key(tournament_id), RUNNING_KEY, *parts]
        return str(self._end(keys=keys, args=[status, at, KEEP_FINISHED, tournament_id]))

    def answer_challenge(self, tournament_id: str, bot_id: str, answer: str) -> str:
        """Record a bot's answer while the tournament waits: `ok`, or what stood in the way (status, earlier answer)."""
        keys = [tournament_key(tournament_id), tournament_key(tournament_id, "consent")]
        return str(self._answer(keys=keys, args=[bot_id, answer]))

    def begin(self, tournament_id: str) -> bool:
        """Start a waiting tournament whose every bot accepted; False if it was not waiting or one has not."""
        keys = [tournament_key(tournament_id), tournament_key(tournament_id, "consent")]
        return bool(self._settle(keys=keys, args=["begin", "", ""]))

    def abort(self, tournament_id: str, reason: str, at: str) -> bool:
        """Abort a waiting tournament unless every bot accepted meanwhile; its keys are kept as a finished one's."""
        keys = [tournament_key(tournament_id), tournament_key(tournament_id, "consent")]
        if not self._settle(keys=keys, args=["abort", reason, at]):
            return False
        self.close(tournament_id)
        return True

    def close(self, tournament_id: str) -> None:
        """Drop an aborted tournament from the sweep and keep its keys KEEP_FINISHED seconds (again: idempotent)."""
        pipe = self.client.pipeline(transaction=True)
        pipe.srem(RUNNING_KEY, tournament_id)
        for part in PARTS:
            pipe.expire(tournament_key(tournament_id, part), KEEP_FINISHED)
        pipe.execute()

    def tournament_of(self, match_id: str) -> str | None:
        """The id of the tournament a match belongs to, if any."""
        raw = cast("str | None", self.client.get(membership_key(match_id)))
        return raw.partition(" ")[0] if raw else None

    def running(self) -> list[str]:
        """Every running tournament, for the sweep."""
        return sorted(cast("set[str]", self.client.smembers(RUNNING_KEY)))

    def forget(self, tournament_id: str) -> None:
        """Drop a tournament that expired from the listing and the sweep."""
        self.client.srem(RUNNING_KEY, tournament_id)
        self.client.zrem(LIST_KEY, tournament_id)

    def list_ids(self, limit: int, before_us: int | None) -> list[tuple[str, int]]:
        """Up to `limit` (id, creation time) pairs, newest first, created strictly before `before_us`."""
        high = f"({before_us}" if before_us is not None else "+inf"
        rows = cast(
            "list[tuple[str, float]]",
            self.client.zrevrangebyscore(LIST_KEY, high, "-inf", start=0, num=limit, withscores=True),
        )
        return [(member, int(score)) for member, score in rows]

    def match_ids(self, tournament_id: str) -> set[str]:
        """The ids of the matches the tournament started (running or ended)."""
        match_ids = cast("list[str]", self.client.hvals(tournament_key(tournament_id, "matches")))
        return {match_id for match_id in match_ids if match_id}

    def load_heads(self, tournament_ids: list[str]) -> list[TournamentHead | None]:
        """The hashes (plan, status, times) of several tournaments in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for tournament_id in tournament_ids:
            pipe.hgetall(tournament_key(tournament_id))
        return [cast(TournamentHead, head) if head else None for head in pipe.execute()]

    def ask_advance(self, tournament_id: str) -> None:
        """Note that the tournament should be looked at (whoever holds its lock will)."""
        self.client.set(tournament_key(tournament_id, "dirty"), 1, ex=LOCK_MS // 1000)

    def take_request(self, tournament_id: str) -> bool:
        """True (and clears it) when an advance was asked for since the last take."""
        return self.client.getdel(tournament_key(tournament_id, "dirty")) is not None

    def hand_over(self, tournament_id: str) -> bool:
        """True when no advance job is queued for the tournament (one now is, as far as the caller goes)."""
        return bool(self.client.set(tournament_key(tournament_id, "handed-over"), 1, nx=True, px=LOCK_MS))

    def taken_over(self, tournament_id: str) -> None:
        """The advance job has started: a later hand-over queues another."""
        self.client.delete(tournament_key(tournament_id, "handed-over"))

    def has_request(self, tournament_id: str) -> bool:
        """True when an advance was asked for and nobody took it yet."""
        return bool(self.client.exists(tournament_key(tournament_id, "dirty")))

    @contextmanager
    def locked(self, tournament_id: str) -> Iterator[bool]:
        """Hold the tournament's lock for the block if it is free: yields whether it was taken."""
        token = secrets.token_hex(8)
        key = tournament_key(tournament_id, "lock")
        taken = bool(self.client.set(key, token, nx=True, px=LOCK_MS))
        try:
            yield taken
        finally:
            if taken:
                self._release(keys=[key], args=[token])
