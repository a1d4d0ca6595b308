"""The stored form of a match: everything the API keeps about it besides the log."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypedDict

WAITING, ACTIVE, FINISHED, ABORTED = "waiting", "active", "finished", "aborted"
STATUSES = (WAITING, ACTIVE, FINISHED, ABORTED)
ENDED = (FINISHED, ABORTED)
"""A finished match has a result; an aborted one ended without one (nobody won, nothing is rated)."""


def now_iso() -> str:
    """The current time in UTC, ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seed_commitment(seed: str) -> str:
    """SHA-256 of the seed's UTF-8 text: published at creation, checkable once the seed is revealed."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


class SeatRequest(TypedDict):
    """Who plays a seat of a match asked for: `human`, `open`, `ai` (at a `level`) or `bot` (a registered `bot`)."""

    type: str
    level: str | None
    name: str | None
    bot: str | None


class TurnTimerRequest(TypedDict):
    """The seconds each seat the game waits for has to act."""

    seconds: int


class MatchRequest(TypedDict):
    """A match asked for (`POST /v1/matches`, as its schema loads it; a tournament's, as its director builds it).

    `seats`, when given, has one entry per player and replaces `open_seats`."""

    game: str
    players: int
    options: dict[str, Any]
    seed: str | None
    open_seats: list[int]
    seats: list[SeatRequest] | None
    turn_timer: TurnTimerRequest | None
    unlisted: bool


@dataclass
class SeatRecord:
    """One seat: filled when a token hash is stored for it, played by the server's AI, or held by a registered bot."""

    seat: int
    token_hash: str | None = None
    name: str | None = None
    ai_level: str | None = None
    bot: str | None = None  # the id of the registered bot that holds the seat (it acts with its bot token)
    pending: bool = False  # a bot seat whose bot has not accepted its challenge yet

    @property
    def filled(self) -> bool:
        """True once someone holds this seat's token, the AI plays it, or a bot holds it (having accepted)."""
        return self.token_hash is not None or self.ai_level is not None or (self.bot is not None and not self.pending)

    @property
    def kind(self) -> str:
        """`ai` for a seat the server plays, `bot` for a registered bot's, `human` otherwise (a seat token's)."""
        if self.ai_level is not None:
            return "ai"
        return "bot" if self.bot is not None else "human"

    def public_json(self) -> dict[str, Any]:
        """What anyone may see of the seat (never the hash)."""
        return {
            "seat": self.seat,
            "filled": self.filled,
            "name": self.name,
            "type": self.kind,
            "level": self.ai_level,
            "bot": self.bot,
            "challenge": ("pending" if self.pending else "accepted") if self.bot is not None else None,
        }


@dataclass
class MatchRecord:
    """A match as stored: identity, secret seed, engine state, seats and status."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: str
    state: dict[str, Any]
    seats: list[SeatRecord]
    version: int = 0
    status: str = ACTIVE
    start_by: str | None = None  # a waiting match that seats a bot is aborted unless it starts by then
    turn_seconds: int | None = None  # the turn timer: seconds each waited-for seat has to act; None: no timer
    deadlines: dict[str, str] = field(default_factory=dict)  # seat (as text) -> ISO time its turn timer runs out
    abort_reason: str | None = None  # why an aborted match ended without a result
    owner_hash: str | None = None  # SHA-256 of the creator's owner token; None for the server's own matches
    tournament: str | None = None  # the id of the tournament that started the match (its AI seats queue apart)
    fair_until_ms: int = 0  # the end of the latest timer downtime its deadlines were moved for (epoch ms)
    rules_version: int = 1  # the game's GameInfo.rules_version when the match was created
    result: dict[str, Any] | None = None  # a result decided outside the rules (a resignation, a give-up); Result JSON
    unlisted: bool = False  # left out of the lobby listing; still readable and joinable by id
    rematch: dict[str, Any] | None = None  # the rematch offer once a seat made one (see domain/matches/lifecycle.py)
    started_version: int | None = None  # the version at which the match became active; None while it waits
    created_us: int = field(default_factory=lambda: time.time_ns() // 1000)
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)

    @property
    def seed_commitment(self) -> str:
        """The published commitment to the secret seed."""
        return seed_commitment(self.seed)

    @property
    def ended(self) -> bool:
        """True once the match is over: finished with a result, or aborted without one."""
        return self.status in ENDED

    @property
    def rematch_open(self) -> bool:
        """True while a rematch may still be offered or accepted: finished, no tournament's, its rematch not started."""
        return self.status == FINISHED and self.tournament is None and not (self.rematch or {}).get("match")

    @property
    def settled(self) -> bool:
        """True once nothing more may change the match: ended, and no rematch may still be offered."""
        return self.ended and not self.rematch_open

    def open_seats(self) -> list[int]:
        """Seats nobody holds yet (a seat whose bot is challenged is not open: nobody else may take it)."""
        return [s.seat for s in self.seats if not s.filled and not s.pending]

    def pending_bots(self) -> dict[str, list[int]]:
        """The bots challenged to this match that have not accepted yet, with their seats."""
        pending: dict[str, list[int]] = {}
        for seat in self.seats:
            if seat.bot is not None and seat.pending:
                pending.setdefault(seat.bot, []).append(seat.seat)
        return pending

    def bot_seats(self, bot_id: str) -> list[int]:
        """The seats a bot holds or is challenged to."""
        return [s.seat for s in self.seats if s.bot == bot_id]

    def start_if_ready(self) -> None:
        """Active (from this version on) once nothing keeps the match from starting; waiting otherwise."""
        self.status = ACTIVE if self.ready() else WAITING
        self.started_version = self.version if self.status == ACTIVE else None

    def ready(self) -> bool:
        """True when nothing keeps the match from starting: every seat taken and every challenged bot accepted."""
        return all(seat.filled for seat in self.seats)

    def to_json(self) -> dict[str, Any]:
        """The stored JSON form: a shallow copy that shares the record's values, for `json.dumps` to write."""
        return {**vars(self), "seats": [dict(vars(seat)) for seat in self.seats]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchRecord:
        """Read back the stored JSON form."""
        seats = [SeatRecord(**seat) for seat in data["seats"]]
        return cls(**{**data, "seats": seats})
