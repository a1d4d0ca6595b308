"""An AI worker's start: seconds from `python -m workers` starting to its first job started.

    .venv/bin/python -m loadtests.worker_start [--runs 5]

Starts an embedded Redis of its own (not persistent). Each run queues one job that does nothing on
the live AI queue, starts `python -m workers --burst` (with and without `--warm-up`, which loads
IceCream's solution before taking jobs) and reads the job's start as RQ stamped it. Prints each
run, the medians, and as a baseline measured in the same run the start of a Python process that
only imports what a worker imports (so the ratio shows what registering with RQ and the first
dequeue add). Not a test: nothing is asserted. Issue 14 asks for the first job within 2 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from rq import Queue
from rq.serializers import JSONSerializer

from ops.embedded_redis import start_embedded_redis
from store.jobs import LIVE_QUEUE

VARIANTS = {"no warm-up": [], "--warm-up": ["--warm-up"]}


def first_job(url: str, flags: list[str]) -> float:
    """Seconds from starting a burst worker with `flags` to RQ's start stamp of the one job queued."""
    connection = redis.Redis.from_url(url)
    job = Queue(LIVE_QUEUE, connection=connection, serializer=JSONSerializer).enqueue("operator.add", 1, 1)
    env = {**os.environ, "REDIS_URL": url}
    started = time.time()
    done = subprocess.run([sys.executable, "-m", "workers", "--burst", *flags], env=env, capture_output=True)
    if done.returncode:
        raise RuntimeError(f"the worker failed:\n{done.stderr.decode()[-2000:]}")
    job.refresh()  # type: ignore[no-untyped-call]  # RQ 3 leaves Job.refresh unannotated
    assert job.started_at is not None
    return job.started_at.timestamp() - started


def imports_only() -> float:
    """Seconds a Python process takes to import what a worker imports, and exit."""
    started = time.time()
    subprocess.run([sys.executable, "-c", "import workers.__main__"], check=True)
    return time.time() - started


def main(argv: list[str] | None = None) -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(prog="python -m loadtests.worker_start", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    seconds: dict[str, list[float]] = {name: [] for name in [*VARIANTS, "imports only"]}
    with tempfile.TemporaryDirectory(prefix="parlour-worker-start-") as folder:
        server = start_embedded_redis(Path(folder), persistent=False)
        try:
            for run in range(1, args.runs + 1):
                for name, flags in VARIANTS.items():
                    seconds[name].append(first_job(server.url, flags))
                seconds["imports only"].append(imports_only())
                print(f"run {run}: " + ", ".join(f"{name} {s[-1]:.2f} s" for name, s in seconds.items()), flush=True)
        finally:
            server.stop()
    baseline = statistics.median(seconds["imports only"])
    for name, values in seconds.items():
        median = statistics.median(values)
        print(f"median of {args.runs} runs, {name:12}: {median:.2f} s (x{median / baseline:.2f} the imports alone)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
