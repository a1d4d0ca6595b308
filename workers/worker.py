"""The RQ worker of the AI queue: RQ's own maintenance, plus the sweep for AI turns left without a job."""

from __future__ import annotations

import logging

import redis
from rq import Worker

from workers.context import context

log = logging.getLogger(__name__)


class ParlourWorker(Worker):  # type: ignore[misc]
    """An RQ worker that, at each maintenance, queues again AI turns whose job was lost and moves tournaments on."""

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
