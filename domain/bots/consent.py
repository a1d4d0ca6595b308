"""What a bot does with its token: answer its challenges, list them, and list the seats it must play.

Both listings read the truth (the matches and tournaments), not the bot's capped event stream, so a
bot that reconnects after any flood of events finds every challenge still open and every live seat.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TypedDict

from domain.bots import capacity
from domain.bots.challenges import (
    MATCH,
    ChallengeJson,
    Challenges,
    challenge_id,
    match_challenge_json,
    parse_challenge_id,
    tournament_challenge_json,
)
from domain.matches.commands import (
    LegalActionsJson,
    OnCommit,
    abort_match,
    engine_state,
    legal_actions_json,
    load_match,
)
from domain.turn_timers import next_deadlines, seconds_until
from model.bot import BotRecord
from model.match import ACTIVE, WAITING, MatchRecord, TurnTimerRequest, now_iso
from model.refusals import Conflict, NotFound
from store.matches import MatchStore
from store.tournaments import ACCEPTED, DECLINED, PENDING, TournamentRecord

if TYPE_CHECKING:
    from domain.tournaments.director import Tournaments

ACCEPT_ATTEMPTS = 20  # each failed attempt means the match changed (a join, another bot's answer)


def challenge_over(detail: str) -> Conflict:
    """The refusal to answer a challenge that ended."""
    return Conflict("challenge-over", f"the challenge is over: {detail}")


def expired(challenge: str, moment: str) -> Conflict:
    """The refusal to accept a challenge after its expiry."""
    return Conflict("challenge-expired", f"challenge {challenge} expired at {moment}")


# --- answering -------------------------------------------------------------------------------
def answer(
    store: MatchStore,
    challenges: Challenges,
    tournaments: Tournaments,
    bot: BotRecord,
    challenge: str,
    accept: bool,
    on_commit: OnCommit,
) -> ChallengeJson:
    """Accept or decline one of the bot's challenges; the challenge as it is now."""
    kind, target = parse_challenge_id(challenge)
    if kind == MATCH:
        if accept:
            return accept_match(store, challenges, bot, target, on_commit)
        return decline_match(store, bot, target, on_commit)
    return answer_tournament(store, tournaments, bot, target, accept, on_commit)


def challenged_match(store: MatchStore, bot: BotRecord, match_id: str) -> MatchRecord:
    """The match the bot is challenged to (or seated in); a 404 when it has no seat there."""
    try:
        record = load_match(store, match_id)
    except NotFound:
        raise NotFound(f"no challenge {challenge_id(MATCH, match_id)!r} (the match may have expired)") from None
    if not record.bot_seats(bot.id):
        raise NotFound(f"bot {bot.id} has no challenge to match {match_id}")
    return record


def accept_match(
    store: MatchStore, challenges: Challenges, bot: BotRecord, match_id: str, on_commit: OnCommit
) -> ChallengeJson:
    """Seat the bot in its challenged seats (counted against its cap); the match starts if nothing else waits."""
    for _ in range(ACCEPT_ATTEMPTS):
        record = challenged_match(store, bot, match_id)
        if bot.id not in record.pending_bots():
            return match_challenge_json(record, bot.id, ACCEPTED)  # accepted already: a retry
        if record.ended:
            raise challenge_over(f"the match was aborted: {record.abort_reason}")
        if record.start_by is not None and seconds_until(record.start_by) <= 0:
            challenges.expire_match(match_id, record.start_by, on_commit)
            raise expired(challenge_id(MATCH, match_id), record.start_by)
        counted = capacity.reserve(store, bot, match_id)
        after = accepted(record, bot.id)
        outcome = store.commit(after, record.version, previous_status=record.status)
        if outcome.kind == "ok":
            store.bots.resolve_challenge(bot.id, challenge_id(MATCH, match_id))
            on_commit(after, engine_state(after))
            return match_challenge_json(after, bot.id, ACCEPTED)
        if counted:
            capacity.release(store, [bot.id], match_id)
        if outcome.kind == "missing":
            raise NotFound(f"no match {match_id!r} (it expired)")
    raise Conflict("stale-version", "the match kept changing while the bot accepted; try again")


def accepted(record: MatchRecord, bot_id: str) -> MatchRecord:
    """The match at its next version with the bot's seats filled: active once nothing else waits."""
    seats = [replace(seat, pending=False) if seat.bot == bot_id else replace(seat) for seat in record.seats]
    after = replace(record, seats=seats, version=record.version + 1, updated_at=now_iso())
    after.start_if_ready()
    if after.turn_seconds is not None:
        after.deadlines = next_deadlines(record, after, engine_state(after), None)
    return after


def decline_match(store: MatchStore, bot: BotRecord, match_id: str, on_commit: OnCommit) -> ChallengeJson:
    """Decline: the match is aborted (no result), and every other bot challenged to it told so."""
    record = challenged_match(store, bot, match_id)
    if record.ended:
        raise challenge_over(f"the match was {record.status}: {record.abort_reason or 'it ended'}")
    if bot.id not in record.pending_bots():
        raise Conflict("challenge-accepted", f"bot {bot.id} accepted this challenge already: it plays the match")
    store.bots.resolve_challenge(bot.id, challenge_id(MATCH, match_id))
    after = abort_match(store, match_id, f"bot {bot.name!r} declined the challenge", on_commit, waiting_only=True)
    return match_challenge_json(after, bot.id, DECLINED)


def answer_tournament(
    store: MatchStore, tournaments: Tournaments, bot: BotRecord, tournament_id: str, accept: bool, on_commit: OnCommit
) -> ChallengeJson:
    """Answer a tournament's one challenge: accepted, the bot plays all its matches; declined, it is aborted."""
    try:
        record = tournaments.load(tournament_id)
    except NotFound:
        raise NotFound(f"no challenge {challenge_id('tournament', tournament_id)!r}") from None
    if bot.id not in record.consent:
        raise NotFound(f"bot {bot.id} has no challenge to tournament {tournament_id}")
    name = challenge_id("tournament", tournament_id)
    expires = record.challenge_expires_at
    if accept and record.consent[bot.id] == PENDING and expires is not None and seconds_until(expires) <= 0:
        tournaments.advance(tournament_id, on_commit)  # aborts it, if nobody did yet
        raise expired(name, expires)
    wanted = ACCEPTED if accept else DECLINED
    outcome = tournaments.store.answer_challenge(tournament_id, bot.id, wanted)
    if outcome == "ok":
        store.bots.resolve_challenge(bot.id, name)
        tournaments.advance(tournament_id, on_commit)  # starts it, or aborts it
        return tournament_challenge_json(tournaments.load(tournament_id), bot.id, wanted)
    now = tournaments.load(tournament_id)
    earlier = now.consent.get(bot.id)
    if earlier == wanted:
        return tournament_challenge_json(now, bot.id, wanted)  # answered so already: a retry
    if earlier == ACCEPTED:
        raise Conflict("challenge-accepted", f"bot {bot.id} accepted this tournament's challenge already")
    raise challenge_over(f"the tournament is {now.status}: {now.abort_reason or 'it goes on without this answer'}")


# --- listing ---------------------------------------------------------------------------------
def parse_cursor(text: str | None) -> tuple[int, str] | None:
    """A challenges cursor (`<expiry ms>.<challenge id>`), or None."""
    if text is None:
        return None
    score, _, challenge = text.partition(".")
    if not (score.isascii() and score.isdigit()) or not challenge:
        return None
    return int(score), challenge


def pending_challenges(
    store: MatchStore, tournaments: Tournaments, bot_id: str, limit: int, cursor: tuple[int, str] | None
) -> tuple[list[ChallengeJson], str | None]:
    """The bot's pending challenges, soonest to expire first, a page at a time, each checked against its target."""
    rows = store.bots.pending_challenges(bot_id, limit, cursor)
    kinds = {challenge: parse_challenge_id(challenge) for challenge, _ in rows}
    match_ids = [target for kind, target in kinds.values() if kind == MATCH]
    matches = dict(zip(match_ids, store.load_many(match_ids), strict=True))
    items: list[ChallengeJson] = []
    for challenge, _ in rows:
        kind, target = kinds[challenge]
        item: ChallengeJson | None = None
        if kind == MATCH:
            record = matches[target]
            if record is not None and record.status == WAITING and bot_id in record.pending_bots():
                item = match_challenge_json(record, bot_id, PENDING)
        else:
            tournament = tournaments.store.load(target)
            if still_pending(tournament, bot_id):
                assert tournament is not None
                item = tournament_challenge_json(tournament, bot_id, PENDING)
        if item is None:
            store.bots.resolve_challenge(bot_id, challenge)  # over: the index was behind
        else:
            items.append(item)
    next_cursor = f"{rows[-1][1]}.{rows[-1][0]}" if len(rows) == limit else None
    return items, next_cursor


def still_pending(record: TournamentRecord | None, bot_id: str) -> bool:
    """True while the tournament waits for this bot's answer."""
    return record is not None and record.status == WAITING and record.consent.get(bot_id) == PENDING


class LiveSeatJson(TypedDict):
    """One of a bot's seats in a match not over: the match, whether the seat may act now and what it may do (as
    `GET .../legal-actions` answers, so a bot that starts again needs no read before its move), its deadline and
    timer."""

    match: str
    seat: int
    game: str
    players: int
    status: str
    version: int
    may_act: bool
    your_turn: bool
    deadline: str | None
    turn_timer: TurnTimerRequest | None
    legal_actions: LegalActionsJson


def live_seats(store: MatchStore, bot_id: str, limit: int, cursor: str | None) -> tuple[list[LiveSeatJson], str | None]:
    """The bot's seats in matches it plays that are not over, by match id, with whether each may act now."""
    ids = [match_id for match_id in store.bots.matches(bot_id) if cursor is None or match_id > cursor][:limit]
    items: list[LiveSeatJson] = []
    for record in store.load_many(ids):
        if record is None or record.ended:
            continue  # gone or over: its stream's next connection tells the bot and forgets it
        state = engine_state(record)
        for seat in record.seats:
            if seat.bot != bot_id or seat.pending:
                continue
            legal = legal_actions_json(record, state, seat.seat)  # its `may_act` is `seat_may_act`'s answer
            items.append(
                {
                    "match": record.id,
                    "seat": seat.seat,
                    "game": record.game,
                    "players": record.players,
                    "status": record.status,
                    "version": record.version,
                    "may_act": legal["may_act"],
                    "your_turn": record.status == ACTIVE and seat.seat in state.waiting_for(),
                    "deadline": record.deadlines.get(str(seat.seat)),
                    "turn_timer": {"seconds": record.turn_seconds} if record.turn_seconds is not None else None,
                    "legal_actions": legal,
                }
            )
    return items, ids[-1] if len(ids) == limit else None
