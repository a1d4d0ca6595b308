"""A match stored under earlier rules of its game is never played on or misread: it reads as aborted for
`rules-changed`, its view and replay answer 409 `rules-changed`, and its log stays readable."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import cast

from flask.testing import FlaskClient

from api.current import ParlourApp
from store.matches import RULES_CHANGED
from tests.api.conftest import bearer, create_match

MOVE = {"type": "move", "from_cone": 0, "scoops": 1}


def store_under_earlier_rules(app: ParlourApp, match_id: str) -> None:
    """Write the match back as a server with version 0 of the game's rules would have stored it."""
    store = app.services.store
    record = store.load(match_id)
    assert record is not None
    earlier = replace(record, version=record.version + 1, rules_version=0)
    assert store.commit(earlier, record.version).kind == "ok"


def test_the_catalog_names_each_games_rules_version(client: FlaskClient) -> None:
    games = {game["id"]: game for game in client.get("/v1/games").get_json()["items"]}
    assert games["freeze_factory"]["rules_version"] == 3
    assert games["robots_love_ice_cream"]["rules_version"] == 2
    assert games["icecream"]["rules_version"] == 1


def test_a_match_stored_under_earlier_rules_is_over_and_its_log_stays(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="rules-changed")
    played = client.post(match.url("/actions"), json={"action": MOVE}, headers=bearer(match.tokens[0]))
    assert played.status_code == 200
    store_under_earlier_rules(app, match.id)

    shown = client.get(match.url(), headers=bearer(match.tokens[1]))
    assert shown.status_code == 409 and shown.mimetype == "application/problem+json"
    assert shown.get_json()["code"] == "rules-changed" and "version 0" in shown.get_json()["detail"]
    refused = client.post(match.url("/actions"), json={"action": MOVE}, headers=bearer(match.tokens[1]))
    assert refused.status_code == 409 and RULES_CHANGED in refused.get_json()["detail"], refused.get_json()
    listed = {item["id"]: item for item in client.get("/v1/matches?game=icecream").get_json()["items"]}
    assert listed[match.id]["status"] == "aborted"
    log = client.get(match.url("/log"))
    assert log.status_code == 200 and [entry["action"] for entry in log.get_json()["entries"]] == [MOVE]
    replayed = client.get(match.url("/replay/1"))
    assert replayed.status_code == 409 and replayed.get_json()["code"] == "rules-changed"


def test_no_ai_turn_is_queued_for_it(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seats=[{"type": "human"}, {"type": "ai", "level": "random"}], seed="rules-ai")
    store_under_earlier_rules(app, match.id)
    assert app.services.ai_turns.sweep(grace=0) == []
    assert match.id not in app.services.store.ai_matches()


def test_its_event_stream_ends_saying_why(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="rules-stream")
    store_under_earlier_rules(app, match.id)
    stream = client.get(match.url("/events"), buffered=False)
    assert stream.status_code == 200
    text = b"".join(cast("Iterable[bytes]", stream.response)).decode()  # a streamed body, read as the server wrote it
    assert "event: end" in text and f'"reason":"{RULES_CHANGED}"' in text
    assert "event: match" not in text
