"""Run one AI worker: `python -m workers` (REDIS_URL as for the API; `--burst` stops when the queues are empty).

`python -m workers --timers` runs the turn-timer worker instead: it runs RQ's scheduler, which
queues each timeout job when its deadline comes, and the timeout jobs themselves.
"""

from __future__ import annotations

import argparse
import logging

from rq.serializers import JSONSerializer

import ai.levels  # noqa: F401  (imported before the first job, so it starts at once)
import engine.games  # noqa: F401
from ai.perfect import load_solutions
from model.settings import Settings
from store.connection import redis_client
from store.jobs import WORKER_QUEUES
from store.turn_timers import TIMER_QUEUE
from workers.timers import TimerWorker
from workers.worker import ParlourWorker, work_through_outages

JOB_MONITORING_INTERVAL = 5
"""Seconds between a busy worker's heartbeats; a dead worker's job is given up HEARTBEAT_SLACK s after its last one."""
WARMED_UP = "IceCream's solution loaded for perfect play"
"""What a worker logs once its warm-up is done."""
WORKER_TTL = 20
"""An idle worker wakes every WORKER_TTL - 15 s, so its maintenance (retrying the jobs of dead
workers, every PARLOUR_WORKER_MAINTENANCE seconds) is never starved by a long wait on the queue."""


def main(argv: list[str] | None = None) -> int:
    """Work the AI queues until stopped (or, with --burst, until they are empty)."""
    parser = argparse.ArgumentParser(prog="python -m workers", description=__doc__)
    parser.add_argument("--burst", action="store_true", help="stop once the queues are empty")
    parser.add_argument("--name", default=None, help="the worker's name (default: host and pid)")
    parser.add_argument(
        "--warm-up",
        action="store_true",
        help="load IceCream's solution (~0.2 s) before the first job",
    )
    parser.add_argument("--timers", action="store_true", help="run the turn timers' scheduler and timeout jobs")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(process)d %(levelname)s %(message)s")
    if args.timers:
        return work_timers(args.name, args.burst)
    if args.warm_up:
        warm_up()
    settings = Settings()
    connection = redis_client(settings.redis_url)

    def build() -> ParlourWorker:
        return ParlourWorker(
            list(WORKER_QUEUES),  # in priority order: RQ takes from the first queue with a job
            connection=connection,
            serializer=JSONSerializer,
            name=args.name,
            job_monitoring_interval=JOB_MONITORING_INTERVAL,
            worker_ttl=WORKER_TTL,
            maintenance_interval=settings.worker_maintenance,
        )

    work_through_outages(build, burst=args.burst, logging_level="INFO")
    return 0


def work_timers(name: str | None, burst: bool) -> int:
    """Run RQ's scheduler for the timer queue and the timeout jobs it queues, until stopped."""
    settings = Settings()
    connection = redis_client(settings.redis_url)

    def build() -> TimerWorker:
        return TimerWorker(
            [TIMER_QUEUE],
            connection=connection,
            serializer=JSONSerializer,
            name=name,
            worker_ttl=WORKER_TTL,
            maintenance_interval=settings.worker_maintenance,
        )

    work_through_outages(build, burst=burst, logging_level="INFO", with_scheduler=True)
    return 0


def warm_up() -> None:
    """Load IceCream's stored solution before the first job, so the first `perfect` move answers at once."""
    seconds = load_solutions()
    logging.getLogger(__name__).info("%s in %.2f s", WARMED_UP, seconds)


if __name__ == "__main__":
    raise SystemExit(main())
