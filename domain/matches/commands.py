"""What the matches endpoints do, between HTTP and the store."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from enum import StrEnum
from typing import Any, TypedDict

from ai.levels import Level, level_named, levels_for
from domain.bots import capacity
from domain.bots import registration as bots
from domain.matches import pace
from domain.turn_timers import deadlines_json, iso, next_deadlines, parse_iso
from engine import Game, GameState, IllegalAction, Result, all_games, get_game, has_action
from engine.errors import ActionRejected
from engine.protocol import Action, View
from model.bot import BotRecord
from model.match import (
    ABORTED,
    ACTIVE,
    FINISHED,
    WAITING,
    AiPaceJson,
    LogEntry,
    MatchRecord,
    MatchRequest,
    ResultJson,
    SeatJson,
    SeatRecord,
    TurnTimerRequest,
    now_iso,
    result_json,
)
from model.refusals import (
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    InvalidRequest,
    NotFound,
    RateLimited,
    Refusal,
    RulesChanged,
    StaleVersion,
    Unauthorized,
)
from model.settings import CHALLENGE_SECONDS
from model.tokens import (
    BotToken,
    Credential,
    OwnerToken,
    SeatToken,
    bot_matches_hash,
    matches_hash,
    new_owner_token,
    new_token,
    owner_matches_hash,
    owner_token_hash,
    rematch_token,
    token_hash,
)
from store.matches import CommitOutcome, Idempotent, MatchStore, PendingCommit

log = logging.getLogger(__name__)
UNPINNED_ATTEMPTS = 20  # compare-and-set attempts for an action sent without expected_version
JOIN_ATTEMPTS = 20  # each failed attempt means another seat was taken, so few are ever needed
OnCommit = Callable[[MatchRecord, GameState], None]
"""Called after each change is stored, with the new record and state: `Services.after_change`."""


def game_or_400(game_id: str) -> Game:
    """The registered game, or a 400 naming the games there are."""
    game = get_game(game_id)
    if game is None:
        known = ", ".join(g.info.id for g in all_games())
        raise InvalidRequest(f"unknown game {game_id!r}; games: {known}", errors={"game": [f"one of: {known}"]})
    return game


def load_match(store: MatchStore, match_id: str) -> MatchRecord:
    """The stored match, or a 404."""
    record = store.load(match_id) if len(match_id) <= 64 else None
    if record is None:
        raise NotFound(f"no match {match_id!r} (it may have expired)")
    return record


def engine_state(record: MatchRecord) -> GameState:
    """The engine state of a stored match."""
    return game_of(record).state_from_json(record.state)


def game_of(record: MatchRecord) -> Game:
    """The game a stored match plays; RulesChanged if it was stored under earlier rules (`store.stored_record`)."""
    game = get_game(record.game)
    assert game is not None, f"stored match of unregistered game {record.game}"
    if record.rules_version != game.info.rules_version:
        raise RulesChanged(
            f"this match was stored under version {record.rules_version} of {game.info.name}'s rules and this server"
            f" plays version {game.info.rules_version}: it can no longer be shown or played (its log stays readable)"
        )
    return game


# --- creating and joining --------------------------------------------------------------------
@dataclass(frozen=True)
class CreatedMatch:
    """A match just stored: its record and state, and the tokens shown this once (seats', owner's)."""

    record: MatchRecord
    state: GameState
    tokens: list[SeatToken]
    owner: OwnerToken


def create_match(
    store: MatchStore, request: MatchRequest, challenge_seconds: int = int(CHALLENGE_SECONDS.default)
) -> CreatedMatch:
    """Start a match a client asked for: every human seat gets a token, and the creator an owner token.

    The checked path: a chosen seed is refused unless every seat is the creator's or an AI's. A bot
    seat is a challenge: the bot sits down once it accepts (at once when its policy accepts
    challenges); until every bot has and every open seat is taken the match waits,
    `challenge_seconds` at most.
    """
    game = game_or_400(request["game"])
    bot_seats = bots.bot_seats_of(store, request["seats"] or [])
    seats, humans = seats_requested(game, request["players"], request, bot_seats)
    for seat, spec in enumerate(request["seats"] or []):
        if spec["type"] in ("human", "open"):  # an AI seat shows its level, a bot seat its bot's name
            bots.refuse_bot_name(store, spec["name"], f"seat {seat}")
    if request["seed"] is not None:
        check_seed_may_be_chosen(seats, humans)
    match_id = new_match_id()
    owner = new_owner_token(match_id)
    seed = request["seed"] or secrets.token_hex(32)
    owner_hash = owner_token_hash(owner)
    new = NewMatch(game, request, seats, humans, list(bot_seats.values()), challenge_seconds)
    pace.watched_by_its_creator(store.watchers, match_id, request.get("ai_pace"))
    record, state, tokens = store_new_match(store, match_id, new, seed, owner_hash, bots_accepted=False)
    return CreatedMatch(record, state, tokens, owner)


def create_server_match(
    store: MatchStore,
    request: MatchRequest,
    seed: str,
    tournament: str,
    challenge_seconds: int = int(CHALLENGE_SECONDS.default),
) -> tuple[MatchRecord, GameState]:
    """Start a match the server itself runs (a tournament's), with the seed its caller derived; no owner.

    The trusted path: the seed comes from the server (a tournament's plan), never from a client, and
    its bots accepted the tournament's one challenge already.
    """
    game = game_or_400(request["game"])
    bot_seats = bots.bot_seats_of(store, request["seats"] or [])
    seats, humans = seats_requested(game, request["players"], request, bot_seats)
    new = NewMatch(game, request, seats, humans, list(bot_seats.values()), challenge_seconds, tournament)
    record, state, _ = store_new_match(store, new_match_id(), new, seed, None, bots_accepted=True)
    return record, state


def new_match_id() -> str:
    """A fresh match id: 16 URL-safe characters, so never `bot` or `owner` (see model/tokens.py)."""
    return secrets.token_urlsafe(12)


def check_seed_may_be_chosen(seats: list[SeatRecord], humans: list[int]) -> None:
    """A 400 unless every seat is one the creator holds (a human seat, its token in the answer) or an AI's.

    Whoever picks the seed can foresee every shuffle and roll (and the AI's choices): nobody else may sit
    down to such a match, neither a stranger who joins an open seat nor a bot seated by someone else.
    """
    others = [seat.seat for seat in seats if seat.seat not in humans and seat.ai_level is None]
    if others:
        kinds = sorted({"bot" if seats[seat].bot is not None else "open" for seat in others})
        raise InvalidRequest(
            f"a chosen seed lets its chooser foresee the match, so it is only for matches whose every seat is "
            f"the creator's or an AI's; seats {others} are {' or '.join(kinds)}: leave seed out for a server seed",
            errors={"seed": [f"not allowed with {' or '.join(kinds)} seats"]},
        )


@dataclass(frozen=True)
class NewMatch:
    """What a match about to be stored is made of: its game, the request, the seats and the bots asked."""

    game: Game
    request: MatchRequest
    seats: list[SeatRecord]
    humans: list[int]
    bots_asked: list[BotRecord]
    challenge_seconds: int
    tournament: str | None = None  # the tournament whose match it is (its AI seats queue apart)


def store_new_match(
    store: MatchStore,
    match_id: str,
    new: NewMatch,
    seed: str,
    owner_hash: str | None,
    bots_accepted: bool,
    tokens: list[SeatToken] | None = None,
) -> tuple[MatchRecord, GameState, list[SeatToken]]:
    """Store a new match at version 0 with a token per human seat; it waits while a seat is open or challenged.

    `tokens`: the human seats' tokens when chosen ahead (then the match is stored only if its id is still free,
    else `AlreadyStored`); new ones otherwise.
    """
    game, request, seats, humans, bots_asked = new.game, new.request, new.seats, new.humans, new.bots_asked
    players = request["players"]
    state = game.start(players, request["options"], seed)
    counted = seat_bots(store, match_id, seats, bots_asked, bots_accepted)
    chosen_ahead = tokens is not None
    tokens = tokens if tokens is not None else [new_token(match_id, seat) for seat in humans]
    for token in tokens:
        seats[token.seat].token_hash = token_hash(token)
    record = MatchRecord(
        id=match_id,
        game=game.info.id,
        players=players,
        options=state.options,
        seed=seed,
        state=state.to_json(),
        seats=seats,
        turn_seconds=request["turn_timer"]["seconds"] if request["turn_timer"] else None,
        owner_hash=owner_hash,
        tournament=new.tournament,
        rules_version=game.info.rules_version,
        unlisted=request["unlisted"],
        assistance=request.get("assistance") or "",  # "": the fair-play rule's default for these seats
        ai_pace=request.get("ai_pace"),
    )
    record.start_if_ready()
    if record.status == WAITING and bots_asked:
        record.start_by = iso(parse_iso(record.created_at) + timedelta(seconds=new.challenge_seconds))
    record.deadlines = next_deadlines(None, record, state, None)
    try:
        store.create(record, once=chosen_ahead)
    except BaseException:
        capacity.release(store, counted, match_id)
        raise
    return record, state, tokens


def seat_bots(
    store: MatchStore, match_id: str, seats: list[SeatRecord], bots_asked: list[BotRecord], accepted: bool
) -> list[str]:
    """Seat the bots whose consent is given (counted against their caps), challenge the others; the bots counted.

    A 409 `bot-at-capacity` (nothing counted) when a bot plays its maximum of matches at once already:
    its challenge is declined at once.
    """
    counted: list[str] = []
    try:
        for bot in {bot.id: bot for bot in bots_asked}.values():
            if accepted or bot.accepts(tournament=False):
                if capacity.reserve(store, bot, match_id):
                    counted.append(bot.id)
                continue
            capacity.check_room(store, bot)
            for seat in seats:
                seat.pending = seat.pending or seat.bot == bot.id
    except Conflict:
        capacity.release(store, counted, match_id)
        raise
    return counted


def seats_requested(
    game: Game, players: int, request: MatchRequest, bot_seats: dict[int, BotRecord] | None = None
) -> tuple[list[SeatRecord], list[int]]:
    """The seats as asked (`seats`: human, open, AI at a level or a bot; else `open_seats`) and the human ones."""
    if request["seats"] is None:
        open_seats = set(request["open_seats"])
        if any(seat >= players for seat in open_seats):
            raise InvalidRequest(
                "open_seats names a seat the match does not have", errors={"open_seats": ["out of range"]}
            )
        return [SeatRecord(seat) for seat in range(players)], [s for s in range(players) if s not in open_seats]
    seats, humans = [], []
    for seat, spec in enumerate(request["seats"]):
        if spec["type"] == "ai":
            ai_level_or_400(game.info.id, spec["level"] or "", seat)  # an AI seat always has one (schema)
        if spec["type"] == "bot":
            bot = (bot_seats or {})[seat]
            seats.append(SeatRecord(seat, None, bot.name, None, bot.id))
            continue
        seats.append(SeatRecord(seat, None, spec["name"], spec["level"] if spec["type"] == "ai" else None))
        if spec["type"] == "human":
            humans.append(seat)
    return seats, humans


def join_match(
    store: MatchStore, match_id: str, seat: int | None, name: str | None, bot: BotRecord | None = None
) -> tuple[MatchRecord, int, SeatToken | None]:
    """Take an open seat (the one named, or the first); the match starts when the last is taken.

    Answers the match, the seat and its token: a human gets one; a `bot` (joining with its bot token)
    sits down as itself under its registered name, counted against its cap, and acts with its bot token.
    """
    if bot is None:
        bots.refuse_bot_name(store, name, "name")
    counted = bot is not None and capacity.reserve(store, bot, match_id)
    try:
        for _ in range(JOIN_ATTEMPTS):
            record = load_match(store, match_id)
            check_not_ended(record)  # an aborted match keeps its open seats, but nobody sits down any more
            chosen = choose_open_seat(record, seat)
            token = new_token(record.id, chosen) if bot is None else None
            seats = [replace(s) for s in record.seats]
            if bot is None:
                seats[chosen] = SeatRecord(chosen, token_hash(token) if token else None, name)
            else:
                seats[chosen] = SeatRecord(chosen, None, bot.name, None, bot.id)
            joined = replace(record, seats=seats, version=record.version + 1, updated_at=now_iso())
            joined.start_if_ready()
            if joined.turn_seconds is not None:
                joined.deadlines = next_deadlines(record, joined, engine_state(joined), None)
            outcome = store.commit(joined, record.version, previous_status=record.status)
            if outcome.kind == "ok":
                counted = False  # the seat is the bot's now: it counts until the match is over
                return joined, chosen, token
            if outcome.kind == "missing":
                raise NotFound(f"no match {match_id!r} (it may have expired)")
            # Another player joined meanwhile: read the match again and retry.
        raise Conflict("seat-taken", "other players kept joining at the same moment; try again")
    finally:
        if counted and bot is not None:
            capacity.release(store, [bot.id], match_id)


def choose_open_seat(record: MatchRecord, seat: int | None) -> int:
    """The seat asked for if it is open, or the first open seat; a 4xx saying why otherwise."""
    open_seats = record.open_seats()
    if seat is not None and seat >= record.players:
        raise InvalidRequest(f"the match has seats 0 to {record.players - 1}", errors={"seat": ["out of range"]})
    if not open_seats:
        raise Conflict("no-open-seat", "every seat of this match is taken")
    if seat is None:
        return open_seats[0]
    if seat not in open_seats:
        raise Conflict("seat-taken", f"seat {seat} is taken; open seats: {open_seats}")
    return seat


def ai_level_or_400(game_id: str, name: str, seat: int | None = None) -> Level:
    """The AI level if the game offers it, or a 400 naming the levels it offers (and the seat asked for)."""
    offered = levels_for(game_id)
    if name not in offered:
        message = [f"one of: {', '.join(offered)}"]
        where = "" if seat is None else f"seat {seat}: "
        raise InvalidRequest(
            f"{where}{game_id} has no AI level {name!r}; levels: {', '.join(offered)}",
            errors={"level": message} if seat is None else {"seats": {str(seat): {"level": message}}},
        )
    return level_named(name)


def check_may_act(record: MatchRecord, state: GameState, seat: int) -> None:
    """A 409 saying why the seat has no move to ask the AI for, if it has none."""
    if record.status == WAITING:
        raise Conflict("match-not-started", waiting_detail(record))
    check_not_ended(record)
    if not seat_may_act(record, state, seat):
        raise Conflict("not-your-turn", f"seat {seat} has nothing to do now; waiting for {state.waiting_for()}")


def waiting_detail(record: MatchRecord) -> str:
    """What a waiting match waits for: seats to be taken, challenged bots to accept."""
    waits = []
    if record.open_seats():
        waits.append(f"seats {record.open_seats()} to be taken")
    if record.pending_bots():
        waits.append(f"bots {sorted(record.pending_bots())} to accept their challenges")
    return f"the match waits for {' and '.join(waits) or 'its start'}"


def check_not_ended(record: MatchRecord) -> None:
    """A 409 when the match is over: `match-over` once finished, `match-aborted` once aborted."""
    if record.status == FINISHED:
        raise Conflict("match-over", "the match is over")
    if record.status == ABORTED:
        raise Conflict("match-aborted", f"the match was aborted: {record.abort_reason}")


def abort_match(
    store: MatchStore, match_id: str, reason: str, on_commit: OnCommit | None = None, waiting_only: bool = False
) -> MatchRecord:
    """End a match that is not over without a result (no winner, nothing rated); the aborted record.

    Compare-and-set like any change, so an action racing the abort lands either before it or not at all.
    `waiting_only`: refuse (409 `match-started`) once the match has started, as its owner's abort does;
    a join that starts the match meanwhile wins the race.
    """
    for _ in range(UNPINNED_ATTEMPTS):
        record = load_match(store, match_id)
        check_not_ended(record)
        if waiting_only and record.status != WAITING:
            raise Conflict("match-started", "the match has started: only a match still waiting for players is aborted")
        after = replace(record, version=record.version + 1, status=ABORTED, deadlines={}, updated_at=now_iso())
        after.abort_reason = reason
        outcome = store.commit(after, record.version, previous_status=record.status)
        if outcome.kind == "ok":
            if on_commit is not None:
                on_commit(after, engine_state(after))
            return after
        if outcome.kind == "missing":
            raise NotFound(f"no match {match_id!r} (it expired)")
    raise Conflict("stale-version", "the match kept changing while it was being aborted; try again")


# --- who is asking ---------------------------------------------------------------------------
def authenticate(store: MatchStore, record: MatchRecord, token: Credential | None, seat: int | None) -> int | None:
    """The seat the token acts for in this match; 401 for a bad token, 403 for another match or seat.

    A seat token acts for its one seat; a bot token for the seat named (or the only one) its bot holds.
    """
    if token is None:
        if seat is not None:
            raise Unauthorized(f"seat {seat}'s view needs that seat's token")
        return None
    if isinstance(token, BotToken):
        return bots.bot_seat(store, record, token, seat)
    if isinstance(token, OwnerToken):
        if token.owned_id == record.id and owner_matches_hash(token, record.owner_hash):
            raise Forbidden("the owner token acts for no seat (it aborts the match); read the public view without it")
        raise Unauthorized("the owner token is not valid for this match")
    if token.match_id != record.id:
        other = store.load(token.match_id) if len(token.match_id) <= 64 else None
        if other and token.seat < len(other.seats) and matches_hash(token, other.seats[token.seat].token_hash):
            raise Forbidden("this token belongs to another match")
        raise Unauthorized("the seat token is not valid")
    if token.seat >= len(record.seats) or not matches_hash(token, record.seats[token.seat].token_hash):
        raise Unauthorized("the seat token is not valid")
    if seat is not None and seat != token.seat:
        raise Forbidden(f"this token is for seat {token.seat}, not seat {seat}")
    return token.seat


class SeatLost(StrEnum):
    """Why a token checked for a seat no longer acts for it (the reason a private stream ends with)."""

    LEFT = "seat-left"  # the seat was left before the start (and may be someone else's now)
    GIVEN_UP = "seat-given-up"  # its player resigned and the AI holds it
    TOKEN_ROTATED = "token-rotated"  # the bot's token was replaced by a new one
    BOT_DELETED = "bot-deleted"


def seat_lost(store: MatchStore, held: SeatRecord, token: Credential) -> SeatLost | None:
    """Why `token` no longer acts for the seat as it is held now (`held`), or None while it does.

    A seat token acts while the seat keeps its hash; a bot token while the bot still holds the seat and
    the token is still the bot's (one read of the bot).
    """
    if isinstance(token, OwnerToken):  # an owner token never acts for a seat
        return SeatLost.LEFT
    if isinstance(token, BotToken):
        bot = store.bots.load(token.bot_id) if len(token.bot_id) <= bots.MAX_BOT_ID else None
        if bot is None:
            return SeatLost.BOT_DELETED
        if not bot_matches_hash(token, bot.token_hash):
            return SeatLost.TOKEN_ROTATED
        if held.bot == bot.id:
            return None
    elif matches_hash(token, held.token_hash):
        return None
    return SeatLost.GIVEN_UP if held.ai_level is not None else SeatLost.LEFT


# --- reading ---------------------------------------------------------------------------------
class IdentityJson(TypedDict):
    """What every answer about one match starts with."""

    id: str
    game: str
    players: int
    options: dict[str, Any]  # the game's options, resolved
    version: int
    status: str


class SeatTokenJson(TypedDict):
    """A seat's token, shown once."""

    seat: int
    token: str


class CreatedJson(IdentityJson):
    """The answer to creating a match (`created_json`)."""

    seed_commitment: str
    open_seats: list[int]
    unlisted: bool
    tokens: list[SeatTokenJson]
    owner_token: str


class RematchJson(TypedDict):
    """The rematch offer as one viewer sees it (`rematch_json`)."""

    offered_by: list[int]
    waiting_for: list[int]
    match: str | None
    seat: int | None
    token: str | None


class MatchJson(IdentityJson):
    """The match as one viewer may see it (`match_json`)."""

    to_act: list[int]
    waiting_for: list[int]
    turn_timer: TurnTimerRequest | None
    deadlines: list[dict[str, object]]  # domain.turn_timers.deadlines_json: {"seat", "at"} per waited-for seat
    result: ResultJson | None
    viewer: int | None
    view: View
    seats: list[SeatJson]
    seed_commitment: str
    seed: str | None
    abort_reason: str | None
    start_by: str | None
    tournament: str | None
    unlisted: bool
    rematch: RematchJson | None
    assistance: str
    ai_pace: AiPaceJson | None
    created_at: str
    updated_at: str


class SummaryJson(TypedDict):
    """A match as the lobby lists it (`summary_json`)."""

    id: str
    game: str
    players: int
    status: str
    version: int
    open_seats: list[int]
    tournament: str | None
    created_at: str
    updated_at: str


def identity_json(record: MatchRecord) -> IdentityJson:
    """What every answer about one match starts with."""
    return {
        "id": record.id,
        "game": record.game,
        "players": record.players,
        "options": record.options,
        "version": record.version,
        "status": record.status,
    }


def created_json(created: CreatedMatch) -> CreatedJson:
    """The answer to creating a match: its identity, commitment, and the tokens, shown this once."""
    record = created.record
    return {
        **identity_json(record),
        "seed_commitment": record.seed_commitment,
        "open_seats": record.open_seats(),
        "unlisted": record.unlisted,
        "tokens": [{"seat": token.seat, "token": token.text} for token in created.tokens],
        "owner_token": created.owner.text,
    }


def result_of(record: MatchRecord, state: GameState) -> Result | None:
    """The match's result: a resignation's or a give-up's if it ended so, else the engine's (None while it runs)."""
    if record.result is not None:
        return Result.from_json(record.result)
    return state.result()


PLAYING_KINDS = ("human", "bot")
"""The kinds of seat that resign, leave and answer a rematch offer (an AI seat never does)."""


def players_of(record: MatchRecord) -> list[int]:
    """The seats held by a human or a bot: those that must answer a rematch offer."""
    return [seat.seat for seat in record.seats if seat.kind in PLAYING_KINDS]


def rematch_json(record: MatchRecord, viewer: int | None, token: Credential | None = None) -> RematchJson | None:
    """The rematch offer as the viewer may see it: who offered, who must still answer, the new match once
    started, and the viewer's own seat in it, with its token derived from the viewer's `token` (a human seat's)."""
    offer = record.rematch
    if offer is None:
        return None
    started = offer.get("match")
    new_seat = rematch_seat(record, viewer) if viewer is not None and started is not None else None
    new_token_text = None
    if new_seat is not None and isinstance(token, SeatToken) and token.seat == viewer:
        new_token_text = rematch_token(token, str(started), new_seat).text
    return {
        "offered_by": offer["offered_by"],
        "waiting_for": [seat for seat in players_of(record) if seat not in offer["offered_by"]],
        "match": started,
        "seat": new_seat,
        "token": new_token_text,
    }


def rematch_seat(record: MatchRecord, seat: int) -> int:
    """The seat of the rematch where the holder of `seat` sits: the seats rotate, so a different seat starts."""
    return (seat - 1) % record.players


def private_viewer(record: MatchRecord, viewer: int | None) -> int | None:
    """Whose private view a viewer may see: its own once the match has started, nobody's before.

    The deal is made when the match is created (its seed is committed then), so a seat taken and left
    before the start must take no knowledge of the cards the next holder of that seat will get.
    """
    return None if record.status == WAITING else viewer


def match_json(record: MatchRecord, state: GameState, viewer: int | None, token: Credential | None = None) -> MatchJson:
    """The match as one viewer may see it (`token`: what its seat was checked with, for its rematch token)."""
    result = result_of(record, state)
    return {
        **identity_json(record),
        "to_act": list(state.acting_seats()) if record.status == ACTIVE else [],
        "waiting_for": list(state.waiting_for()) if record.status == ACTIVE else [],
        "turn_timer": {"seconds": record.turn_seconds} if record.turn_seconds is not None else None,
        "deadlines": deadlines_json(record),
        "result": result_json(result) if result else None,
        "viewer": viewer,
        "view": state.view(private_viewer(record, viewer)),
        "seats": [seat.public_json() for seat in record.seats],
        "seed_commitment": record.seed_commitment,
        "seed": record.seed if record.ended else None,
        "abort_reason": record.abort_reason,
        "start_by": record.start_by if record.status == WAITING else None,
        "tournament": record.tournament,
        "unlisted": record.unlisted,
        "rematch": rematch_json(record, viewer, token),
        "assistance": record.assistance,
        "ai_pace": record.ai_pace,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def summary_json(record: MatchRecord) -> SummaryJson:
    """A match as the lobby lists it."""
    return {
        "id": record.id,
        "game": record.game,
        "players": record.players,
        "status": record.status,
        "version": record.version,
        "open_seats": record.open_seats(),
        "tournament": record.tournament,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


LegalActionsJson = dict[str, Any]
"""What one seat may do at one version (`legal_actions_json`): `version`, `seat`, `may_act` and the action space."""


def legal_actions_json(record: MatchRecord, state: GameState, seat: int) -> LegalActionsJson:
    """What the seat may do now, in the form the actions endpoint accepts."""
    acting = record.status == ACTIVE and seat in state.acting_seats()
    space = state.action_space(seat) if acting else {"kind": "enumerated", "actions": []}
    # Only this seat reads its answer, so `may_act` can say whether it has anything to do (a claim).
    may_act = acting and (space["kind"] != "enumerated" or bool(space["actions"]))
    return {"version": record.version, "seat": seat, "may_act": may_act, **space}


class SeatMatchJson(MatchJson):
    """A seat's view of the match with what that seat may do at its version: the answer to the seat's action
    and to its read of the match, so a player needs one request per move (no `GET .../legal-actions`)."""

    legal_actions: LegalActionsJson


def seat_match_json(record: MatchRecord, state: GameState, seat: int, token: Credential | None = None) -> SeatMatchJson:
    """The match as the seat sees it, with the seat's legal actions at this version (`legal_actions_json`)."""
    return {**match_json(record, state, seat, token), "legal_actions": legal_actions_json(record, state, seat)}


def seat_may_act(record: MatchRecord, state: GameState, seat: int) -> bool:
    """True when the match runs and the seat has at least one legal action now (a claim counts)."""
    return record.status == ACTIVE and seat in state.acting_seats() and has_action(state, seat)


class LogPageJson(TypedDict):
    """A page of a match's log as one viewer may see it (`log_json`)."""

    id: str
    version: int
    status: str
    viewer: int | None
    seed_commitment: str
    seed: str | None
    after: int
    entries: list[LogEntry]
    next_after: int | None  # the `after` of the next page; None at the end


def log_json(store: MatchStore, record: MatchRecord, viewer: int | None, after: int, limit: int) -> LogPageJson:
    """Up to `limit` applied actions after version `after`, oldest first, hidden parts left out for the viewer
    until the match ends, each exactly as in the whole log; `next_after` is the `after` of the next page."""
    state = None if record.ended else engine_state(record)
    page = store.log_page(record.id, after, limit, record.version, tail=state.log_tail if state else 0)
    entries = page.entries if state is None else redacted(state, page.entries, page.later, viewer)
    return {
        "id": record.id,
        "version": record.version,
        "status": record.status,
        "viewer": viewer,
        "seed_commitment": record.seed_commitment,
        "seed": record.seed if record.ended else None,
        "after": after,
        "entries": entries,
        "next_after": entries[-1]["version"] if page.more and entries else None,
    }


def redacted(state: GameState, entries: list[LogEntry], later: list[LogEntry], viewer: int | None) -> list[LogEntry]:
    """Log entries as the viewer sees them in the whole log while the match runs (`later`: the log's newest
    `log_tail` entries after them, which the game may need to tell what to hide)."""
    shown = iter(state.redact_log_page(moves_of(entries), moves_of(later), viewer))
    # A resignation has no action: it hides nothing and is shown as it is.
    return [{**entry, "action": next(shown)} if is_move(entry) else entry for entry in entries]


def is_move(entry: LogEntry) -> bool:
    """True for a log entry that plays an action; False for a resignation (the engine never sees it)."""
    return "action" in entry


def moves_of(entries: list[LogEntry]) -> list[tuple[int, Action]]:
    """The (seat, action) of each log entry that plays one, in order (resignations left out)."""
    return [(entry["seat"], entry["action"]) for entry in entries if is_move(entry)]


# --- acting ----------------------------------------------------------------------------------
def request_fingerprint(action: Action, expected_version: int | None) -> str:
    """A hash of what was asked, to tell a true retry from a reused Idempotency-Key."""
    canonical = json.dumps({"action": action, "expected_version": expected_version}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


class StoredAnswer(TypedDict):
    """The first answer to an Idempotency-Key as stored: what was asked (its fingerprint) and the answer."""

    fingerprint: str
    body: SeatMatchJson


def stored_answer(
    store: MatchStore, record: MatchRecord, seat: int, key: str, fingerprint: str
) -> SeatMatchJson | None:
    """The first answer to this Idempotency-Key, or None if it was never answered."""
    raw = store.stored_answer(record.id, seat, key)
    if raw is None:
        return None
    answer: StoredAnswer = json.loads(raw)
    if answer["fingerprint"] != fingerprint:
        raise IdempotencyKeyReused("this Idempotency-Key was already used for a different request")
    return answer["body"]


def apply_action(
    store: MatchStore,
    record: MatchRecord,
    seat: int,
    action: Action,
    expected_version: int | None,
    idempotency_key: str | None,
    on_commit: OnCommit | None = None,
    timeout: bool = False,
) -> SeatMatchJson:
    """Check and apply one action with compare-and-set; the seat's view of the new version, with its legal
    actions there (so the seat needs no other request before its next action).

    Without `expected_version` the action applies to whatever version is current: on a lost
    compare-and-set the server reads the match again and re-checks the action, a few times.
    `timeout` marks the server's default action for a seat whose turn timer ran out (in the log).
    """
    fingerprint = request_fingerprint(action, expected_version)
    if idempotency_key:
        prior = stored_answer(store, record, seat, idempotency_key, fingerprint)
        if prior is not None:
            return prior
    for _ in range(UNPINNED_ATTEMPTS):
        attempt = commit_action(store, record, seat, action, expected_version, idempotency_key, fingerprint, timeout)
        outcome = attempt.outcome
        if outcome.kind == "ok":
            if on_commit is not None:
                on_commit(attempt.record, attempt.state)
            return attempt.body
        if outcome.kind == "replay" and outcome.replayed is not None:
            replayed: StoredAnswer = json.loads(outcome.replayed)
            return replayed["body"]
        if outcome.kind == "missing":
            raise NotFound(f"no match {record.id!r} (it expired)")
        if expected_version is not None:
            raise StaleVersion(outcome.version or 0)
        record = load_match(store, record.id)
    raise StaleVersion(record.version)  # the match changed at every attempt


def act_on_version(
    held: MatchRecord | None,
    load: Callable[[], MatchRecord],
    act: Callable[[MatchRecord, OnCommit], SeatMatchJson],
    on_commit: OnCommit,
) -> SeatMatchJson:
    """`act` (the route's checks, then `apply_action`) on the version the action was chosen at when the caller
    holds it (`held`: no read), else on the match as stored (`load`).

    The compare-and-set proves a held version still the newest. An action refused on it is checked again on the
    match as stored, so the answer is the one a read would give; `act` must then count the request only once. A
    spent limit (429) is answered at once, whatever the version, and so is a refusal from what the stored change
    set off (`on_commit`).
    """
    committed = False

    def stored(record: MatchRecord, state: GameState) -> None:
        nonlocal committed
        committed = True
        on_commit(record, state)

    if held is not None:
        try:
            return act(held, stored)
        except (Refusal, ActionRejected) as refusal:
            if committed or isinstance(refusal, RateLimited):
                raise
    return act(load(), stored)


@dataclass(frozen=True)
class Attempt:
    """One compare-and-set attempt: its outcome, and the record, state and answer it tried to write."""

    outcome: CommitOutcome
    record: MatchRecord
    state: GameState
    body: SeatMatchJson


def commit_action(
    store: MatchStore,
    record: MatchRecord,
    seat: int,
    action: Action,
    expected_version: int | None,
    idempotency_key: str | None,
    fingerprint: str,
    timeout: bool = False,
) -> Attempt:
    """One attempt: check the action on the record read, and write it if nobody wrote since."""
    move = checked_move(record, seat, action, expected_version, timeout)
    body = seat_match_json(move.after, move.state, seat)
    answer = None
    if idempotency_key:
        stored: StoredAnswer = {"fingerprint": fingerprint, "body": body}
        answer = Idempotent(idempotency_key, json.dumps(stored))
    return Attempt(commit_move(store, move, answer), move.after, move.state, body)


@dataclass(frozen=True)
class Move:
    """An action checked and played on the record read: the record, state and log entry a compare-and-set writes."""

    before: MatchRecord
    after: MatchRecord
    state: GameState
    seat: int
    entry: LogEntry


def checked_move(
    record: MatchRecord,
    seat: int,
    action: Action,
    expected_version: int | None,
    timeout: bool = False,
    state: GameState | None = None,
) -> Move:
    """Check the action on the record read and play it (no I/O): what the next version would be.

    `state`: the record's state when the caller has it already (it is played on); else it is read from the record.
    """
    if record.status == WAITING:
        raise Conflict("match-not-started", waiting_detail(record))
    check_not_ended(record)
    if expected_version is not None and expected_version != record.version:
        raise StaleVersion(record.version)
    state = engine_state(record) if state is None else state
    play_checked(state, seat, action)
    after = replace(record, version=record.version + 1, state=state.to_json(), updated_at=now_iso())
    after.status = FINISHED if state.is_over() else ACTIVE
    after.deadlines = next_deadlines(record, after, state, seat)
    entry: LogEntry = {"version": after.version, "seat": seat, "action": action, "at": after.updated_at}
    if timeout:
        entry["timeout"] = True
    return Move(record, after, state, seat, entry)


def commit_move(store: MatchStore, move: Move, answer: Idempotent | None = None) -> CommitOutcome:
    """Write a checked move if the stored version is still the one it was played on (compare-and-set)."""
    before = move.before
    return store.commit(move.after, before.version, move.entry, answer, move.seat, previous_status=before.status)


def send_moves(store: MatchStore, run: Sequence[Move]) -> PendingCommit:
    """`commit_move` of a run of moves, each played on the one before, sent now and its outcome read later
    (`PendingCommit.outcome`): one compare-and-set on the first one's version stores all or none, each its version."""
    first, last = run[0], run[-1]
    return store.send_commit(last.after, first.before.version, [move.entry for move in run], first.before.status)


def play_checked(state: GameState, seat: int, action: Action) -> None:
    """The engine's checked path; an action the engine choked on (refused all the same) is logged."""
    try:
        state.play(seat, action)
    except IllegalAction as error:
        if error.__cause__ is not None:
            log.warning("engine %s raised %r on action %r", state.game_id, error.__cause__, action)
        raise
