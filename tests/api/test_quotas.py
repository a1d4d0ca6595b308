"""Quotas on the real Redis: unfinished matches, running tournaments and bots per client, tournament size,
and held event streams (counted by leases, so a stream whose process died is not counted for ever)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from api.current import ParlourApp
from domain.matches import commands as service
from model.settings import Settings
from store.quotas import holdings_key
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, bearer, create_match
from tests.api.test_tournaments import play_running_matches

QUOTAS = replace(
    IN_PROCESS_LIMITS, matches=3, tournaments=1, bots=2, streams_held=2, tournament_matches=6, tournament_entrants=4
)
ICECREAM = {"game": "icecream", "players": 2}
ENTRANTS = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "easy"}]


@pytest.fixture
def app(redis_url: str) -> Iterator[ParlourApp]:
    """The API with small quotas."""
    settings = Settings(redis_url=redis_url, cors_origins=["*"], events_heartbeat=EVENTS_HEARTBEAT, limits=QUOTAS)
    app = create_app(settings)
    app.testing = True
    yield app
    app.services.changes.stop()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def from_address(address: str) -> dict[str, Any]:
    """Test-client arguments that send the request from another client address."""
    return {"environ_base": {"REMOTE_ADDR": address}}


def assert_quota_exceeded(response: TestResponse, resource: str, quota: int, in_use: int) -> None:
    """A 429 `quota-exceeded` problem naming what, the quota and how many are in use, with a Retry-After."""
    assert response.status_code == 429, response.get_data(as_text=True)
    body = response.get_json()
    assert body["code"] == "quota-exceeded" and response.mimetype == "application/problem+json"
    assert response.headers["Retry-After"] == "60"
    assert (body["resource"], body["quota"], body["in_use"]) == (resource, quota, in_use)


def test_unfinished_matches_per_client(app: ParlourApp, client: FlaskClient) -> None:
    matches = [create_match(client, seed=f"q{n}") for n in range(3)]
    assert_quota_exceeded(client.post("/v1/matches", json=ICECREAM), "matches", 3, 3)
    assert client.post("/v1/matches", json=ICECREAM, **from_address("10.0.0.5")).status_code == 201
    # An aborted match no longer counts, nor an expired one.
    with app.app_context():
        service.abort_match(app.services.store, matches[0].id, "test")
    assert client.post("/v1/matches", json=ICECREAM).status_code == 201
    assert_quota_exceeded(client.post("/v1/matches", json=ICECREAM), "matches", 3, 3)
    app.services.store.client.delete(f"parlour:match:{{{matches[1].id}}}")
    assert client.post("/v1/matches", json=ICECREAM).status_code == 201


def test_a_finished_match_frees_its_place(app: ParlourApp, client: FlaskClient) -> None:
    first = create_match(client, seed="finish", options={"turn_limit": 4})
    for n in range(2):
        create_match(client, seed=f"f{n}")
    with app.app_context():
        store = app.services.store
        record = store.load(first.id)
        assert record is not None
        while not record.ended:
            state = service.engine_state(record)
            seat = state.acting_seats()[0]
            action = state.legal_actions(seat)[0]
            service.apply_action(store, record, seat, action, record.version, None)
            record = store.load(first.id)
            assert record is not None
    assert client.post("/v1/matches", json=ICECREAM).status_code == 201


def test_a_refused_or_failed_creation_holds_no_place(app: ParlourApp, client: FlaskClient) -> None:
    assert client.post("/v1/matches", json={"game": "chess", "players": 2}).status_code == 400
    for n in range(3):
        create_match(client, seed=f"r{n}")
    assert app.services.store.client.zcard(holdings_key("matches", "addr:127.0.0.1")) == 3


def test_a_creation_that_died_half_way_is_not_counted_for_ever(app: ParlourApp, client: FlaskClient) -> None:
    clock = Clock()
    holdings = app.services.quotas.matches
    holdings.clock = clock
    holdings.reserve("addr:127.0.0.1", "pending:lost")  # a process died between reserving and naming
    for n in range(2):
        create_match(client, seed=f"d{n}")
    assert_quota_exceeded(client.post("/v1/matches", json=ICECREAM), "matches", 3, 3)
    clock.now += 61
    assert client.post("/v1/matches", json=ICECREAM).status_code == 201


def test_running_tournaments_per_client(app: ParlourApp, client: FlaskClient) -> None:
    body = {"game": "sundae_split", "entrants": ENTRANTS, "seed": "quota", "games_per_pairing": 1}
    first = client.post("/v1/tournaments", json=body)
    assert first.status_code == 201
    assert_quota_exceeded(client.post("/v1/tournaments", json=body), "tournaments", 1, 1)
    tournament = first.get_json()
    while tournament["status"] == "running":
        play_running_matches(app, tournament)
        tournament = client.get(tournament["url"]).get_json()
    assert client.post("/v1/tournaments", json=body).status_code == 201


def test_tournament_size(client: FlaskClient) -> None:
    entrants = [{"type": "ai", "level": "random"}] * 4
    too_many_matches = client.post("/v1/tournaments", json={"game": "icecream", "entrants": entrants})
    assert too_many_matches.status_code == 400  # 6 pairs x 2 games: 12 matches
    assert "at most 6" in too_many_matches.get_json()["detail"]
    too_many_entrants = client.post(
        "/v1/tournaments", json={"game": "icecream", "entrants": [*entrants, *entrants[:1]], "games_per_pairing": 1}
    )
    assert too_many_entrants.status_code == 400
    assert too_many_entrants.get_json()["errors"] == {"entrants": ["5 entrants; this server takes at most 4"]}
    fits = client.post("/v1/tournaments", json={"game": "icecream", "entrants": entrants, "games_per_pairing": 1})
    assert fits.status_code == 201


def test_bots_per_client(client: FlaskClient) -> None:
    for n in range(2):
        assert client.post("/v1/bots", json={"name": f"mine-{n}"}).status_code == 201
    assert_quota_exceeded(client.post("/v1/bots", json={"name": "mine-2"}), "bots", 2, 2)
    assert client.post("/v1/bots", json={"name": "theirs"}, **from_address("10.0.0.6")).status_code == 201
    # A name refused as taken holds no place.
    assert client.post("/v1/bots", json={"name": "theirs"}, **from_address("10.0.0.6")).status_code == 409
    assert client.post("/v1/bots", json={"name": "theirs-2"}, **from_address("10.0.0.6")).status_code == 201


def test_held_streams_per_client(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="streams")
    bot = client.post("/v1/bots", json={"name": "streamer"}).get_json()
    first = client.get(match.url("/events"), buffered=False)
    second = client.get(f"/v1/bots/{bot['id']}/events", headers=bearer(bot["token"]), buffered=False)
    assert first.status_code == second.status_code == 200
    assert_quota_exceeded(client.get(match.url("/events"), buffered=False), "streams", 2, 2)
    assert client.get(match.url("/events"), buffered=False, **from_address("10.0.0.7")).status_code == 200
    first.close()
    third = client.get(match.url("/events"), headers=bearer(match.tokens[0]), buffered=False)
    assert third.status_code == 200
    second.close()
    third.close()
    assert app.services.quotas.streams.held("addr:127.0.0.1") == 0


def test_a_stream_whose_process_died_is_not_counted_for_ever(app: ParlourApp, client: FlaskClient) -> None:
    clock = Clock()
    leases = app.services.quotas.streams
    leases.clock = clock
    match = create_match(client, seed="died")
    for _ in range(2):  # opened, then their process died: never renewed, never closed
        assert client.get(match.url("/events"), buffered=False).status_code == 200
    assert_quota_exceeded(client.get(match.url("/events"), buffered=False), "streams", 2, 2)
    clock.now += leases.lease + 0.1
    assert client.get(match.url("/events"), buffered=False).status_code == 200


def test_a_live_stream_renews_its_lease(app: ParlourApp, client: FlaskClient) -> None:
    clock = Clock()
    leases = app.services.quotas.streams
    leases.clock = clock
    match = create_match(client, seed="renew")
    stream = client.get(match.url("/events"), buffered=False)
    chunks = iter(stream.response)
    for _ in range(4):  # the stream sends (its first event, then heartbeats): each chunk may renew
        clock.now += leases.lease * 0.6
        next(chunks)
    assert clock.now - 1_000_000.0 > leases.lease  # past the first lease's end, yet still counted
    assert leases.held("addr:127.0.0.1") == 1
    stream.close()
    assert leases.held("addr:127.0.0.1") == 0
