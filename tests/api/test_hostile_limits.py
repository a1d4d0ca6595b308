"""Hostile clients against the limits (issue 32, findings 3, 4, 8 and 12), on the real Redis.

A bucket keyed by a seat, a bot or an owner is charged only once its token is proven; a forged or unproven token
is charged to its sender's address, an IPv6 sender by its /64; no counter key is built from unchecked input; and
joins and page reads meet limits of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.limits import KEY_PREFIX
from model.settings import LimitSettings
from tests.api.conftest import IN_PROCESS_LIMITS, bearer, create_match
from tests.api.test_bots import register
from tests.api.test_limits import MOVE, assert_rate_limited, from_address, limited_app

FORGER = from_address("127.0.0.2")


@pytest.fixture
def served(redis_url: str) -> Iterator[FlaskClient]:
    """A client of the API with the limits `make run` serves (the defaults)."""
    app = limited_app(redis_url, LimitSettings())
    yield app.test_client()
    app.services.changes.stop()


def test_a_bot_flooded_with_3001_forged_tokens_still_plays_its_match(served: FlaskClient) -> None:
    # Finding 3: the bucket was keyed by the bot the token named, unchecked, and charged before the view checked
    # the token: 3,001 forged tokens a minute (3,000/minute is the actions limit) stopped the bot from moving.
    bot = register(served, "flooded")
    match = create_match(served, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
    forged = bearer(f"bot.{bot['id']}.forged")
    statuses = {served.post(match.url("/actions"), json={"action": MOVE}, headers=forged, **FORGER).status_code}
    for _ in range(3_000):
        statuses.add(served.post(match.url("/actions"), json={"action": MOVE}, headers=forged, **FORGER).status_code)
    assert statuses == {401, 429}, "the forger meets its own address's 401 budget"
    legal = served.get(match.url("/legal-actions"), headers=bearer(bot["token"])).get_json()
    assert legal["may_act"], "the bot's seat moves first in IceCream"
    move = {"action": legal["actions"][0], "expected_version": legal["version"]}
    moved = served.post(match.url("/actions"), json=move, headers=bearer(bot["token"]))
    assert moved.status_code == 200, moved.get_json()
    polled = served.get(f"/v1/bots/{bot['id']}/events?after=0&wait=1", headers=bearer(bot["token"]))
    assert polled.status_code == 200, "nor is the bot's long-poll held back"


def test_a_seat_flooded_with_forged_tokens_of_its_match_still_moves(redis_url: str) -> None:
    # The same through the match's public id: forged seat tokens spent the seat's 100-per-second bucket.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, actions="4/minute", auth_failures="4/minute"))
    client = app.test_client()
    match = create_match(client, seed="seat-flood")
    for _ in range(10):
        forged = client.post(match.url("/actions"), json={"action": MOVE}, headers=bearer(f"{match.id}.0.x"), **FORGER)
        assert forged.status_code in (401, 429)
    moved = client.post(
        match.url("/actions"), json={"action": MOVE, "expected_version": 0}, headers=bearer(match.tokens[0])
    )
    assert moved.status_code == 200, moved.get_json()
    app.services.changes.stop()


def test_unproven_tokens_are_charged_to_the_address_that_sent_them(redis_url: str) -> None:
    # A token never proven (here: a real seat token sent to a match that does not exist, a 404, not a 401) spends
    # its sender's address bucket, not the seat's: the sender is stopped, the seat is not.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, actions="3/minute"))
    client = app.test_client()
    match = create_match(client, seed="unproven")
    for _ in range(3):
        missing = client.post("/v1/matches/nosuchmatch/actions", json={"action": MOVE}, headers=bearer(match.tokens[0]))
        assert missing.status_code == 404
    assert_rate_limited(
        client.post("/v1/matches/nosuchmatch/actions", json={"action": MOVE}, headers=bearer(match.tokens[0])), 3, 60
    )
    elsewhere = client.post(
        match.url("/actions"),
        json={"action": MOVE, "expected_version": 0},
        headers=bearer(match.tokens[0]),
        **from_address("10.9.9.9"),
    )
    assert elsewhere.status_code == 200, "the seat's own bucket was never charged"
    app.services.changes.stop()


def limit_keys(redis_url: str) -> list[str]:
    """Every rate-limit counter key in Redis."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    return [str(key) for key in client.scan_iter(f"{KEY_PREFIX}:*")]


def test_no_counter_key_is_built_from_unchecked_input(redis_url: str, served: FlaskClient) -> None:
    # Finding 8: the hint bucket's key held the raw path id and `seat` query: 6 KB keys from forged requests.
    long_id, junk = "m" * 3_000, "s" * 3_000
    answer = served.post(f"/v1/matches/{long_id}/ai-move?seat={junk}", json={}, headers=bearer("bot.b.x"))
    assert answer.status_code in (400, 401, 404)
    match = create_match(served, seed="keys")
    answer = served.post(match.url(f"/ai-move?seat={junk}"), json={}, headers=bearer(f"bot.{'b' * 100}.x"))
    assert answer.status_code in (400, 401)
    keys = limit_keys(redis_url)
    assert keys and max(len(key) for key in keys) < 160, max(keys, key=len)[:200]


def test_an_ipv6_client_is_counted_by_its_64(redis_url: str) -> None:
    # Finding 4: clients were counted by full address, so a /64 rotated past every per-address limit and quota.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, create_match="3/minute"))
    client = app.test_client()
    body = {"game": "icecream", "players": 2}
    for host in range(1, 4):
        assert client.post("/v1/matches", json=body, **from_address(f"2001:db8:1:2::{host:x}")).status_code == 201
    rotated = client.post("/v1/matches", json=body, **from_address("2001:db8:1:2:ffff:1:2:3"))
    assert_rate_limited(rotated, 3, 60)
    assert client.post("/v1/matches", json=body, **from_address("2001:db8:1:3::1")).status_code == 201
    mapped = [client.post("/v1/matches", json=body, **from_address(f"::ffff:10.0.0.{n}")) for n in (1, 1, 1, 1)]
    assert [answer.status_code for answer in mapped] == [201, 201, 201, 429], "an IPv4-mapped address is its IPv4"
    app.services.changes.stop()


def test_joins_are_limited_per_address(redis_url: str) -> None:
    # Finding 12: nothing limited joins, so one client could take every open seat in the lobby.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, joins="3/minute"))
    client = app.test_client()
    matches = [create_match(client, game="sundae_split", players=3, open_seats=[1, 2]) for _ in range(4)]
    for match in matches[:3]:
        assert client.post(match.url("/join"), json={"name": "taker"}).status_code == 200
    assert_rate_limited(client.post(matches[3].url("/join"), json={"name": "taker"}), 3, 60)
    assert client.post(matches[3].url("/join"), json={"name": "other"}, **from_address("10.0.0.7")).status_code == 200
    app.services.changes.stop()


@pytest.mark.parametrize(
    "path",
    ["/v1/matches?limit=100", "{match}/log?limit=500", "/v1/bots", "/v1/tournaments", "/v1/games/icecream/leaderboard"],
)
def test_page_reads_are_limited_per_address(redis_url: str, path: str) -> None:
    # Finding 12: a lobby page reads up to 100 matches, a log page 500 entries, and nothing limited them.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, pages="3/minute"))
    client = app.test_client()
    url = path.format(match=create_match(client, seed="pages").url())
    for _ in range(3):
        assert client.get(url).status_code == 200
    assert_rate_limited(client.get(url), 3, 60)
    assert client.get(url, **from_address("10.0.0.8")).status_code == 200
    app.services.changes.stop()


def test_every_limited_route_exists(served: FlaskClient) -> None:
    from api.limits import LIMITED

    endpoints = {rule.endpoint for rule in served.application.url_map.iter_rules()}
    missing: list[Any] = [route.endpoint for route in LIMITED if route.endpoint not in endpoints]
    assert missing == []


def test_seats_held_in_matches_not_started_are_capped_per_address(redis_url: str) -> None:
    # Finding 12: one client could take every open seat in the lobby; joining is capped by what it holds waiting.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, seats=2))
    client = app.test_client()
    lobby = [create_match(client, game="sundae_split", players=3, open_seats=[1, 2]) for _ in range(3)]
    for match in lobby[:2]:
        assert client.post(match.url("/join"), json={"name": "squatter"}).status_code == 200
    refused = client.post(lobby[2].url("/join"), json={"name": "squatter"})
    assert refused.status_code == 429 and refused.get_json()["code"] == "quota-exceeded"
    assert refused.get_json()["resource"] == "seats" and refused.get_json()["in_use"] == 2
    other = from_address("10.0.0.9")
    assert client.post(lobby[0].url("/join"), json={"name": "player"}, **other).status_code == 200  # it starts
    assert client.post(lobby[2].url("/join"), json={"name": "squatter"}).status_code == 200, "a started match frees"
    app.services.changes.stop()
