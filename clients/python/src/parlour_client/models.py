"""Typed shapes of the answers the client reads (openapi.yaml's schemas; fields a client acts on are typed,
the rest pass through as JSON values)."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Action = dict[str, Any]
"""An action, as `legal-actions` lists it and `POST .../actions` takes it: a JSON object with a `type`."""


class SeatToken(TypedDict):
    """One seat's token of a created match (shown once)."""

    seat: int
    token: str


class Match(TypedDict):
    """A match as the caller may see it (`GET /v1/matches/{id}`, and the answer of an action)."""

    id: str
    game: str
    version: int
    status: str
    players: int
    to_act: list[int]
    result: Any
    view: Any
    viewer: int | None


class MatchCreated(Match):
    """`POST /v1/matches`: the match, every seat's token the creator holds, and the owner token (for abort)."""

    tokens: list[SeatToken]
    owner_token: str


class JoinedSeat(TypedDict):
    """`POST /v1/matches/{id}/join`: the seat taken and its token (`None` when a bot token took it)."""

    id: str
    seat: int
    token: str | None
    version: int
    status: str
    open_seats: list[int]
    bot: str | None


class LegalActions(TypedDict):
    """What a seat may do now. Send `version` as `expected_version`. `kind` is `enumerated` (pick one of
    `actions`) or `constructed` (build one from `schema` and `constraints`; `example` is a legal one)."""

    version: int
    seat: int
    may_act: bool
    kind: str
    actions: list[Action]
    schema: NotRequired[dict[str, Any]]
    constraints: NotRequired[dict[str, Any]]
    example: NotRequired[Action]
    ends_turn: NotRequired[list[bool]]


class LogEntry(TypedDict):
    """One applied action of a match's log."""

    version: int
    seat: int | None
    action: Any


class LogPage(TypedDict):
    """One page of `GET /v1/matches/{id}/log`; `next_after` is the next page's `after` (None on the last)."""

    id: str
    version: int
    status: str
    seed: str | None
    after: int
    entries: list[LogEntry]
    next_after: int | None
    next: str | None


class BotRegistered(TypedDict):
    """`POST /v1/bots`: the bot and its token (shown once)."""

    id: str
    name: str
    token: str


class BotSeat(TypedDict):
    """One live seat of a bot (`GET /v1/bots/{id}/matches?status=playing`)."""

    match: str
    seat: int
    game: str
    players: int
    status: str
    version: int
    may_act: bool
    your_turn: bool
    deadline: str | None


class Challenge(TypedDict):
    """A request to seat a bot, to accept or decline by `id`."""

    id: str
    match: str | None
    expires_at: str
    type: NotRequired[str]
    """`match` or `tournament`."""
    status: NotRequired[str]
    tournament: NotRequired[str | None]
    game: NotRequired[str]
    players: NotRequired[int]
    your_seats: NotRequired[list[int]]
    seats: NotRequired[list[dict[str, Any]] | None]
    """A match's seats as the public sees them (`seat`, `type`, `name`, `level`, `bot` ...); None for a tournament."""
    entrants: NotRequired[list[dict[str, Any]] | None]
    """A tournament's entrants (`type`, `name`, `bot` ...); None for a match."""


class AiMoveAccepted(TypedDict):
    """`POST /v1/matches/{id}/ai-move` (202): the job computing the move; poll `url`."""

    id: str
    url: str
    status: str
    match: str
    seat: int
    version: int
    level: str
    apply: bool
    pending: bool


class Job(TypedDict):
    """`GET /v1/jobs/{id}`: a requested move's status; `result` once `finished`, `error` once `failed`."""

    id: str
    status: str
    match: str
    seat: int
    version: int
    level: str
    apply: bool
    result: dict[str, Any] | None
    error: dict[str, Any] | None


class Snapshot(TypedDict):
    """The data of a bot stream's opening `snapshot` event (a stream opened with no cursor): what is true now.
    `next_challenges` / `next_matches` are the listings' cursors for the rest when there are more."""

    challenges: list[Challenge]
    matches: list[BotSeat]
    next_challenges: NotRequired[str | None]
    next_matches: NotRequired[str | None]


class MatchmakingTicket(TypedDict):
    """A place in a matchmaking pool: `waiting`, then `matched` (with `match` and `seat`), `expired` or `cancelled`."""

    id: str
    status: str
    game: str
    players: int
    rated: bool
    match: str | None
    seat: int | None
    bot: NotRequired[str | None]
    name: NotRequired[str]
    rating: NotRequired[float]
    window: NotRequired[float]
    expires_at: NotRequired[str]
    reason: NotRequired[str | None]
    """Why the server cancelled it (`bot-at-capacity`, `bot-deleted`)."""
