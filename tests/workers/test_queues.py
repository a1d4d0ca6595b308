"""Fair AI: AI seats before tournaments before hints, on real RQ workers; one pending requested move per seat."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue
from rq.exceptions import StopRequested
from rq.job import Job
from rq.registry import FinishedJobRegistry
from rq.serializers import JSONSerializer
from rq.worker import WorkerStatus

from api.current import ParlourApp
from model.jobs import TurnJobResult
from store.jobs import HINT_QUEUE, LEGACY_QUEUE, LIVE_QUEUE, TOURNAMENT_QUEUE, WORKER_QUEUES, JobQueue
from store.matches import ai_turn_key, requested_move_key
from tests.api.conftest import Match, bearer, create_match
from tests.workers.conftest import ROOT, StartWorker
from tests.workers.test_ai_seats import job_done, request_move, wait_for
from workers.jobs import give_way_to_live_seats
from workers.timers import TimerWorker
from workers.worker import HINT_NICENESS, LISTEN_READ, ParlourWorker, PromptWorker

BURST_TIMEOUT = 300.0  # seconds the burst worker may take for every queued job (never asserted as a speed)
ASKERS = 8


def turn_job(redis_url: str, match_id: str, seat: int, version: int = 0) -> Job:
    """The RQ job given the AI seat's turn at that version."""
    connection = redis.Redis.from_url(redis_url)
    job_id = connection.get(ai_turn_key(match_id, seat, version))
    assert isinstance(job_id, bytes), f"no job for seat {seat} of {match_id} at version {version}"
    return Job.fetch(job_id.decode(), connection=connection, serializer=JSONSerializer)


def fetch(redis_url: str, job_id: str) -> Job:
    """An RQ job by id."""
    return Job.fetch(job_id, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)


def queued(redis_url: str, name: str) -> list[str]:
    """The ids waiting on one queue, in order."""
    return list(Queue(name, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer).job_ids)


def tournament_match(client: FlaskClient) -> tuple[str, str]:
    """A one-match IceCream tournament between two random AI seats, two turns long: its id and its match's."""
    entrants = [{"type": "ai", "level": "random"}] * 2
    body = {"game": "icecream", "entrants": entrants, "games_per_pairing": 1, "options": {"turn_limit": 2}}
    created = client.post("/v1/tournaments", json=body)
    assert created.status_code == 201, created.get_json()
    tournament = created.get_json()
    [slot] = tournament["matches"]
    return tournament["id"], slot["match"]


def run_burst_worker(redis_url: str) -> None:
    """`python -m workers --burst`: one worker runs every queued job, one at a time, then exits."""
    env = {**os.environ, "REDIS_URL": redis_url, "PARLOUR_WORKER_MAINTENANCE": "600"}
    command = [sys.executable, "-m", "workers", "--burst", "--name", "burst"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=BURST_TIMEOUT, check=False)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def test_each_job_goes_to_its_queue_and_the_match_names_its_tournament(
    client: FlaskClient, match: Match, redis_url: str
) -> None:
    tournament_id, tournament_match_id = tournament_match(client)
    live = create_match(client, seats=[{"type": "ai", "level": "easy"}, {"type": "human"}])
    hint = request_move(client, match, 0, level="easy")
    assert turn_job(redis_url, live.id, 0).origin == LIVE_QUEUE
    assert turn_job(redis_url, tournament_match_id, 0).origin == TOURNAMENT_QUEUE
    assert fetch(redis_url, hint["id"]).origin == HINT_QUEUE
    assert client.get(f"/v1/matches/{tournament_match_id}").get_json()["tournament"] == tournament_id
    assert client.get(live.url()).get_json()["tournament"] is None


def test_a_worker_plays_ai_seats_first_then_tournaments_then_hints(
    client: FlaskClient, match: Match, redis_url: str
) -> None:
    hint = request_move(client, match, 0, level="random")  # queued first, run last
    _, tournament_match_id = tournament_match(client)
    live = create_match(client, seats=[{"type": "ai", "level": "random"}, {"type": "human"}])  # queued last, run first
    assert all(queued(redis_url, name) for name in (LIVE_QUEUE, TOURNAMENT_QUEUE, HINT_QUEUE))
    run_burst_worker(redis_url)
    live_turn, first_tournament_turn = turn_job(redis_url, live.id, 0), turn_job(redis_url, tournament_match_id, 0)
    hinted = fetch(redis_url, hint["id"])
    assert live_turn.started_at and first_tournament_turn.started_at and hinted.started_at
    assert live_turn.started_at < first_tournament_turn.started_at < hinted.started_at
    connection = redis.Redis.from_url(redis_url)
    registry = FinishedJobRegistry(TOURNAMENT_QUEUE, connection=connection, serializer=JSONSerializer)
    tournament_jobs = [fetch(redis_url, job_id) for job_id in registry.get_job_ids()]
    assert all(job.ended_at is not None and job.ended_at <= hinted.started_at for job in tournament_jobs)
    over = client.get(f"/v1/matches/{tournament_match_id}").get_json()
    assert over["status"] == "finished"
    answers = [cast(TurnJobResult, job.return_value()) for job in tournament_jobs]
    assert sum(answer["moves"] for answer in answers) == over["version"]  # every move before the hint
    done = job_done(client, hint["url"], match.tokens[0])
    assert done is not None and done["status"] == "finished"


def test_asking_again_answers_the_pending_job(
    app: ParlourApp, client: FlaskClient, match: Match, redis_url: str
) -> None:
    first = request_move(client, match, 0, level="easy")
    again = request_move(client, match, 0, level="hard", apply=True)
    assert first["pending"] is False and again == {**first, "pending": True}  # its level and apply, not the new ask's
    assert queued(redis_url, HINT_QUEUE) == [first["id"]]
    key = requested_move_key(match.id, 0)
    assert f"{{{match.id}}}" in key and 0 < redis.Redis.from_url(redis_url).ttl(key) <= app.services.jobs.pending_ttl(
        2.0
    )
    other = client.post(match.url("/ai-move"), json={}, headers=bearer(match.tokens[1]))
    assert other.status_code == 409  # seat 1 may not ask now, and seat 0's request is not its own


def test_a_request_a_worker_has_just_taken_is_still_pending(client: FlaskClient, match: Match, redis_url: str) -> None:
    first = request_move(client, match, 0, level="easy")
    redis.Redis.from_url(redis_url).lpop(f"rq:queue:{HINT_QUEUE}")  # off its queue, not yet marked started
    again = request_move(client, match, 0, level="easy")
    assert again == {**first, "pending": True}
    assert queued(redis_url, HINT_QUEUE) == []


def test_once_the_job_ended_a_new_ask_queues_a_new_job(
    client: FlaskClient, match: Match, start_worker: StartWorker
) -> None:
    start_worker("w1")
    first = request_move(client, match, 0, level="random")
    assert wait_for(lambda: job_done(client, first["url"], match.tokens[0]), "the hint")["status"] == "finished"
    second = request_move(client, match, 0, level="random")
    assert second["id"] != first["id"] and second["pending"] is False
    assert wait_for(lambda: job_done(client, second["url"], match.tokens[0]), "the new hint")["status"] == "finished"


def test_concurrent_asks_queue_one_job(app: ParlourApp, match: Match, redis_url: str) -> None:
    start = threading.Barrier(ASKERS)

    def ask(_: int) -> dict[str, Any]:
        client = app.test_client()
        start.wait()
        response = client.post(match.url("/ai-move"), json={"level": "hard"}, headers=bearer(match.tokens[0]))
        assert response.status_code == 202, response.get_json()
        return dict(response.get_json())

    with ThreadPoolExecutor(ASKERS) as pool:
        answers = list(pool.map(ask, range(ASKERS)))
    assert len({answer["id"] for answer in answers}) == 1
    assert sorted(answer["pending"] for answer in answers) == [False] + [True] * (ASKERS - 1)
    assert queued(redis_url, HINT_QUEUE) == [answers[0]["id"]]
    connection = redis.Redis.from_url(redis_url)
    assert len(list(connection.scan_iter("rq:job:*"))) == 1  # the racers that lost left no job behind


def test_a_claim_is_taken_once_and_replaced_only_in_place_of_the_job_read(app: ParlourApp, match: Match) -> None:
    store = app.services.store
    assert store.claim_requested_move(match.id, 1, "a", None, 60)
    assert not store.claim_requested_move(match.id, 1, "b", None, 60)
    assert not store.claim_requested_move(match.id, 1, "c", "b", 60)  # not the job held
    assert store.claim_requested_move(match.id, 1, "d", "a", 60)
    assert store.requested_move(match.id, 1) == "d"


def thread_niceness() -> int:
    """A job: the niceness of the thread that runs it."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_only_a_hint_s_thread_runs_niced_and_the_worker_keeps_its_priority(redis_url: str) -> None:
    connection = redis.Redis.from_url(redis_url)
    queues = [Queue(name, connection=connection, serializer=JSONSerializer) for name in WORKER_QUEUES]
    jobs = {queue.name: queue.enqueue(thread_niceness) for queue in queues}
    worker = ParlourWorker(queues, connection=connection, serializer=JSONSerializer)
    assert worker.work(burst=True)  # in this process: no work-horse is forked
    usual = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    niceness = {name: job.return_value(refresh=True) for name, job in jobs.items()}
    assert niceness == {LIVE_QUEUE: usual, TOURNAMENT_QUEUE: usual, HINT_QUEUE: HINT_NICENESS, LEGACY_QUEUE: usual}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == usual  # the hint's niceness left with it


def test_a_requested_move_stops_once_a_live_seat_s_turn_waits(redis_url: str) -> None:
    jobs = JobQueue.from_url(redis_url, result_ttl=60, retries=0)
    stop = give_way_to_live_seats(jobs, until=math.inf, every=0.0)
    assert not stop()
    jobs.enqueue_turn("turn-t-1-0-a", "t", 1, 0, None, tournament=True)
    assert not stop()  # a tournament's turn waits for the hint to end
    jobs.enqueue_turn("turn-l-1-0-a", "l", 1, 0, None, tournament=False)
    assert stop()
    patient = give_way_to_live_seats(jobs, until=math.inf, every=3600.0)
    assert not patient()  # the queue is looked at once `every` seconds have passed, not at each iteration


def test_a_requested_move_pauses_while_a_live_seat_thinks_but_not_past_its_cap(redis_url: str) -> None:
    jobs = JobQueue.from_url(redis_url, result_ttl=60, retries=0)
    registry = jobs.queues[LIVE_QUEUE].started_job_registry
    jobs.connection.zadd(registry.key, {"turn-l-1-0-a:execution": time.time() + 60})  # as RQ records a running job
    assert jobs.live_turns() == (0, 1)
    until = time.monotonic() + 0.3
    assert not give_way_to_live_seats(jobs, until=until, every=0.0)()
    assert time.monotonic() >= until  # it waited for the live turn until the cap, then searches on
    jobs.connection.zrem(registry.key, "turn-l-1-0-a:execution")
    assert jobs.live_turns() == (0, 0)


def test_a_requested_move_searches_on_when_the_store_is_away() -> None:
    jobs = JobQueue.from_url("redis://127.0.0.1:1/0", result_ttl=60, retries=0)  # nothing listens on port 1
    assert not give_way_to_live_seats(jobs, until=math.inf, every=0.0)()


def ai_workers(redis_url: str, count: int) -> list[ParlourWorker]:
    """`count` AI workers registered on the queues (as started workers are), not working."""
    connection = redis.Redis.from_url(redis_url)
    workers = [
        ParlourWorker(list(WORKER_QUEUES), connection=connection, serializer=JSONSerializer, name=f"w{n}")
        for n in range(count)
    ]
    for worker in workers:
        worker.register_birth()  # type: ignore[no-untyped-call]  # RQ 3 leaves Worker.register_birth unannotated
    return workers


def hints_running(redis_url: str, count: int) -> None:
    """Record `count` hint jobs as running, as RQ records a job a worker has started."""
    registry = Queue(HINT_QUEUE, connection=redis.Redis.from_url(redis_url)).started_job_registry
    for n in range(count):
        registry.connection.zadd(registry.key, {f"hint{n}:execution": time.time() + 60})


@pytest.mark.parametrize(
    ("workers", "running", "may"), [(1, 1, True), (2, 0, True), (2, 1, False), (3, 1, True), (3, 2, False)]
)
def test_hints_never_take_the_last_free_worker(redis_url: str, workers: int, running: int, may: bool) -> None:
    hints_running(redis_url, running)
    assert ai_workers(redis_url, workers)[0].may_take_hint() is may


def test_a_worker_that_may_not_take_a_hint_takes_the_ai_seat_s_turn_and_leaves_the_hint_queued(redis_url: str) -> None:
    worker = ai_workers(redis_url, 2)[0]
    jobs = JobQueue.from_url(redis_url, result_ttl=60, retries=0)
    jobs.enqueue_move("m", 0, 0, "easy", False, None, claim=lambda job_id: True)
    hints_running(redis_url, 1)
    jobs.enqueue_turn("turn-l-1-0-a", "l", 1, 0, None, tournament=False)
    job, queue = worker.dequeue_job_and_maintain_ttl(timeout=1)
    assert (job.id, queue.name) == ("turn-l-1-0-a", LIVE_QUEUE)
    assert len(queued(redis_url, HINT_QUEUE)) == 1
    redis.Redis.from_url(redis_url).delete(Queue(HINT_QUEUE, connection=jobs.connection).started_job_registry.key)
    job, queue = worker.dequeue_job_and_maintain_ttl(timeout=1)  # the other worker's hint ended
    assert queue.name == HINT_QUEUE and queued(redis_url, HINT_QUEUE) == []


def test_a_worker_that_cannot_reach_the_store_leaves_the_waiting_to_rq(redis_url: str) -> None:
    [worker] = ai_workers(redis_url, 1)
    worker.connection = redis.Redis.from_url("redis://127.0.0.1:1/0")  # the store went away: nothing listens
    assert worker.may_take_hint()


@pytest.mark.parametrize("worker_class", [ParlourWorker, TimerWorker])
def test_a_worker_s_command_listener_stops_within_its_read_even_right_after_its_unsubscribe_reply(
    redis_url: str, worker_class: type[PromptWorker]
) -> None:
    connection = redis.Redis.from_url(redis_url)
    worker = worker_class([Queue(LIVE_QUEUE, connection=connection)], connection=connection)
    worker.subscribe()
    listener = worker.pubsub_thread
    assert listener is not None
    worker.pubsub.unsubscribe()  # as RQ's `unsubscribe` begins: the thread reads the reply, then reads again
    time.sleep(0.2)
    stopping = threading.Thread(target=worker.unsubscribe)
    stopping.start()
    stopping.join(timeout=30 * LISTEN_READ)  # RQ's own listener read on for 60 s here (redis-py 8.2 waits for it)
    assert not stopping.is_alive() and not listener.is_alive()


@pytest.mark.parametrize("worker_class", [ParlourWorker, TimerWorker])
def test_a_warm_shutdown_asked_during_the_maintenance_stops_the_worker_once_the_maintenance_ends(
    redis_url: str, worker_class: type[PromptWorker]
) -> None:
    """RQ raised StopRequested into an idle worker wherever it was; in a sweep, the sweep's error handling caught
    it and the worker ran on (timing seats out) until it was killed. Now it is kept for the loop to see."""
    connection = redis.Redis.from_url(redis_url)
    worker = worker_class([Queue(name, connection=connection) for name in WORKER_QUEUES], connection=connection)
    worker.set_state(WorkerStatus.IDLE)
    worker._shutdown()  # as from SIGTERM's handler, in the middle of a sweep: nothing raised there
    assert worker._stop_requested
    with pytest.raises(StopRequested):  # the loop's next wait for a job ends at once
        worker.dequeue_job_and_maintain_ttl(timeout=60)


def test_a_warm_shutdown_asked_while_the_worker_waits_for_a_job_interrupts_the_wait(redis_url: str) -> None:
    connection = redis.Redis.from_url(redis_url)
    worker = TimerWorker([Queue(LIVE_QUEUE, connection=connection)], connection=connection)
    worker.set_state(WorkerStatus.IDLE)
    worker.waiting_for_job = True  # as inside RQ's blocking read
    with pytest.raises(StopRequested):
        worker._shutdown()
