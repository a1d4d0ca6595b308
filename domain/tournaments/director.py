"""What the tournaments do between HTTP, the workers and the stores: create, advance, report.

A tournament's matches are ordinary matches whose seats are AI levels or bots; the AI workers play
them like any other. Whenever one of them finishes, the process that stored the finishing change
(an API process for a bot's move, a worker for an AI move or a timeout) asks for an *advance*:
record every finished match's outcome, plan the next Swiss round once a round is complete, and
start planned matches up to the tournament's `parallel` limit. One process advances a tournament
at a time (a lock with a timeout); a request made while the lock is held is a flag its holder
reads before letting go, so no finish is missed. One call makes at most MAX_STEPS steps, so a request
that finishes a match (or creates the tournament) is never held for the whole tournament while the
workers keep finishing matches; a request still open then is handed to the workers as an advance
job on the tournament queue. Outcomes are written with HSETNX and a slot's
match is claimed with HSETNX, so nothing is counted or started twice. The workers' maintenance
sweeps the running tournaments too, so an advance lost with a dead process happens anyway.

The owner may cancel a running tournament: the cancellation is stored first, and a slot is claimed
only while the tournament runs (one Lua script checks both), so no advance starts a match after it,
whoever holds the lock; then every running match is aborted (void, like an expired one), and the
outcomes so far stay.

A tournament with bot entrants first waits: each bot gets one challenge (accepted at once when its
policy accepts tournaments), and the advance starts the tournament once every bot accepted, or
aborts it (no match is ever played) when one declined or the challenges expired. A bot that accepted
is seated in all of the tournament's matches without being asked again; a match that would put a
bot above its cap on matches at once waits for a later advance (a finish, or the sweep).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from domain.bots import capacity
from domain.bots import registration as bots
from domain.matches import commands as matches
from domain.owners import cancelled_reason
from domain.tournaments.plan import is_complete, next_slots
from domain.tournaments.setup import MAX_MATCHES, PlanError, PlanRequest, build_plan, check_seed_may_be_chosen
from domain.tournaments.standings import Report, report
from domain.turn_timers import iso, parse_iso, seconds_until
from engine import GameState
from model.match import FINISHED as MATCH_FINISHED
from model.match import MatchRecord, MatchRequest, TurnTimerRequest, now_iso
from model.refusals import Conflict, InvalidRequest, NotFound
from model.tokens import OwnerToken, new_owner_token, owner_token_hash
from model.tournament import NumberedEntrantJson, Outcome, Plan, Slot, TournamentRequest
from store.jobs import JobQueue
from store.matches import MatchStore
from store.tournaments import (
    ABORTED,
    ACCEPTED,
    CANCELLED,
    DECLINED,
    FINISHED,
    PENDING,
    RUNNING,
    WAITING,
    TournamentRecord,
    TournamentStore,
)

if TYPE_CHECKING:
    from domain.bots.challenges import Challenges

log = logging.getLogger(__name__)
OnStart = Callable[[MatchRecord, GameState], None]
"""What a newly stored match sets off (its AI turns, timers, bot notices): the caller's `after_change`."""
MAX_STEPS = 8
"""Steps one call of `advance` makes before it hands the rest to an advance job (random matches finish in ms)."""
ABORT_ATTEMPTS = 5
"""Rounds of compare-and-set attempts a cancellation makes on a match that keeps changing."""


class Progress(TypedDict):
    """How far a tournament is: matches done (or void), in all, running now; the round planned and the rounds."""

    done: int
    total: int
    running: int
    round: int
    rounds: int


class TournamentSummary(TypedDict):
    """A tournament as the listing shows it."""

    id: str
    url: str
    game: str
    players: int
    format: str
    cooperative: bool
    status: str
    progress: Progress
    created_at: str
    finished_at: str | None


class ChallengeAnswer(TypedDict):
    """A bot entrant's answer to the tournament's challenge: pending, accepted or declined."""

    bot: str
    status: str


class ScheduledMatch(TypedDict):
    """One planned match as served: round, entrant per seat, its match id, its status and how it ended."""

    index: int
    round: int
    seats: list[int]
    byes: list[int]
    match: str | None
    status: str
    ranking: list[list[int]] | None
    team_success: bool | None


class TournamentJson(TournamentSummary, Report):
    """The tournament as served: the summary, the plan, the seed's commitment, standings and the matches."""

    options: dict[str, Any]
    rounds: int
    games_per_pairing: int
    turn_timer: TurnTimerRequest | None
    parallel: int
    entrants: list[NumberedEntrantJson]
    seed_commitment: str
    seed: str | None
    challenges: list[ChallengeAnswer]
    challenge_expires_at: str | None
    abort_reason: str | None
    matches: list[ScheduledMatch]


class Tournaments:
    """Creates tournaments and moves them on as their matches finish; all state in Redis."""

    def __init__(self, store: TournamentStore, match_store: MatchStore, challenges: Challenges, jobs: JobQueue) -> None:
        self.store = store
        self.matches = match_store
        self.challenges = challenges
        self.jobs = jobs

    def bot_name(self, bot_id: str) -> str | None:
        """The name of a registered bot, or None when there is no such bot."""
        bot = self.matches.bots.load(bot_id)
        return bot.name if bot is not None else None

    def create(
        self, request: TournamentRequest, on_start: OnStart, max_matches: int = MAX_MATCHES, max_entrants: int = 0
    ) -> tuple[TournamentRecord, OwnerToken]:
        """Check the request, store the tournament with its first matches planned, and start them.

        Answers the tournament and its owner token (shown this once, stored as a hash). `max_matches` and
        `max_entrants` (0: the request schema's own cap) are the server's size quotas.
        """
        if max_entrants and len(request["entrants"]) > max_entrants:
            message = f"{len(request['entrants'])} entrants; this server takes at most {max_entrants}"
            raise InvalidRequest(message, errors={"entrants": [message]})
        for index, spec in enumerate(request["entrants"]):
            bots.refuse_bot_name(self.matches, spec.get("name"), f"entrant {index}", spec.get("bot"))
        seed = request["seed"]
        seed_given = seed is not None
        body: PlanRequest = {**request, "seed": seed if seed is not None else secrets.token_hex(32)}
        try:
            if seed_given:
                check_seed_may_be_chosen(body["entrants"])
            plan = build_plan(body, self.bot_name, max_matches or MAX_MATCHES)
        except PlanError as error:
            raise InvalidRequest(error.message, errors={error.field: [error.message]}) from None
        tournament_id = secrets.token_urlsafe(12)
        owner = new_owner_token(tournament_id)
        created_at = now_iso()
        consent = self.consent_of(plan)
        expires = None
        if PENDING in consent.values():
            expires = iso(parse_iso(created_at) + timedelta(seconds=self.challenges.seconds))
        self.store.create(tournament_id, plan, seed_given, created_at, owner_token_hash(owner), consent, expires)
        self.advance(tournament_id, on_start)
        record = self.store.load(tournament_id)
        assert record is not None
        return record, owner

    def cancel(self, tournament_id: str, on_commit: OnStart) -> TournamentRecord:
        """Stop a running tournament: no match starts after this, running ones are aborted, outcomes stay.

        Cancelling a cancelled tournament again aborts whatever still runs (a retry is safe); a finished
        one is a 409.
        """
        before = self.store.cancel(tournament_id, now_iso())
        if before == "":
            raise NotFound(f"no tournament {tournament_id!r} (it may have expired)")
        if before in (FINISHED, ABORTED):
            raise Conflict("tournament-over", f"the tournament is {before}; there is nothing left to cancel")
        record = self.load(tournament_id)  # read after the cancellation: no slot is claimed any more
        for index, match_id in sorted(record.matches.items()):
            if index not in record.outcomes and match_id:
                self.abort_running(match_id, cancelled_reason(tournament_id), on_commit)
        self.step(tournament_id, on_commit)  # record every outcome now, whoever holds the lock
        log.info("tournament %s cancelled (it was %s)", tournament_id, before)
        return self.load(tournament_id)

    def abort_running(self, match_id: str, reason: str, on_commit: OnStart) -> None:
        """Abort a tournament's match unless it ended or expired meanwhile (its outcome then counts as it is)."""
        for _ in range(ABORT_ATTEMPTS):
            try:
                matches.abort_match(self.matches, match_id, reason, on_commit)
                return
            except NotFound:
                return
            except Conflict as refusal:
                if refusal.code != "stale-version":  # match-over or match-aborted: it ended by itself
                    return
        log.warning("match %s kept changing while it was aborted; cancelling again aborts it", match_id)

    def consent_of(self, plan: Plan) -> dict[str, str]:
        """Each bot entrant's answer before it is asked: accepted when its policy accepts tournaments."""
        consent: dict[str, str] = {}
        for entrant in plan.entrants:
            if entrant.bot is not None and entrant.bot not in consent:
                bot = self.matches.bots.load(entrant.bot)
                consent[entrant.bot] = ACCEPTED if bot is not None and bot.accepts(tournament=True) else PENDING
        return consent

    def waiting(self) -> list[str]:
        """The tournaments waiting for their bots' answers (for the challenges' sweep)."""
        ids = self.store.running()
        heads = self.store.load_heads(ids)
        return [
            tournament_id for tournament_id, head in zip(ids, heads, strict=True) if head and head["status"] == WAITING
        ]

    def load(self, tournament_id: str) -> TournamentRecord:
        """The stored tournament, or a 404."""
        record = self.store.load(tournament_id) if len(tournament_id) <= 64 else None
        if record is None:
            raise NotFound(f"no tournament {tournament_id!r} (it may have expired)")
        return record

    def page(self, status: str | None, limit: int, cursor: int | None) -> tuple[list[TournamentSummary], int | None]:
        """Up to `limit` tournaments created before `cursor`, newest first (of `status` only), and the next cursor."""
        rows = self.store.list_ids(limit, cursor)
        items = []
        for tournament_id, _ in rows:
            record = self.store.load(tournament_id)
            if record is None:
                self.store.forget(tournament_id)
            elif status in (None, record.status):
                items.append(summary_json(record))
        return items, rows[-1][1] if len(rows) == limit else None

    def after_change(self, record: MatchRecord, on_start: OnStart) -> None:
        """When a tournament's match has just finished, move its tournament on (never failing the finishing move)."""
        if not record.ended:
            return
        tournament_id = self.store.tournament_of(record.id)
        if tournament_id is None:
            return
        try:
            self.advance(tournament_id, on_start)
        except Exception:  # the move is stored; the workers' sweep advances the tournament again
            log.exception("tournament %s: advance after match %s finished failed", tournament_id, record.id)

    def sweep(self, on_start: OnStart) -> None:
        """Advance every running tournament (the workers' maintenance): catches advances lost with a process."""
        for tournament_id in self.store.running():
            self.advance(tournament_id, on_start)

    def advance(self, tournament_id: str, on_start: OnStart) -> None:
        """Ask for an advance and make it, unless another process holds the lock (it then makes it).

        After MAX_STEPS steps a request still open goes to the workers as an advance job.
        """
        self.store.ask_advance(tournament_id)
        steps = 0
        while steps < MAX_STEPS:
            with self.store.locked(tournament_id) as taken:
                if not taken:
                    return
                while steps < MAX_STEPS and self.store.take_request(tournament_id):
                    self.step(tournament_id, on_start)
                    steps += 1
            if not self.store.has_request(tournament_id):
                return
        if self.store.hand_over(tournament_id):
            self.jobs.enqueue_advance(tournament_id)

    def step(self, tournament_id: str, on_start: OnStart) -> None:
        """Record finished matches, plan what is due, start matches up to the limit, finish when all is done."""
        record = self.store.load(tournament_id)
        if record is None:
            self.store.forget(tournament_id)
            return
        if record.status == FINISHED:
            return
        if record.status == ABORTED:
            self.store.close(tournament_id)  # again, in case the abort's process died before it
            self.challenges.tournament_settled(record)
            return
        if record.status == WAITING and not self.settle(record):
            return
        self.record_outcomes(record)
        if record.status == CANCELLED:
            self.challenges.tournament_settled(record)  # cancelled while it waited: the challenges are over
            return  # the outcomes so far stay; nothing new is planned or started
        new = next_slots(record.plan, record.slots, record.outcomes)
        self.store.add_slots(tournament_id, new)
        record.slots.extend(new)
        self.start_matches(record, on_start)
        if is_complete(record.plan, record.slots, record.outcomes):
            self.store.finish(tournament_id, now_iso())
            log.info("tournament %s finished: %d matches", tournament_id, len(record.outcomes))

    def settle(self, record: TournamentRecord) -> bool:
        """Start a waiting tournament once every bot accepted (True); abort it once one declined or time is up."""
        declined = sorted(bot for bot, answer in record.consent.items() if answer == DECLINED)
        pending = sorted(bot for bot, answer in record.consent.items() if answer == PENDING)
        expires = record.challenge_expires_at
        if not declined and not pending:
            if not self.store.begin(record.id):
                return False  # aborted meanwhile
            record.status = RUNNING
            self.challenges.tournament_settled(record)
            log.info("tournament %s: every bot accepted; it starts", record.id)
            return True
        if declined:
            reason = f"bots {declined} declined the tournament's challenge"
        elif expires is not None and seconds_until(expires) <= 0:
            reason = f"bots {pending} did not accept the tournament's challenge by {expires}"
        else:
            self.challenges.tournament_waiting(record)
            return False
        finished_at = now_iso()
        if self.store.abort(record.id, reason, finished_at):
            log.info("tournament %s aborted: %s", record.id, reason)
        aborted = self.store.load(record.id)
        if aborted is not None:
            self.challenges.tournament_settled(aborted)
        return False

    def record_outcomes(self, record: TournamentRecord) -> None:
        """Store the outcome of every started match that finished or vanished (each once)."""
        pending = [(index, match_id) for index, match_id in record.matches.items() if index not in record.outcomes]
        loaded = self.matches.load_many([match_id for _, match_id in pending])
        for (index, match_id), match in zip(pending, loaded, strict=True):
            if match is not None and not match.ended:
                continue
            outcome = outcome_of(index, match_id, match)
            if self.store.record_outcome(record.id, outcome):
                record.outcomes[index] = outcome

    def start_matches(self, record: TournamentRecord, on_start: OnStart) -> None:
        """Start planned matches in schedule order while fewer than `parallel` are running.

        A slot seating a bot that was deleted is void at once, unplayed; the next pass starts others. A match
        that would put a bot above its cap on matches at once is left for a later advance, and the later
        matches without that bot go first.
        """
        room = record.plan.parallel - sum(1 for index in record.matches if index not in record.outcomes)
        full: set[str] = set()
        for slot in (slot for slot in record.slots if slot.index not in record.matches):
            if room <= 0:
                return
            if self.seats_a_deleted_bot(record.plan, slot):
                self.void_slot(record, slot)
                continue
            bots = {record.plan.entrants[entrant].bot for entrant in slot.seats} - {None}
            if bots & full:
                continue
            try:
                match, state = self.new_match(record.id, record.plan, slot)
            except Conflict as refusal:
                if refusal.code != "bot-at-capacity":
                    raise
                full.add(str(refusal.extra["bot"]))
                continue
            claim = self.store.claim_slot(record.id, slot.index, match.id)
            if claim == "claimed":
                record.matches[slot.index] = match.id
                on_start(match, state)
                room -= 1
                continue
            # The match never plays: the tournament was cancelled meanwhile, or another process started the slot.
            reason = cancelled_reason(record.id) if claim == "closed" else f"slot {slot.index} has a match already"
            matches.abort_match(self.matches, match.id, reason)
            capacity.release(self.matches, sorted(str(bot) for bot in bots), match.id)
            if claim == "closed":
                return

    def seats_a_deleted_bot(self, plan: Plan, slot: Slot) -> bool:
        """True when one of the slot's entrants is a bot that is no longer registered."""
        seated = {plan.entrants[entrant].bot for entrant in slot.seats if plan.entrants[entrant].type == "bot"}
        return any(bot is not None and self.bot_name(bot) is None for bot in seated)

    def void_slot(self, record: TournamentRecord, slot: Slot) -> None:
        """Count a slot for nobody without playing it (claimed with no match), and ask for another pass."""
        if self.store.claim_slot(record.id, slot.index, "") != "claimed":
            return
        outcome = Outcome(slot.index, [], match=None, void=True)
        record.matches[slot.index] = ""
        if self.store.record_outcome(record.id, outcome):
            record.outcomes[slot.index] = outcome
        self.store.ask_advance(record.id)  # its place in `parallel` is free: start the next ones

    def new_match(self, tournament_id: str, plan: Plan, slot: Slot) -> tuple[MatchRecord, GameState]:
        """Store the slot's match: its seats, the tournament's options and timer, the seed derived for it.

        The server's own match, through the trusted path: its seed comes from the plan, not a client.
        """
        request = MatchRequest(
            game=plan.game,
            players=plan.players,
            options=plan.options,
            seed=None,
            open_seats=[],
            seats=[plan.entrants[entrant].seat_spec() for entrant in slot.seats],
            turn_timer=TurnTimerRequest(seconds=plan.turn_timer) if plan.turn_timer is not None else None,
            unlisted=False,
        )
        return matches.create_server_match(self.matches, request, plan.match_seed(slot.index), tournament_id)


def outcome_of(index: int, match_id: str, match: MatchRecord | None) -> Outcome:
    """How a finished match ended, by seat; void when the match is gone."""
    if match is None or match.status != MATCH_FINISHED:  # gone, or aborted: no result to count
        return Outcome(index, [], match=match_id, void=True)
    result = matches.result_of(match, matches.engine_state(match))  # a resignation's, or the engine's
    assert result is not None, f"finished match {match_id} has no result"
    return Outcome(index, [list(group) for group in result.ranking], result.team_success, match=match_id)


def tournament_json(record: TournamentRecord) -> TournamentJson:
    """The tournament as served: plan, progress, standings, crosstable, ratings and its matches."""
    plan = record.plan
    shown_seed = record.seed_given or record.status in (FINISHED, CANCELLED, ABORTED)
    return {
        **summary_json(record),
        "options": plan.options,
        "rounds": plan.rounds,
        "games_per_pairing": plan.games_per_pairing,
        "turn_timer": {"seconds": plan.turn_timer} if plan.turn_timer is not None else None,
        "parallel": plan.parallel,
        "entrants": plan.numbered_entrants(),
        "seed_commitment": hashlib.sha256(plan.seed.encode()).hexdigest(),
        "seed": plan.seed if shown_seed else None,
        "challenges": [{"bot": bot, "status": answer} for bot, answer in sorted(record.consent.items())],
        "challenge_expires_at": record.challenge_expires_at,
        "abort_reason": record.abort_reason,
        **report(plan, record.slots, record.outcomes),
        "matches": [slot_json(record, slot) for slot in record.slots],
    }


def summary_json(record: TournamentRecord) -> TournamentSummary:
    """A tournament as the listing shows it."""
    plan = record.plan
    running = sum(1 for index in record.matches if index not in record.outcomes)
    planned_round = max((slot.round for slot in record.slots), default=0)
    return {
        "id": record.id,
        "url": f"/v1/tournaments/{record.id}",
        "game": plan.game,
        "players": plan.players,
        "format": plan.format,
        "cooperative": plan.cooperative,
        "status": record.status,
        "progress": {
            "done": len(record.outcomes),
            "total": plan.total_matches(),
            "running": running,
            "round": planned_round,
            "rounds": plan.rounds,
        },
        "created_at": record.created_at,
        "finished_at": record.finished_at,
    }


def slot_json(record: TournamentRecord, slot: Slot) -> ScheduledMatch:
    """One planned match: round, entrant per seat, its match id and how it ended."""
    outcome = record.outcomes.get(slot.index)
    match_id = record.matches.get(slot.index) or None
    if outcome is not None:
        status = "void" if outcome.void else "finished"
    elif match_id is not None:
        status = "running"
    else:
        status = "cancelled" if record.status == CANCELLED else "planned"
    return {
        "index": slot.index,
        "round": slot.round,
        "seats": slot.seats,
        "byes": slot.byes,
        "match": match_id,
        "status": status,
        "ranking": outcome.ranking if outcome and not outcome.void else None,
        "team_success": outcome.team_success if outcome else None,
    }
