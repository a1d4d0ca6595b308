"""Issue 32, finding 7: one address filling Redis with matches that finish on their own (all-AI), or with
stored Idempotency-Key answers, until every write is a 503 for everyone.

Now every match an address created counts against `kept-matches` for as long as it is kept, finished
or not; a finished all-AI match is kept an hour, not a day, and its AI moves queue behind live matches;
and a seat keeps only its newest few idempotent answers, none longer than its match.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from domain.matches import commands as service
from model.match import MatchRecord
from model.settings import Settings
from store.jobs import LIVE_QUEUE, TOURNAMENT_QUEUE
from store.matches import AI_MATCH_TTL, IDEMPOTENT_ANSWERS_KEPT, log_key, match_key
from store.quotas import holdings_key
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, bearer, create_match
from tests.workers.conftest import launch_worker, stop
from tests.workers.test_ai_seats import finished, wait_for

KEPT = 4
FLOODER = {"environ_base": {"REMOTE_ADDR": "10.6.6.6"}}
ALL_AI = {
    "game": "icecream",
    "players": 2,
    "options": {"turn_limit": 4},  # short matches: a flood finishes them quickly
    "seats": [{"type": "ai", "level": "random"}] * 2,
}


@pytest.fixture
def app(redis_url: str) -> Iterator[ParlourApp]:
    """The API keeping at most KEPT matches per address."""
    settings = Settings(
        redis_url=redis_url, events_heartbeat=EVENTS_HEARTBEAT, limits=replace(IN_PROCESS_LIMITS, kept_matches=KEPT)
    )
    app = create_app(settings)
    app.testing = True
    yield app
    app.services.changes.stop()


def play_out(app: ParlourApp, match_id: str) -> MatchRecord:
    """Play a match to its end in process, each seat its first legal action (as the AI would, only sooner)."""
    store = app.services.store
    with app.app_context():
        record = store.load(match_id)
        while record is not None and not record.ended:
            state = service.engine_state(record)
            seat = state.acting_seats()[0]
            service.apply_action(store, record, seat, state.legal_actions(seat)[0], record.version, None)
            record = store.load(match_id)
    assert record is not None
    return record


def test_a_flood_of_all_ai_matches_meets_the_quota_and_others_play_on(app: ParlourApp, client: FlaskClient) -> None:
    flood = []
    for _ in range(KEPT):
        created = client.post("/v1/matches", json=ALL_AI, **FLOODER)
        assert created.status_code == 201, created.get_json()
        flood.append(created.get_json()["id"])
        assert play_out(app, flood[-1]).ended  # finished: no longer counted as unfinished, still kept
    refused = client.post("/v1/matches", json=ALL_AI, **FLOODER)
    assert refused.status_code == 429, refused.get_json()
    problem = refused.get_json()
    assert (problem["code"], problem["resource"], problem["quota"], problem["in_use"]) == (
        "quota-exceeded",
        "kept-matches",
        KEPT,
        KEPT,
    )
    # Another address creates and plays as ever.
    other = create_match(client, seed="bystander")
    state = client.get(other.url("/legal-actions"), headers=bearer(other.tokens[0])).get_json()
    move = client.post(other.url("/actions"), json={"action": state["actions"][0]}, headers=bearer(other.tokens[0]))
    assert move.status_code == 200, move.get_json()
    # A kept match that expires frees its place.
    app.services.store.client.delete(match_key(flood[0]))
    assert client.post("/v1/matches", json=ALL_AI, **FLOODER).status_code == 201


def test_a_finished_all_ai_match_is_kept_an_hour_and_others_a_day(app: ParlourApp, client: FlaskClient) -> None:
    ai_only = client.post("/v1/matches", json=ALL_AI).get_json()["id"]
    mixed = client.post(
        "/v1/matches", json={**ALL_AI, "seats": [{"type": "human", "name": "h"}, {"type": "ai", "level": "random"}]}
    ).get_json()["id"]
    raw = app.services.store.client
    for match_id in (ai_only, mixed):
        play_out(app, match_id)
    for key in (match_key(ai_only), log_key(ai_only)):
        assert 0 < raw.ttl(key) <= AI_MATCH_TTL
    assert raw.ttl(match_key(mixed)) > AI_MATCH_TTL  # a match someone played is kept the day
    assert raw.zcard(holdings_key("kept-matches", "addr:127.0.0.1")) == 2


def test_a_seat_keeps_only_its_newest_idempotent_answers(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="idem")
    keys: list[str] = []
    while len(keys) < IDEMPOTENT_ANSWERS_KEPT + 3:
        seat = client.get(match.url()).get_json()["to_act"][0]
        legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
        key = str(uuid.uuid4())
        headers = {**bearer(match.tokens[seat]), "Idempotency-Key": key}
        body: dict[str, Any] = {"action": legal["actions"][0]}
        assert client.post(match.url("/actions"), json=body, headers=headers).status_code == 200
        if seat == 0:
            keys.append(key)
    raw = app.services.store.client
    stored = raw.keys(f"{match_key(match.id)}:idem:0:*")
    assert len(keys) > IDEMPOTENT_ANSWERS_KEPT and len(stored) == IDEMPOTENT_ANSWERS_KEPT
    assert {f"{match_key(match.id)}:idem:0:{key}" for key in keys[-IDEMPOTENT_ANSWERS_KEPT:]} == set(stored)
    assert all(0 < raw.ttl(key) <= raw.ttl(match_key(match.id)) for key in stored)


def test_all_ai_matches_queue_behind_live_ones(
    app: ParlourApp, client: FlaskClient, redis_url: str, tmp_path: Path
) -> None:
    ai_only = client.post("/v1/matches", json=ALL_AI).get_json()["id"]
    live = client.post(
        "/v1/matches", json={**ALL_AI, "seats": [{"type": "ai", "level": "random"}, {"type": "human", "name": "h"}]}
    ).get_json()["id"]
    connection = redis.Redis.from_url(redis_url)
    queued = {  # a client without decode_responses answers bytes
        name: cast("list[bytes]", connection.lrange(f"rq:queue:{name}", 0, -1))
        for name in (LIVE_QUEUE, TOURNAMENT_QUEUE)
    }
    matches = {name: [app.services.jobs.turn_match(job.decode()) for job in jobs] for name, jobs in queued.items()}
    assert matches == {TOURNAMENT_QUEUE: [ai_only], LIVE_QUEUE: [live]}
    worker = launch_worker("flood-worker", [], redis_url, tmp_path)
    try:
        assert wait_for(lambda: finished(client, ai_only), "the all-AI match to finish on the tournament queue")
    finally:
        stop(worker)
