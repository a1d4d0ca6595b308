"""No AI turn is left unplayed: a killed worker's job is retried, a lost job is queued again by the sweep."""

from __future__ import annotations

import os
import signal
import time

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from api.config import Settings
from api.jobs.queue import LIVE_QUEUE
from api.store import ai_turn_key
from tests.api.conftest import create_match, read_log
from tests.workers.conftest import StartWorker, horse_pids
from tests.workers.test_ai_seats import wait_for

RECOVERY = 150.0  # a dead worker's job is given up ~65 s after its last heartbeat, then retried


def first_horse(worker: object) -> int:
    """Wait for the worker to fork a work-horse (it has started a job) and return its pid."""
    return int(wait_for(lambda: (horse_pids(worker) or [None])[0], "a job to start", timeout=60.0))  # type: ignore[arg-type]


def turn_job(redis_url: str, match_id: str, seat: int, version: int) -> Job:
    """The RQ job that was given the AI seat's turn at that version."""
    connection = redis.Redis.from_url(redis_url)
    job_id = connection.get(ai_turn_key(match_id, seat, version))
    assert job_id is not None
    return Job.fetch(job_id.decode(), connection=connection, serializer=JSONSerializer)


def test_a_killed_work_horse_is_retried_and_the_move_lands_once(
    client: FlaskClient, redis_url: str, start_worker: StartWorker
) -> None:
    worker = start_worker("w1")
    match = create_match(client, seed="killed-horse", seats=[{"type": "ai", "level": "hard"}, {"type": "human"}])
    os.kill(first_horse(worker), signal.SIGKILL)  # in the middle of its search
    wait_for(lambda: client.get(match.url()).get_json()["version"] == 1, "the retried AI move")
    job = turn_job(redis_url, match.id, 0, 0)
    assert job.retries_left == Settings().ai_retries - 1  # it was killed once, then retried
    entries = read_log(client, match.id)["entries"]
    assert [(entry["version"], entry["seat"]) for entry in entries] == [(1, 0)]


def test_a_dead_worker_s_turn_is_picked_up_by_another_worker(
    client: FlaskClient, redis_url: str, start_worker: StartWorker
) -> None:
    doomed = start_worker("doomed")
    match = create_match(client, seed="dead-worker", seats=[{"type": "ai", "level": "hard"}, {"type": "human"}])
    horse = first_horse(doomed)
    # Killed before its horse marks it started, a job is one lost off its queue: the sweep's case, below.
    wait_for(lambda: turn_job(redis_url, match.id, 0, 0).get_status() == "started", "the job to start")
    for pid in (doomed.pid, horse):  # the worker and its work-horse (its own session), as when a machine dies
        os.kill(pid, signal.SIGKILL)
    doomed.wait()
    start_worker("survivor")
    started = time.monotonic()
    wait_for(lambda: client.get(match.url()).get_json()["version"] == 1, "another worker to play", RECOVERY)
    print(f"picked up again after {time.monotonic() - started:.0f} s")
    entries = read_log(client, match.id)["entries"]
    assert [(entry["version"], entry["seat"]) for entry in entries] == [(1, 0)]
    assert turn_job(redis_url, match.id, 0, 0).retries_left == Settings().ai_retries - 1


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
