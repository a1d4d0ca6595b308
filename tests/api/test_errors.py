"""Bad input gets a clear 4xx problem+json answer with a stable code, never a 500."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.api.conftest import Match, bearer, create_match

MOVE = {"type": "move", "from_cone": 0, "scoops": 1}
KEYS = ["type", "from_cone", "scoops", "x"]


def assert_problem(response: TestResponse, status: int, code: str) -> dict[str, Any]:
    """The response is problem+json with this status and code."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body: dict[str, Any] = response.get_json()
    assert body["status"] == status and body["code"] == code and body["detail"] and body["title"]
    return body


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "game"),
        ({"game": "icecream"}, "players"),
        ({"game": "icecream", "players": "2"}, "players"),
        ({"game": "icecream", "players": 2.5}, "players"),
        ({"game": "icecream", "players": True}, "players"),
        ({"game": "icecream", "players": 3}, "players"),
        ({"game": "nosuch", "players": 2}, "game"),
        ({"game": "icecream", "players": 2, "options": {"turn_limit": -1}}, "turn_limit"),
        ({"game": "icecream", "players": 2, "options": {"colour": "blue"}}, "colour"),
        ({"game": "icecream", "players": 2, "options": []}, "options"),
        ({"game": "icecream", "players": 2, "seed": {"a": 1}}, "seed"),
        ({"game": "icecream", "players": 2, "seed": ""}, "seed"),
        ({"game": "icecream", "players": 2, "open_seats": [5]}, "open_seats"),
        ({"game": "icecream", "players": 2, "extra": 1}, "extra"),
        ({"game": "sundae_split", "players": 3, "seed": "known", "open_seats": [2]}, "seed"),
    ],
)
def test_create_refuses_bad_fields_by_name(client: FlaskClient, payload: dict[str, Any], field: str) -> None:
    body = assert_problem(client.post("/v1/matches", json=payload), 400, "invalid-request")
    errors = body["errors"]
    assert field in errors or field in errors.get("options", {}), body


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b'{"game": NaN}',
        b'{"players": Infinity}',
        b"[1, 2]",
        b'"text"',
        b"null",
        b"{",
        b"\xff\xfe\x00",
        b"[" * 20000 + b"]" * 20000,
        b"1e999999",
    ],
)
def test_malformed_bodies_are_400(client: FlaskClient, raw: bytes) -> None:
    response = client.post("/v1/matches", data=raw, content_type="application/json")
    assert_problem(response, 400, "invalid-request")


def test_oversized_body_is_413(client: FlaskClient, match: Match) -> None:
    big = {"action": {"type": "move", "padding": "x" * 100_000}, "expected_version": 0}
    response = client.post(match.url("/actions"), json=big, headers=bearer(match.tokens[0]))
    assert_problem(response, 413, "payload-too-large")


@pytest.mark.parametrize("size", [100_000, 5_000_000])
def test_an_oversized_chunked_body_is_413(client: FlaskClient, size: int) -> None:
    # Sent chunked, a body has no Content-Length: werkzeug then reads it only up to the limit, and
    # the truncated JSON was answered 400 ("Unterminated string") instead of 413.
    response = post_chunked(client, {"game": "icecream", "players": 2, "padding": "x" * size})
    assert_problem(response, 413, "payload-too-large")


def test_a_chunked_body_under_the_limit_is_read_whole(client: FlaskClient) -> None:
    response = post_chunked(client, {"game": "icecream", "players": 2})
    assert response.status_code == 201, response.get_json()


def post_chunked(client: FlaskClient, body: dict[str, Any]) -> TestResponse:
    """POST /v1/matches with the body sent chunked, without a Content-Length."""
    return client.post(
        "/v1/matches",
        input_stream=io.BytesIO(json.dumps(body).encode()),
        content_type="application/json",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},  # as gunicorn says of a chunked body
    )


def test_missing_wrong_and_foreign_tokens(client: FlaskClient, match: Match) -> None:
    url = match.url("/legal-actions")
    missing = client.get(url)
    assert_problem(missing, 401, "unauthorized")
    assert missing.headers["WWW-Authenticate"].startswith("Bearer")
    assert_problem(client.get(url, headers={"Authorization": "Basic abc"}), 401, "unauthorized")
    assert_problem(client.get(url, headers=bearer("garbage")), 401, "unauthorized")
    forged = f"{match.id}.0.{'A' * 43}"
    assert_problem(client.get(url, headers=bearer(forged)), 401, "unauthorized")
    assert_problem(client.get(url, headers=bearer(f"{match.id}.9.abc")), 401, "unauthorized")
    other = create_match(client)
    assert_problem(client.get(url, headers=bearer(other.tokens[0])), 403, "forbidden")
    assert_problem(client.get(match.url("?seat=1"), headers=bearer(match.tokens[0])), 403, "forbidden")
    assert_problem(client.get(match.url("?seat=1")), 401, "unauthorized")
    assert client.get(match.url("?seat=0"), headers=bearer(match.tokens[0])).get_json()["viewer"] == 0


def test_not_found_answers(client: FlaskClient) -> None:
    assert_problem(client.get("/v1/matches/nope"), 404, "not-found")
    assert_problem(client.get("/v1/matches/" + "x" * 500), 404, "not-found")
    assert_problem(client.get("/v1/nothing-here"), 404, "not-found")
    assert_problem(client.post("/v1/matches/nope/join", json={}), 404, "not-found")


def test_wrong_method_is_405_problem(client: FlaskClient) -> None:
    response = client.delete("/v1/games")
    assert_problem(response, 405, "method-not-allowed")
    assert "GET" in response.headers["Allow"]


def test_action_errors_have_their_codes(client: FlaskClient, match: Match) -> None:
    url, seat0, seat1 = match.url("/actions"), bearer(match.tokens[0]), bearer(match.tokens[1])
    body = assert_problem(
        client.post(url, json={"action": MOVE, "expected_version": 3}, headers=seat0), 409, "stale-version"
    )
    assert body["current_version"] == 0
    assert_problem(client.post(url, json={"action": MOVE, "expected_version": 0}, headers=seat1), 409, "not-your-turn")
    illegal = {"type": "move", "from_cone": 0, "scoops": 2}
    body = assert_problem(
        client.post(url, json={"action": illegal, "expected_version": 0}, headers=seat0), 422, "illegal-action"
    )
    assert "movement points" in body["detail"]
    body = assert_problem(client.post(url, json={"expected_version": 0}, headers=seat0), 400, "invalid-request")
    assert "action" in body["errors"]
    body = assert_problem(
        client.post(url, json={"action": MOVE, "expected_version": "0"}, headers=seat0), 400, "invalid-request"
    )
    assert "expected_version" in body["errors"]
    bad_key = {**seat0, "Idempotency-Key": "k" * 500}
    assert_problem(
        client.post(url, json={"action": MOVE, "expected_version": 0}, headers=bad_key), 400, "invalid-request"
    )


def random_json(rng: random.Random, depth: int = 0) -> object:
    """A random JSON value, biased towards the shapes an action has."""
    choices: list[Callable[[], object]] = [
        lambda: rng.randint(-(2**70), 2**70),
        lambda: rng.choice([0, 1, 2, -1, 1.0, 0.5, True, False, None]),
        lambda: rng.choice(["move", "", "0", "\u0000", "🍦" * 50, "from_cone"]),
        lambda: [random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))],
        lambda: {
            rng.choice(["type", "from_cone", "scoops", "x"]): random_json(rng, depth + 1)
            for _ in range(rng.randint(0, 4))
        },
    ]
    return rng.choice(choices[:3] if depth > 3 else choices)()


def test_hostile_actions_never_500(client: FlaskClient, match: Match) -> None:
    rng = random.Random(2026)
    for _ in range(400):
        action = random_json(rng)
        if rng.random() < 0.5:
            action = {"type": "move", "from_cone": random_json(rng, 3), "scoops": random_json(rng, 3)}
        response = client.post(
            match.url("/actions"), json={"action": action, "expected_version": 0}, headers=bearer(match.tokens[0])
        )
        assert response.status_code < 500, (action, response.get_data(as_text=True))
        if response.status_code == 200:
            match = create_match(client)


def test_hostile_query_strings_never_500(client: FlaskClient, match: Match) -> None:
    for query in ["limit=0", "limit=abc", "limit=100000", "cursor=abc", "cursor=1:", "status=", "game=" + "g" * 500]:
        response = client.get(f"/v1/matches?{query}")
        assert_problem(response, 400, "invalid-request")
    assert_problem(client.get(match.url("?seat=x")), 400, "invalid-request")


def test_join_refuses_bad_bodies(client: FlaskClient) -> None:
    match = create_match(client, open_seats=[1])
    assert_problem(client.post(match.url("/join"), json={"seat": "one"}), 400, "invalid-request")
    assert_problem(client.post(match.url("/join"), json=[]), 400, "invalid-request")
    assert_problem(client.post(match.url("/join"), json={"name": ""}), 400, "invalid-request")


def test_redis_down_gives_503_not_500(tmp_path: Path) -> None:
    from api.app import create_app
    from model.settings import Settings

    app = create_app(Settings(redis_url=f"unix://{tmp_path}/no-redis.sock"))
    client = app.test_client()
    health = client.get("/v1/health")
    assert health.status_code == 503 and health.get_json()["redis"] == "unavailable"
    assert_problem(client.post("/v1/matches", json={"game": "icecream", "players": 2}), 503, "service-unavailable")
    assert_problem(client.get("/v1/matches/abc"), 503, "service-unavailable")
