"""RQ's cost per job on this machine: the forking Worker (a work-horse per job) against SimpleWorker (none).

    .venv/bin/python -m loadtests.worker_overhead [--jobs 200] [--runs 3] [--warm]

Starts an embedded Redis of its own (not persistent), queues `--jobs` jobs that do nothing
(`operator.add`) and lets one worker of each class run them in burst mode, `--runs` times in
turn; prints milliseconds per job for each run, the medians and the ratio fork / no fork. The
process holds what an AI worker holds (the AI levels and the games imported; with `--warm`,
IceCream's solution too, as `--warm-up` workers do), since a bigger process forks slower. Not a
test: nothing is asserted. The figures decide issue 14's first item (no process per move).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import redis
from rq import Queue, SimpleWorker, Worker
from rq.serializers import JSONSerializer
from rq.worker import BaseWorker

import ai.levels  # noqa: F401  (what an AI worker imports before it takes jobs)
import engine.games  # noqa: F401
from ai.perfect import solution_for
from ops.embedded_redis import start_embedded_redis

QUEUE = "parlour-overhead-bench"


def per_job(connection: redis.Redis, worker_class: type[BaseWorker], jobs: int) -> float:
    """Seconds per job for one burst of `jobs` no-op jobs run by one worker of the class."""
    queue = Queue(QUEUE, connection=connection, serializer=JSONSerializer)
    for n in range(jobs):
        queue.enqueue("operator.add", n, 1)
    worker = worker_class([queue], connection=connection, serializer=JSONSerializer)
    started = time.perf_counter()
    worker.work(burst=True, logging_level="WARNING")
    elapsed = time.perf_counter() - started
    connection.flushdb()
    return elapsed / jobs


def main(argv: list[str] | None = None) -> int:
    """Measure and print both classes' cost per job and their ratio."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.worker_overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200, help="no-op jobs per run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="hold IceCream's solution, as a --warm-up worker does")
    args = parser.parse_args(argv)
    if args.warm:
        solution_for(0)
    classes: tuple[type[BaseWorker], ...] = (Worker, SimpleWorker)
    costs: dict[str, list[float]] = {cls.__name__: [] for cls in classes}
    with tempfile.TemporaryDirectory(prefix="parlour-overhead-") as folder:
        server = start_embedded_redis(Path(folder), persistent=False)
        try:
            connection = redis.Redis.from_url(server.url)
            for run in range(1, args.runs + 1):
                for cls in classes:
                    costs[cls.__name__].append(per_job(connection, cls, args.jobs))
                    print(f"run {run} {cls.__name__:12} {1000 * costs[cls.__name__][-1]:6.2f} ms a job", flush=True)
        finally:
            server.stop()
    fork, simple = (statistics.median(costs[cls.__name__]) for cls in classes)
    print(
        f"median of {args.runs} runs: fork {1000 * fork:.2f} ms a job, no fork {1000 * simple:.2f} ms a job, "
        f"fork / no fork {fork / simple:.1f}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
