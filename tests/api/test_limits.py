"""Rate limits on the real Redis: bursts meet 429 with Retry-After and the RateLimit headers, per seat,
per bot and per address; forged tokens cannot buy fresh buckets; X-Forwarded-For only when trusted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from api.current import ParlourApp
from model.settings import LimitSettings, Settings
from tests.api.conftest import EVENTS_HEARTBEAT, IN_PROCESS_LIMITS, Match, bearer, create_match

LOW = replace(
    IN_PROCESS_LIMITS,
    create_match="5/minute",
    create_bot="3/minute",
    create_tournament="2/minute",
    hints="3/minute",
    actions="4/minute",
    streams="3/minute",
    long_polls="3/minute",
    replays="3/minute",
    auth_failures="4/minute",
)
MOVE = {"type": "move", "from_cone": 0, "scoops": 1}
ENTRANTS = [{"type": "ai", "level": "random"}, {"type": "ai", "level": "easy"}]


def limited_app(redis_url: str, limits: LimitSettings = LOW) -> ParlourApp:
    """The API with low limits."""
    settings = Settings(redis_url=redis_url, cors_origins=["*"], events_heartbeat=EVENTS_HEARTBEAT, limits=limits)
    app = create_app(settings)
    app.testing = True
    return app


@pytest.fixture
def limited(redis_url: str) -> Iterator[FlaskClient]:
    """A client of the API with low limits."""
    app = limited_app(redis_url)
    yield app.test_client()
    app.services.changes.stop()


def from_address(address: str) -> dict[str, Any]:
    """Test-client arguments that send the request from another client address."""
    return {"environ_base": {"REMOTE_ADDR": address}}


def assert_rate_limited(response: TestResponse, limit: int, window: int) -> None:
    """A 429 `rate-limited` problem with Retry-After and the four RateLimit headers."""
    assert response.status_code == 429, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "rate-limited" and body["status"] == 429
    assert 1 <= int(response.headers["Retry-After"]) <= window
    assert response.headers["RateLimit-Limit"] == str(limit)
    assert response.headers["RateLimit-Remaining"] == "0"
    assert 0 <= int(response.headers["RateLimit-Reset"]) <= window
    assert f"{limit};w={window}" in response.headers["RateLimit-Policy"]


def test_a_burst_of_creations_meets_429_with_the_ratelimit_headers(limited: FlaskClient) -> None:
    remaining = []
    for _ in range(5):
        response = limited.post("/v1/matches", json={"game": "icecream", "players": 2})
        assert response.status_code == 201
        assert response.headers["RateLimit-Limit"] == "5"
        assert response.headers["RateLimit-Policy"] == "5;w=60"
        assert "Retry-After" not in response.headers
        remaining.append(response.headers["RateLimit-Remaining"])
    assert remaining == ["4", "3", "2", "1", "0"]
    assert_rate_limited(limited.post("/v1/matches", json={"game": "icecream", "players": 2}), 5, 60)
    # Another client is not held back by this one.
    other = limited.post("/v1/matches", json={"game": "icecream", "players": 2}, **from_address("10.0.0.2"))
    assert other.status_code == 201 and other.headers["RateLimit-Remaining"] == "4"


def test_refused_creations_store_nothing(limited: FlaskClient) -> None:
    for _ in range(5):
        limited.post("/v1/matches", json={"game": "icecream", "players": 2})
    for _ in range(3):
        assert limited.post("/v1/matches", json={"game": "icecream", "players": 2}).status_code == 429
    assert len(limited.get("/v1/matches?limit=100").get_json()["items"]) == 5


def test_bot_registrations_and_tournaments_are_limited(limited: FlaskClient) -> None:
    for n in range(3):
        assert limited.post("/v1/bots", json={"name": f"bot-{n}"}).status_code == 201
    assert_rate_limited(limited.post("/v1/bots", json={"name": "bot-3"}), 3, 60)
    body = {"game": "rockem_sockem", "entrants": ENTRANTS, "seed": "limits"}
    for _ in range(2):
        assert limited.post("/v1/tournaments", json=body).status_code == 201
    assert_rate_limited(limited.post("/v1/tournaments", json=body), 2, 60)


def test_hints_are_limited_per_seat(limited: FlaskClient) -> None:
    match = create_match(limited, seed="hints", assistance="allowed")  # two players: hints must be allowed
    for _ in range(3):
        assert limited.post(match.url("/ai-move"), json={}, headers=bearer(match.tokens[0])).status_code == 202
    assert_rate_limited(limited.post(match.url("/ai-move"), json={}, headers=bearer(match.tokens[0])), 3, 60)
    # Seat 1 has its own bucket: refused for its own reason (not its turn), not for seat 0's hints.
    other = limited.post(match.url("/ai-move"), json={}, headers=bearer(match.tokens[1]))
    assert other.status_code == 409 and other.headers["RateLimit-Remaining"] == "2"


def test_actions_are_limited_per_seat(limited: FlaskClient) -> None:
    match = create_match(limited, seed="actions")
    stale = {"action": MOVE, "expected_version": 7}
    for _ in range(4):  # refused actions count as well: each cost the server the same work
        assert limited.post(match.url("/actions"), json=stale, headers=bearer(match.tokens[0])).status_code == 409
    assert_rate_limited(limited.post(match.url("/actions"), json=stale, headers=bearer(match.tokens[0])), 4, 60)
    played = limited.post(
        match.url("/actions"), json={"action": MOVE, "expected_version": 0}, headers=bearer(match.tokens[1])
    )
    assert played.status_code == 409 and played.get_json()["code"] == "not-your-turn"
    assert played.headers["RateLimit-Remaining"] == "3"


def test_a_spent_limit_refuses_an_action_at_a_version_the_server_holds(limited: FlaskClient) -> None:
    """This process stored version 0 (it created the match), so the action is checked on it without a read:
    once its seat's bucket is spent, it is refused all the same, and nothing is played."""
    match = create_match(limited, seed="actions-held")
    stale = {"action": MOVE, "expected_version": 7}
    for _ in range(4):
        assert limited.post(match.url("/actions"), json=stale, headers=bearer(match.tokens[0])).status_code == 409
    held = {"action": MOVE, "expected_version": 0}
    assert_rate_limited(limited.post(match.url("/actions"), json=held, headers=bearer(match.tokens[0])), 4, 60)
    assert limited.get(match.url()).get_json()["version"] == 0


def test_actions_of_a_bot_share_one_bucket_across_its_matches(limited: FlaskClient) -> None:
    bot = limited.post("/v1/bots", json={"name": "busy"}).get_json()
    seats = [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]
    matches = [create_match(limited, seats=seats) for _ in range(2)]
    for n in range(4):
        match = matches[n % 2]
        answer = limited.post(match.url("/actions"), json={"action": MOVE}, headers=bearer(bot["token"]))
        assert answer.status_code in (200, 409, 422), answer.get_json()
    refused = limited.post(matches[0].url("/actions"), json={"action": MOVE}, headers=bearer(bot["token"]))
    assert_rate_limited(refused, 4, 60)


def test_forged_tokens_are_limited_per_address(limited: FlaskClient) -> None:
    match = create_match(limited, seed="forged")
    # Every forged token names a new seat, so a new actions bucket: only the 401 budget stops them.
    for n in range(4):
        forged = bearer(f"forged{n}.0.secret")
        answer = limited.post(match.url("/actions"), json={"action": MOVE}, headers=forged)
        assert answer.status_code == 401
    refused = limited.get(match.url("/legal-actions"), headers=bearer("forged-again.0.secret"))
    assert_rate_limited(refused, 4, 60)
    # The address's token requests wait out the window, its honest seats' too; other addresses do not.
    assert limited.get(match.url("/legal-actions"), headers=bearer(match.tokens[0])).status_code == 429
    assert limited.get(match.url()).status_code == 200  # no token: the public view is not held back
    elsewhere = limited.get(match.url("/legal-actions"), headers=bearer(match.tokens[0]), **from_address("10.0.0.3"))
    assert elsewhere.status_code == 200


def test_forged_bot_tokens_count_as_401s_too(limited: FlaskClient, match: Match) -> None:
    for n in range(4):
        answer = limited.post(match.url("/actions"), json={"action": MOVE}, headers=bearer(f"bot.invented{n}.x"))
        assert answer.status_code == 401
    assert_rate_limited(limited.post(match.url("/actions"), json={"action": MOVE}, headers=bearer("bot.b.x")), 4, 60)


def test_x_forwarded_for_is_ignored_unless_a_proxy_is_trusted(redis_url: str) -> None:
    untrusted = limited_app(redis_url).test_client()
    for n in range(5):
        forwarded = {"X-Forwarded-For": f"192.0.2.{n}"}
        assert (
            untrusted.post("/v1/matches", json={"game": "icecream", "players": 2}, headers=forwarded).status_code == 201
        )
    refused = untrusted.post(
        "/v1/matches", json={"game": "icecream", "players": 2}, headers={"X-Forwarded-For": "1.1.1.1"}
    )
    assert_rate_limited(refused, 5, 60)

    trusted = limited_app(redis_url, replace(LOW, trusted_proxies=1)).test_client()
    for n in range(6):  # each forwarded client its own bucket, though all come through 127.0.0.1
        forwarded = {"X-Forwarded-For": f"198.51.100.{n}"}
        assert (
            trusted.post("/v1/matches", json={"game": "icecream", "players": 2}, headers=forwarded).status_code == 201
        )
    same = {"X-Forwarded-For": "203.0.113.9"}
    for _ in range(5):
        assert trusted.post("/v1/matches", json={"game": "icecream", "players": 2}, headers=same).status_code == 201
    assert_rate_limited(trusted.post("/v1/matches", json={"game": "icecream", "players": 2}, headers=same), 5, 60)
    # A client cannot pass for another by adding its own header before the proxy's: only the last hop counts.
    spoofed = {"X-Forwarded-For": "198.51.100.77, 203.0.113.9"}
    assert_rate_limited(trusted.post("/v1/matches", json={"game": "icecream", "players": 2}, headers=spoofed), 5, 60)


def test_stream_connections_and_long_polls_are_limited(limited: FlaskClient, match: Match) -> None:
    for _ in range(3):
        stream = limited.get(match.url("/events"), buffered=False)
        assert stream.status_code == 200 and stream.headers["RateLimit-Limit"] == "3"
        stream.close()
    assert_rate_limited(limited.get(match.url("/events"), buffered=False), 3, 60)
    for _ in range(3):
        assert limited.get(match.url("?after=0&wait=0")).status_code == 200
    assert_rate_limited(limited.get(match.url("?after=0&wait=0")), 3, 60)
    for _ in range(10):  # a plain read is never limited, and carries no RateLimit headers
        read = limited.get(match.url())
        assert read.status_code == 200 and "RateLimit-Limit" not in read.headers


def test_replays_are_limited_per_address(limited: FlaskClient, match: Match) -> None:
    """A replay step rebuilds the match from its seed: a flood of them from one address meets its limit."""
    me, other = ({"environ_base": {"REMOTE_ADDR": address}} for address in ("10.2.0.1", "10.2.0.2"))
    for _ in range(3):
        answer = limited.get(match.url("/replay/0"), **me)
        assert answer.status_code == 409 and answer.headers["RateLimit-Limit"] == "3"  # counted, though refused
    assert_rate_limited(limited.get(match.url("/replay/0"), **me), 3, 60)
    assert limited.get(match.url("/replay/0"), **other).status_code == 409  # another address has its own


def test_bot_streams_and_bot_long_polls_have_separate_buckets(limited: FlaskClient) -> None:
    bot = limited.post("/v1/bots", json={"name": "listener"}).get_json()
    url, token = f"/v1/bots/{bot['id']}/events", bearer(bot["token"])
    for _ in range(3):
        stream = limited.get(url, headers=token, buffered=False)
        assert stream.status_code == 200
        stream.close()
    assert_rate_limited(limited.get(url, headers=token, buffered=False), 3, 60)
    for _ in range(3):
        assert limited.get(f"{url}?after=0&wait=0", headers=token).status_code == 200
    assert_rate_limited(limited.get(f"{url}?after=0&wait=0", headers=token), 3, 60)


def test_a_route_with_several_limits_names_them_all(redis_url: str) -> None:
    client = limited_app(redis_url, replace(LOW, actions="2/second;3/minute")).test_client()
    match = create_match(client, seed="policies")
    answer = client.post(
        match.url("/actions"), json={"action": MOVE, "expected_version": 0}, headers=bearer(match.tokens[0])
    )
    assert answer.status_code == 200
    assert answer.headers["RateLimit-Limit"] == "2" and answer.headers["RateLimit-Policy"] == "2;w=1, 3;w=60"


def test_limits_off_leave_no_trace(redis_url: str) -> None:
    client = limited_app(redis_url, replace(LOW, enabled=False)).test_client()
    for _ in range(8):
        response = client.post("/v1/matches", json={"game": "icecream", "players": 2})
        assert response.status_code == 201 and "RateLimit-Limit" not in response.headers


def test_an_unreachable_redis_fails_open_to_the_stores_own_503(tmp_path: Any) -> None:
    app = limited_app(f"unix://{tmp_path}/no-redis.sock")
    client = app.test_client()
    assert client.get("/v1/games").status_code == 200
    refused = client.post("/v1/matches", json={"game": "icecream", "players": 2})
    assert refused.status_code == 503 and refused.get_json()["code"] == "service-unavailable"
    assert "RateLimit-Limit" not in refused.headers


def test_settings_come_from_the_environment_and_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLOUR_LIMIT_ACTIONS", "7/minute")
    monkeypatch.setenv("PARLOUR_QUOTA_MATCHES", "9")
    monkeypatch.setenv("PARLOUR_TRUSTED_PROXIES", "2")
    monkeypatch.setenv("PARLOUR_LIMITS", "0")
    settings = LimitSettings()
    assert (settings.actions, settings.matches, settings.trusted_proxies, settings.enabled) == ("7/minute", 9, 2, False)
    monkeypatch.setenv("PARLOUR_LIMIT_HINTS", "lots")
    with pytest.raises(ValueError, match="PARLOUR_LIMIT_HINTS"):
        LimitSettings()


def test_the_counters_live_in_the_services_redis_and_expire_with_their_window(redis_url: str) -> None:
    app = limited_app(redis_url)
    response = app.test_client().post("/v1/matches", json={"game": "icecream", "players": 2})
    assert response.status_code == 201
    counters = app.services.store.client.keys("parlour:limit:*create_match*")
    assert counters, "the creation was counted in the service's Redis"
    assert all(0 < app.services.store.client.ttl(key) <= 60 for key in counters)


def test_a_cors_preflight_is_not_counted(limited: FlaskClient) -> None:
    preflight = {"Origin": "https://example.org", "Access-Control-Request-Method": "POST"}
    for _ in range(8):
        assert limited.options("/v1/matches", headers=preflight).status_code == 200
    response = limited.post("/v1/matches", json={"game": "icecream", "players": 2})
    assert response.status_code == 201 and response.headers["RateLimit-Remaining"] == "4"


def test_401s_are_counted_across_api_processes(redis_url: str) -> None:
    first, second = limited_app(redis_url).test_client(), limited_app(redis_url).test_client()
    match = create_match(first, seed="processes")
    for client in (first, second, first, second):  # the 401 budget (4) spread over two processes
        assert client.get(match.url("/log"), headers=bearer("spread.0.secret")).status_code == 401
    for client in (first, second):
        assert_rate_limited(client.get(match.url("/log"), headers=bearer(match.tokens[0])), 4, 60)


def test_resign_leave_and_rematch_are_limited_like_actions(limited: FlaskClient) -> None:
    match = create_match(limited, seed="lifecycle-flood")
    for _ in range(4):  # a seat that keeps offering a rematch of a running match: refused, and counted
        assert limited.post(match.url("/rematch"), headers=bearer(match.tokens[0])).status_code == 409
    assert_rate_limited(limited.post(match.url("/resign"), headers=bearer(match.tokens[0])), 4, 60)
    for n in range(4):  # forged tokens on the lifecycle posts spend the address's 401 budget
        assert limited.post(match.url("/leave"), headers=bearer(f"forged{n}.1.secret")).status_code == 401
    assert_rate_limited(limited.post(match.url("/resign"), headers=bearer("forged-again.1.secret")), 4, 60)
