"""Typed shapes of the answers the client reads, one `TypedDict` per openapi.yaml schema (the spec's name, or the
name this package has always used: `Match` is `GameMatch`, `MatchCreated` is `CreatedMatch`, `BotRegistered`
is `RegisteredBot`, `LogPage` is `MatchLog`, `Snapshot` is `BotSnapshot`). A key is `NotRequired` exactly
where the spec does not list it as required; `Any` stands only where the spec leaves a value open or shaped by
the game (a game's options, view, action). tests/client/test_models.py holds each shape to the spec.

No `from __future__ import annotations` here: on Python 3.11 a TypedDict's `__required_keys__` only sees
`NotRequired` in an annotation that is evaluated, so each class names only the ones defined above it."""

from typing import Any, NotRequired, TypedDict

Action = dict[str, Any]
"""An action, as `legal-actions` lists it and `POST .../actions` takes it: a JSON object with a `type`."""

# --- the server ------------------------------------------------------------------------------------------


class Health(TypedDict):
    """`GET /v1/health`: `status` `ok` or `degraded`, `redis` `ok` or `unavailable`."""

    status: str
    redis: str


class OptionSpec(TypedDict):
    """One option (variant) of a game: `type` `int`, `bool` or `choice`, its default and bounds."""

    name: str
    type: str
    default: int | bool | str
    description: str
    choices: NotRequired[list[str]]
    minimum: NotRequired[int]
    maximum: NotRequired[int]


class Assumption(TypedDict):
    """A rule the rulebook leaves open, and the choice made for it."""

    id: str
    choice: str
    reason: str


class VersusRandom(TypedDict):
    """An AI level's two-player record against `random`, with the win rate's 95% Wilson interval."""

    wins: int
    draws: int
    losses: int
    win_rate: float | None
    interval95: list[float]


class LevelRating(TypedDict):
    """An AI level's measured rating in a game (the ladder's scale) and its record against `random`."""

    mu: float
    sigma: float
    games: int
    win_rate_vs_random: float | None
    versus_random: VersusRandom | None


class LevelRatingsMeasured(TypedDict):
    """When and how a game's level ratings were measured."""

    date: str
    command: str
    target_sigma: float


class GameEntry(TypedDict):
    """A game's catalog entry (`GET /v1/games/{id}`, and each item of `GET /v1/games`)."""

    id: str
    rules_version: int
    name: str
    summary: str
    min_players: int
    max_players: int
    information: str
    chance: bool
    cooperative: bool
    simultaneous: bool
    options: list[OptionSpec]
    assumptions: list[Assumption]
    cards: NotRequired[list[dict[str, Any]]]
    """The game's cards (Robots Love Ice Cream), each in its deck's shape."""
    ai_levels: list[str]
    level_ratings: dict[str, LevelRating]
    """Each AI level's measured rating in this game (empty for a co-operative game)."""
    level_ratings_measured: LevelRatingsMeasured | None


class LeaderboardEntry(TypedDict):
    """One row of a game's leaderboard: a rated bot (`kind: bot`) or an AI level (`kind: ai`)."""

    rank: int
    kind: str
    name: str
    bot: str | None
    level: str | None
    rating: float
    mu: float
    sigma: float
    games: int


# --- matches ---------------------------------------------------------------------------------------------


class SeatToken(TypedDict):
    """One seat's token of a created match (shown once)."""

    seat: int
    token: str


class TurnTimer(TypedDict):
    """A turn timer: each seat the match waits for has `seconds` to act."""

    seconds: int


class Deadline(TypedDict):
    """When a waited-for seat's turn timer runs out."""

    seat: int
    at: str


class Result(TypedDict):
    """The outcome of a finished game."""

    scores: list[float]
    ranking: list[list[int]]
    winners: list[int]
    draw: bool
    reason: str
    team_success: NotRequired[bool]


class SeatInfo(TypedDict):
    """What anyone may see of a seat (`type` `human`, `ai` or `bot`; `challenge` `pending` or `accepted`)."""

    seat: int
    filled: bool
    name: str | None
    type: str
    level: str | None
    bot: str | None
    challenge: str | None


class AiPace(TypedDict):
    """A match's spectator pace: each AI move stored no sooner than `milliseconds` after the match's previous
    change, `when` someone watches (`watched`) or `always`."""

    milliseconds: int
    when: NotRequired[str]


class RematchOffer(TypedDict):
    """A rematch on offer: who offered, who it waits for, and (once all agreed) the new match and seat token."""

    offered_by: list[int]
    waiting_for: list[int]
    match: str | None
    seat: int | None
    token: str | None


class LegalActions(TypedDict):
    """What a seat may do now. Send `version` as `expected_version`. `kind` is `enumerated` (pick one of
    `actions`) or `constructed` (build one from `schema` and `constraints`; `example` is a legal one): the
    spec's `EnumeratedActions` or `ConstructedActions`, so only the keys both share are required."""

    version: int
    seat: int
    may_act: bool
    kind: str
    actions: NotRequired[list[Action]]
    ends_turn: NotRequired[list[bool]]
    schema: NotRequired[dict[str, Any]]
    constraints: NotRequired[dict[str, Any]]
    example: NotRequired[Action]


class Match(TypedDict):
    """A match as the caller may see it (the spec's `GameMatch`: `GET /v1/matches/{id}`, the answer of an
    action, resign or abort). `options` and `view` take the shape of the match's `game`. A seat's read and the
    answer to its action carry its `legal_actions` at `version`, so its next move needs no other request."""

    id: str
    game: str
    players: int
    options: Any
    version: int
    status: str
    to_act: list[int]
    waiting_for: list[int]
    turn_timer: TurnTimer | None
    deadlines: list[Deadline]
    result: Result | None
    viewer: int | None
    view: Any
    seats: list[SeatInfo]
    seed_commitment: str
    seed: str | None
    abort_reason: str | None
    start_by: str | None
    tournament: str | None
    unlisted: bool
    rematch: RematchOffer | None
    assistance: str  # fair play: `allowed` or `forbidden` (hints and analysis while the match runs)
    ai_pace: AiPace | None
    created_at: str
    updated_at: str
    legal_actions: NotRequired[LegalActions]
    """Only in a seat's own answers (its action's, its read of the match): what it may do at `version`."""


class MatchCreated(TypedDict):
    """`POST /v1/matches` (the spec's `CreatedMatch`): the match, every seat's token the creator holds, and the
    owner token (for abort)."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    version: int
    status: str
    seed_commitment: str
    open_seats: list[int]
    tokens: list[SeatToken]
    owner_token: str
    unlisted: bool


class MatchSummary(TypedDict):
    """A match as the lobby lists it (each item of `GET /v1/matches`)."""

    id: str
    game: str
    players: int
    status: str
    version: int
    open_seats: list[int]
    tournament: str | None
    created_at: str
    updated_at: str


class JoinedSeat(TypedDict):
    """`POST /v1/matches/{id}/join`: the seat taken and its token (`None` when a bot token took it)."""

    id: str
    seat: int
    token: str | None
    bot: str | None
    version: int
    status: str
    open_seats: list[int]


class LeftSeat(TypedDict):
    """`POST /v1/matches/{id}/leave`: the seat opened again."""

    id: str
    seat: int
    version: int
    status: str
    open_seats: list[int]


class RematchAnswer(TypedDict):
    """`POST /v1/matches/{id}/rematch`: the offer as it stands after the seat's answer."""

    id: str
    version: int
    seat: int
    rematch: RematchOffer


class LogEntry(TypedDict):
    """One applied action of a match's log."""

    version: int
    seat: int
    action: Action
    at: str
    timeout: NotRequired[bool]


class ResignationLogEntry(TypedDict):
    """A resignation in a match's log: no `action`; `handed_to` names who plays the seat on, if anyone."""

    version: int
    seat: int
    at: str
    resign: bool
    handed_to: NotRequired[str]


LoggedEntry = LogEntry | ResignationLogEntry
"""A log entry of any kind (the spec's `LoggedEntry`)."""


class LogPage(TypedDict):
    """One page of `GET /v1/matches/{id}/log` (the spec's `MatchLog`); `next_after` is the next page's
    `after` (None on the last)."""

    id: str
    version: int
    status: str
    viewer: int | None
    seed_commitment: str
    seed: str | None
    after: int
    entries: list[LoggedEntry]
    next_after: int | None
    next: str | None


class MatchEvent(TypedDict):
    """The data of a `match` event of `GET /v1/matches/{id}/events`: the match as the viewer sees it at `version`
    and the log entries since the viewer's previous event; a seat's stream adds its `legal_actions` there."""

    version: int
    match: Match
    log: list[LoggedEntry]
    log_after: int
    log_earlier: str | None
    legal_actions: NotRequired[LegalActions]


class ReplayStep(TypedDict):
    """`GET /v1/matches/{id}/replay/{step}`: an ended match after its first `step` actions."""

    id: str
    game: str
    step: int
    steps: int
    viewer: int | None
    entry: LoggedEntry | None
    to_act: list[int]
    result: Result | None
    view: Any
    seed: str
    seed_commitment: str


class ExportSeat(TypedDict):
    """One seat of an exported match."""

    seat: int
    type: str
    name: str | None
    level: str | None
    bot: str | None


class Export(TypedDict):
    """`GET /v1/matches/{id}/export`: a match that is over, whole (format `parlour-match`), to verify offline."""

    format: str
    format_version: int
    id: str
    game: str
    rules_version: int
    players: int
    options: dict[str, Any]
    seats: list[ExportSeat]
    seed: str
    seed_commitment: str
    created_at: str
    finished_at: str
    version: int
    status: str
    abort_reason: str | None
    result: Result | None
    log: list[LoggedEntry]


# --- AI moves --------------------------------------------------------------------------------------------


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


class JobResult(TypedDict):
    """A finished job's move, the version it was computed for, and (with `apply`) the version it made."""

    action: Action
    version: int
    applied: bool
    applied_version: int | None


class JobError(TypedDict):
    """Why a job failed (`not-your-turn`, `match-over`, `stale-version`, `ai-failed` ...)."""

    code: str
    detail: str


class Job(TypedDict):
    """`GET /v1/jobs/{id}`: a requested move's status; `result` once `finished`, `error` once `failed`."""

    id: str
    status: str
    match: str
    seat: int
    version: int
    level: str
    apply: bool
    enqueued_at: str | None
    ended_at: str | None
    result: JobResult | None
    error: JobError | None


# --- bots ------------------------------------------------------------------------------------------------


class BotRating(TypedDict):
    """A bot's ladder rating in one game."""

    game: str
    rank: int
    rating: float
    mu: float
    sigma: float
    games: int


class Bot(TypedDict):
    """A registered bot as anyone may see it (`GET /v1/bots/{id}`, and `PATCH`'s answer)."""

    id: str
    name: str
    created_at: str
    matches_playing: int
    matches_finished: int
    policy: str
    max_matches: int | None
    ratings: list[BotRating]


class BotRegistered(Bot):
    """`POST /v1/bots` and `POST /v1/bots/{id}/token` (the spec's `RegisteredBot`): the bot and its token
    (shown once)."""

    token: str


class BotListItem(TypedDict):
    """A bot as `GET /v1/bots` lists it."""

    id: str
    name: str
    created_at: str
    policy: str
    matches_playing: int
    matches_finished: int


class RatingPoint(TypedDict):
    """One point of a bot's rating history: its rating after `match`."""

    match: str
    at: str
    mu: float
    sigma: float
    rating: float


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
    turn_timer: TurnTimer | None
    legal_actions: LegalActions  # what GET .../legal-actions answers at `version`


class BotMatch(TypedDict):
    """A match of a bot's public history (`GET /v1/bots/{id}/matches` with another status)."""

    match: str
    game: str
    players: int
    status: str
    tournament: str | None
    seats: list[SeatInfo]
    result: Result | None
    created_at: str
    updated_at: str


class TournamentEntrant(TypedDict):
    """One entrant of a tournament (`type` `ai`, with `level`, or `bot`, with `bot`)."""

    entrant: int
    name: str
    type: str
    level: NotRequired[str]
    bot: NotRequired[str]


class Challenger(TypedDict):
    """Who challenged: a seat of the match and its name."""

    seat: int
    name: str | None


class Challenge(TypedDict):
    """A request to seat a bot in a match (`type: match`) or a tournament (`type: tournament`), to accept or
    decline by `id`."""

    id: str
    type: str
    status: str
    bot: str
    match: str | None
    tournament: str | None
    challenger: list[Challenger] | None
    game: str
    players: int
    options: dict[str, Any]
    your_seats: list[int]
    seats: list[SeatInfo] | None
    entrants: list[TournamentEntrant] | None
    matches: int
    turn_timer: TurnTimer | None
    expires_at: str
    created_at: str


class Snapshot(TypedDict):
    """The data of a bot stream's opening `snapshot` event (the spec's `BotSnapshot`): what is true now.
    `next_challenges` / `next_matches` are the listings' cursors for the rest when there are more."""

    challenges: list[Challenge]
    next_challenges: str | None
    matches: list[BotSeat]
    next_matches: str | None


class BotYourTurn(TypedDict):
    """The data of a bot's `your-turn` event: the seat may act at `version`, as `legal_actions` says (what
    `GET .../legal-actions` answers there; absent only from events stored before servers sent it)."""

    match: str
    seat: int
    version: int
    deadline: str | None
    legal_actions: NotRequired[LegalActions]


class BotEvent(TypedDict):
    """One event of a bot's stream as the long-poll lists it; `event` says which shape `data` has."""

    id: int
    event: str
    data: Any


class BotEventList(TypedDict):
    """The long-poll answer of `GET /v1/bots/{id}/events`: the events after `after`, and the last one's id."""

    events: list[BotEvent]
    last_event_id: int


# --- matchmaking -----------------------------------------------------------------------------------------


class MatchmakingPool(TypedDict):
    """A matchmaking pool and how many tickets wait in it."""

    game: str
    players: int
    rated: bool
    waiting: int


class MatchmakingPools(TypedDict):
    """`GET /v1/matchmaking`: every pool."""

    items: list[MatchmakingPool]


class MatchmakingTicket(TypedDict):
    """A place in a matchmaking pool: `waiting`, then `matched` (with `match` and `seat`), `expired` or
    `cancelled` (`reason` says why when the server cancelled it: `bot-at-capacity`, `bot-deleted`)."""

    id: str
    status: str
    game: str
    players: int
    rated: bool
    bot: str | None
    name: str
    rating: float
    window: float
    created_at: str
    expires_at: str
    match: str | None
    seat: int | None
    reason: str | None
    token: NotRequired[str]
    seat_token: NotRequired[str | None]


# --- tournaments -----------------------------------------------------------------------------------------


class TournamentProgress(TypedDict):
    """How far a tournament is: matches done, total and running, the round and the rounds."""

    done: int
    total: int
    running: int
    round: int
    rounds: int


class TournamentChallenge(TypedDict):
    """A bot entrant's answer to the tournament's challenge."""

    bot: str
    status: str


class Standing(TypedDict):
    """One entrant's line of the standings (competitive games: wins, draws, losses, points, mean place;
    co-operative ones: successes and the success rate)."""

    rank: int
    entrant: int
    name: str
    played: int
    wins: NotRequired[int]
    draws: NotRequired[int]
    losses: NotRequired[int]
    points: NotRequired[float]
    mean_place: NotRequired[float | None]
    successes: NotRequired[int]
    success_rate: NotRequired[float | None]
    success_interval: NotRequired[list[float]]


class CrosstableCell(TypedDict):
    """The entrant against one other: matches met, and how they went."""

    entrant: int
    matches: int
    wins: NotRequired[int]
    draws: NotRequired[int]
    losses: NotRequired[int]
    successes: NotRequired[int]


class CrosstableRow(TypedDict):
    """The entrant against each entrant it met."""

    entrant: int
    name: str
    against: list[CrosstableCell]


class Rating(TypedDict):
    """An entrant's openskill rating: `mu`, `sigma`, the display `rating` and its interval."""

    entrant: int
    name: str
    mu: float
    sigma: float
    rating: float
    interval: list[float]


class TournamentMatch(TypedDict):
    """One planned match of a tournament and its outcome."""

    index: int
    round: int
    seats: list[int]
    byes: list[int]
    match: str | None
    status: str
    ranking: list[list[int]] | None
    team_success: bool | None


class TournamentSummary(TypedDict):
    """A tournament as `GET /v1/tournaments` lists it."""

    id: str
    url: str
    game: str
    players: int
    format: str
    cooperative: bool
    status: str
    progress: TournamentProgress
    created_at: str
    finished_at: str | None


class Tournament(TypedDict):
    """A tournament: progress, standings, crosstable and ratings (`owner_token` only in the creation's answer)."""

    id: str
    url: str
    game: str
    players: int
    format: str
    cooperative: bool
    status: str
    progress: TournamentProgress
    created_at: str
    finished_at: str | None
    options: dict[str, Any]
    rounds: int
    games_per_pairing: int
    turn_timer: TurnTimer | None
    parallel: int
    entrants: list[TournamentEntrant]
    seed_commitment: str
    seed: str | None
    owner_token: NotRequired[str]
    challenges: list[TournamentChallenge]
    challenge_expires_at: str | None
    abort_reason: str | None
    standings: list[Standing]
    crosstable: list[CrosstableRow]
    ratings: list[Rating] | None
    matches: list[TournamentMatch]
