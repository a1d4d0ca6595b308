"""Acknowledged means replicated, when asked: with PARLOUR_REDIS_WAIT_REPLICAS=1 an answer waits for the replica.

A primary and its replica, two real redis-server processes on loopback. A replica that cannot confirm (stopped
with SIGSTOP, so it holds its connection and answers nothing) turns a move, a creation and a bot's registration
into 503 `replication-timeout` with Retry-After, over HTTP and over the socket; the change is then whole on the
primary, and the same Idempotency-Key replays it once the replica is back.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from model.settings import Settings
from store.connection import redis_client
from store.matches import match_key
from tests.api.conftest import Match, bearer, create_match, read_log
from tests.api.test_socket import Socket, legal_action
from tests.multihost_support import start_redis_server, stop_group
from tests.serving import served
from tests.test_service import free_port

WAIT_MS = 300
"""How long a change waits for the replica in these tests: a stopped replica never confirms, so any wait ends."""


@dataclass
class Pair:
    """A primary and its replica."""

    primary: redis.Redis
    replica: redis.Redis
    replica_process: subprocess.Popen[bytes]
    url: str

    @contextmanager
    def replica_stopped(self) -> Iterator[None]:
        """The replica frozen (SIGSTOP): it takes the primary's stream into its socket but confirms nothing."""
        os.kill(self.replica_process.pid, signal.SIGSTOP)
        try:
            yield
        finally:
            os.kill(self.replica_process.pid, signal.SIGCONT)

    def replica_version(self, match_id: str) -> int | None:
        """The version of a match the replica holds now."""
        raw = self.replica.hget(match_key(match_id), "version")
        return int(raw) if raw is not None else None


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """A primary and one replica that has caught up with it."""
    primary_port, replica_port = free_port(), free_port()
    primary = start_redis_server(tmp_path_factory.mktemp("primary"), primary_port)
    replica = start_redis_server(
        tmp_path_factory.mktemp("replica"), replica_port, ("--replicaof", "127.0.0.1", str(primary_port))
    )
    primary_client = redis.Redis(port=primary_port)
    replica_client = redis.Redis(port=replica_port)
    primary_client.set("linked", 1)
    linked = primary_client.execute_command("WAIT", 1, 60_000)  # type: ignore[no-untyped-call]  # untyped in redis-py
    assert linked == 1, "the replica never linked to its primary"
    yield Pair(primary_client, replica_client, replica, f"redis://127.0.0.1:{primary_port}/0")
    os.kill(replica.pid, signal.SIGCONT)
    stop_group(replica)
    stop_group(primary)


def app_on(pair: Pair, settings: Settings, replicas: int) -> ParlourApp:
    """The API on the pair's primary, waiting for `replicas` replicas."""
    app = create_app(replace(settings, redis_url=pair.url, wait_replicas=replicas, wait_timeout_ms=WAIT_MS))
    app.testing = True
    return app


@pytest.fixture
def replicated_app(pair: Pair, settings: Settings) -> Iterator[ParlourApp]:
    """The API with PARLOUR_REDIS_WAIT_REPLICAS=1."""
    pair.primary.flushall()
    app = app_on(pair, settings, 1)
    yield app
    app.services.changes.stop()


def first_move(client: FlaskClient, match: Match) -> dict[str, Any]:
    """The body of seat 0's first legal move at the match's version."""
    version = client.get(match.url(), headers=bearer(match.tokens[0])).get_json()["version"]
    return {"action": legal_action(client, match, 0), "expected_version": version}


def move(client: FlaskClient, match: Match, body: dict[str, Any] | None = None, **headers: str) -> Any:
    """POST a move for seat 0 (its first legal one unless `body` is given)."""
    body = body or first_move(client, match)
    return client.post(match.url("/actions"), json=body, headers={**bearer(match.tokens[0]), **headers})


def legal_actions(client: FlaskClient, match: Match, seat: int) -> dict[str, Any]:
    """What `GET .../legal-actions` answers the seat."""
    return dict(client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json())


def test_an_acknowledged_move_is_on_the_replica_when_answered(replicated_app: ParlourApp, pair: Pair) -> None:
    client = replicated_app.test_client()
    match = create_match(client, seed="replicated")
    assert pair.replica_version(match.id) == match.body["version"]
    answer = move(client, match)
    assert answer.status_code == 200, answer.get_json()
    assert pair.replica_version(match.id) == answer.get_json()["version"]


def test_a_move_the_replica_does_not_confirm_is_a_503_then_whole_and_replayed(
    replicated_app: ParlourApp, pair: Pair
) -> None:
    client = replicated_app.test_client()
    match = create_match(client, seed="unconfirmed")
    before = match.body["version"]
    body = first_move(client, match)
    with pair.replica_stopped():
        answer = move(client, match, body, **{"Idempotency-Key": "move-1"})
        assert answer.status_code == 503, answer.get_json()
        assert answer.get_json()["code"] == "replication-timeout"
        assert answer.headers["Retry-After"] == "1"
        # Not half-applied: the primary holds the whole change, its record and its one log entry.
        stored = client.get(match.url(), headers=bearer(match.tokens[0])).get_json()
        assert stored["version"] == before + 1
        assert [entry["version"] for entry in read_log(client, match.id)["entries"]] == [before + 1]
    replayed = move(client, match, body, **{"Idempotency-Key": "move-1"})
    assert replayed.status_code == 200, replayed.get_json()
    assert replayed.get_json()["version"] == before + 1
    assert pair.replica_version(match.id) == before + 1


def test_a_creation_and_a_bot_registration_wait_for_the_replica_too(replicated_app: ParlourApp, pair: Pair) -> None:
    client = replicated_app.test_client()
    with pair.replica_stopped():
        created = client.post("/v1/matches", json={"game": "icecream", "players": 2})
        registered = client.post("/v1/bots", json={"name": "unconfirmed"})
    for answer in (created, registered):
        assert answer.status_code == 503, answer.get_json()
        assert answer.get_json()["code"] == "replication-timeout"


def test_a_socket_action_waits_for_the_replica_as_http_does(replicated_app: ParlourApp, pair: Pair) -> None:
    client = replicated_app.test_client()
    match = create_match(client, seed="socket-replicated")
    with served(replicated_app) as base:
        socket = Socket(base)
        try:
            socket.hello(match.tokens[0])
            with pair.replica_stopped():
                problem = socket.act(legal_action(client, match, 0), match.body["version"])
            assert problem["type"] == "problem", problem
            assert problem["problem"]["code"] == "replication-timeout" and problem["problem"]["retry_after"] == 1
            version = match.body["version"] + 1  # the move is whole on the primary, though not acknowledged
            while not legal_actions(client, match, 0)["may_act"]:  # seat 1 answers over HTTP
                reply = {"action": legal_action(client, match, 1), "expected_version": version}
                assert (
                    client.post(match.url("/actions"), json=reply, headers=bearer(match.tokens[1])).status_code == 200
                )
                version += 1
            result = socket.act(legal_action(client, match, 0), version)
            assert result["type"] == "result", result
            assert pair.replica_version(match.id) == version + 1
        finally:
            socket.close()


def test_without_wait_replicas_a_move_does_not_wait(pair: Pair, settings: Settings) -> None:
    pair.primary.flushall()
    app = app_on(pair, settings, 0)
    try:
        client = app.test_client()
        match = create_match(client, seed="unreplicated")
        with pair.replica_stopped():
            assert move(client, match).status_code == 200
    finally:
        app.services.changes.stop()


def test_a_primary_short_of_replicas_is_answered_as_a_redis_away(replicated_app: ParlourApp, pair: Pair) -> None:
    """`min-replicas-to-write` above the replicas it has makes the primary refuse writes (NOREPLICAS), as in a
    failover that left it none: every client takes that for a Redis away (an RQ worker waits instead of quitting),
    and the API answers 503 with Retry-After, having written nothing."""
    client = replicated_app.test_client()
    match = create_match(client, seed="short-of-replicas")
    pair.primary.config_set("min-replicas-to-write", 2)  # it has one
    try:
        with pytest.raises(redis.ConnectionError, match="NOREPLICAS"):
            redis_client(pair.url).set("refused", 1)
        answer = move(client, match)
        assert answer.status_code == 503, answer.get_json()
        assert answer.get_json()["code"] == "service-unavailable" and answer.headers["Retry-After"] == "1"
    finally:
        pair.primary.config_set("min-replicas-to-write", 0)
    assert client.get(match.url(), headers=bearer(match.tokens[0])).get_json()["version"] == match.body["version"]
