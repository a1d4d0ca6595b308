"""AI seats play by themselves: after every change, each AI seat that may act gets a job."""

from __future__ import annotations

import logging

from ai.levels import level_named
from api.jobs.queue import JobQueue
from api.matches.service import seat_may_act
from api.record import MatchRecord
from api.store import MatchStore
from engine import GameState

log = logging.getLogger(__name__)


class AiTurns:
    """Schedules the jobs that play AI seats; one job per seat and version, however often asked."""

    def __init__(self, store: MatchStore, queue: JobQueue) -> None:
        self.store = store
        self.queue = queue

    def after_change(self, record: MatchRecord, state: GameState) -> list[int]:
        """Queue a turn for every AI seat that may act at this version; the seats queued now."""
        queued = []
        for seat in record.seats:
            if seat.ai_level is None or not seat_may_act(record, state, seat.seat):
                continue
            job_id = self.queue.new_turn_id(record.id, seat.seat, record.version)
            if not self.store.claim_ai_turn(record.id, seat.seat, record.version, job_id):
                continue  # another change already queued this turn
            self.queue.enqueue_turn(job_id, record.id, seat.seat, record.version, level_named(seat.ai_level).time_cap)
            log.info("queued AI turn %s (level %s)", job_id, seat.ai_level)
            queued.append(seat.seat)
        return queued
