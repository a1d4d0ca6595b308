"""No AI turn is left unplayed: a killed worker's job is retried, a lost job is queued again by the sweep."""

from __future__ import annotations

import os
import signal
import time

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue, Retry
from rq.job import Job
from rq.serializers import JSONSerializer

from api.config import Settings
from api.jobs.queue import HINT_QUEUE, LIVE_QUEUE
from api.store import ai_turn_key
from tests.api.conftest import create_match, read_log
from tests.workers.conftest import StartWorker
from tests.workers.test_ai_seats import wait_for
from workers.worker import STRAY_EXIT

RECOVERY = 90.0  # a dead worker's job is given up HEARTBEAT_SLACK s after its last heartbeat, then retried
STUCK_FOR = 60.0


def stuck_once(attempts_key: str) -> int:
    """A job that sleeps past any time limit on its first attempt and returns at once after."""
    attempts = int(redis.Redis.from_url(Settings().redis_url).incr(attempts_key))
    if attempts == 1:
        time.sleep(STUCK_FOR)
    return attempts


def turn_job(redis_url: str, match_id: str, seat: int, version: int) -> Job:
    """The RQ job that was given the AI seat's turn at that version."""
    connection = redis.Redis.from_url(redis_url)
    job_id = connection.get(ai_turn_key(match_id, seat, version))
    assert job_id is not None
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
    job = queue.enqueue(stuck_once, "stuck-turn", job_timeout=1, retry=Retry(max=1))
    worker = start_worker("w1")
    wait_for(lambda: job.get_status(refresh=True) == "finished", "the retried job", RECOVERY)
    job.refresh()
    assert job.return_value() == 2  # stopped once by its time limit, then run again to its end
    assert worker.poll() is None  # on the worker's own thread the limit interrupts the job: the worker goes on


def test_a_hint_stuck_past_its_time_limit_ends_its_worker_and_is_retried(
    redis_url: str, start_worker: StartWorker
) -> None:
    queue = Queue(HINT_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    job = queue.enqueue(stuck_once, "stuck-hint", job_timeout=1, retry=Retry(max=1))
    stuck = start_worker("stuck")
    assert stuck.wait(timeout=RECOVERY) == STRAY_EXIT  # it could not stop the hint's thread, so it ended
    start_worker("next")
    wait_for(lambda: job.get_status(refresh=True) == "finished", "the retried job", RECOVERY)
    job.refresh()
    assert job.return_value() == 2  # stopped once, then run again to its end
    assert job.retries_left == 0


@pytest.mark.parametrize("lost", ["never-queued", "claim-lost", "popped"])
def test_a_turn_whose_job_was_lost_is_queued_again_by_the_sweep(
    client: FlaskClient, redis_url: str, start_worker: StartWorker, lost: str
) -> None:
    seats = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "random"}]
    match = create_match(client, seed="lost-job", seats=seats)
    connection = redis.Redis.from_url(redis_url)
    if lost == "popped":  # taken from its queue by a worker that died before marking it started
        assert connection.lpop(f"rq:queue:{LIVE_QUEUE}") is not None
        assert turn_job(redis_url, match.id, 0, 0).get_status() == "queued"
    else:
        Queue(LIVE_QUEUE, connection=connection, serializer=JSONSerializer).empty()  # as if never queued
    if lost == "claim-lost":
        connection.delete(ai_turn_key(match.id, 0, 0))  # as if the API died right after storing the match
    start_worker("w1")
    over = wait_for(lambda: (body := client.get(match.url()).get_json())["status"] == "finished" and body, "the sweep")
    assert over["result"] is not None
