"""Turn timers on a real Redis with a real timer worker (`python -m workers --timers`, RQ's scheduler on).

A seat that does not act is timed out once, with its game's default action and `timeout: true` in
the log; a seat that acts in time is not; a duplicated timeout job still plays once; a timer set
before the API app and the worker are replaced still fires; a timeout whose job was lost is found
by the worker's sweep. Wall-clock bounds are generous: the scheduler works in whole seconds.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from api.app import create_app
from domain.turn_timers import parse_iso
from model.match import now_iso
from model.settings import Settings
from store.turn_timers import TIMEOUT_JOB, TIMER_QUEUE, timeout_job_id
from tests.api.conftest import Match, bearer, create_match, read_log
from tests.workers.conftest import StartTimerWorker, StartWorker, terminate

WAIT = 30.0
"""Seconds a test waits for a timeout it expects: far beyond the scheduler's second."""


def log_entries(client: FlaskClient, match: Match) -> list[dict[str, Any]]:
    """The match's log as the public sees it."""
    entries: list[dict[str, Any]] = read_log(client, match.id)["entries"]
    return entries


def wait_for_entries(client: FlaskClient, match: Match, count: int, timeout: float = WAIT) -> list[dict[str, Any]]:
    """The log once it has at least `count` entries; fails after `timeout` seconds."""
    limit = time.monotonic() + timeout
    while len(entries := log_entries(client, match)) < count:
        assert time.monotonic() < limit, f"only {len(entries)} log entries after {timeout} s: {entries}"
        time.sleep(0.1)
    return entries


def deadline_of(client: FlaskClient, match: Match, seat: int) -> str:
    """The seat's current deadline."""
    body = client.get(match.url()).get_json()
    return str(next(entry["at"] for entry in body["deadlines"] if entry["seat"] == seat))


def job_result(redis_url: str, job_id: str, timeout: float = WAIT) -> dict[str, Any]:
    """A timeout job's return value once it finished."""
    connection = redis.Redis.from_url(redis_url)
    limit = time.monotonic() + timeout
    while True:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
        if job.get_status() == JobStatus.FINISHED:
            result = job.return_value()
            assert isinstance(result, dict)
            return result
        assert job.get_status() != JobStatus.FAILED, job.latest_result()
        assert time.monotonic() < limit, f"job {job_id} is still {job.get_status()}"
        time.sleep(0.1)


def seconds_between(earlier: str, later: str) -> float:
    """Seconds from one ISO timestamp to another."""
    return (parse_iso(later) - parse_iso(earlier)).total_seconds()


def test_a_seat_that_does_not_act_is_timed_out_once(client: FlaskClient, start_timer_worker: StartTimerWorker) -> None:
    """Seat 0 never moves: its default action lands at version 1 with `timeout: true`, after its deadline."""
    start_timer_worker("timers-1")
    match = create_match(client, turn_timer={"seconds": 2})
    deadline = deadline_of(client, match, 0)
    first = wait_for_entries(client, match, 1)[0]
    assert {key: first[key] for key in ("version", "seat", "action", "timeout")} == {
        "version": 1,
        "seat": 0,
        "action": {"type": "move", "from_cone": 0, "scoops": 1},  # IceCream's default: one scoop, fuller cone
        "timeout": True,
    }
    assert 0 <= seconds_between(deadline, first["at"]) < 10
    # Seat 1 now runs its own clock, started at the timeout.
    assert seconds_between(first["at"], deadline_of(client, match, 1)) == pytest.approx(2, abs=0.01)


def test_a_seat_that_acts_in_time_is_not_timed_out(
    redis_url: str, client: FlaskClient, start_timer_worker: StartTimerWorker
) -> None:
    """Seat 0 moves before its deadline: the timeout job for that deadline finds it acted and does nothing."""
    start_timer_worker("timers-2")
    match = create_match(client, turn_timer={"seconds": 3})
    deadline = deadline_of(client, match, 0)
    client.post(
        match.url("/actions"),
        json={"action": {"type": "move", "from_cone": 1, "scoops": 1}, "expected_version": 0},
        headers=bearer(match.tokens[0]),
    )
    result = job_result(redis_url, timeout_job_id(match.id, 0, deadline))
    assert result["outcome"] == "acted-in-time"
    first = log_entries(client, match)[0]
    assert (first["seat"], first["action"]["from_cone"], "timeout" in first) == (0, 1, False)


def test_a_duplicated_timeout_job_plays_once(
    redis_url: str, client: FlaskClient, start_timer_worker: StartTimerWorker
) -> None:
    """Two jobs for one deadline (a retry, a sweep): one plays the default action, the other finds it done."""
    match = create_match(client, turn_timer={"seconds": 8})
    client.post(
        match.url("/actions"),
        json={"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 0},
        headers=bearer(match.tokens[0]),
    )
    deadline = deadline_of(client, match, 1)  # seat 1 has two points: a doubled default would be legal
    queue = Queue(TIMER_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    queue.enqueue_at(parse_iso(deadline), TIMEOUT_JOB, match.id, 1, deadline, job_id="duplicate")
    start_timer_worker("timers-3")
    results = [job_result(redis_url, job_id) for job_id in (timeout_job_id(match.id, 1, deadline), "duplicate")]
    assert sorted(result["outcome"] for result in results) == ["acted-in-time", "timed-out"]
    entries = log_entries(client, match)
    assert [(entry["seat"], entry.get("timeout")) for entry in entries] == [(0, None), (1, True)]


def test_a_timer_survives_restarting_the_api_and_the_worker(
    redis_url: str, settings: Settings, start_timer_worker: StartTimerWorker
) -> None:
    """Deadlines and their jobs live in Redis: a new app and a new worker still time the seat out (later by the
    worker's downtime, see test_timers_downtime.py)."""
    old_app = create_app(settings)
    old_worker = start_timer_worker("timers-before")
    match = create_match(old_app.test_client(), turn_timer={"seconds": 4})
    deadline = deadline_of(old_app.test_client(), match, 0)
    terminate(old_worker)
    del old_app
    time.sleep(max(0.0, -seconds_between(deadline, now_iso())) + 0.5)  # the deadline passes with no worker
    client = create_app(settings).test_client()
    assert log_entries(client, match) == []
    start_timer_worker("timers-after")
    first = wait_for_entries(client, match, 1)[0]
    assert (first["seat"], first["timeout"]) == (0, True)


def test_a_timeout_whose_job_was_lost_is_swept(
    redis_url: str, client: FlaskClient, start_timer_worker: StartTimerWorker
) -> None:
    """The API died between storing a change and scheduling its timeout: the worker's sweep schedules it."""
    match = create_match(client, turn_timer={"seconds": 1})
    deadline = deadline_of(client, match, 0)
    connection = redis.Redis.from_url(redis_url)
    Job.fetch(timeout_job_id(match.id, 0, deadline), connection=connection, serializer=JSONSerializer).delete()
    start_timer_worker("timers-sweep")
    first = wait_for_entries(client, match, 1)[0]  # the sweep waits out its grace (5 s), then schedules
    assert (first["seat"], first["timeout"]) == (0, True)


def test_after_a_timeout_the_ai_seat_still_plays(
    client: FlaskClient, start_worker: StartWorker, start_timer_worker: StartTimerWorker
) -> None:
    """The timeout commits through the same hook as any action, so the AI seat it hands the turn to gets its job."""
    start_worker("ai-after-timeout")
    start_timer_worker("timers-ai")
    seats = [{"type": "human"}, {"type": "ai", "level": "random"}]
    match = create_match(client, seats=seats, turn_timer={"seconds": 3})
    first, second = wait_for_entries(client, match, 2)[:2]
    assert (first["seat"], first.get("timeout")) == (0, True)
    assert (second["seat"], second.get("timeout")) == (1, None)  # the AI moved well within its 3 seconds
