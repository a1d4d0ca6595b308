"""What the matches endpoints do, between HTTP and the store."""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ai.levels import Level, level_named, levels_for
from api.bots import service as bots
from api.bots.record import BotRecord
from api.record import ABORTED, ACTIVE, FINISHED, WAITING, MatchRecord, SeatRecord, now_iso
from api.refusals import Conflict, Forbidden, IdempotencyKeyReused, InvalidRequest, NotFound, StaleVersion, Unauthorized
from api.store import CommitOutcome, Idempotent, MatchStore
from api.timers import deadlines_json, next_deadlines
from api.tokens import BotToken, Credential, SeatToken, matches_hash, new_token, token_hash
from engine import EngineError, Game, GameState, IllegalAction, TooManyActions, all_games, get_game

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
    game = get_game(record.game)
    assert game is not None, f"stored match of unregistered game {record.game}"
    return game.state_from_json(record.state)


# --- creating and joining --------------------------------------------------------------------
def create_match(
    store: MatchStore, request: dict[str, Any], tournament: str | None = None
) -> tuple[MatchRecord, GameState, list[SeatToken]]:
    """Start a match (one of `tournament`'s if given); every human seat gets a token, returned once."""
    game = game_or_400(request["game"])
    players = request["players"]
    seats, humans = seats_requested(game, players, request, bots.bot_seats_of(store, request["seats"] or []))
    open_seats = [seat.seat for seat in seats if not seat.filled and seat.seat not in humans]
    if request["seed"] is not None and open_seats and game.info.chance:
        # Whoever picks the seed can foresee every shuffle and roll; strangers who join must not face that.
        raise InvalidRequest(
            "a chosen seed lets its chooser foresee the game's chance: matches with open seats use a server seed",
            errors={"seed": ["not allowed with open seats in a game of chance"]},
        )
    seed = request["seed"] or secrets.token_hex(32)
    state = game.start(players, request["options"], seed)
    match_id = secrets.token_urlsafe(12)
    tokens = [new_token(match_id, seat) for seat in humans]
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
        status=WAITING if open_seats else ACTIVE,
        turn_seconds=request["turn_timer"]["seconds"] if request.get("turn_timer") else None,
        tournament=tournament,
    )
    record.deadlines = next_deadlines(None, record, state, None)
    store.create(record)
    return record, state, tokens


def seats_requested(
    game: Game, players: int, request: dict[str, Any], bot_seats: dict[int, BotRecord] | None = None
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
            ai_level_or_400(game.info.id, spec["level"], seat)
        if spec["type"] == "bot":
            bot = (bot_seats or {})[seat]
            seats.append(SeatRecord(seat, None, bot.name, None, bot.id))
            continue
        seats.append(SeatRecord(seat, None, spec["name"], spec["level"] if spec["type"] == "ai" else None))
        if spec["type"] == "human":
            humans.append(seat)
    return seats, humans


def join_match(store: MatchStore, match_id: str, seat: int | None, name: str | None) -> tuple[MatchRecord, SeatToken]:
    """Take an open seat (the one named, or the first); the match starts when the last is taken."""
    for _ in range(JOIN_ATTEMPTS):
        record = load_match(store, match_id)
        chosen = choose_open_seat(record, seat)
        token = new_token(record.id, chosen)
        seats = [replace(s) for s in record.seats]
        seats[chosen] = SeatRecord(chosen, token_hash(token), name)
        joined = replace(record, seats=seats, version=record.version + 1, updated_at=now_iso())
        joined.status = ACTIVE if not joined.open_seats() else WAITING
        if joined.turn_seconds is not None:
            joined.deadlines = next_deadlines(record, joined, engine_state(joined), None)
        outcome = store.commit(joined, record.version, previous_status=record.status)
        if outcome.kind == "ok":
            return joined, token
        if outcome.kind == "missing":
            raise NotFound(f"no match {match_id!r} (it may have expired)")
        # Another player joined meanwhile: read the match again and retry.
    raise Conflict("seat-taken", "other players kept joining at the same moment; try again")


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
        raise Conflict("match-not-started", f"the match waits for seats {record.open_seats()} to be taken")
    check_not_ended(record)
    if not seat_may_act(record, state, seat):
        raise Conflict("not-your-turn", f"seat {seat} has nothing to do now; waiting for {state.waiting_for()}")


def check_not_ended(record: MatchRecord) -> None:
    """A 409 when the match is over: `match-over` once finished, `match-aborted` once aborted."""
    if record.status == FINISHED:
        raise Conflict("match-over", "the match is over")
    if record.status == ABORTED:
        raise Conflict("match-aborted", f"the match was aborted: {record.abort_reason}")


def abort_match(store: MatchStore, match_id: str, reason: str, on_commit: OnCommit | None = None) -> MatchRecord:
    """End a match that is not over without a result (no winner, nothing rated); the aborted record.

    Compare-and-set like any change, so an action racing the abort lands either before it or not at all.
    """
    for _ in range(UNPINNED_ATTEMPTS):
        record = load_match(store, match_id)
        check_not_ended(record)
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


# --- reading ---------------------------------------------------------------------------------
def identity_json(record: MatchRecord) -> dict[str, Any]:
    """What every answer about one match starts with."""
    return {
        "id": record.id,
        "game": record.game,
        "players": record.players,
        "options": record.options,
        "version": record.version,
        "status": record.status,
    }


def created_json(record: MatchRecord, tokens: list[SeatToken]) -> dict[str, Any]:
    """The answer to creating a match: its identity, commitment, and the tokens, shown this once."""
    return {
        **identity_json(record),
        "seed_commitment": record.seed_commitment,
        "open_seats": record.open_seats(),
        "tokens": [{"seat": token.seat, "token": token.text} for token in tokens],
    }


def match_json(record: MatchRecord, state: GameState, viewer: int | None) -> dict[str, Any]:
    """The match as one viewer may see it."""
    result = state.result()
    return {
        **identity_json(record),
        "to_act": list(state.acting_seats()) if record.status == ACTIVE else [],
        "waiting_for": list(state.waiting_for()) if record.status == ACTIVE else [],
        "turn_timer": {"seconds": record.turn_seconds} if record.turn_seconds is not None else None,
        "deadlines": deadlines_json(record),
        "result": result.to_json() if result else None,
        "viewer": viewer,
        "view": state.view(viewer),
        "seats": [seat.public_json() for seat in record.seats],
        "seed_commitment": record.seed_commitment,
        "seed": record.seed if record.ended else None,
        "abort_reason": record.abort_reason,
        "tournament": record.tournament,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def summary_json(record: MatchRecord) -> dict[str, Any]:
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


def legal_actions_json(record: MatchRecord, state: GameState, seat: int) -> dict[str, Any]:
    """What the seat may do now, in the form the actions endpoint accepts."""
    acting = record.status == ACTIVE and seat in state.acting_seats()
    space = state.action_space(seat) if acting else {"kind": "enumerated", "actions": []}
    # Only this seat reads its answer, so `may_act` can say whether it has anything to do (a claim).
    may_act = acting and (space["kind"] != "enumerated" or bool(space["actions"]))
    return {"version": record.version, "seat": seat, "may_act": may_act, **space}


def seat_may_act(record: MatchRecord, state: GameState, seat: int) -> bool:
    """True when the match runs and the seat has at least one legal action now (a claim counts)."""
    if record.status != ACTIVE or seat not in state.acting_seats():
        return False
    try:
        return bool(state.legal_actions(seat))
    except TooManyActions:
        return True


def log_json(record: MatchRecord, entries: list[dict[str, Any]], viewer: int | None) -> dict[str, Any]:
    """The applied actions in order; hidden parts left out for the viewer until the match ends."""
    if not record.ended:
        state = engine_state(record)
        shown = state.redact_log([(e["seat"], e["action"]) for e in entries], viewer)
        entries = [{**entry, "action": action} for entry, action in zip(entries, shown, strict=True)]
    return {
        "id": record.id,
        "version": record.version,
        "status": record.status,
        "viewer": viewer,
        "seed_commitment": record.seed_commitment,
        "seed": record.seed if record.ended else None,
        "entries": entries,
    }


# --- acting ----------------------------------------------------------------------------------
def request_fingerprint(action: dict[str, Any], expected_version: int | None) -> str:
    """A hash of what was asked, to tell a true retry from a reused Idempotency-Key."""
    canonical = json.dumps({"action": action, "expected_version": expected_version}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def stored_answer(
    store: MatchStore, record: MatchRecord, seat: int, key: str, fingerprint: str
) -> dict[str, Any] | None:
    """The first answer to this Idempotency-Key, or None if it was never answered."""
    raw = store.stored_answer(record.id, seat, key)
    if raw is None:
        return None
    answer: dict[str, Any] = json.loads(raw)
    if answer["fingerprint"] != fingerprint:
        raise IdempotencyKeyReused("this Idempotency-Key was already used for a different request")
    return dict(answer["body"])


def apply_action(
    store: MatchStore,
    record: MatchRecord,
    seat: int,
    action: dict[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
    on_commit: OnCommit | None = None,
    timeout: bool = False,
) -> dict[str, Any]:
    """Check and apply one action with compare-and-set; the seat's view of the new version.

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
            return dict(json.loads(outcome.replayed)["body"])
        if outcome.kind == "missing":
            raise NotFound(f"no match {record.id!r} (it expired)")
        if expected_version is not None:
            raise StaleVersion(outcome.version or 0)
        record = load_match(store, record.id)
    raise StaleVersion(record.version)  # the match changed at every attempt


@dataclass(frozen=True)
class Attempt:
    """One compare-and-set attempt: its outcome, and the record, state and answer it tried to write."""

    outcome: CommitOutcome
    record: MatchRecord
    state: GameState
    body: dict[str, Any]


def commit_action(
    store: MatchStore,
    record: MatchRecord,
    seat: int,
    action: dict[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
    fingerprint: str,
    timeout: bool = False,
) -> Attempt:
    """One attempt: check the action on the record read, and write it if nobody wrote since."""
    if record.status == WAITING:
        raise Conflict("match-not-started", f"the match waits for seats {record.open_seats()} to be taken")
    check_not_ended(record)
    if expected_version is not None and expected_version != record.version:
        raise StaleVersion(record.version)
    state = engine_state(record)
    play_checked(state, seat, action)
    after = replace(record, version=record.version + 1, state=state.to_json(), updated_at=now_iso())
    after.status = FINISHED if state.is_over() else ACTIVE
    after.deadlines = next_deadlines(record, after, state, seat)
    body = match_json(after, state, seat)
    entry: dict[str, Any] = {"version": after.version, "seat": seat, "action": action, "at": after.updated_at}
    if timeout:
        entry["timeout"] = True
    answer = None
    if idempotency_key:
        answer = Idempotent(idempotency_key, json.dumps({"fingerprint": fingerprint, "body": body}))
    outcome = store.commit(after, record.version, entry, answer, seat, previous_status=record.status)
    return Attempt(outcome, after, state, body)


def play_checked(state: GameState, seat: int, action: dict[str, Any]) -> None:
    """The engine's checked path; an engine that chokes on a malformed action still answers 422."""
    try:
        state.play(seat, action)
    except EngineError:
        raise
    except (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError) as error:
        log.warning("engine %s raised %r on action %r", state.game_id, error, action)
        raise IllegalAction(f"the action is malformed for this game: {error!r}") from error
