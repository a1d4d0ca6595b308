"""Storage: rebuild from seed and log, the seed commitment, key names and expiry."""

from __future__ import annotations

import hashlib
import json

from flask import Flask

from api.app import create_app
from engine import get_game
from model.settings import Settings
from tests.api.conftest import IN_PROCESS_LIMITS, Match, create_match
from tests.api.test_matches import play_random_step, play_to_end


def stored_state(app: Flask, match_id: str) -> dict:
    """The engine state as Redis holds it."""
    raw = app.services.store.client.hget(f"parlour:match:{{{match_id}}}", "record")
    return json.loads(raw)["state"]


def test_rebuilt_state_equals_stored_state_mid_match(app: Flask, match: Match) -> None:
    import random

    client = app.test_client()
    rng = random.Random(9)
    for _ in range(12):
        play_random_step(client, match, rng)
    record = json.loads(app.services.store.client.hget(f"parlour:match:{{{match.id}}}", "record"))
    entries = client.get(match.url("/log")).get_json()["entries"]
    moves = [(entry["seat"], entry["action"]) for entry in entries]
    rebuilt = get_game("icecream").replay(2, record["options"], record["seed"], moves)
    assert rebuilt.to_json() == stored_state(app, match.id)


def test_players_can_verify_the_revealed_seed_and_replay(app: Flask, match: Match) -> None:
    client = app.test_client()
    commitment = match.body["seed_commitment"]
    final = play_to_end(client, match, seed=4)
    log = client.get(match.url("/log")).get_json()
    seed = log["seed"]
    assert hashlib.sha256(seed.encode("utf-8")).hexdigest() == commitment
    replayed = get_game("icecream").replay(
        2, final["options"], seed, [(e["seat"], e["action"]) for e in log["entries"]]
    )
    assert replayed.view(None) == final["view"]
    assert replayed.result().to_json() == final["result"]


def test_a_tampered_seed_fails_the_commitment(client, match: Match) -> None:
    assert hashlib.sha256(b"another-seed").hexdigest() != match.body["seed_commitment"]
    assert hashlib.sha256(b"test-seed").hexdigest() == match.body["seed_commitment"]


def test_server_seed_is_secret_until_the_end(app: Flask) -> None:
    client = app.test_client()
    match = create_match(client)
    running = client.get(match.url()).get_json()
    assert running["seed"] is None and client.get(match.url("/log")).get_json()["seed"] is None
    final = play_to_end(client, match, seed=2)
    assert hashlib.sha256(final["seed"].encode()).hexdigest() == match.body["seed_commitment"]
    assert len(final["seed"]) == 64


def test_keys_are_hash_tagged_per_match(app: Flask, match: Match) -> None:
    import random

    play_random_step(app.test_client(), match, random.Random(1))
    # The rate limiter's counters name the seat too, but live in their own prefix and expire with their window.
    keys = {key for key in app.services.store.client.keys(f"*{match.id}*") if not key.startswith("parlour:limit:")}
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


def test_an_expired_match_is_gone_and_leaves_the_lobby(app: Flask) -> None:
    client = app.test_client()
    match = create_match(client, open_seats=[1])
    app.services.store.client.delete(f"parlour:match:{{{match.id}}}")
    assert client.get(match.url()).status_code == 404
    assert client.get("/v1/matches?status=waiting").get_json()["items"] == []
    assert client.get("/v1/matches?status=waiting").get_json()["items"] == []
