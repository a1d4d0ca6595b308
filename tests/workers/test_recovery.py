"""No AI turn is left unplayed: a killed worker's job is retried, a lost job is queued again by the sweep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from model.settings import Settings
from store.jobs import HINT_QUEUE, LIVE_QUEUE
from store.matches import ai_turn_key
from tests.api.conftest import create_match, read_log
from tests.workers.conftest import StartWorker
from tests.workers.stuck_jobs import starved_for, stuck_on_first_attempt
from tests.workers.test_ai_seats import wait_for
from workers.worker import HINT_NICENESS, STRAY_EXIT, ThreadTime, outlived

RECOVERY = 90.0  # a dead worker's job is given up HEARTBEAT_SLACK s after its last heartbeat, then retried
STARVED_FOR = 3.0  # seconds the starved hint waits for a core: past its 1 s limit and STRAY_GRACE together
SCHEDSTAT = Path("/proc/thread-self/schedstat")


def turn_job(redis_url: str, match_id: str, seat: int, version: int) -> Job:
    """The RQ job that was given the AI seat's turn at that version."""
    connection = redis.Redis.from_url(redis_url)
    job_id = connection.get(ai_turn_key(match_id, seat, version))
    assert isinstance(job_id, bytes)
    return Job.fetch(job_id.decode(), connection=connection, serializer=JSONSerializer)


def test_a_worker_killed_mid_search_has_its_turn_played_once_by_another(
    client: FlaskClient, redis_url: str, start_worker: StartWorker
) -> None:
    doomed = start_worker("doomed")
    match = create_match(client, seed="dead-worker", seats=[{"type": "ai", "level": "hard"}, {"type": "human"}])
    wait_for(lambda: turn_job(redis_url, match.id, 0, 0).get_status() == "started", "the job to start")
    os.kill(doomed.pid, signal.SIGKILL)  # in the middle of its search, as when a machine dies
    doomed.wait()
    start_worker("survivor")
    started = time.monotonic()
    wait_for(lambda: client.get(match.url()).get_json()["version"] == 1, "another worker to play", RECOVERY)
    print(f"picked up again after {time.monotonic() - started:.0f} s")
    entries = read_log(client, match.id)["entries"]
    assert [(entry["version"], entry["seat"]) for entry in entries] == [(1, 0)]
    assert turn_job(redis_url, match.id, 0, 0).retries_left == Settings().ai_retries - 1


def test_a_turn_job_past_its_time_limit_is_stopped_and_retried(redis_url: str, start_worker: StartWorker) -> None:
    queue = Queue(LIVE_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    job = queue.enqueue(stuck_on_first_attempt, 1, job_timeout=1, retry=Retry(max=1))
    worker = start_worker("w1")
    wait_for(lambda: job.get_status(refresh=True) == "finished", "the retried job", RECOVERY)
    job.refresh()  # type: ignore[no-untyped-call]  # RQ 3 leaves Job.refresh unannotated
    assert job.return_value() == 2  # stopped once by its time limit, then run again to its end
    assert worker.poll() is None  # on the worker's own thread the limit interrupts the job: the worker goes on


def test_a_hint_stuck_past_its_time_limit_ends_its_worker_and_is_retried(
    redis_url: str, start_worker: StartWorker
) -> None:
    queue = Queue(HINT_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    job = queue.enqueue(stuck_on_first_attempt, 1, job_timeout=1, retry=Retry(max=1))
    stuck = start_worker("stuck")
    assert stuck.wait(timeout=RECOVERY) == STRAY_EXIT  # it could not stop the hint's thread, so it ended
    start_worker("next")
    wait_for(lambda: job.get_status(refresh=True) == "finished", "the retried job", RECOVERY)
    job.refresh()  # type: ignore[no-untyped-call]  # RQ 3 leaves Job.refresh unannotated
    assert job.return_value() == 2  # stopped once, then run again to its end
    assert job.retries_left == 0


@pytest.fixture
def busy_core() -> Iterator[int]:
    """A core kept busy by a process at the usual priority, for as long as the test runs; its number."""
    core = min(os.sched_getaffinity(0))
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        os.sched_setaffinity(busy.pid, {core})
        yield core
    finally:
        busy.kill()
        busy.wait()


@pytest.mark.skipif(not SCHEDSTAT.exists(), reason="needs Linux's per-thread scheduler statistics")
def test_a_hint_starved_of_cpu_past_its_time_limit_is_not_ended(
    redis_url: str, start_worker: StartWorker, busy_core: int
) -> None:
    assert os.getpriority(os.PRIO_PROCESS, 0) < HINT_NICENESS, "the busy loop must outrank the hint's thread"
    worker = start_worker("starved")
    os.sched_setaffinity(worker.pid, {busy_core})  # its main thread; the job's thread inherits it
    queue = Queue(HINT_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    job = queue.enqueue(starved_for, STARVED_FOR, job_timeout=1)  # no retry: a job ended under it fails for good
    wait_for(lambda: job.get_status(refresh=True) == "finished" or worker.poll() is not None, "the hint", RECOVERY)
    assert worker.poll() is None, "the worker ended itself under a hint that was only starved"
    job.refresh()  # type: ignore[no-untyped-call]  # RQ 3 leaves Job.refresh unannotated
    assert job.get_status() == "finished"
    assert cast(float, job.return_value()) < STARVED_FOR  # it computed all along, at a sliver of the core it waited for


def test_a_hint_thread_that_is_not_starved_is_charged_every_second() -> None:
    blocked = threading.Event()
    thread = threading.Thread(target=blocked.wait, daemon=True)
    started = time.monotonic()
    thread.start()
    assert outlived(threading.Event(), ThreadTime(thread.native_id, started), limit=0.0)  # it never ended
    assert thread.is_alive()
    blocked.set()
    ended = threading.Event()
    ended.set()
    assert not outlived(ended, ThreadTime(thread.native_id, started), limit=0.0)  # it ended: nothing to wait for


@pytest.mark.parametrize("lost", ["never-queued", "claim-lost", "popped"])
def test_a_turn_whose_job_was_lost_is_queued_again_by_the_sweep(
    client: FlaskClient, redis_url: str, start_worker: StartWorker, lost: str
) -> None:
    seats = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    match = create_match(client, seed="lost-job", seats=seats)
    connection = redis.Redis.from_url(redis_url)
    origin = turn_job(redis_url, match.id, 0, 0).origin  # the live queue, or the tournament one for an all-AI match
    if lost == "popped":  # taken from its queue by a worker that died before marking it started
        assert connection.lpop(f"rq:queue:{origin}") is not None
        assert turn_job(redis_url, match.id, 0, 0).get_status() == "queued"
    else:
        queue = Queue(origin, connection=connection, serializer=JSONSerializer)
        queue.empty()  # type: ignore[no-untyped-call]  # as if never queued (RQ 3 leaves Queue.empty unannotated)
    if lost == "claim-lost":
        connection.delete(ai_turn_key(match.id, 0, 0))  # as if the API died right after storing the match
    start_worker("w1")
    over = wait_for(lambda: (body := client.get(match.url()).get_json())["status"] == "finished" and body, "the sweep")
    assert over["result"] is not None
