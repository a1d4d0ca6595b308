"""What a job needs, built once per process from the same environment the API reads."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from api.ai_turns import AiTurns
from api.config import Settings
from api.jobs.queue import JobQueue
from api.record import MatchRecord
from api.store import MatchStore
from api.timers import TimerQueue, TurnTimers
from api.tournaments.service import Tournaments
from api.tournaments.store import TournamentStore
from engine import GameState


@dataclass(frozen=True)
class Context:
    """The match store, job queue, AI-turn scheduler, turn timers and tournaments of one worker process."""

    store: MatchStore
    queue: JobQueue
    turns: AiTurns
    timers: TurnTimers
    tournaments: Tournaments

    def after_change(self, record: MatchRecord, state: GameState) -> None:
        """What a stored change sets off: AI turns, timeouts of waited-for seats, a tournament's next matches."""
        self.turns.after_change(record, state)
        self.timers.after_change(record, state)
        self.tournaments.after_change(record, self.after_change)


@cache
def context() -> Context:
    """This process's context (REDIS_URL and the PARLOUR_* settings, as for the API)."""
    settings = Settings()
    store = MatchStore.from_url(settings.redis_url, settings.finished_ttl, settings.idle_ttl, settings.idempotency_ttl)
    queue = JobQueue.from_url(settings.redis_url, settings.job_ttl, settings.ai_retries)
    timers = TurnTimers(store, TimerQueue.from_url(settings.redis_url, settings.ai_retries))
    tournaments = Tournaments(TournamentStore.from_url(settings.redis_url, settings.idle_ttl), store)
    return Context(store, queue, AiTurns(store, queue), timers, tournaments)
