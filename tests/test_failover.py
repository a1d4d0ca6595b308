"""The API follows a Sentinel failover without a restart, and loses nothing it acknowledged with WAIT.

A primary, a replica and three sentinels (real redis-server processes, loadtests/chaos/cluster.py); the API
in process, finding the primary through the sentinels, with PARLOUR_REDIS_WAIT_REPLICAS=1. The primary is
killed (SIGKILL); once the sentinels have promoted the replica and the old primary is back as its replica,
the next move is played on the new primary, whose scripts were flushed (the commit script is loaded again), and
the match holds every acknowledged move once; the change feed heard the move stored on the new primary.
"""

from __future__ import annotations

import hashlib
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from loadtests.chaos.cluster import HOST, Cluster, wait_until
from model.redis_address import SentinelAddress
from model.settings import Settings
from store.connection import lua_source
from tests.api.conftest import IN_PROCESS_LIMITS, bearer, create_match, read_log

FAILOVER = 120.0
"""Seconds the sentinels may take to agree and promote, on a busy machine (a few, when idle)."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A primary, its replica and three sentinels; no Parlour process (the API runs in the test)."""
    cluster = Cluster(Path(tmp_path_factory.mktemp("failover")), apis=0, ai_workers=0)
    cluster.parlour.clear()
    try:
        cluster.start()
        yield cluster
    finally:
        left = cluster.stop()
        assert not left, f"processes left over: {left}"


@pytest.fixture
def app(cluster: Cluster) -> Iterator[ParlourApp]:
    """The API on the cluster, through its sentinels, waiting for one replica."""
    address = SentinelAddress(tuple((HOST, node.port) for node in cluster.sentinels), "parlour")
    settings = Settings(redis_url=address.url(), wait_replicas=1, wait_timeout_ms=5000, limits=IN_PROCESS_LIMITS)
    app = create_app(settings)
    app.testing = True
    yield app
    app.services.changes.stop()


def first_move(client: FlaskClient, match_id: str, token: str) -> dict[str, Any]:
    """The seat's first legal move, with the version it is for."""
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).get_json()
    return {"action": legal["actions"][0], "expected_version": legal["version"]}


def test_the_api_follows_a_failover_and_loses_no_acknowledged_move(app: ParlourApp, cluster: Cluster) -> None:
    client = app.test_client()
    match = create_match(client, seed="failover")
    played = client.post(
        match.url("/actions"), json=first_move(client, match.id, match.tokens[0]), headers=bearer(match.tokens[0])
    )
    assert played.status_code == 200, played.get_json()
    acknowledged = played.get_json()["version"]

    old = cluster.primary()
    assert old is not None
    old.kill(signal.SIGKILL)
    wait_until(lambda: cluster.primary_port() not in (None, old.port), "the sentinels to promote the replica", FAILOVER)
    new_primary = redis.Redis(HOST, cluster.primary_port() or 0)
    sha = hashlib.sha1(lua_source("matches", "commit").encode()).hexdigest()
    new_primary.script_flush()  # as a primary that restarted, or a replica that never had the script, would be
    cluster.restart(old)  # back as a replica of the new primary: WAIT 1 can be met again
    wait_until(lambda: cluster.replica_linked(old), "the old primary to follow the new one", FAILOVER)

    with app.services.changes.watching(match.id) as watch:
        move = first_move_when_served(client, match.id, match.tokens[1])
        answer = client.post(match.url("/actions"), json=move, headers=bearer(match.tokens[1]))
        assert answer.status_code == 200, answer.get_json()
        assert watch.wait(FAILOVER) in (answer.get_json()["version"], -1)
    versions = [entry["version"] for entry in read_log(client, match.id)["entries"]]
    assert versions == [acknowledged, acknowledged + 1]
    assert new_primary.script_exists(sha) == [True]


def first_move_when_served(client: FlaskClient, match_id: str, token: str) -> dict[str, Any]:
    """The seat's first legal move, once the API answers again (its first requests after a failover may be 503)."""
    found: dict[str, Any] = {}

    def served() -> bool:
        answer = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token))
        assert answer.status_code in (200, 503), answer.get_json()
        if answer.status_code == 200:
            found.update(first_move(client, match_id, token))
        return answer.status_code == 200

    wait_until(served, "the API to serve after the failover", FAILOVER)
    return found
