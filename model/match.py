"""The stored form of a match: everything the API keeps about it besides the log."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NotRequired, TypedDict, cast

from engine.protocol import Action
from engine.registry import get_game
from engine.result import Result

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


class Assistance(StrEnum):
    """Whether a match's seats may ask the AI for hints and analysis while it runs (fair play)."""

    ALLOWED = "allowed"
    FORBIDDEN = "forbidden"


class PaceWhen(StrEnum):
    """When a match's spectator pace applies: only while someone watches it, or always."""

    WATCHED = "watched"
    ALWAYS = "always"


class AiPaceJson(TypedDict):
    """A match's spectator pace: each AI move is stored no sooner than `milliseconds` after the match's
    previous change, `when` someone watches (`watched`) or `always`."""

    milliseconds: int
    when: str


class MatchRequest(TypedDict):
    """A match asked for (`POST /v1/matches`, as its schema loads it; a tournament's, as its director builds it).

    `seats`, when given, has one entry per player and replaces `open_seats`. `assistance` left out (or None)
    takes the fair-play rule's default (`default_assistance`); `ai_pace` left out is None (no pace)."""

    game: str
    players: int
    options: dict[str, Any]
    seed: str | None
    open_seats: list[int]
    seats: list[SeatRequest] | None
    turn_timer: TurnTimerRequest | None
    unlisted: bool
    assistance: NotRequired[str | None]
    ai_pace: NotRequired[AiPaceJson | None]


class LogEntry(TypedDict):
    """One entry of a match's log: an action (`action`, and `timeout` when a turn timer played it) or a
    resignation (`resign`, and `handed_to`, an AI level, when a co-operative seat went to the AI)."""

    version: int
    seat: int
    action: NotRequired[Action]
    at: str
    timeout: NotRequired[bool]
    resign: NotRequired[bool]
    handed_to: NotRequired[str]


class ResultJson(TypedDict):
    """A result as answers show it and matches store it (`engine.Result.to_json` builds it)."""

    scores: list[float]
    ranking: list[list[int]]
    winners: list[int]
    draw: bool
    reason: str
    team_success: NotRequired[bool]  # co-operative games only


def result_json(result: Result) -> ResultJson:
    """The JSON form of a result: `Result.to_json`, whose shape is ResultJson (the engine types it as a dict)."""
    return cast(ResultJson, result.to_json())


class RematchOffer(TypedDict):
    """The rematch offer on a finished match (domain/matches/lifecycle.py): who offered, the new match's id
    (`starting`, chosen at the first post; `match` once it started), each human seat's rematch token hash,
    and the seed, chosen once every seat has posted."""

    offered_by: list[int]
    match: str | None
    starting: str
    token_hashes: NotRequired[dict[str, str]]  # seat (as text) -> hash of its rematch token
    seed: NotRequired[str]


class SeatJson(TypedDict):
    """A seat as anyone may see it (`SeatRecord.public_json`)."""

    seat: int
    filled: bool
    name: str | None
    type: str
    level: str | None
    bot: str | None
    challenge: str | None  # `pending` or `accepted` for a bot seat; None otherwise


class SeatRecordJson(TypedDict):
    """A seat as stored (`SeatRecord`'s fields)."""

    seat: int
    token_hash: str | None
    name: str | None
    ai_level: str | None
    bot: str | None
    pending: bool


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

    def to_json(self) -> SeatRecordJson:
        """The stored JSON form."""
        return {
            "seat": self.seat,
            "token_hash": self.token_hash,
            "name": self.name,
            "ai_level": self.ai_level,
            "bot": self.bot,
            "pending": self.pending,
        }

    def public_json(self) -> SeatJson:
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


def default_assistance(game_id: str, seats: Sequence[SeatRecord]) -> Assistance:
    """The fair-play default: forbidden when two or more seats are not the server's AI (people, bots or open
    seats), or when the match would be rated; allowed otherwise (one person against the AI, or the AI alone).

    Rated is `domain/ladder/ratings.py`'s rule: a competitive game whose every seat is an AI level or a bot,
    at least one a bot. An open seat beside AI seats counts as a bot's here, since a bot may take it."""
    others = [seat for seat in seats if seat.kind != "ai"]
    if len(others) >= 2:
        return Assistance.FORBIDDEN
    game = get_game(game_id)
    competitive = game is not None and not game.info.cooperative
    if competitive and others and (others[0].bot is not None or others[0].token_hash is None):
        return Assistance.FORBIDDEN  # a bot (or a seat a bot may take) against AI levels: rated
    return Assistance.ALLOWED


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
    rematch: RematchOffer | None = None  # the rematch offer once a seat made one
    started_version: int | None = None  # the version at which the match became active; None while it waits
    assistance: str = ""  # an Assistance; "" (and a record stored before fair play) takes default_assistance's
    ai_pace: AiPaceJson | None = None  # the spectator pace of its AI moves; None: as fast as they come
    created_us: int = field(default_factory=lambda: time.time_ns() // 1000)
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)

    def __post_init__(self) -> None:
        self.assistance = Assistance(self.assistance) if self.assistance else default_assistance(self.game, self.seats)

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
        return self.status == FINISHED and self.tournament is None and not (self.rematch and self.rematch.get("match"))

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

    def to_json(self) -> MatchRecordJson:
        """The stored JSON form: a shallow copy that shares the record's values, for `json.dumps` to write."""
        return {
            "id": self.id,
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "seed": self.seed,
            "state": self.state,
            "seats": [seat.to_json() for seat in self.seats],
            "version": self.version,
            "status": self.status,
            "start_by": self.start_by,
            "turn_seconds": self.turn_seconds,
            "deadlines": self.deadlines,
            "abort_reason": self.abort_reason,
            "owner_hash": self.owner_hash,
            "tournament": self.tournament,
            "fair_until_ms": self.fair_until_ms,
            "rules_version": self.rules_version,
            "result": self.result,
            "unlisted": self.unlisted,
            "rematch": self.rematch,
            "started_version": self.started_version,
            "assistance": self.assistance,
            "ai_pace": self.ai_pace,
            "created_us": self.created_us,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    @classmethod
    def from_json(cls, data: MatchRecordJson) -> MatchRecord:
        """Read back the stored JSON form (a key that a record stored before it existed lacks takes its default)."""
        seats = [SeatRecord(**seat) for seat in data["seats"]]
        stored: MatchRecordFields = {**data, "seats": seats}
        return cls(**stored)


class StoredMatchFields(TypedDict):
    """A match record's fields but its seats, as stored (`MatchRecord.to_json`)."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: str
    state: dict[str, Any]
    version: int
    status: str
    start_by: str | None
    turn_seconds: int | None
    deadlines: dict[str, str]
    abort_reason: str | None
    owner_hash: str | None
    tournament: str | None
    fair_until_ms: int
    rules_version: int
    result: dict[str, Any] | None
    unlisted: bool
    rematch: RematchOffer | None
    started_version: int | None
    assistance: str
    ai_pace: AiPaceJson | None
    created_us: int
    created_at: str
    updated_at: str


class MatchRecordJson(StoredMatchFields):
    """A match record as stored: its fields, the seats' too (`SeatRecordJson`)."""

    seats: list[SeatRecordJson]


class MatchRecordFields(StoredMatchFields):
    """A match record's fields as `MatchRecord` takes them: the stored form with its seats read back."""

    seats: list[SeatRecord]


assert set(MatchRecordJson.__annotations__) == {f.name for f in fields(MatchRecord)}, "store every field of a match"
assert set(SeatRecordJson.__annotations__) == {f.name for f in fields(SeatRecord)}, "store every field of a seat"
