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

Clocks are fair across downtime: the timer scheduler writes a heartbeat every second
(`TimerClock`). A silence longer than `AWAY_AFTER_MS` (the service was down, or its timer worker
was, or Redis was; to a scheduler that has just started or taken over, any silence longer than
`RESTART_AWAY_AFTER_MS`) is recorded once, atomically, as a downtime; then every running timed match
gets, for each seat, the part of that downtime its clock ran through added to its deadline, with
the same compare-and-set (a new version) as any change, and its timeout scheduled under the new
deadline's job id. The timeout job for the old deadline then finds the deadline moved and does
nothing. A match's record keeps the end of the latest downtime it was made up for
(`fair_until_ms`, written by that same compare-and-set), so whoever moves it (the scheduler, or a
timeout job that finds its match not made up yet) moves it once. The scheduler makes up a slice of
the matches at each look (`MAKE_UP_SLICE`) and queues the timeouts due in between, so a long make-up
never holds the other timers back; a timeout job first makes up its own match. A downtime is
forgotten once every timed match has been made up for; a scheduler that dies half-way leaves the
rest to the next one.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from engine import GameState
from model.match import ACTIVE, MatchRecord, now_iso
from store.connection import redis_client
from store.matches import MatchStore

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
HEARTBEAT_KEY = "parlour:timers:heartbeat"
"""String: epoch milliseconds of the timer scheduler's latest heartbeat (one a second)."""
DOWNTIMES_KEY = "parlour:timers:downtimes"
"""List: the downtimes not yet made up for, oldest first, as JSON `{"since": ms, "until": ms}`."""
MADE_UP_KEY = "parlour:timers:made-up:{since}-{until}"
"""Set: the timed matches already made up for one downtime."""
AWAY_AFTER_MS = 3000
"""A silence between two heartbeats longer than this (three missed beats) is downtime, given back to the seats."""
MAKE_UP_SLICE = 0.25
"""Seconds one look of the scheduler spends moving deadlines for downtimes before it queues the timeouts due."""
RESTART_AWAY_AFTER_MS = 1200
"""The same for a scheduler's first beat after it starts or takes over: more than one missed beat is downtime."""
MADE_UP_TTL = 86_400
"""Seconds a downtime's set of matches made up for is kept should it never be finished."""
MOVE_ATTEMPTS = 20
"""Stale versions one match is read again for while its deadlines are moved."""

# Write the heartbeat `now` (ARGV[1], ms) unless a later one is there (another host's clock ahead),
# and record the silence since the previous beat as a downtime when it exceeds ARGV[2] ms. Atomic,
# so of several timer workers only one records each downtime. Returns 1 when one was recorded.
_BEAT = """
local last = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[1])
if last and now <= tonumber(last) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if last and now - tonumber(last) > tonumber(ARGV[2]) then
  redis.call('RPUSH', KEYS[2], '{"since":' .. last .. ',"until":' .. ARGV[1] .. '}')
  return 1
end
return 0
"""


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
    """The id of the job that times a seat out at a deadline: the same for the same deadline.

    The deadline comes first: RQ's scheduler queues the jobs due in one second in id order, so they
    run in deadline order, and one waiting for its deadline never holds up one due earlier.
    """
    digits = "".join(ch for ch in deadline if ch.isdigit())
    return f"timeout-{digits}-{match_id}-{seat}"


def clock_ms() -> int:
    """Now, in epoch milliseconds."""
    return time.time_ns() // 1_000_000


def epoch_ms(moment: datetime) -> int:
    """An aware datetime as epoch milliseconds."""
    return round(moment.timestamp() * 1000)


@dataclass(frozen=True)
class Downtime:
    """A time the turn timers were away: from the last heartbeat before it to the first after it (epoch ms)."""

    since_ms: int
    until_ms: int
    raw: str  # as stored in the list, to remove it by value

    @classmethod
    def parse(cls, raw: str) -> Downtime:
        """Read one back from the downtimes list."""
        fields = json.loads(raw)
        return cls(int(fields["since"]), int(fields["until"]), raw)

    @property
    def seconds(self) -> float:
        """How long the timers were away."""
        return (self.until_ms - self.since_ms) / 1000

    def taken_from(self, clock_started: datetime) -> timedelta:
        """The part of this downtime during which a clock started at `clock_started` was running."""
        started = max(epoch_ms(clock_started), self.since_ms)
        return timedelta(milliseconds=max(0, self.until_ms - started))


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
        taken = downtime.taken_from(deadline - turn)
        moved[seat] = iso(deadline + taken) if taken else at
    return moved


class TimerClock:
    """The timer scheduler's heartbeat in Redis, and the downtimes it has not made up for yet."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client  # decoded replies: the store's client
        self._beat = client.register_script(_BEAT)

    def beat(self, now_ms: int, away_after_ms: int = AWAY_AFTER_MS) -> bool:
        """Record a heartbeat at `now_ms`; True when the silence before it (over `away_after_ms`) became a downtime."""
        return bool(self._beat(keys=[HEARTBEAT_KEY, DOWNTIMES_KEY], args=[now_ms, away_after_ms]))

    def last_beat(self) -> int | None:
        """Epoch ms of the latest heartbeat, if any."""
        raw = self.client.get(HEARTBEAT_KEY)
        return int(raw) if raw is not None else None

    def downtimes(self) -> list[Downtime]:
        """The downtimes not yet made up for, oldest first."""
        raws = self.client.lrange(DOWNTIMES_KEY, 0, -1)
        return [Downtime.parse(raw if isinstance(raw, str) else raw.decode()) for raw in raws]

    def is_made_up(self, downtime: Downtime, match_id: str) -> bool:
        """True once the match's deadlines were moved for this downtime (or found nothing to move)."""
        return bool(self.client.sismember(self.made_up_key(downtime), match_id))

    def mark_made_up(self, downtime: Downtime, match_id: str) -> None:
        """Remember that the match is done for this downtime."""
        pipe = self.client.pipeline(transaction=True)
        pipe.sadd(self.made_up_key(downtime), match_id)
        pipe.expire(self.made_up_key(downtime), MADE_UP_TTL)
        pipe.execute()

    def forget(self, downtime: Downtime) -> None:
        """Drop a downtime every timed match was made up for."""
        pipe = self.client.pipeline(transaction=True)
        pipe.lrem(DOWNTIMES_KEY, 1, downtime.raw)
        pipe.delete(self.made_up_key(downtime))
        pipe.execute()

    @staticmethod
    def made_up_key(downtime: Downtime) -> str:
        """The set of matches done for a downtime."""
        return MADE_UP_KEY.format(since=downtime.since_ms, until=downtime.until_ms)


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
        self.clock = TimerClock(store.client)

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
