"""The timeout job: play a seat's default action when its turn timer ran out, and the worker that runs it.

The job is named by (match, seat, deadline). It acts only while that deadline is still the seat's
in the stored match: a seat that acted in time has a new deadline or none, and the job does
nothing. The default action goes through `apply_action`, the same checked compare-and-set as any
action, pinned to the version read; when another seat's action lands first (a stale version) the
job reads the match again and checks the deadline again, so a timeout is never lost or doubled.

The timer worker runs RQ's scheduler in a process of its own (`TimerScheduler`), changed in four
ways: it dies with its worker; it takes over the lock of a scheduler that died without releasing
it (a SIGKILL) instead of waiting a minute for the lock to expire; it looks just after each whole
second, when RQ's whole-second scheduled times fall due; and before it queues due jobs it keeps
the clocks fair (`domain.turn_timers.TurnTimers.keep_fair`: a heartbeat, and deadlines moved across any
downtime). The worker makes the clocks fair once itself before it takes its first job. After each look the
scheduler also sweeps the matchmaking pools (`domain.matchmaking.pairing.Matchmaker.sweep`: windows widen,
tickets pair and expire), so a waiting ticket is paired within a second of its window reaching another's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import redis
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler
from rq.scripts import release_lock
from rq.utils import now, utcparse

from domain.matches.commands import apply_action, engine_state
from domain.turn_timers import AWAY_AFTER_MS, RESTART_AWAY_AFTER_MS, seconds_until
from engine import ActionRejected
from model.jobs import TimeoutJobResult
from model.match import ACTIVE, MatchRecord
from model.refusals import Refusal, StaleVersion
from workers.context import context
from workers.parent_death import set_parent_death_signal
from workers.worker import PromptWorker

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 20
"""Stale versions one job reads the match again for before it fails (and RQ retries it)."""
EARLY_WAIT = 5.0
"""RQ's scheduler works in whole seconds, so a job may start up to a second early: it waits that out."""
SCHEDULER_INTERVAL = 1
"""Seconds between the scheduler's looks (RQ's lock lives this plus 60 s, refreshed at each look)."""
LOOK_AFTER_SECOND = 0.01
"""The scheduler looks this long after each whole second, when the jobs scheduled for that second fall due."""
SCHEDULER_STALE = 10.0
"""Seconds without a heartbeat after which a scheduler on another host that holds the lock is taken for dead."""


def time_out_seat(match_id: str, seat: int, deadline: str) -> TimeoutJobResult:
    """Play the seat's default action if `deadline` is still its deadline and has passed (once the match was made
    up for any downtime: a slice of the scheduler's make-up may not have reached it yet)."""
    ctx = context()
    if ctx.timers.make_up_match(match_id, announce):
        return {"outcome": "deadline-moved", "match": match_id, "seat": seat}
    for _ in range(MAX_ATTEMPTS):
        record = ctx.store.load(match_id)
        if record is None or record.status != ACTIVE:
            return {"outcome": "match-over-or-gone", "match": match_id, "seat": seat}
        if record.deadlines.get(str(seat)) != deadline:
            return {"outcome": "acted-in-time", "match": match_id, "seat": seat, "version": record.version}
        early = seconds_until(deadline)
        if early > 0:
            time.sleep(min(early, EARLY_WAIT))
            continue
        action = engine_state(record).default_action(seat)
        try:
            apply_action(
                ctx.store, record, seat, action, record.version, None, on_commit=ctx.after_change, timeout=True
            )
        except StaleVersion:
            continue  # another seat acted first: read again, the seat may still be late
        except (Refusal, ActionRejected) as rejected:  # the match ended between reading and writing it
            return {"outcome": "refused", "match": match_id, "seat": seat, "code": rejected.code}
        late = -seconds_until(deadline)
        log.info("match %s: seat %d timed out at version %d (%.2f s late)", match_id, seat, record.version, late)
        return {"outcome": "timed-out", "match": match_id, "seat": seat, "version": record.version, "late": late}
    raise RuntimeError(f"match {match_id} kept changing while seat {seat} was being timed out")


def keep_clocks_fair(away_after_ms: int = AWAY_AFTER_MS) -> None:
    """Heartbeat, and move deadlines across any downtime (logged, never raised: the scheduler must go on)."""
    ctx = context()
    try:
        ctx.timers.keep_fair(announce, away_after_ms=away_after_ms)
    except redis.RedisError as error:
        log.warning("turn-timer heartbeat skipped: %s", error)
    except Exception:
        log.exception("the turn-timer clocks could not be kept fair")


def sweep_matchmaking() -> None:
    """Pair the matchmaking pools as their windows widen, expire their tickets (logged, never raised)."""
    ctx = context()
    try:
        ctx.matchmaking.sweep(ctx.after_change)
    except redis.RedisError as error:
        log.warning("matchmaking sweep skipped: %s", error)
    except Exception:
        log.exception("the matchmaking pools could not be swept")


def announce(record: MatchRecord) -> None:
    """What a stored change sets off, for a change the timers made."""
    context().after_change(record, engine_state(record))


def seconds_to_next_look() -> float:
    """Seconds until just after the next whole second."""
    return 1.0 - time.time() % 1.0 + LOOK_AFTER_SECOND


def process_alive(pid: int) -> bool:
    """True while a process of this host runs (a zombie, dead but not reaped, does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc here: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def text(value: bytes | str) -> str:
    """A Redis reply as text (RQ's connection does not decode)."""
    return value.decode() if isinstance(value, bytes) else value


def scheduler_alive(connection: redis.Redis, name: str, lock_ttl: int) -> bool:
    """True while the scheduler `name` lives: its process, on this host; a recent heartbeat, on another."""
    raw = connection.hgetall(SCHEDULER_KEY_TEMPLATE % name)
    info = {text(key): text(value) for key, value in raw.items()}
    if not info:
        # It writes its record just after taking the lock: a lock taken lately is one starting up.
        return lock_ttl > SCHEDULER_INTERVAL + 60 - SCHEDULER_STALE
    if info.get("hostname") == socket.gethostname() and info.get("pid", "0").isdigit():
        return process_alive(int(info["pid"]))
    last = info.get("last_heartbeat")
    return last is not None and now() - utcparse(last) < timedelta(seconds=SCHEDULER_STALE)


class TimerScheduler(RQScheduler):
    """RQ's scheduler for the timer queue: dies with its worker, takes over a dead one's lock, keeps the clocks fair."""

    parent_pid = 0

    def start(self) -> Any:
        """Make the clocks fair, then fork the scheduler process, remembering which process it must die with.

        Every start (the worker's first, or the maintenance's after a scheduler died or another's lock was freed)
        follows a stopped scheduler, so a silence of over one beat was downtime; and timeouts queued before it
        must find their deadlines moved before this worker takes a job."""
        keep_clocks_fair(RESTART_AWAY_AFTER_MS)
        self.parent_pid = os.getpid()
        return super().start()  # type: ignore[no-untyped-call]

    def work(self) -> None:
        """RQ's loop, in the forked process, but dying with the worker and looking just after each whole second."""
        # SIGTERM: RQ's handler stops the loop and releases the lock, so the next scheduler takes over at once.
        set_parent_death_signal(signal.SIGTERM, self.parent_pid)
        self._install_signal_handlers()  # type: ignore[no-untyped-call]
        born = False
        while not self._stop_requested:
            try:  # a Redis away, or refusing writes in a failover, is waited out: the next look tries again
                if not born:
                    self.register_birth()
                    born = True
                if self.should_reacquire_locks and self.acquire_locks():
                    keep_clocks_fair(RESTART_AWAY_AFTER_MS)  # the lock taken over from a scheduler that stopped
                self.heartbeat()  # type: ignore[no-untyped-call]
                self.enqueue_scheduled_jobs()
            except (redis.ConnectionError, redis.TimeoutError) as error:
                log.warning("timer scheduler: Redis is away or refusing writes (%s); looking again", error)
            time.sleep(seconds_to_next_look())
        with contextlib.suppress(redis.RedisError):
            self.stop()  # type: ignore[no-untyped-call]

    def acquire_locks(self, auto_start: bool = False) -> Any:
        """RQ's, after releasing any lock held by a scheduler that died (a SIGKILL leaves it for a minute)."""
        for name in self._queue_names:
            self.take_over_if_dead(self.get_locking_key(name))
        return super().acquire_locks(auto_start)  # type: ignore[no-untyped-call]

    def take_over_if_dead(self, lock_key: str) -> bool:
        """Release the lock if the scheduler holding it is dead; True if released."""
        holder = self.connection.get(lock_key)
        if holder is None or text(holder) == self.name:
            return False
        name = text(holder)
        if scheduler_alive(self.connection, name, self.connection.ttl(lock_key)):
            return False
        released = release_lock(self.connection, lock_key, name)
        if released:
            log.warning("scheduler %s died holding %s; taking over", name, lock_key)
        return released

    def enqueue_scheduled_jobs(self) -> None:
        """Keep the clocks fair (a downtime moves deadlines before their old timeouts are queued), then RQ's; then
        sweep the matchmaking pools (each second, so a window that widened enough pairs within a second)."""
        if self._acquired_locks:
            keep_clocks_fair()
        super().enqueue_scheduled_jobs()  # type: ignore[no-untyped-call]
        if self._acquired_locks:
            sweep_matchmaking()


class TimerWorker(PromptWorker):
    """Runs timeout jobs in its own process (they are short); its maintenance sweeps for deadlines without a job."""

    def _start_scheduler(
        self,
        burst: bool = False,
        logging_level: str | None = "INFO",
        date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
        log_format: str = DEFAULT_LOGGING_FORMAT,
    ) -> None:
        """RQ's, with a TimerScheduler, and the clocks made fair before this worker takes a job."""
        self.scheduler = TimerScheduler(
            self.queues,
            connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format,
            log_format=log_format,
            serializer=self.serializer,
        )
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return  # another scheduler is alive; the maintenance tries again
        if not burst:
            self.scheduler.start()  # the clocks made fair first
            return
        try:
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()
        finally:
            self.scheduler.release_locks()  # type: ignore[no-untyped-call]
            self.scheduler.register_death()

    def run_maintenance_tasks(self) -> None:
        """RQ's maintenance (restarting the scheduler if needed), then the turn-timer, challenge, ladder and
        matchmaking sweeps."""
        super().run_maintenance_tasks()  # type: ignore[no-untyped-call]
        try:
            context().timers.sweep()
        except redis.RedisError as error:
            log.warning("turn-timer sweep skipped: %s", error)
        try:
            ctx = context()
            ctx.challenges.sweep(ctx.tournaments, ctx.after_change)
        except redis.RedisError as error:
            log.warning("challenge sweep skipped: %s", error)
        try:
            context().ladder.sweep_if_due()  # finished matches whose count (or bot history) a dead process lost
        except redis.RedisError as error:
            log.warning("ladder sweep skipped: %s", error)
        sweep_matchmaking()  # the scheduler sweeps each second; this covers a worker whose scheduler is elsewhere
