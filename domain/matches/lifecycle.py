"""What happens around play: resigning, leaving a match not started, and the rematch once it is over.

Each is a compare-and-set on the match like an action, so it lands before or after any other change,
never both. A resignation is logged (`{"version", "seat", "at", "resign": true}`, with `"handed_to"`
when the seat goes to the AI); leaving and the rematch offer change the version without a log entry,
as a join does.

The rematch offer lives on the finished match (`MatchRecord.rematch`):

    {"offered_by": [seats], "match": id once started, "starting": id chosen at the first post,
     "token_hashes": {old seat: hash of its rematch token}, "seed": chosen once complete}

The store never holds a rematch token: each human seat's is derived from its token of the finished
match (`tokens.rematch_token`), so only that seat's holder can work it out. Each human's post stores
the hash of its new token, and each read by that seat (its own token in hand) shows it its new token.
An offer never expires on its own: it stays until every human and bot seat has posted, or the match expires.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

from domain.bots import capacity
from domain.matches.commands import (
    UNPINNED_ATTEMPTS,
    NewMatch,
    OnCommit,
    check_not_ended,
    engine_state,
    game_of,
    load_match,
    new_match_id,
    players_of,
    rematch_seat,
    store_new_match,
)
from domain.turn_timers import next_deadlines
from engine import GameState, Result
from model.bot import BotRecord
from model.match import (
    FINISHED,
    WAITING,
    LogEntry,
    MatchRecord,
    MatchRequest,
    RematchOffer,
    SeatRecord,
    TurnTimerRequest,
    now_iso,
)
from model.refusals import Conflict, NotFound
from model.settings import CHALLENGE_SECONDS
from model.tokens import Credential, SeatToken, rematch_token, token_hash
from store.matches import AlreadyStored, MatchStore

HANDED_TO = "easy"
"""The built-in AI level that takes over a co-operative seat whose player resigned."""


def changed(record: MatchRecord) -> MatchRecord:
    """The next version of the record, its seats copied so they may be changed."""
    seats = [replace(seat) for seat in record.seats]
    return replace(record, seats=seats, version=record.version + 1, updated_at=now_iso())


def commit_or_retry(store: MatchStore, before: MatchRecord, after: MatchRecord, entry: LogEntry | None) -> bool:
    """Write `after` if `before` is still stored; False when another change came first (read again)."""
    outcome = store.commit(after, before.version, entry, previous_status=before.status)
    if outcome.kind == "missing":
        raise NotFound(f"no match {before.id!r} (it expired)")
    return outcome.kind == "ok"


# --- resigning -------------------------------------------------------------------------------
def resign(
    store: MatchStore, match_id: str, seat: int, on_commit: OnCommit | None = None
) -> tuple[MatchRecord, GameState]:
    """The seat resigns: a competitive match ends with it last; a co-operative seat goes to the AI, or the team
    gives up when no human or bot would remain. The match and state after it."""
    for _ in range(UNPINNED_ATTEMPTS):
        record = load_match(store, match_id)
        if record.status == WAITING:
            raise Conflict("match-not-started", "the match has not started: leave it instead of resigning")
        check_not_ended(record)
        state = engine_state(record)
        after = changed(record)
        entry: LogEntry = {"version": after.version, "seat": seat, "at": after.updated_at, "resign": True}
        others = [other for other in players_of(record) if other != seat]
        result = Result.after_resignation(game_of(record).info.cooperative, record.players, seat, bool(others))
        if result is None:
            held = after.seats[seat]
            after.seats[seat] = SeatRecord(seat, name=held.name, ai_level=HANDED_TO)
            after.deadlines = next_deadlines(record, after, state, None)
            entry["handed_to"] = HANDED_TO
        else:
            after.status, after.result, after.deadlines = FINISHED, result.to_json(), {}
        if commit_or_retry(store, record, after, entry):
            release_bot(store, record, after, seat)
            if on_commit is not None:
                on_commit(after, state)
            return after, state
    raise Conflict("stale-version", "the match kept changing while the seat resigned; try again")


def release_bot(store: MatchStore, before: MatchRecord, after: MatchRecord, seat: int) -> None:
    """Stop counting the match against a bot that gave up its last seat in it while it runs on."""
    bot = before.seats[seat].bot
    if bot is not None and not after.ended and not after.bot_seats(bot):
        capacity.release(store, [bot], before.id)


# --- leaving ---------------------------------------------------------------------------------
def leave(store: MatchStore, match_id: str, seat: int, on_commit: OnCommit | None = None) -> MatchRecord:
    """The seat leaves a match that has not started: it is open again and its token stops working."""
    for _ in range(UNPINNED_ATTEMPTS):
        record = load_match(store, match_id)
        check_not_ended(record)
        if record.status != WAITING:
            raise Conflict("match-started", "the match has started: resign instead of leaving")
        after = changed(record)
        after.seats[seat] = SeatRecord(seat)
        if commit_or_retry(store, record, after, None):
            bot = record.seats[seat].bot
            if bot is not None and not after.bot_seats(bot):
                capacity.release(store, [bot], record.id)
            if on_commit is not None:
                on_commit(after, engine_state(after))
            return after
    raise Conflict("stale-version", "the match kept changing while the seat left; try again")


# --- the rematch -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Rematch:
    """The finished match after a seat's rematch post, and the new match if this post started it."""

    record: MatchRecord
    started: MatchRecord | None = None
    state: GameState | None = None  # the new match's


def offer_rematch(
    store: MatchStore,
    match_id: str,
    seat: int,
    token: Credential,
    on_commit: OnCommit | None = None,
    challenge_seconds: int = int(CHALLENGE_SECONDS.default),
) -> Rematch:
    """Offer a rematch, or accept the offer; the post that completes it starts the new match, exactly once.

    Posting again (or after the rematch started) changes nothing: the answer is the offer as it stands.
    """
    for _ in range(UNPINNED_ATTEMPTS):
        record = load_match(store, match_id)
        check_may_rematch(record)
        offer = (
            record.rematch.copy()
            if record.rematch
            else RematchOffer(offered_by=[], match=None, starting=new_match_id())
        )
        if seat in offer["offered_by"]:
            if offer.get("seed") and offer.get("match") is None:  # complete, but its start was cut short
                return start_rematch(store, record, seat, on_commit, challenge_seconds)
            return Rematch(record)
        offer["offered_by"] = sorted([*offer["offered_by"], seat])
        if isinstance(token, SeatToken):  # a human's: the hash of its rematch token (a bot acts with its own token)
            mine = rematch_token(token, offer["starting"], rematch_seat(record, seat))
            offer["token_hashes"] = {**offer.get("token_hashes", {}), str(seat): token_hash(mine)}
        complete = set(players_of(record)) <= set(offer["offered_by"])
        if complete:
            # The seed is chosen in the compare-and-set that completes the offer (its id was, at the first post):
            # whoever starts the rematch, even a later post resuming a start a crash cut short, starts this one.
            offer["seed"] = seed_for_rematch()
        after = replace(record, version=record.version + 1, updated_at=now_iso(), rematch=offer)
        if commit_or_retry(store, record, after, None):
            if on_commit is not None:
                on_commit(after, engine_state(after))
            if not complete:
                return Rematch(after)
            return start_rematch(store, after, seat, on_commit, challenge_seconds)
    raise Conflict("stale-version", "the match kept changing while the rematch was offered; try again")


def check_may_rematch(record: MatchRecord) -> None:
    """A 409 unless the match is finished (not aborted, not running) and outside any tournament."""
    if record.status != FINISHED:
        if record.ended:
            check_not_ended(record)
        raise Conflict("match-not-over", "a rematch is offered once the match is over")
    if record.tournament is not None:
        raise Conflict("tournament-match", "a tournament's match has no rematch: the tournament pairs its seats")


def rotated_seats(record: MatchRecord) -> list[SeatRecord]:
    """The seats of the rematch: the holder of seat i + 1 sits at seat i (so a different seat starts)."""
    seats = []
    for seat in range(record.players):
        held = record.seats[(seat + 1) % record.players]
        seats.append(SeatRecord(seat, name=held.name, ai_level=held.ai_level, bot=held.bot))
    return seats


def start_rematch(
    store: MatchStore, record: MatchRecord, seat: int, on_commit: OnCommit | None, challenge_seconds: int
) -> Rematch:
    """Create the rematch the offer planned (unless a post before did), then write its id on the offer."""
    offer = record.rematch
    assert offer is not None and offer.get("seed"), "only a complete offer starts a rematch"
    game = game_of(record)
    seats = rotated_seats(record)
    for old_seat, hashed in offer.get("token_hashes", {}).items():
        seats[rematch_seat(record, int(old_seat))].token_hash = hashed
    humans = [held.seat for held in seats if held.kind == "human"]
    bots: list[BotRecord] = [
        bot for bot in (store.bots.load(held.bot) for held in seats if held.bot is not None) if bot is not None
    ]
    request = MatchRequest(
        game=record.game,
        players=record.players,
        options=record.options,
        seed=None,  # the offer's, below
        open_seats=[],
        seats=None,  # the rotated seats, below
        turn_timer=TurnTimerRequest(seconds=record.turn_seconds) if record.turn_seconds is not None else None,
        unlisted=record.unlisted,
        assistance=record.assistance,  # a rematch keeps its original's fair play and pace
        ai_pace=record.ai_pace,
    )
    new = NewMatch(game, request, seats, humans, bots, challenge_seconds)
    try:  # no token to make: the seats hold their hashes already
        started, state, _ = store_new_match(store, offer["starting"], new, offer["seed"], None, True, tokens=[])
    except AlreadyStored:  # another post started it meanwhile, or before its process died
        stored = store.load(offer["starting"])
        if stored is None:
            return Rematch(record)
        started, state = stored, engine_state(stored)
    except Exception:
        withdraw_last_acceptance(store, record, seat)
        raise
    if on_commit is not None:
        on_commit(started, state)
    for _ in range(UNPINNED_ATTEMPTS):
        after = replace(
            record, version=record.version + 1, updated_at=now_iso(), rematch={**offer, "match": started.id}
        )
        if commit_or_retry(store, record, after, None):
            if on_commit is not None:
                on_commit(after, engine_state(after))
            return Rematch(after, started, state)
        record = load_match(store, record.id)
        offer = record.rematch or offer
        if offer.get("match") is not None:
            return Rematch(record, started, state)
    raise Conflict("stale-version", "the finished match kept changing while its rematch started; try again")


def withdraw_last_acceptance(store: MatchStore, record: MatchRecord, seat: int) -> None:
    """The rematch could not be stored (a bot at its cap, a full store): take back the acceptance that completed
    the offer, so the seat may post again later instead of the offer waiting for nobody."""
    assert record.rematch is not None, "only an offer is withdrawn from"
    offer = record.rematch.copy()
    offer["offered_by"] = [other for other in offer["offered_by"] if other != seat]
    offer["token_hashes"] = {old: hashed for old, hashed in offer.get("token_hashes", {}).items() if old != str(seat)}
    offer.pop("seed", None)
    withdrawn = replace(record, version=record.version + 1, updated_at=now_iso(), rematch=offer)
    store.commit(withdrawn, record.version, previous_status=record.status)


def seed_for_rematch() -> str:
    """A fresh server seed: a rematch never reuses the finished match's (it is public now)."""
    return secrets.token_hex(32)
