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
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from api.record import ACTIVE, MatchRecord
from api.store import MatchStore, redis_client
from engine import GameState

log = logging.getLogger(__name__)
TIMER_QUEUE = "parlour-timers"
TIMEOUT_JOB = "workers.timers.time_out_seat"
MIN_SECONDS, MAX_SECONDS = 1, 86_400
"""Bounds of the `turn_timer` option: a second (the scheduler's precision) to a day."""
TIMEOUT_JOB_TIMEOUT = 60
"""Seconds a timeout job may run: it reads the match, checks one action and commits it."""
RESULT_TTL = 600
"""Seconds a finished timeout job is kept: most find that the seat acted in time, and are not worth keeping."""
SWEEP_GRACE = 5.0
"""Seconds a change is left to schedule its own timers before the sweep looks at it."""


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


def timeout_job_id(match_id: str, seat: int, deadline: str) -> str:
    """The id of the job that times a seat out at a deadline: the same for the same deadline."""
    digits = "".join(ch for ch in deadline if ch.isdigit())
    return f"timeout-{match_id}-{seat}-{digits}"


class TimerQueue:
    """Schedules timeout jobs with RQ's scheduler."""

    @classmethod
    def from_url(cls, url: str, retries: int) -> TimerQueue:
        """A timer queue on `url`: undecoded replies (for RQ), on a blocking pool like the store's."""
        return cls(redis_client(url), retries)

    def __init__(self, connection: redis.Redis, retries: int) -> None:
        self.retries = retries
        self.queue = Queue(TIMER_QUEUE, connection=connection, serializer=JSONSerializer)

    def schedule(self, match_id: str, seat: int, deadline: str) -> bool:
        """Schedule the seat's timeout at the deadline; False if that timeout was scheduled already."""
        return self.schedule_call(
            deadline, TIMEOUT_JOB, (match_id, seat, deadline), timeout_job_id(match_id, seat, deadline)
        )

    def schedule_call(self, moment: str, function: str, args: tuple[object, ...], job_id: str) -> bool:
        """Schedule a short job (a function's dotted name) at an ISO time; False if that job id is scheduled already."""
        try:
            self.queue.enqueue_at(
                parse_iso(moment),
                function,
                *args,
                job_id=job_id,
                unique=True,
                job_timeout=TIMEOUT_JOB_TIMEOUT,
                result_ttl=RESULT_TTL,
                failure_ttl=RESULT_TTL,
                retry=Retry(max=self.retries) if self.retries else None,
            )
        except DuplicateJobError:
            return False
        return True


class TurnTimers:
    """Schedules a timeout job for every deadline a change sets; sweeps for deadlines without one."""

    def __init__(self, store: MatchStore, queue: TimerQueue) -> None:
        self.store = store
        self.queue = queue

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
