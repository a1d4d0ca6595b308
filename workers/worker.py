"""The RQ worker of the AI queues: jobs run in the worker's own process, no fork.

A forked work-horse per move cost 15-18 ms of RQ's time alone (`loadtests.worker_overhead`), more
than a `random` move's whole budget, and copied a process that may hold IceCream's solution. So the
worker is RQ's `SimpleWorker`, running each job on its main thread, with what the fork gave for free
put back:

- the hard time limit: RQ's SIGALRM death penalty interrupts the job at its timeout, as in a horse
  (a signal also ends a blocking read); a hint runs on a thread of its own (below), and one whose
  thread does not end then takes the whole process down with it, so it never commits late. A hint's
  thread is judged by its own time, not the time it waited for a core (`ThreadTime`): a niced
  thread on busy cores is starved, not stuck, and gets the time it was kept waiting (`outlived`);
- heartbeats while a job runs (`Heart`, one thread for the worker's life), so a worker that dies
  mid-job (killed, out of memory, a crash in C) has its job given up within `HEARTBEAT_SLACK` s of
  its last beat and retried by RQ's maintenance on another worker, while the supervisor (or the
  host's service manager) starts a new worker;
- a hint's lower CPU priority: its job runs on a thread of its own, and that thread, not the process,
  gets the niceness, which goes with the thread at the job's end (raising a thread's niceness needs
  no privilege; lowering it again would).

A requested move (a hint) runs at a lower CPU priority than the AI seats: its queue's priority only
decides which job a free worker takes next, while the niceness keeps a hint already running from
slowing the AI seats' searches and the API down when they share the cores. And hints never take
the last free worker: a worker takes a hint only while fewer hints run than there are other
workers, so however many seats ask, an AI seat's turn finds a worker that is not ending a hint.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import redis
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested
from rq.executions import Execution
from rq.job import Job
from rq.timeouts import JobTimeoutException
from rq.worker import WorkerStatus
from rq.worker_registration import WORKERS_BY_QUEUE_KEY

from store.jobs import HINT_QUEUE
from workers.context import context, stop_requested

log = logging.getLogger(__name__)
HINT_RECHECK = 1
"""Seconds a worker that may not take a hint waits on the other queues before it looks again."""
HINT_NICENESS = 19
"""A hint's thread niceness (the most there is): Linux then gives it about 1/70 of a core that a process at
the usual niceness wants too, and the whole core when nothing else wants it. A capped level still answers
in time, from fewer iterations."""
LISTEN_READ = 1.0
"""Seconds a worker's command listener waits on one read (at most what stopping it waits for)."""
HEARTBEAT_SLACK = 10
"""Seconds past a missed heartbeat before a running job counts as abandoned (RQ's own default is 60)."""
STRAY_GRACE = 1.0
"""Seconds of its own time a job's thread gets to end after its time limit struck before the process ends under it."""
STARVED_EXTRA = 10.0
"""Seconds of wall time a starved hint gets past its time limit at least (its limit again, if longer) and at most:
past that it counts as stuck however long it waited for a core, so a runaway job cannot hold a busy worker for good."""
START_POLL = 0.01
"""Seconds between looks for a job's thread that has not run yet (its start waits for a core)."""
STRAY_EXIT = 70
"""The exit status of a worker ended under a job that outlived its time limit (EX_SOFTWARE)."""


class ParlourJob(Job):
    """An AI job: a hint runs on a thread of its own at a lower CPU priority, any other on the worker's thread."""

    def _execute(self) -> Any:
        if self.origin != HINT_QUEUE:
            return super()._execute()
        return run_on_own_thread(super()._execute, HINT_NICENESS, self.timeout or Queue.DEFAULT_TIMEOUT)


def run_on_own_thread(work: Callable[[], Any], niceness: int, limit: float) -> Any:
    """`work()` on a new thread at `niceness`, its answer or its error; the process ends if it outlives a signal.

    At RQ's time limit (`limit` s) the thread may go on only while `outlived` says it was starved, not stuck.
    """
    outcome = Outcome()
    ended = threading.Event()

    def run() -> None:
        set_thread_niceness(niceness)
        try:
            outcome.value = work()
        except BaseException as error:  # handed to the waiting thread, which RQ watches
            outcome.error = error
        finally:
            ended.set()

    # Waited for on an Event, not with Thread.join: a signal that interrupts join marks the thread ended.
    started = time.monotonic()
    thread = threading.Thread(target=contextvars.copy_context().run, args=(run,), name="parlour-job", daemon=True)
    struck = False
    try:
        thread.start()
    except JobTimeoutException:  # the limit struck before the new thread first ran: starved from its start
        struck = True
    while thread.native_id is None:  # its first step, once it gets a core
        time.sleep(START_POLL)
    clock = ThreadTime(thread.native_id, started)
    try:
        if struck:
            raise JobTimeoutException("the time limit struck while the job's thread waited to start")
        ended.wait()
    except JobTimeoutException:  # RQ's time limit (SIGALRM) while the job still runs
        if outlived(ended, clock, limit):
            end_under_stray_job()
        # It was starved, not stuck, and ended within its own time: its answer stands.
    except BaseException:  # a cold shutdown while the job still runs
        if not ended.wait(STRAY_GRACE):
            end_under_stray_job()
        raise
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


@dataclass
class Outcome:
    """What a job's own thread ended with: the job's answer, or the error it raised."""

    value: Any = None
    error: BaseException | None = None


def end_under_stray_job() -> NoReturn:
    """End this worker at once: a job thread outlived its time limit, and it must not commit late."""
    log.error("a job outlived its time limit: ending this worker so it cannot commit late")
    logging.shutdown()
    os._exit(STRAY_EXIT)


class ThreadTime:
    """A thread's own time since it started: the wall time it spent running or blocked, not waiting for a core."""

    def __init__(self, native_id: int | None, started: float) -> None:
        self.schedstat = Path(f"/proc/self/task/{native_id}/schedstat")
        self.started = started

    def wall(self) -> float:
        """Seconds since the thread started."""
        return time.monotonic() - self.started

    def own(self) -> float:
        """Seconds since the thread started, less those it spent runnable but waiting for a core."""
        return self.wall() - self.waited()

    def waited(self) -> float:
        """Seconds the thread has waited for a core: Linux's schedstat (its run delay); 0 where it cannot be read."""
        try:
            return int(self.schedstat.read_text().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return 0.0


def outlived(ended: threading.Event, clock: ThreadTime, limit: float) -> bool:
    """After the time limit struck: wait while the thread may still end in time; True if it did not (it is stuck).

    A thread counts only its own time against `limit` and STRAY_GRACE: a hint at niceness 19 gets
    ~1/70 of a core that another process wants, and a starved thread is not a stuck one. A thread
    that sleeps, blocks or computes is charged every second; one kept waiting for a core is charged
    only up to STARVED_EXTRA past its limit (or its limit again), in wall time.
    """
    ceiling = limit + max(STARVED_EXTRA, limit)
    while not ended.is_set():
        left = min(limit + STRAY_GRACE - clock.own(), ceiling - clock.wall())
        if left <= 0:
            return True
        ended.wait(left)
    return False


def set_thread_niceness(niceness: int) -> None:
    """Lower the calling thread's CPU priority to `niceness` (Linux sets niceness per thread)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    except OSError as error:  # not Linux, or not allowed: the job runs at the usual priority
        log.warning("could not lower a job's priority: %s", error)


class PromptWorker(SimpleWorker):
    """RQ's SimpleWorker, whose listener for worker commands (a pub/sub thread) reads LISTEN_READ s at a time.

    RQ's own reads for 60 s, and since redis-py 8.2 stopping that thread waits for it to end: a
    stopping worker whose thread had just read its unsubscribe reply hung for up to a minute, and was
    killed after the supervisor's 15 s.
    """

    waiting_for_job = False
    """True while the worker waits for a job: the one place RQ's warm shutdown may raise StopRequested into."""

    def bootstrap(self, *args: Any, **kwargs: Any) -> None:
        """RQ's, with the worker's signal handlers installed first.

        RQ installs them only once it has registered the worker and started its scheduler: a SIGTERM in between (a
        worker stopped as it came up, as the suite's own stop test did on a busy machine) ended the process at once,
        its registration left behind; now it is the warm shutdown, seen by the loop's first wait for a job."""
        self._install_signal_handlers()  # type: ignore[no-untyped-call]
        super().bootstrap(*args, **kwargs)  # type: ignore[no-untyped-call, unused-ignore]

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        """Stop once the running job ends (RQ's warm shutdown), and have a turn job that plays on hand over soon.

        The process-wide `stop_requested` also tells `work_through_outages` that the loop ended on request (RQ's
        own flag is not set when its warm shutdown is raised into a waiting worker)."""
        stop_requested.set()
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call, unused-ignore]  # RQ may annotate it

    def _shutdown(self) -> None:
        """RQ's warm shutdown, raised into the worker only while it waits for a job; anywhere else, kept for the
        loop to see once the running step ends.

        RQ raises StopRequested from the signal handler into whatever an idle worker is doing. Raised into a
        maintenance sweep (in the middle of a Redis pipeline), it was caught and logged by the sweep's own
        error handling, and the worker ran on, timing seats out, until it was killed 15 s later.
        """
        if self.waiting_for_job or self.get_state() == WorkerStatus.BUSY:
            super()._shutdown()  # type: ignore[no-untyped-call]
        else:
            self._stop_requested = True

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> Any:
        """RQ's, marked as the place a warm shutdown may interrupt; one asked before it began stops it at once."""
        self.waiting_for_job = True
        try:
            if self._stop_requested:
                raise StopRequested()
            return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        finally:
            self.waiting_for_job = False

    def subscribe(self) -> None:
        """Subscribe to this worker's command channel, as RQ does, with reads short enough to stop promptly."""
        self.pubsub = self.connection.pubsub()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8.2
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]  # RQ declares it as None
            sleep_time=LISTEN_READ, daemon=True, exception_handler=self._pubsub_exception_handler
        )


class ParlourWorker(PromptWorker):
    """An RQ worker that runs jobs in its own process, and at each maintenance queues again lost AI turns."""

    job_class = ParlourJob

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.heart = Heart(self)

    def execute_job(self, job: Job, queue: Queue) -> None:
        """Run the job here, the heart beating for it meanwhile, as a forking worker does while its horse works."""
        execution = self.prepare_execution(job)
        self.heart.beat_for(job, execution)
        try:
            self.perform_job(job, queue, execution)
        finally:
            self.heart.rest()
        self.set_state(WorkerStatus.IDLE)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """Seconds a job's registry entry lives without a heartbeat: a beat's interval and HEARTBEAT_SLACK."""
        return int(self.job_monitoring_interval) + HEARTBEAT_SLACK

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> Any:
        """The next job, in queue order; a hint only while `may_take_hint` (looked at again every HINT_RECHECK s)."""
        if timeout is None:  # a burst worker drains every queue
            return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        everything = self._ordered_queues
        without_hints = [queue for queue in everything if queue.name != HINT_QUEUE]
        try:
            while True:
                allowed = self.may_take_hint()
                self._ordered_queues = everything if allowed else without_hints
                if allowed:
                    taken = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
                else:
                    taken = super().dequeue_job_and_maintain_ttl(HINT_RECHECK, HINT_RECHECK)
                if taken is None and allowed:
                    return None  # idle for max_idle_time
                if taken is None:
                    continue
                job, queue = taken
                if queue.name == HINT_QUEUE and not self.may_take_hint():
                    # Another worker took a hint while this one waited: give this one back, first in line.
                    queue.push_job_id(job.id, at_front=True)
                    continue
                return taken
        finally:
            self._ordered_queues = everything

    def may_take_hint(self) -> bool:
        """True while fewer hints run than there are other AI workers (or this one is the only one)."""
        hints = next(queue for queue in self.queues if queue.name == HINT_QUEUE)
        pipe = self.connection.pipeline(transaction=False)
        pipe.scard(WORKERS_BY_QUEUE_KEY % hints.name)
        pipe.zcard(hints.started_job_registry.key)
        try:
            workers, running = pipe.execute()
        except redis.RedisError:
            return True  # RQ's own dequeue waits for the store to come back
        return int(workers) <= 1 or int(running) < int(workers) - 1

    def run_maintenance_tasks(self) -> None:
        """RQ's maintenance (retrying the jobs of dead workers), then the AI-turn and tournament sweeps."""
        super().run_maintenance_tasks()  # type: ignore[no-untyped-call]
        try:
            context().ai_turns.sweep()
        except redis.RedisError as error:
            log.warning("AI-turn sweep skipped: %s", error)
        try:
            ctx = context()
            ctx.tournaments.sweep(ctx.after_change)
        except redis.RedisError as error:
            log.warning("tournament sweep skipped: %s", error)


class Heart:
    """Keeps the running job, its execution and the worker alive in Redis every job_monitoring_interval s.

    One thread for the worker's life (a thread per job cost a few ms a job in handovers of the GIL).
    """

    def __init__(self, worker: ParlourWorker) -> None:
        self.worker = worker
        self.lock = threading.Lock()
        self.running: tuple[Job, Execution] | None = None
        self.thread: threading.Thread | None = None

    def beat_for(self, job: Job, execution: Execution) -> None:
        """Beat for this job until `rest`."""
        with self.lock:
            self.running = (job, execution)
        if self.thread is None:
            self.thread = threading.Thread(target=self.beat, name="parlour-heartbeat", daemon=True)
            self.thread.start()

    def rest(self) -> None:
        """The job ended: no more beats for it."""
        with self.lock:
            self.running = None

    def beat(self) -> None:
        """Forever: every interval, a heartbeat for the running job if there is one."""
        while True:
            time.sleep(self.worker.job_monitoring_interval)
            with self.lock:
                if self.running is None:
                    continue
                try:
                    self.worker.maintain_heartbeats(*self.running)
                except redis.RedisError as error:  # the job's own writes will fail or wait the same
                    log.warning("heartbeat of job %s skipped: %s", self.running[0].id, error)


OUTAGE_PAUSE = 1.0
"""Seconds a worker that quit waits before it works again, doubled after each quick quit in a row, up to
OUTAGE_PAUSE_MAX; a loop that ran OUTAGE_FORGOTTEN s or more starts the count again."""
OUTAGE_PAUSE_MAX = 8.0
OUTAGE_FORGOTTEN = 60.0


def work_through_outages(build: Callable[[], SimpleWorker], **work: Any) -> None:
    """Build a worker and run its loop, again and again, until a stop is asked for (or a burst is done).

    RQ's loop quits the worker at any error outside its wait for a job: a heartbeat, a job's result or
    its registration met by a Redis that is away or, in a failover, refusing writes. So does
    `register_birth`, for a worker started in the middle of one. Instead of the process ending (and
    the service's supervisor starting another), the worker is built and started again in this process,
    after a pause, on connections that find the new primary through the sentinels. A job it was running
    is given back by RQ's maintenance like any abandoned job.
    """
    pause = OUTAGE_PAUSE
    worker: SimpleWorker | None = None  # the last one built: its signal handlers are the ones installed
    while True:
        started = time.monotonic()
        try:
            worker = build()  # RQ names its connection in Redis already
            worker.work(**work)
        except redis.RedisError as error:  # at its building, its registration or its teardown
            log.warning("worker: Redis is away or refusing writes (%s)", error)
        except ValueError as error:  # `register_birth`: the name is still registered by the loop that quit
            log.warning("worker: %s", error)
        if work.get("burst") or stopping(worker):
            return
        if time.monotonic() - started >= OUTAGE_FORGOTTEN:
            pause = OUTAGE_PAUSE
        log.warning("worker quit; working again in %.0f s", pause)
        time.sleep(pause)  # a SIGTERM meanwhile runs the last worker's handler, which asks it to stop
        if worker is not None:
            with contextlib.suppress(redis.RedisError):
                worker.register_death()  # type: ignore[no-untyped-call]  # its stale registration refuses the next
        if stopping(worker):
            return
        pause = min(2 * pause, OUTAGE_PAUSE_MAX)


def stopping(worker: SimpleWorker | None) -> bool:
    """True once a stop was asked of the worker (SIGTERM, SIGINT: `PromptWorker.request_stop`)."""
    return (worker is not None and bool(worker._stop_requested)) or stop_requested.is_set()
