"""The match API contract: create, read, legal actions, act, log, lobby, CORS, health, catalog."""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient

from api.current import ParlourApp
from tests.api.conftest import Match, bearer, create_match


def play_random_step(client: FlaskClient, match: Match, rng: random.Random) -> dict[str, Any]:
    """Let the seat to act take a random legal action; return the answer body."""
    state = client.get(match.url()).get_json()
    seat = state["to_act"][0]
    legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
    action = rng.choice(legal["actions"])
    response = client.post(
        match.url("/actions"),
        headers=bearer(match.tokens[seat]),
        json={"action": action, "expected_version": legal["version"]},
    )
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def play_to_end(client: FlaskClient, match: Match, seed: int = 1) -> dict[str, Any]:
    """Random legal play until the match is finished."""
    rng = random.Random(seed)
    body: dict[str, Any] = client.get(match.url()).get_json()
    for _ in range(5000):
        if body["status"] == "finished":
            return body
        body = play_random_step(client, match, rng)
    raise AssertionError("the match did not end")


def test_health_reports_redis(client: FlaskClient) -> None:
    response = client.get("/v1/health")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "redis": "ok"}


def test_catalog_lists_icecream_with_options_and_assumptions(client: FlaskClient) -> None:
    items = client.get("/v1/games").get_json()["items"]
    entry = next(item for item in items if item["id"] == "icecream")
    assert (entry["min_players"], entry["max_players"]) == (2, 2)
    options = {option["name"]: option for option in entry["options"]}
    assert options["first_player_flavour"]["default"] == "yellow"
    assert options["first_player_flavour"]["choices"] == ["yellow", "green"]
    assert {a["id"] for a in entry["assumptions"]} >= {
        "one-move-completes-both",
        "seat-0-moves-first-as-yellow",
    }
    assert client.get("/v1/games/icecream").get_json() == entry
    assert client.get("/v1/games/chess").status_code == 404


def test_create_returns_tokens_location_and_commitment(client: FlaskClient) -> None:
    response = client.post("/v1/matches", json={"game": "icecream", "players": 2, "options": {"turn_limit": 30}})
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/v1/matches/{body['id']}"
    assert body["version"] == 0 and body["status"] == "active"
    assert [seat["seat"] for seat in body["tokens"]] == [0, 1]
    assert len({seat["token"] for seat in body["tokens"]}) == 2
    assert len(body["seed_commitment"]) == 64
    assert body["options"]["turn_limit"] == 30


def test_tokens_are_stored_only_as_hashes(client: FlaskClient, app: ParlourApp, match: Match) -> None:
    store = app.services.store
    raw = str(store.client.hgetall(f"parlour:match:{{{match.id}}}"))
    for token in match.tokens.values():
        assert token not in raw
        assert token.split(".")[2] not in raw


def test_get_match_public_and_seat_views(client: FlaskClient, match: Match) -> None:
    public = client.get(match.url()).get_json()
    assert public["viewer"] is None
    assert public["to_act"] == [0]
    assert public["view"]["cones"][0] == ["red", "yellow", "green", "red", "yellow", "green"]
    assert public["seed"] is None
    seat = client.get(match.url(), headers=bearer(match.tokens[1])).get_json()
    assert seat["viewer"] == 1


def test_etag_and_if_none_match(client: FlaskClient, match: Match) -> None:
    first = client.get(match.url())
    assert first.headers["ETag"] == '"0"'
    assert client.get(match.url(), headers={"If-None-Match": '"0"'}).status_code == 304
    assert client.get(match.url(), headers={"If-None-Match": 'W/"0"'}).status_code == 304
    assert client.get(match.url(), headers={"If-None-Match": '"7", "0"'}).status_code == 304
    assert client.get(match.url(), headers={"If-None-Match": "*"}).status_code == 304
    play_random_step(client, match, random.Random(3))
    again = client.get(match.url(), headers={"If-None-Match": '"0"'})
    assert again.status_code == 200 and again.headers["ETag"] == '"1"'


def test_legal_actions_are_exactly_what_actions_accepts(client: FlaskClient, match: Match) -> None:
    legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[0])).get_json()
    assert legal["may_act"] is True and legal["kind"] == "enumerated"
    assert legal["actions"] == [
        {"type": "move", "from_cone": 0, "scoops": 1},
        {"type": "move", "from_cone": 1, "scoops": 1},
    ]
    other = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[1])).get_json()
    assert other["may_act"] is False and other["actions"] == []
    response = client.post(
        match.url("/actions"),
        headers=bearer(match.tokens[0]),
        json={"action": legal["actions"][1], "expected_version": 0},
    )
    assert response.status_code == 200
    body = response.get_json()
    assert body["version"] == 1 and body["viewer"] == 0 and body["to_act"] == [1]
    assert body["view"]["cones"][1] == ["red", "green", "yellow", "red", "green"]


def test_whole_match_over_http_reveals_seed_and_refuses_more(client: FlaskClient, match: Match) -> None:
    final = play_to_end(client, match)
    assert final["result"]["winners"] or final["result"]["draw"]
    assert final["to_act"] == []
    assert final["seed"] == "test-seed"
    response = client.post(
        match.url("/actions"),
        headers=bearer(match.tokens[0]),
        json={"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": final["version"]},
    )
    assert response.status_code == 409 and response.get_json()["code"] == "match-over"


def test_log_lists_actions_in_order_with_versions(client: FlaskClient, match: Match) -> None:
    rng = random.Random(5)
    answers = [play_random_step(client, match, rng) for _ in range(4)]
    log = client.get(match.url("/log")).get_json()
    assert [entry["version"] for entry in log["entries"]] == [1, 2, 3, 4]
    assert log["version"] == answers[-1]["version"]
    assert all(set(entry) == {"version", "seat", "action", "at"} for entry in log["entries"])


def test_lobby_open_seat_join_and_start(client: FlaskClient) -> None:
    match = create_match(client, open_seats=[1])
    assert match.body["status"] == "waiting" and match.body["open_seats"] == [1]
    assert list(match.tokens) == [0]
    waiting = client.get("/v1/matches?game=icecream&status=waiting").get_json()["items"]
    assert [item["id"] for item in waiting] == [match.id]
    early = client.post(
        match.url("/actions"),
        headers=bearer(match.tokens[0]),
        json={"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 0},
    )
    assert early.status_code == 409 and early.get_json()["code"] == "match-not-started"
    joined = client.post(match.url("/join"), json={"name": "bea"})
    assert joined.status_code == 200
    body = joined.get_json()
    assert body["seat"] == 1 and body["status"] == "active" and body["version"] == 1
    state = client.get(match.url(), headers=bearer(body["token"])).get_json()
    assert state["viewer"] == 1 and state["seats"][1] == {
        "seat": 1,
        "filled": True,
        "name": "bea",
        "type": "human",
        "level": None,
        "bot": None,
        "challenge": None,
    }
    assert client.get("/v1/matches?status=waiting").get_json()["items"] == []
    again = client.post(match.url("/join"), json={})
    assert again.status_code == 409 and again.get_json()["code"] == "no-open-seat"


def test_join_a_named_seat_and_a_taken_one(client: FlaskClient) -> None:
    match = create_match(client, open_seats=[0, 1])
    taken = client.post(match.url("/join"), json={"seat": 1})
    assert taken.get_json()["seat"] == 1 and taken.get_json()["status"] == "waiting"
    clash = client.post(match.url("/join"), json={"seat": 1})
    assert clash.status_code == 409 and clash.get_json()["code"] == "seat-taken"
    assert client.post(match.url("/join"), json={"seat": 7}).status_code == 400


def test_listing_paginates_newest_first(client: FlaskClient) -> None:
    ids = [create_match(client).id for _ in range(5)]
    first = client.get("/v1/matches?game=icecream&limit=2").get_json()
    second = client.get(f"/v1/matches?game=icecream&limit=2&cursor={first['next_cursor']}").get_json()
    third = client.get(f"/v1/matches?game=icecream&limit=2&cursor={second['next_cursor']}").get_json()
    listed = [item["id"] for page in (first, second, third) for item in page["items"]]
    assert listed == list(reversed(ids))
    assert client.get("/v1/matches?status=bogus").status_code == 400
    assert client.get("/v1/matches?game=nosuch").status_code == 400


def test_cors_allows_configured_origin_only(client: FlaskClient, match: Match) -> None:
    allowed = client.get(match.url(), headers={"Origin": "https://front.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://front.example"
    assert "ETag" in allowed.headers["Access-Control-Expose-Headers"]
    preflight = client.options(
        match.url("/actions"),
        headers={
            "Origin": "https://front.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, Content-Type, Idempotency-Key",
        },
    )
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://front.example"
    assert "idempotency-key" in preflight.headers["Access-Control-Allow-Headers"].lower()
    other = client.get(match.url(), headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
