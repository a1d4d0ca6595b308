"""Challenges: seating a bot asks it first, as on Lichess.

A match that names a bot seat is stored with that seat challenged (`pending`), not filled, and waits;
a tournament with bot entrants waits for one challenge per bot. The truth is the match record (its
seats' `pending` and its `start_by`) or the tournament's consent hash; the bot's side (its pending
challenges, its `challenge` and `challenge-canceled` events) follows from them and is written by
idempotent scripts, so telling it twice tells it once, and whatever a lost process did not tell is
told by the next change, the bot's listing, or the sweep.

A match must start by its `start_by` (creation plus `PARLOUR_CHALLENGE_SECONDS`), a tournament's
challenges expire at its `challenge_expires_at`: a job on the timer queue (RQ's scheduler, in
`python -m workers --timers`) aborts whatever is still waiting then, and the timer worker's
maintenance sweeps for what lost its job.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from domain.bots.registration import compact
from domain.matches.commands import abort_match
from domain.turn_timers import SWEEP_GRACE, parse_iso, seconds_until
from engine import GameState
from model.match import WAITING, MatchRecord, SeatJson, TurnTimerRequest
from model.refusals import Conflict, NotFound
from model.tournament import NumberedEntrantJson
from store.matches import MatchStore
from store.tournaments import ABORTED, CANCELLED, PENDING, TournamentRecord
from store.turn_timers import TimerQueue

if TYPE_CHECKING:
    from domain.matches.commands import OnCommit

log = logging.getLogger(__name__)
MATCH, TOURNAMENT = "match", "tournament"
EXPIRE_MATCH_JOB = "workers.challenges.expire_match"
EXPIRE_TOURNAMENT_JOB = "workers.challenges.expire_tournament"


def challenge_id(kind: str, target_id: str) -> str:
    """The id of a bot's challenge to a match or a tournament (one per bot and target)."""
    return f"{kind}-{target_id}"


def parse_challenge_id(text: str) -> tuple[str, str]:
    """The kind and target of a challenge id; a 404 for text that is not one."""
    kind, _, target = text.partition("-")
    if kind not in (MATCH, TOURNAMENT) or not target or len(target) > 64:
        raise NotFound(f"no challenge {text!r}: challenge ids are match-<match id> or tournament-<tournament id>")
    return kind, target


def expiry_ms(moment: str) -> int:
    """An ISO time as milliseconds since the epoch (the pending index's score)."""
    return int(parse_iso(moment).timestamp() * 1000)


class ChallengerJson(TypedDict):
    """A seat of the human who challenged the bot (a seat whose token was handed out): its number and name."""

    seat: int
    name: str | None


class ChallengeJson(TypedDict):
    """A bot's challenge to a match or a tournament, as its listing, its answer and its `challenge` event give it.

    A match's names its `challenger`, `your_seats` and `seats`; a tournament's, its `entrants`.
    """

    id: str
    type: str
    status: str
    bot: str
    match: str | None
    tournament: str | None
    challenger: list[ChallengerJson] | None
    game: str
    players: int
    options: dict[str, Any]
    your_seats: list[int]
    seats: list[SeatJson] | None
    entrants: list[NumberedEntrantJson] | None
    matches: int
    turn_timer: TurnTimerRequest | None
    expires_at: str | None
    created_at: str


class ChallengeCanceledJson(TypedDict):
    """The data of a `challenge-canceled` event."""

    challenge: str
    type: str
    match: str | None
    tournament: str | None
    status: str
    reason: str | None


def match_challenge_json(record: MatchRecord, bot_id: str, status: str) -> ChallengeJson:
    """A bot's challenge to a match: who plays, the game and options, its seats, the timer and expiry."""
    challenger: list[ChallengerJson] = [
        {"seat": s.seat, "name": s.name} for s in record.seats if s.kind == "human" and s.token_hash
    ]
    return {
        "id": challenge_id(MATCH, record.id),
        "type": MATCH,
        "status": status,
        "bot": bot_id,
        "match": record.id,
        "tournament": None,
        "challenger": challenger,
        "game": record.game,
        "players": record.players,
        "options": record.options,
        "your_seats": record.bot_seats(bot_id),
        "seats": [seat.public_json() for seat in record.seats],
        "entrants": None,
        "matches": 1,
        "turn_timer": {"seconds": record.turn_seconds} if record.turn_seconds is not None else None,
        "expires_at": record.start_by,
        "created_at": record.created_at,
    }


def tournament_challenge_json(record: TournamentRecord, bot_id: str, status: str) -> ChallengeJson:
    """A bot's one challenge to a tournament: the game, options, entrants, how many matches, the timer and expiry."""
    plan = record.plan
    return {
        "id": challenge_id(TOURNAMENT, record.id),
        "type": TOURNAMENT,
        "status": status,
        "bot": bot_id,
        "match": None,
        "tournament": record.id,
        "challenger": None,
        "game": plan.game,
        "players": plan.players,
        "options": plan.options,
        "your_seats": [],
        "seats": None,
        "entrants": plan.numbered_entrants(),
        "matches": plan.total_matches(),
        "turn_timer": {"seconds": plan.turn_timer} if plan.turn_timer is not None else None,
        "expires_at": record.challenge_expires_at,
        "created_at": record.created_at,
    }


def canceled_json(kind: str, target_id: str, expired: bool, reason: str | None) -> str:
    """The data of a `challenge-canceled` event: which challenge, whether it expired, and why it ended."""
    data: ChallengeCanceledJson = {
        "challenge": challenge_id(kind, target_id),
        "type": kind,
        "match": target_id if kind == MATCH else None,
        "tournament": target_id if kind == TOURNAMENT else None,
        "status": "expired" if expired else "canceled",
        "reason": reason,
    }
    return compact(data)


def match_expiry_reason(record: MatchRecord) -> str:
    """Why a match that did not start by its `start_by` is aborted."""
    waits = [f"bot {bot} did not accept its challenge" for bot in sorted(record.pending_bots())]
    if record.open_seats():
        waits.append(f"seats {record.open_seats()} were not taken")
    return f"the match did not start by {record.start_by}: {'; '.join(waits) or 'it was not ready'}"


class WaitingTournaments(Protocol):
    """What the sweep asks of the tournaments (domain/tournaments/director.py's `Tournaments`)."""

    def waiting(self) -> list[str]:
        """The tournaments waiting for their bots' answers."""
        ...

    def advance(self, tournament_id: str, on_start: OnCommit) -> None:
        """Advance a tournament (start what it may, or abort it once its challenges expired)."""
        ...


class Challenges:
    """Tells bots of their challenges and ends the challenges nobody answered in time."""

    def __init__(self, store: MatchStore, queue: TimerQueue, seconds: int) -> None:
        self.store = store
        self.queue = queue
        self.seconds = seconds

    # --- matches ------------------------------------------------------------------------------
    def after_change(self, record: MatchRecord, state: GameState) -> None:
        """Listener: a waiting match challenges its pending bots and schedules its expiry; an ended one cancels."""
        if record.start_by is None:
            return
        if record.status == WAITING:
            self.challenge_match(record)
        elif record.ended:
            self.end_match_challenges(record)

    def challenge_match(self, record: MatchRecord) -> None:
        """Tell each pending bot of its challenge (once), and schedule the match's expiry (once)."""
        assert record.start_by is not None
        for bot_id in record.pending_bots():
            data = json.dumps(match_challenge_json(record, bot_id, PENDING), separators=(",", ":"))
            self.store.bots.issue_challenge(bot_id, challenge_id(MATCH, record.id), expiry_ms(record.start_by), data)
        job_id = f"challenge-{record.id}-{''.join(ch for ch in record.start_by if ch.isdigit())}"
        self.queue.schedule_call(record.start_by, EXPIRE_MATCH_JOB, (record.id, record.start_by), job_id)

    def end_match_challenges(self, record: MatchRecord) -> None:
        """The match started or ended: its challenges are over; a pending bot is told it was canceled."""
        expired = record.start_by is not None and record.updated_at >= record.start_by
        for bot_id in {seat.bot for seat in record.seats if seat.bot is not None}:
            pending = bot_id in record.pending_bots()
            canceled = canceled_json(MATCH, record.id, expired, record.abort_reason) if pending and record.ended else ""
            self.store.bots.resolve_challenge(bot_id, challenge_id(MATCH, record.id), canceled)
        self.store.untrack_challenged_match(record.id)

    def expire_match(self, match_id: str, start_by: str, on_commit: OnCommit | None) -> str:
        """Abort the match if it is still waiting at its `start_by`, which has passed; what happened."""
        record = self.store.load(match_id)
        if record is None or record.status != WAITING or record.start_by != start_by:
            return "started-or-over"
        if seconds_until(start_by) > 0:
            return "early"
        try:
            abort_match(self.store, match_id, match_expiry_reason(record), on_commit, waiting_only=True)
        except (Conflict, NotFound):  # it started, ended or expired meanwhile
            return "started-or-over"
        log.info("match %s: aborted, it did not start by %s", match_id, start_by)
        return "expired"

    # --- tournaments --------------------------------------------------------------------------
    def tournament_waiting(self, record: TournamentRecord) -> None:
        """Tell each bot that has not answered of the tournament's challenge (once), and schedule its expiry."""
        expires = record.challenge_expires_at
        assert expires is not None
        for bot_id, answer in record.consent.items():
            if answer == PENDING:
                data = json.dumps(tournament_challenge_json(record, bot_id, PENDING), separators=(",", ":"))
                self.store.bots.issue_challenge(bot_id, challenge_id(TOURNAMENT, record.id), expiry_ms(expires), data)
        job_id = f"challenge-{record.id}-{''.join(ch for ch in expires if ch.isdigit())}"
        self.queue.schedule_call(expires, EXPIRE_TOURNAMENT_JOB, (record.id, expires), job_id)

    def tournament_settled(self, record: TournamentRecord) -> None:
        """The tournament started, was aborted or cancelled: its challenges are over; a bot yet to answer is told."""
        expires = record.challenge_expires_at
        expired = expires is not None and (record.finished_at or "") >= expires
        for bot_id, answer in record.consent.items():
            aborted = record.status in (ABORTED, CANCELLED) and answer == PENDING
            reason = record.abort_reason or "the tournament was cancelled by its owner"
            canceled = canceled_json(TOURNAMENT, record.id, expired, reason) if aborted else ""
            self.store.bots.resolve_challenge(bot_id, challenge_id(TOURNAMENT, record.id), canceled)

    # --- the sweep ----------------------------------------------------------------------------
    def sweep(self, tournaments: WaitingTournaments, on_commit: OnCommit, grace: float = SWEEP_GRACE) -> None:
        """Catch what a lost process left: challenges untold, expiries unscheduled or overdue, challenges over."""
        for match_id in self.store.challenged_matches():
            record = self.store.load(match_id)
            if record is None:
                self.store.untrack_challenged_match(match_id)
            elif record.status != WAITING:
                self.end_match_challenges(record)
            elif record.start_by is not None and -seconds_until(record.updated_at) >= grace:
                if seconds_until(record.start_by) < -grace:
                    log.warning("match %s: its expiry at %s had no job; aborting it", match_id, record.start_by)
                    self.expire_match(match_id, record.start_by, on_commit)
                else:
                    self.challenge_match(record)
        for tournament_id in tournaments.waiting():
            tournaments.advance(tournament_id, on_commit)
