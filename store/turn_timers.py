"""The turn timers' Redis: the timeout jobs on RQ's scheduler, the scheduler's heartbeat and the downtimes.

* `parlour:timers:heartbeat`          string: epoch ms of the timer scheduler's latest heartbeat (one a second)
* `parlour:timers:downtimes`          list: the downtimes not yet made up for, oldest first, as JSON
  `{"since": ms, "until": ms}`
* `parlour:timers:made-up:<since>-<until>`  set: the timed matches already made up for one downtime, kept
  `MADE_UP_TTL` seconds should the downtime never be finished

The timeout jobs are RQ's (`rq:job:timeout-...`, scheduled on the queue `parlour-timers` with
`Queue.enqueue_at`), and so are the paced AI moves' (`rq:job:pace-...`, `TimerQueue.call_at`); what a
heartbeat's silence means and how deadlines move is `domain/turn_timers.py`'s.
The one script is `store/lua/turn_timers/beat.lua`.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.serializers import JSONSerializer

from store.connection import lua_script, redis_client

TIMER_QUEUE = "parlour-timers"
TIMEOUT_JOB = "workers.timers.time_out_seat"
TIMEOUT_JOB_TIMEOUT = 60
"""Seconds a timeout job may run: it reads the match, checks one action and commits it."""
RESULT_TTL = 600
"""Seconds a finished timeout job is kept: most find that the seat acted in time, and are not worth keeping."""
HEARTBEAT_KEY = "parlour:timers:heartbeat"
"""String: epoch milliseconds of the timer scheduler's latest heartbeat (one a second)."""
DOWNTIMES_KEY = "parlour:timers:downtimes"
"""List: the downtimes not yet made up for, oldest first, as JSON `{"since": ms, "until": ms}`."""
MADE_UP_KEY = "parlour:timers:made-up:{since}-{until}"
"""Set: the timed matches already made up for one downtime."""
MADE_UP_TTL = 86_400
"""Seconds a downtime's set of matches made up for is kept should it never be finished."""


def timeout_job_id(match_id: str, seat: int, deadline: str) -> str:
    """The id of the job that times a seat out at a deadline: the same for the same deadline.

    The deadline comes first: RQ's scheduler queues the jobs due in one second in id order, so they
    run in deadline order, and one waiting for its deadline never holds up one due earlier.
    """
    digits = "".join(ch for ch in deadline if ch.isdigit())
    return f"timeout-{digits}-{match_id}-{seat}"


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


class TimerClock:
    """The timer scheduler's heartbeat in Redis, and the downtimes it has not made up for yet."""

    def __init__(self, client: redis.Redis, away_after_ms: int) -> None:
        self.client = client  # decoded replies: the store's client
        self.away_after_ms = away_after_ms
        self._beat = lua_script(client, "turn_timers", "beat")

    def beat(self, now_ms: int, away_after_ms: int | None = None) -> bool:
        """Record a heartbeat at `now_ms`; True when the silence before it (over `away_after_ms`, else the clock's
        own) became a downtime."""
        away = self.away_after_ms if away_after_ms is None else away_after_ms
        return bool(self._beat(keys=[HEARTBEAT_KEY, DOWNTIMES_KEY], args=[now_ms, away]))

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
                datetime.fromisoformat(moment),
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

    def call_at(self, due: float, function: str, args: tuple[object, ...], job_id: str) -> bool:
        """Run a short job on the timer queue at epoch time `due` (s), within the second before it: RQ's scheduler
        works in whole seconds, so it is scheduled for `due`'s second, or queued at once when that second has
        begun, and the job waits out the rest itself. False if that job id is queued or scheduled already."""
        options: dict[str, Any] = {
            "job_id": job_id,
            "unique": True,
            "result_ttl": RESULT_TTL,
            "failure_ttl": RESULT_TTL,
            "retry": Retry(max=self.retries) if self.retries else None,
        }
        try:
            if due < math.floor(time.time()) + 1:
                self.queue.enqueue_call(function, args=args, timeout=TIMEOUT_JOB_TIMEOUT, **options)
            else:
                moment = datetime.fromtimestamp(due, UTC)
                self.queue.enqueue_at(moment, function, *args, job_timeout=TIMEOUT_JOB_TIMEOUT, **options)
        except DuplicateJobError:
            return False
        return True
