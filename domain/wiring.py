"""The services object: every store, queue and scheduler, built once per process from the settings.

The API app and the workers build the same `Services` (boardgame.io's master beside its server):
what a stored change sets off is one list of listeners, run by whoever stored the change, so an
action played over HTTP, by an AI job or by a turn timer has the same consequences.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from domain.bots.challenges import Challenges
from domain.bots.history import BotHistory
from domain.bots.notices import tell_bots
from domain.events.match_stream import Renders
from domain.ladder.ladder import Ladder
from domain.matches.ai_turns import AiTurns
from domain.matches.reads import Reads
from domain.matchmaking.pairing import Matchmaker
from domain.quotas import Quotas
from domain.tournaments.director import Tournaments
from domain.turn_timers import TurnTimers
from engine import GameState
from model.match import MatchRecord
from model.settings import Settings
from store.bot_directory import BotDirectory
from store.changes import ChangeFeed
from store.jobs import JobQueue
from store.ladder import LadderStore
from store.matches import MatchStore
from store.replication import Replication
from store.tournaments import TournamentStore
from store.turn_timers import TimerQueue

log = logging.getLogger(__name__)
Listener = Callable[[MatchRecord, GameState], None]
"""Something a stored change sets off, given the new record and its engine state."""


@dataclass
class Services:
    """The stores, queues and schedulers of one process, and what a stored change sets off."""

    settings: Settings
    store: MatchStore
    jobs: JobQueue
    ai_turns: AiTurns
    timers: TurnTimers
    tournaments: Tournaments
    challenges: Challenges
    changes: ChangeFeed
    reads: Reads
    renders: Renders
    quotas: Quotas
    bot_history: BotHistory
    bot_directory: BotDirectory
    ladder: Ladder
    matchmaking: Matchmaker
    replication: Replication
    listeners: list[Listener] = field(default_factory=list)

    def after_change(self, record: MatchRecord, state: GameState, skip: Listener | None = None) -> None:
        """Run every listener on a change just stored (each in turn, in the order listed), but `skip`."""
        for listener in self.listeners:
            if listener != skip:
                listener(record, state)

    def tell_bots(self, record: MatchRecord, state: GameState) -> None:
        """Listener: tell the bots holding seats what the change means for them."""
        tell_bots(self.store, record, state)

    def challenge_bots(self, record: MatchRecord, state: GameState) -> None:
        """Listener: tell challenged bots of a waiting match and schedule its expiry; cancel them once it ended."""
        self.challenges.after_change(record, state)

    def schedule_ai_turns(self, record: MatchRecord, state: GameState) -> None:
        """Listener: queue a job for every AI seat that may act now."""
        self.ai_turns.after_change(record, state)

    def schedule_timeouts(self, record: MatchRecord, state: GameState) -> None:
        """Listener: schedule the timeout of every seat the game waits for."""
        self.timers.after_change(record, state)

    def advance_tournament(self, record: MatchRecord, state: GameState) -> None:
        """Listener: when a tournament's match finished, start its next matches (set off like any change)."""
        self.tournaments.after_change(record, self.after_change)

    def record_bot_history(self, record: MatchRecord, state: GameState) -> None:
        """Listener: list a started match in its bots' public histories, with its result once it finished."""
        self.bot_history.after_change(record, state)

    def remember_for_events(self, record: MatchRecord, state: GameState) -> None:
        """Listener: keep the version just stored for this process's events of it (no read of the match)."""
        self.renders.remember(record, state)

    def count_for_ladder(self, record: MatchRecord, state: GameState) -> None:
        """Listener: count a finished match in its game's ladder, once."""
        self.ladder.after_change(record, state)


def build_services(settings: Settings) -> Services:
    """The services on the settings' Redis, with the standard listeners."""
    url = settings.redis_url
    store = MatchStore.from_url(
        url, settings.finished_ttl, settings.idle_ttl, settings.idempotency_ttl, settings.ai_match_ttl
    )
    jobs = JobQueue.from_url(url, settings.job_ttl, settings.ai_retries)
    tournament_store = TournamentStore.from_url(url, settings.idle_ttl)
    timer_queue = TimerQueue.from_url(url, settings.ai_retries)
    challenges = Challenges(store, timer_queue, settings.challenge_seconds)
    reads = Reads()
    bot_history = BotHistory(store)
    counted_ttl = 2 * max(settings.finished_ttl, settings.idle_ttl)  # the sweep keeps a marker while its match lives
    ladder_store = LadderStore(store.client, counted_ttl)
    services = Services(
        settings=settings,
        store=store,
        jobs=jobs,
        ai_turns=AiTurns(store, jobs),
        timers=TurnTimers(store, timer_queue),
        tournaments=Tournaments(tournament_store, store, challenges, jobs),
        challenges=challenges,
        changes=ChangeFeed(store),
        reads=reads,
        renders=Renders(reads),
        quotas=Quotas.build(store, tournament_store, settings.limits, settings.events_heartbeat),
        bot_history=bot_history,
        bot_directory=BotDirectory(store.client),
        ladder=Ladder(ladder_store, store, bot_history, 4 * settings.worker_maintenance),
        matchmaking=Matchmaker.build(store, ladder_store, settings),
        replication=Replication.from_url(url, settings.wait_replicas, settings.wait_timeout_ms),
    )
    services.listeners.extend(
        [
            services.tell_bots,
            services.challenge_bots,
            services.schedule_ai_turns,
            services.schedule_timeouts,
            services.advance_tournament,
            services.record_bot_history,
            services.count_for_ladder,
            services.remember_for_events,
        ]
    )
    return services
