"""The RQ worker of the AI queues: RQ's own maintenance, plus the sweep for AI turns left without a job.

A requested move (a hint) runs at a lower CPU priority than the AI seats: its queue's priority only
decides which job a free worker takes next, while the niceness keeps a hint already running from
slowing the AI seats' searches and the API down when they share the cores.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import redis
from rq import Queue, Worker
from rq.job import Job

from api.jobs.queue import HINT_QUEUE
from workers.context import context

log = logging.getLogger(__name__)
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
