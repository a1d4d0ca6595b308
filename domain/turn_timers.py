"""Turn timers: each seat the game waits for has `turn_seconds` to act, or its game's default action is played.

A seat's deadline is part of the match record, written by the same compare-and-set as the change
that sets it: the clock starts when the game starts waiting for the seat, starts again after each
of the seat's own actions while the game still waits for it, and keeps running while other seats
act. After each change, every deadline gets a timeout job scheduled with RQ's scheduler
(`Queue.enqueue_at` on the queue `parlour-timers`, run by `python -m workers --timers`), under an
id made of the match, the seat and the deadline, so scheduling it twice schedules it once. The job
(`workers.timers.time_out_seat`) plays the seat's default action only while that deadline is
still the seat's: a seat that acted in time has a new deadline or none, and the job does nothing.
The timer worker's maintenance sweeps the timed matches for a deadline left without a job (the API
died between storing a change and scheduling its job) and schedules it.

Clocks are fair across downtime: the timer scheduler writes a heartbeat every second (`TimerClock`;
the timers' keys and their queue are `store/turn_timers.py`'s). A silence longer than
`AWAY_AFTER_MS` (the service was down, or its timer worker was, or Redis was; to a scheduler that
has just started or taken over, any silence longer than `RESTART_AWAY_AFTER_MS`) is recorded once,
atomically, as a downtime; then every running timed match gets, for each seat, the part of that
downtime its clock ran through added to its deadline, with the same compare-and-set (a new version)
as any change, and its timeout scheduled under the new deadline's job id. The timeout job for the
old deadline then finds the deadline moved and does nothing. A match's record keeps the end of the
latest downtime it was made up for (`fair_until_ms`, written by that same compare-and-set), so
whoever moves it (the scheduler, or a timeout job that finds its match not made up yet) moves it
once. The scheduler makes up a slice of the matches at each look (`MAKE_UP_SLICE`) and queues the
timeouts due in between, so a long make-up never holds the other timers back; a timeout job first
makes up its own match. A downtime is forgotten once every timed match has been made up for; a
scheduler that dies half-way leaves the rest to the next one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import redis

from engine import GameState
from model.match import ACTIVE, MatchRecord, now_iso
from store.matches import MatchStore
from store.turn_timers import Downtime, TimerClock, TimerQueue

log = logging.getLogger(__name__)
MIN_SECONDS, MAX_SECONDS = 1, 86_400
"""Bounds of the `turn_timer` option: a second (the scheduler's precision) to a day."""
SWEEP_GRACE = 5.0
"""Seconds a change is left to schedule its own timers before the sweep looks at it."""
AWAY_AFTER_MS = 3000
"""A silence between two heartbeats longer than this (three missed beats) is downtime, given back to the seats."""
MAKE_UP_SLICE = 0.25
"""Seconds one look of the scheduler spends moving deadlines for downtimes before it queues the timeouts due."""
RESTART_AWAY_AFTER_MS = 1200
"""The same for a scheduler's first beat after it starts or takes over: more than one missed beat is downtime."""
MOVE_ATTEMPTS = 20
"""Stale versions one match is read again for while its deadlines are moved."""


def parse_iso(moment: str) -> datetime:
    """An ISO 8601 UTC timestamp as the API writes it (`...Z`) as an aware datetime."""
    return datetime.fromisoformat(moment.replace("Z", "+00:00"))


def iso(moment: datetime) -> str:
    """An aware datetime as the API writes timestamps: UTC, milliseconds, `Z`."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seconds_until(deadline: str) -> float:
    """Seconds from now until an ISO timestamp (negative once it has passed)."""
    return (parse_iso(deadline) - datetime.now(UTC)).total_seconds()


def next_deadlines(
    before: MatchRecord | None, after: MatchRecord, state: GameState, actor: int | None
) -> dict[str, str]:
    """Each waited-for seat's deadline at the new version: kept if it waited already and did not act, else fresh.

    A fresh deadline is the change's time (`after.updated_at`) plus the timer. A match without a
    timer, or not running, has none.
    """
    if after.turn_seconds is None or after.status != ACTIVE:
        return {}
    fresh = iso(parse_iso(after.updated_at) + timedelta(seconds=after.turn_seconds))
    running = before.deadlines if before is not None and before.status == ACTIVE else {}
    deadlines = {}
    for seat in state.waiting_for():
        kept = running.get(str(seat)) if seat != actor else None
        deadlines[str(seat)] = kept or fresh
    return deadlines


def deadlines_json(record: MatchRecord) -> list[dict[str, object]]:
    """The deadlines as match views show them: one `{"seat", "at"}` per waited-for seat, in seat order."""
    return [{"seat": int(seat), "at": at} for seat, at in sorted(record.deadlines.items(), key=lambda i: int(i[0]))]


def clock_ms() -> int:
    """Now, in epoch milliseconds."""
    return time.time_ns() // 1_000_000


def epoch_ms(moment: datetime) -> int:
    """An aware datetime as epoch milliseconds."""
    return round(moment.timestamp() * 1000)


def time_taken(downtime: Downtime, clock_started: datetime) -> timedelta:
    """The part of a downtime during which a clock started at `clock_started` was running."""
    started = max(epoch_ms(clock_started), downtime.since_ms)
    return timedelta(milliseconds=max(0, downtime.until_ms - started))


def moved_deadlines(record: MatchRecord, downtime: Downtime) -> dict[str, str]:
    """The record's deadlines, each moved later by the part of the downtime its seat's clock ran through.

    A clock started `turn_seconds` before its deadline: one running since before the downtime gets
    all of it back, one started during it (the API was up, the timers were not) the rest of it, one
    started after it nothing.
    """
    if record.turn_seconds is None:
        return dict(record.deadlines)
    turn = timedelta(seconds=record.turn_seconds)
    moved = {}
    for seat, at in record.deadlines.items():
        deadline = parse_iso(at)
        taken = time_taken(downtime, deadline - turn)
        moved[seat] = iso(deadline + taken) if taken else at
    return moved


class TurnTimers:
    """Schedules a timeout job for every deadline a change sets; sweeps for deadlines without one."""

    def __init__(self, store: MatchStore, queue: TimerQueue) -> None:
        self.store = store
        self.queue = queue
        self.clock = TimerClock(store.client, AWAY_AFTER_MS)

    def after_change(self, record: MatchRecord, state: GameState) -> list[int]:
        """Schedule the timeout of every waited-for seat at this version; the seats newly scheduled."""
        scheduled = []
        for seat, deadline in record.deadlines.items():
            if self.queue.schedule(record.id, int(seat), deadline):
                scheduled.append(int(seat))
        return scheduled

    def sweep(self, grace: float = SWEEP_GRACE) -> list[tuple[str, int]]:
        """Schedule every deadline of a running timed match still without its job; the (match, seat) scheduled."""
        scheduled = []
        for match_id in self.store.timed_matches():
            record = self.store.load(match_id)
            if record is None or record.ended:
                self.store.untrack_timed_match(match_id)
                continue
            if -seconds_until(record.updated_at) < grace:
                continue
            for seat, deadline in record.deadlines.items():
                if self.queue.schedule(record.id, int(seat), deadline):
                    log.warning("match %s: seat %s's timeout at %s had no job; scheduled", match_id, seat, deadline)
                    scheduled.append((match_id, int(seat)))
        return scheduled

    def keep_fair(
        self,
        on_commit: Callable[[MatchRecord], None],
        now_ms: int | None = None,
        away_after_ms: int = AWAY_AFTER_MS,
        budget: float = MAKE_UP_SLICE,
    ) -> list[str]:
        """Beat the heartbeat, then make up for the downtimes for up to `budget` seconds; the matches moved."""
        self.clock.beat(now_ms if now_ms is not None else clock_ms(), away_after_ms)
        until = time.monotonic() + budget
        moved: list[str] = []
        for downtime in self.clock.downtimes():
            if not self.make_up(downtime, on_commit, until, moved):
                break  # the next look goes on where this one stopped
        return moved

    def make_up(
        self, downtime: Downtime, on_commit: Callable[[MatchRecord], None], until: float, moved: list[str]
    ) -> bool:
        """Move the deadlines of the timed matches by what the downtime took from their seats until the monotonic
        time `until` (adding the moved ones to `moved`); True, and the downtime forgotten, once all are done."""
        for match_id in self.store.timed_matches():
            if self.clock.is_made_up(downtime, match_id):
                continue  # done at an earlier look, or by a scheduler that died before it finished
            if time.monotonic() >= until:
                return False
            if self.move_deadlines(match_id, downtime, on_commit):
                moved.append(match_id)
            self.clock.mark_made_up(downtime, match_id)
        log.warning("turn timers were away for %.1f s: the timed matches' deadlines are moved", downtime.seconds)
        self.clock.forget(downtime)
        return True

    def make_up_match(self, match_id: str, on_commit: Callable[[MatchRecord], None]) -> bool:
        """Move one match's deadlines for every downtime not made up for it yet (a timeout job's first step)."""
        moved = False
        for downtime in self.clock.downtimes():
            if not self.clock.is_made_up(downtime, match_id):
                moved = self.move_deadlines(match_id, downtime, on_commit) or moved
                self.clock.mark_made_up(downtime, match_id)
        return moved

    def move_deadlines(self, match_id: str, downtime: Downtime, on_commit: Callable[[MatchRecord], None]) -> bool:
        """Commit the match at a new version with its deadlines moved for the downtime; False if none moved (or it
        was made up for this downtime already: its record says so, so two processes never both move it)."""
        for _ in range(MOVE_ATTEMPTS):
            record = self.store.load(match_id)
            if record is None or record.status != ACTIVE or record.fair_until_ms >= downtime.until_ms:
                return False
            deadlines = moved_deadlines(record, downtime)
            if deadlines == record.deadlines:
                return False
            after = replace(
                record,
                version=record.version + 1,
                deadlines=deadlines,
                fair_until_ms=downtime.until_ms,
                updated_at=now_iso(),
            )
            outcome = self.store.commit(after, record.version, previous_status=record.status)
            if outcome.kind == "ok":
                self.announce(after, on_commit)
                return True
            if outcome.kind == "missing":
                return False
        log.warning("match %s kept changing while its deadlines were moved; left as they are", match_id)
        return False

    @staticmethod
    def announce(record: MatchRecord, on_commit: Callable[[MatchRecord], None]) -> None:
        """Set off what a stored change sets off (new timeout jobs, bots told); the sweeps redo what a failure skips."""
        try:
            on_commit(record)
        except redis.RedisError as error:
            log.warning("match %s: version %d with moved deadlines not announced: %s", record.id, record.version, error)
