"""Across machines: two API processes and two AI workers, separate processes sharing only one standalone Redis.

A race on one match sent to both API processes applies exactly one action per version; an AI
worker killed in the middle of a search leaves its turn to the other, and the match goes on with
nothing lost or doubled.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from rq.job import JobStatus

from tests.multihost_support import Answer, Api, start_api, start_redis_server, stop_group
from tests.test_service import free_port
from tests.workers.conftest import launch_worker, stop
from tests.workers.test_ai_seats import wait_for
from tests.workers.test_recovery import turn_job

API_ENV = {"PARLOUR_LIMIT_ACTIONS": "100000/second"}
"""The limiter stays on (its counters in the shared Redis), but the race sends more actions a second than it allows."""
RACERS = 8
ROUNDS = 30
RECOVERY = 180.0
"""Seconds a dead worker's turn may take to be played: RQ gives its job up a heartbeat slack after the last beat
(workers.worker.HEARTBEAT_SLACK, 10 s; 60 s with a forking RQ worker), then a maintenance retries it."""
WORKER_NAMES = ("host-a-worker", "host-b-worker")


@pytest.fixture(scope="module")
def shared_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a standalone redis-server on a loopback TCP port, the only thing the processes below share."""
    port = free_port()
    server = start_redis_server(tmp_path_factory.mktemp("redis"), port)
    yield f"redis://127.0.0.1:{port}/0"
    stop_group(server)


@pytest.fixture(scope="module")
def apis(shared_redis: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Api]]:
    """Two API processes (gunicorn `ops.wsgi:app`) on two ports, as on two hosts behind a load balancer."""
    log_dir = tmp_path_factory.mktemp("api-logs")
    started: list[subprocess.Popen[bytes]] = []
    found: list[Api] = []
    try:
        for name in ("host-a-api", "host-b-api"):
            port = free_port()
            started.append(start_api(name, shared_redis, port, log_dir, API_ENV))
            found.append(Api(f"http://127.0.0.1:{port}"))
        yield found
    finally:
        for process in started:
            stop_group(process)


@pytest.fixture
def ai_workers(shared_redis: str, tmp_path: Path) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Two AI workers (`python -m workers`, no warm-up) by name; every one stopped after, dead or alive."""
    started: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for name in WORKER_NAMES:
            started[name] = launch_worker(name, [], shared_redis, tmp_path)
        yield started
    finally:
        for process in started.values():
            stop(process)


# --- a race across both API processes ---------------------------------------------------------------------


def race(apis: list[Api], match_id: str, token: str, version: int, actions: list[Any]) -> list[Answer]:
    """RACERS threads post the seat's actions (in turn) at `version` at once, alternately to each API process."""
    barrier = threading.Barrier(RACERS)

    def send(racer: int) -> Answer:
        barrier.wait()
        body = {"action": actions[racer % len(actions)], "expected_version": version}
        return apis[racer % len(apis)].post(f"/v1/matches/{match_id}/actions", body, token)

    with ThreadPoolExecutor(RACERS) as pool:
        return list(pool.map(send, range(RACERS)))


def the_winner(answers: list[Answer], version: int) -> int:
    """The one racer whose action applied; every other was refused as stale, naming the new version (or, when
    the winner ended the match, as too late for a match that is over)."""
    winners = [racer for racer, answer in enumerate(answers) if answer.status == 200]
    assert len(winners) == 1, answers
    won = answers[winners[0]].body
    assert won["version"] == version + 1
    for racer, answer in enumerate(answers):
        if racer != winners[0]:
            assert answer.status == 409, answer
            assert answer.headers["Content-Type"].startswith("application/problem+json")
            if won["status"] != "active" and answer.body["code"] == "match-over":
                continue  # the winning action ended the match: a racer that read it after is told so
            assert (answer.body["code"], answer.body["current_version"]) == ("stale-version", version + 1)
    return winners[0]


def test_a_race_across_two_api_processes_applies_one_action_per_version(apis: list[Api]) -> None:
    created = apis[0].post("/v1/matches", {"game": "icecream", "players": 2, "seed": "across-hosts"})
    assert created.status == 201, created
    match_id = created.body["id"]
    tokens = {seat["seat"]: seat["token"] for seat in created.body["tokens"]}
    applied: list[tuple[int, int, Any]] = []
    for round_ in range(ROUNDS):
        match = apis[round_ % 2].get(f"/v1/matches/{match_id}")
        if match["status"] != "active":
            break
        seat = match["waiting_for"][0]
        legal = apis[(round_ + 1) % 2].get(f"/v1/matches/{match_id}/legal-actions", tokens[seat])
        assert legal["may_act"] and legal["version"] == match["version"], legal
        answers = race(apis, match_id, tokens[seat], match["version"], legal["actions"])
        winner = the_winner(answers, match["version"])
        applied.append((match["version"] + 1, seat, legal["actions"][winner % len(legal["actions"])]))
    assert len(applied) >= 10, applied
    logs = [api.log(match_id) for api in apis]
    assert logs[0] == logs[1]  # both processes read the same store
    entries = [(entry["version"], entry["seat"], entry["action"]) for entry in logs[0]["entries"]]
    assert entries == applied  # every accepted action once, in order; no refused one
    assert logs[0]["version"] == len(applied)


# --- an AI worker killed in the middle of its search -------------------------------------------------------


def running_turn(redis_url: str, match_id: str, version: int) -> str | None:
    """The name of the worker running the AI seat's turn at `version`, once it has started."""
    job = turn_job(redis_url, match_id, 0, version)
    return job.worker_name if job.get_status() == JobStatus.STARTED and job.worker_name else None


def play_human_turn(apis: list[Api], match_id: str, token: str) -> int:
    """Play the human seat's first legal action while it may act, alternating API processes; the actions played."""
    played = 0
    while (legal := apis[played % 2].get(f"/v1/matches/{match_id}/legal-actions", token))["may_act"]:
        body = {"action": legal["actions"][0], "expected_version": legal["version"]}
        answer = apis[(played + 1) % 2].post(f"/v1/matches/{match_id}/actions", body, token)
        assert answer.status == 200, answer
        played += 1
    return played


def waiting_for(api: Api, match_id: str, seats: list[int]) -> bool:
    """True once the match waits for exactly these seats (or is over)."""
    match = api.get(f"/v1/matches/{match_id}")
    return bool(match["waiting_for"] == seats or match["status"] != "active")


def test_a_worker_killed_mid_search_leaves_its_turn_to_the_other(
    apis: list[Api], shared_redis: str, ai_workers: dict[str, subprocess.Popen[bytes]]
) -> None:
    seats = [{"type": "ai", "level": "hard"}, {"type": "human", "name": "ann"}]
    created = apis[0].post("/v1/matches", {"game": "icecream", "players": 2, "seed": "killed", "seats": seats})
    assert created.status == 201, created
    match_id, token = created.body["id"], created.body["tokens"][0]["token"]

    doomed = wait_for(lambda: running_turn(shared_redis, match_id, 0), "a worker to start the AI turn", 60.0)
    stop(ai_workers[doomed])  # SIGKILL: the worker and its work-horse, as when its machine dies
    assert ai_workers[doomed].returncode == -signal.SIGKILL
    assert turn_job(shared_redis, match_id, 0, 0).get_status() == JobStatus.STARTED  # killed before it finished
    assert apis[1].get(f"/v1/matches/{match_id}")["version"] == 0
    (survivor,) = set(WORKER_NAMES) - {doomed}

    killed_at = time.monotonic()
    wait_for(lambda: waiting_for(apis[1], match_id, [1]), "the other worker to play the turn", RECOVERY)
    print(f"the dead worker's turn was played {time.monotonic() - killed_at:.0f} s after the kill")
    # The job is marked finished just after its move is stored: wait for the mark, not only the move.
    wait_for(lambda: turn_job(shared_redis, match_id, 0, 0).get_status() == JobStatus.FINISHED, "the job's end", 30.0)
    assert turn_job(shared_redis, match_id, 0, 0).worker_name == survivor

    for _ in range(2):  # the match goes on: the human plays a whole turn, the AI answers
        assert play_human_turn(apis, match_id, token) > 0
        wait_for(lambda: waiting_for(apis[0], match_id, [1]), "the AI to hand the turn back")
    assert_each_version_once(apis, shared_redis, match_id)


def assert_each_version_once(apis: list[Api], redis_url: str, match_id: str) -> None:
    """One log entry per version, 1 to the current one, each AI move the work of the job its turn was given to."""
    log = apis[0].log(match_id)
    assert [entry["version"] for entry in log["entries"]] == list(range(1, log["version"] + 1))
    movers = [entry["seat"] for entry in log["entries"]]
    assert movers[0] == 0 and 1 in movers and movers[-1] == 0, movers
    for entry in log["entries"]:
        if entry["seat"] == 0:
            assert turn_job(redis_url, match_id, 0, entry["version"] - 1).get_status() == JobStatus.FINISHED
