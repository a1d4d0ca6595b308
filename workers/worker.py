"""The RQ worker of the AI queues: RQ's own maintenance, plus the sweep for AI turns left without a job.

A requested move (a hint) runs at a lower CPU priority than the AI seats: its queue's priority only
decides which job a free worker takes next, while the niceness keeps a hint already running from
slowing the AI seats' searches and the API down when they share the cores. And hints never take
the last free worker: a worker takes a hint only while fewer hints run than there are other
workers, so however many seats ask, an AI seat's turn finds a worker that is not ending a hint.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import redis
from rq import Queue, Worker
from rq.job import Job
from rq.worker_registration import WORKERS_BY_QUEUE_KEY

from api.jobs.queue import HINT_QUEUE
from workers.context import context

log = logging.getLogger(__name__)
HINT_RECHECK = 1
"""Seconds a worker that may not take a hint waits on the other queues before it looks again."""
HINT_NICENESS = 19
"""A hint's work-horse niceness (the most there is; the horse is a process of its own, gone with the job):
Linux then gives it about 1/70 of a core that a process at the usual niceness wants too, and the whole
core when nothing else wants it. A capped level still answers in time, from fewer iterations."""


class ParlourWorker(Worker):  # type: ignore[misc]
    """An RQ worker that, at each maintenance, queues again AI turns whose job was lost and moves tournaments on."""

    def perform_job(self, job: Job, queue: Queue, *args: Any, **kwargs: Any) -> bool:
        """Run the job in this work-horse; a requested move at a lower CPU priority."""
        if queue.name == HINT_QUEUE:
            os.nice(HINT_NICENESS)
        return bool(super().perform_job(job, queue, *args, **kwargs))

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
        super().run_maintenance_tasks()
        try:
            context().ai_turns.sweep()
        except redis.RedisError as error:
            log.warning("AI-turn sweep skipped: %s", error)
        try:
            ctx = context()
            ctx.tournaments.sweep(ctx.after_change)
        except redis.RedisError as error:
            log.warning("tournament sweep skipped: %s", error)
