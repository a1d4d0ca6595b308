"""What the tournaments do between HTTP, the workers and the stores: create, advance, report.

A tournament's matches are ordinary matches whose seats are AI levels or bots; the AI workers play
them like any other. Whenever one of them finishes, the process that stored the finishing change
(an API process for a bot's move, a worker for an AI move or a timeout) asks for an *advance*:
record every finished match's outcome, plan the next Swiss round once a round is complete, and
start planned matches up to the tournament's `parallel` limit. One process advances a tournament
at a time (a lock with a timeout); a request made while the lock is held is a flag its holder
reads before letting go, so no finish is missed; outcomes are written with HSETNX and a slot's
match is claimed with HSETNX, so nothing is counted or started twice. The workers' maintenance
sweeps the running tournaments too, so an advance lost with a dead process happens anyway.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from api.http import load
from api.matches import service as matches
from api.matches.schemas import CreateMatchSchema
from api.record import FINISHED as MATCH_FINISHED
from api.record import MatchRecord, now_iso
from api.refusals import InvalidRequest, NotFound
from api.store import MatchStore
from api.tournaments.store import FINISHED, TournamentRecord, TournamentStore
from engine import GameState
from tournaments.plan import Outcome, Plan, Slot, is_complete, next_slots
from tournaments.ratings import report
from tournaments.setup import PlanError, build_plan

log = logging.getLogger(__name__)
OnStart = Callable[[MatchRecord, GameState], None]
"""What a newly stored match sets off (its AI turns, timers, bot notices): the caller's `after_change`."""
MAX_PASSES = 100
"""Advances one holder of the lock makes in a row before it leaves the rest to the next request or sweep."""


class Tournaments:
    """Creates tournaments and moves them on as their matches finish; all state in Redis."""

    def __init__(self, store: TournamentStore, match_store: MatchStore) -> None:
        self.store = store
        self.matches = match_store

    def bot_name(self, bot_id: str) -> str | None:
        """The name of a registered bot, or None when there is no such bot."""
        bot = self.matches.bots.load(bot_id)
        return bot.name if bot is not None else None

    def create(self, request: dict[str, Any], on_start: OnStart) -> TournamentRecord:
        """Check the request, store the tournament with its first matches planned, and start them."""
        seed_given = request.get("seed") is not None
        body = {**request, "seed": request["seed"] if seed_given else secrets.token_hex(32)}
        if body.get("turn_timer") is not None:
            body["turn_timer"] = body["turn_timer"]["seconds"]
        try:
            plan = build_plan(body, self.bot_name)
        except PlanError as error:
            raise InvalidRequest(error.message, errors={error.field: [error.message]}) from None
        tournament_id = secrets.token_urlsafe(12)
        self.store.create(tournament_id, plan, seed_given, now_iso())
        self.advance(tournament_id, on_start)
        record = self.store.load(tournament_id)
        assert record is not None
        return record

    def load(self, tournament_id: str) -> TournamentRecord:
        """The stored tournament, or a 404."""
        record = self.store.load(tournament_id) if len(tournament_id) <= 64 else None
        if record is None:
            raise NotFound(f"no tournament {tournament_id!r} (it may have expired)")
        return record

    def page(self, status: str | None, limit: int, cursor: int | None) -> tuple[list[dict[str, Any]], int | None]:
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
        """Ask for an advance and make it, unless another process holds the lock (it then makes it)."""
        self.store.ask_advance(tournament_id)
        for _ in range(MAX_PASSES):
            with self.store.locked(tournament_id) as taken:
                if not taken:
                    return
                while self.store.take_request(tournament_id):
                    self.step(tournament_id, on_start)
            if not self.store.has_request(tournament_id):
                return

    def step(self, tournament_id: str, on_start: OnStart) -> None:
        """Record finished matches, plan what is due, start matches up to the limit, finish when all is done."""
        record = self.store.load(tournament_id)
        if record is None:
            self.store.forget(tournament_id)
            return
        if record.status == FINISHED:
            return
        self.record_outcomes(record)
        new = next_slots(record.plan, record.slots, record.outcomes)
        self.store.add_slots(tournament_id, new)
        record.slots.extend(new)
        self.start_matches(record, on_start)
        if is_complete(record.plan, record.slots, record.outcomes):
            self.store.finish(tournament_id, now_iso())
            log.info("tournament %s finished: %d matches", tournament_id, len(record.outcomes))

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
        """Start planned matches in schedule order while fewer than `parallel` are running."""
        running = sum(1 for index in record.matches if index not in record.outcomes)
        waiting = [slot for slot in record.slots if slot.index not in record.matches]
        for slot in waiting[: max(0, record.plan.parallel - running)]:
            match, state = self.new_match(record.id, record.plan, slot)
            if self.store.claim_slot(record.id, slot.index, match.id):
                record.matches[slot.index] = match.id
                on_start(match, state)

    def new_match(self, tournament_id: str, plan: Plan, slot: Slot) -> tuple[MatchRecord, GameState]:
        """Store the slot's match: its seats, the tournament's options and timer, the seed derived for it."""
        body = {
            "game": plan.game,
            "players": plan.players,
            "options": plan.options,
            "seed": plan.match_seed(slot.index),
            "seats": [plan.entrants[entrant].seat_spec() for entrant in slot.seats],
            "turn_timer": {"seconds": plan.turn_timer} if plan.turn_timer is not None else None,
        }
        match, state, _ = matches.create_match(self.matches, load(CreateMatchSchema(), body), tournament=tournament_id)
        return match, state


def outcome_of(index: int, match_id: str, match: MatchRecord | None) -> Outcome:
    """How a finished match ended, by seat; void when the match is gone."""
    if match is None or match.status != MATCH_FINISHED:  # gone, or aborted: no result to count
        return Outcome(index, [], match=match_id, void=True)
    result = matches.engine_state(match).result()
    assert result is not None, f"finished match {match_id} has no result"
    return Outcome(index, [list(group) for group in result.ranking], result.team_success, match=match_id)


def tournament_json(record: TournamentRecord) -> dict[str, Any]:
    """The tournament as served: plan, progress, standings, crosstable, ratings and its matches."""
    plan = record.plan
    shown_seed = record.seed_given or record.status == FINISHED
    return {
        **summary_json(record),
        "options": plan.options,
        "rounds": plan.rounds,
        "games_per_pairing": plan.games_per_pairing,
        "turn_timer": {"seconds": plan.turn_timer} if plan.turn_timer is not None else None,
        "parallel": plan.parallel,
        "entrants": [{"entrant": i, **entrant.to_json()} for i, entrant in enumerate(plan.entrants)],
        "seed_commitment": hashlib.sha256(plan.seed.encode()).hexdigest(),
        "seed": plan.seed if shown_seed else None,
        **report(plan, record.slots, record.outcomes),
        "matches": [slot_json(record, slot) for slot in record.slots],
    }


def summary_json(record: TournamentRecord) -> dict[str, Any]:
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


def slot_json(record: TournamentRecord, slot: Slot) -> dict[str, Any]:
    """One planned match: round, entrant per seat, its match id and how it ended."""
    outcome = record.outcomes.get(slot.index)
    match_id = record.matches.get(slot.index)
    status = "void" if outcome and outcome.void else "finished" if outcome else "running" if match_id else "planned"
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
