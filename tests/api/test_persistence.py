"""Storage: rebuild from seed and log, the seed commitment, key names and expiry."""

from __future__ import annotations

import hashlib
import json
from typing import Any, cast

from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from engine import get_game
from model.settings import Settings
from tests.api.conftest import IN_PROCESS_LIMITS, Match, create_match
from tests.api.test_matches import play_random_step, play_to_end


def stored_state(app: ParlourApp, match_id: str) -> dict[str, Any]:
    """The engine state as Redis holds it."""
    raw = app.services.store.client.hget(f"parlour:match:{{{match_id}}}", "record")
    assert raw is not None
    state: dict[str, Any] = json.loads(raw)["state"]
    return state


def test_rebuilt_state_equals_stored_state_mid_match(app: ParlourApp, match: Match) -> None:
    import random

    client = app.test_client()
    rng = random.Random(9)
    for _ in range(12):
        play_random_step(client, match, rng)
    raw = app.services.store.client.hget(f"parlour:match:{{{match.id}}}", "record")
    assert raw is not None
    record = json.loads(raw)
    entries = client.get(match.url("/log")).get_json()["entries"]
    moves = [(entry["seat"], entry["action"]) for entry in entries]
    game = get_game("icecream")
    assert game is not None
    rebuilt = game.replay(2, record["options"], record["seed"], moves)
    assert rebuilt.to_json() == stored_state(app, match.id)


def test_players_can_verify_the_revealed_seed_and_replay(app: ParlourApp, match: Match) -> None:
    client = app.test_client()
    commitment = match.body["seed_commitment"]
    final = play_to_end(client, match, seed=4)
    log = client.get(match.url("/log")).get_json()
    seed = log["seed"]
    assert hashlib.sha256(seed.encode("utf-8")).hexdigest() == commitment
    game = get_game("icecream")
    assert game is not None
    replayed = game.replay(2, final["options"], seed, [(e["seat"], e["action"]) for e in log["entries"]])
    assert replayed.view(None) == final["view"]
    result = replayed.result()
    assert result is not None and result.to_json() == final["result"]


def test_a_tampered_seed_fails_the_commitment(client: FlaskClient, match: Match) -> None:
    assert hashlib.sha256(b"another-seed").hexdigest() != match.body["seed_commitment"]
    assert hashlib.sha256(b"test-seed").hexdigest() == match.body["seed_commitment"]


def test_server_seed_is_secret_until_the_end(app: ParlourApp) -> None:
    client = app.test_client()
    match = create_match(client)
    running = client.get(match.url()).get_json()
    assert running["seed"] is None and client.get(match.url("/log")).get_json()["seed"] is None
    final = play_to_end(client, match, seed=2)
    assert hashlib.sha256(final["seed"].encode()).hexdigest() == match.body["seed_commitment"]
    assert len(final["seed"]) == 64


def test_keys_are_hash_tagged_per_match(app: ParlourApp, match: Match) -> None:
    import random

    play_random_step(app.test_client(), match, random.Random(1))
    # The rate limiter's counters name the seat too, but live in their own prefix and expire with their window.
    stored = cast("list[str]", app.services.store.client.keys(f"*{match.id}*"))  # the store's client decodes replies
    keys = {key for key in stored if not key.startswith("parlour:limit:")}
    assert keys == {f"parlour:match:{{{match.id}}}", f"parlour:match:{{{match.id}}}:log"}


def test_finished_and_idle_matches_expire(redis_url: str) -> None:
    app = create_app(Settings(redis_url=redis_url, finished_ttl=60, idle_ttl=3600, limits=IN_PROCESS_LIMITS))
    client = app.test_client()
    match = create_match(client, seed="ttl")
    redis = app.services.store.client
    key = f"parlour:match:{{{match.id}}}"
    assert 3500 < redis.ttl(key) <= 3600
    play_to_end(client, match)
    assert 0 < redis.ttl(key) <= 60 and 0 < redis.ttl(f"{key}:log") <= 60


def test_an_expired_match_is_gone_and_leaves_the_lobby(app: ParlourApp) -> None:
    client = app.test_client()
    match = create_match(client, open_seats=[1])
    app.services.store.client.delete(f"parlour:match:{{{match.id}}}")
    assert client.get(match.url()).status_code == 404
    assert client.get("/v1/matches?status=waiting").get_json()["items"] == []
    assert client.get("/v1/matches?status=waiting").get_json()["items"] == []
