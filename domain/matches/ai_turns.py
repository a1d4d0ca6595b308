"""AI seats play by themselves: after every change, each AI seat that may act gets a job.

A turn is claimed for one job (`MatchStore.claim_ai_turn`) before that job is queued, so a turn
asked for by several changes is still played once. Should a job never run at all (the API died
between storing a change and queueing its job, or a job failed every retry), the workers'
periodic `sweep` finds the turn without a live job and queues it again.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from ai.levels import level_named
from domain.matches.commands import engine_state, seat_may_act
from engine import GameState
from model.match import ACTIVE, MatchRecord
from store.jobs import JobQueue
from store.matches import MatchStore, plays_itself

log = logging.getLogger(__name__)
SWEEP_GRACE = 5.0
"""Seconds a change is left to its own scheduling before the sweep looks at it."""


class AiTurns:
    """Schedules the jobs that play AI seats; one job per seat and version, however often asked."""

    def __init__(self, store: MatchStore, queue: JobQueue) -> None:
        self.store = store
        self.queue = queue

    def after_change(self, record: MatchRecord, state: GameState) -> list[int]:
        """Queue a turn for every AI seat that may act at this version; the seats queued now."""
        seats = self.ai_seats_to_act(record, state)
        if not seats:
            return []
        self.store.track_ai_match(record.id)  # before any job: the sweep must know the match
        job_ids = {seat: self.queue.new_turn_id(record.id, seat, record.version) for seat in seats}
        claimed = self.store.claim_ai_turns(record.id, record.version, job_ids)
        for seat in sorted(claimed):
            self.enqueue(record, seat, job_ids[seat])
        return sorted(claimed)

    def sweep(self, grace: float = SWEEP_GRACE) -> list[tuple[str, int]]:
        """Queue again every AI turn left without a live job for `grace` seconds; the (match, seat) queued."""
        queued = []
        for match_id in self.store.ai_matches():
            record = self.store.load(match_id)
            if record is None or record.ended:
                self.store.untrack_ai_match(match_id)
                continue
            if record.status != ACTIVE:
                continue
            if seconds_since(record.updated_at) < grace:
                continue
            state = engine_state(record)
            for seat in self.ai_seats_to_act(record, state):
                claim = self.store.ai_turn_claim(record.id, seat, record.version)
                if claim is not None and self.queue.is_pending(claim):
                    continue
                job_id = self.queue.new_turn_id(record.id, seat, record.version)
                if claim is None:
                    taken = self.store.claim_ai_turn(record.id, seat, record.version, job_id)
                else:
                    taken = self.store.reclaim_ai_turn(record.id, seat, record.version, claim, job_id)
                if taken:
                    log.warning(
                        "match %s: seat %d's turn at version %d had no job; queued again",
                        match_id,
                        seat,
                        record.version,
                    )
                    self.enqueue(record, seat, job_id)
                    queued.append((match_id, seat))
        return queued

    @staticmethod
    def ai_seats_to_act(record: MatchRecord, state: GameState) -> list[int]:
        """The AI seats with a legal action now."""
        return [s.seat for s in record.seats if s.ai_level is not None and seat_may_act(record, state, s.seat)]

    def enqueue(self, record: MatchRecord, seat: int, job_id: str) -> None:
        """Queue the job that plays the seat at the record's version."""
        level = record.seats[seat].ai_level
        assert level is not None
        time_cap = level_named(level).time_cap
        apart = record.tournament is not None or plays_itself(record)  # nobody is waiting for its moves
        self.queue.enqueue_turn(job_id, record.id, seat, record.version, time_cap, apart)
        log.info("queued AI turn %s (level %s)", job_id, level)


def seconds_since(timestamp: str) -> float:
    """Seconds from an ISO 8601 UTC timestamp until now."""
    return (datetime.now(UTC) - datetime.fromisoformat(timestamp.replace("Z", "+00:00"))).total_seconds()
