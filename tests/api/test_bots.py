"""External bots: registration, bot seats, what a bot token may do, and the bot's own event stream."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from model.settings import Settings
from store.bots import BOT_EVENTS_PAGE
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_events import Stream
from tests.api.test_openapi import WINNING_LINE
from tests.test_service import wait_until

MOVE = {"type": "move", "from_cone": 0, "scoops": 1}
QUIET = 30.0
"""Seconds a quiet bot stream or long-poll would hold on by itself in the shutdown test (the longest wait allowed)."""


def register(client: FlaskClient, name: str = "rando", policy: str | None = "anyone") -> dict[str, Any]:
    """POST /v1/bots, then set its policy (`anyone` by default: these tests seat it without asking); its answer."""
    response = client.post("/v1/bots", json={"name": name})
    assert response.status_code == 201, response.get_json()
    bot = dict(response.get_json())
    if policy is not None:
        changed = client.patch(f"/v1/bots/{bot['id']}", json={"policy": policy}, headers=bearer(bot["token"]))
        assert changed.status_code == 200, changed.get_json()
        bot.update(changed.get_json())
    return bot


def bot_match(client: FlaskClient, bot: dict[str, Any], seat: int = 0, **request: Any) -> Match:
    """An IceCream match for 2 with the bot in `seat` and the other seat human (its token in `tokens`).

    No seed: a bot seat takes only a server seed (IceCream has no chance, so WINNING_LINE wins anyway).
    """
    seats: list[dict[str, Any]] = [{"type": "human"}, {"type": "human"}]
    seats[seat] = {"type": "bot", "bot": bot["id"]}
    return create_match(client, seats=seats, **request)


def act(client: FlaskClient, match: Match, token: str, version: int, action: dict[str, Any] | None = None) -> Any:
    """POST an action with `token`; the response."""
    body = {"action": action or MOVE, "expected_version": version}
    return client.post(match.url("/actions"), json=body, headers=bearer(token))


def play_line(client: FlaskClient, match: Match, bot_token: str, bot_seat: int, start: int, end: int) -> None:
    """Play WINNING_LINE's moves `start` to `end` (exclusive), the bot's seat with the bot token."""
    for version in range(start, end):
        seat, action = WINNING_LINE[version]
        token = bot_token if seat == bot_seat else match.tokens[seat]
        answer = act(client, match, token, version, action)
        assert answer.status_code == 200, answer.get_json()


def follow_bot(client: FlaskClient, bot: dict[str, Any], last_event_id: str | None = "0") -> Stream:
    """Open the bot's event stream with its token, after `last_event_id` (`0`: from its first kept event), or with
    no cursor at all when it is None (a snapshot, then new events)."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    response = client.get(f"/v1/bots/{bot['id']}/events", headers={**bearer(bot["token"]), **headers}, buffered=False)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    return Stream(response)


def names(stream: Stream, count: int) -> list[tuple[int | None, str]]:
    """The ids and names of the stream's next `count` events."""
    events = [stream.next() for _ in range(count)]
    return [(event.id, event.name) for event in events if event is not None]


# --- registration ----------------------------------------------------------------------------------
def test_registration_shows_the_token_once_and_stores_only_its_hash(client: FlaskClient, redis_url: str) -> None:
    response = client.post("/v1/bots", json={"name": "Rando 2.0"})
    assert response.status_code == 201 and response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    assert response.headers["Location"] == f"/v1/bots/{body['id']}"
    assert body["token"].startswith(f"bot.{body['id']}.") and body["name"] == "Rando 2.0"
    profile = client.get(f"/v1/bots/{body['id']}").get_json()
    assert profile == {k: v for k, v in body.items() if k != "token"}
    assert profile["matches_playing"] == 0 and profile["matches_finished"] == 0
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    stored = [json.dumps(raw.hgetall(key)) for key in raw.scan_iter("parlour:bot*") if raw.type(key) == "hash"]
    assert not any(body["token"] in text for text in stored)
    assert raw.hget(f"parlour:bot:{{{body['id']}}}", "token_hash") == hashlib.sha256(body["token"].encode()).hexdigest()


def test_names_are_unique_whatever_their_case(client: FlaskClient) -> None:
    register(client, "Rando")
    again = client.post("/v1/bots", json={"name": "rANDO"})
    assert again.status_code == 409 and again.get_json()["code"] == "name-taken"


@pytest.mark.parametrize(
    "body",
    [{}, {"name": ""}, {"name": " lead"}, {"name": "x" * 41}, {"name": "a/b"}, {"name": 7}, {"name": "a", "x": 1}],
)
def test_bad_registrations_are_400(client: FlaskClient, body: dict[str, Any]) -> None:
    response = client.post("/v1/bots", json=body)
    assert response.status_code == 400 and response.get_json()["code"] == "invalid-request"


def test_an_unknown_bot_is_404(client: FlaskClient) -> None:
    assert client.get("/v1/bots/no-such-bot").status_code == 404
    assert client.get("/v1/bots/no-such-bot/events", headers=bearer("bot.no-such-bot.x")).status_code == 404


# --- bot seats -------------------------------------------------------------------------------------
def test_a_bot_seat_shows_the_bot_and_gets_no_seat_token(client: FlaskClient) -> None:
    bot = register(client)
    match = bot_match(client, bot, seat=1)
    assert list(match.tokens) == [0] and match.body["status"] == "active"
    seats = client.get(match.url()).get_json()["seats"]
    assert seats[1] == {
        "seat": 1,
        "filled": True,
        "name": "rando",
        "type": "bot",
        "level": None,
        "bot": bot["id"],
        "challenge": "accepted",
    }
    assert seats[0]["type"] == "human" and seats[0]["bot"] is None and seats[0]["challenge"] is None


@pytest.mark.parametrize(
    ("seat", "where"),
    [
        ({"type": "bot", "bot": "no-such-bot"}, {"seats": {"1": {"bot": ["no such bot"]}}}),
        ({"type": "bot"}, "bot"),
        ({"type": "bot", "bot": "{id}", "name": "other"}, "name"),
        ({"type": "human", "bot": "{id}"}, "bot"),
        ({"type": "bot", "bot": "{id}", "level": "easy"}, "level"),
    ],
)
def test_bad_bot_seats_are_400_naming_the_seat(client: FlaskClient, seat: dict[str, Any], where: Any) -> None:
    bot = register(client)
    spec = {key: value.replace("{id}", bot["id"]) if isinstance(value, str) else value for key, value in seat.items()}
    body = {"game": "icecream", "players": 2, "seats": [{"type": "human"}, spec]}
    response = client.post("/v1/matches", json=body)
    assert response.status_code == 400, response.get_json()
    errors = response.get_json()["errors"]
    if isinstance(where, dict):
        assert errors == where and "seat 1" in response.get_json()["detail"]
    else:
        assert where in errors["seats"]["1"]


# --- what a bot token may do -----------------------------------------------------------------------
def test_a_bot_token_acts_for_its_seat_on_every_seat_endpoint(client: FlaskClient) -> None:
    bot = register(client)
    match = bot_match(client, bot, seat=0, assistance="allowed")  # hints are forbidden by default (two players)
    token = bot["token"]
    legal = client.get(match.url("/legal-actions"), headers=bearer(token)).get_json()
    assert legal["seat"] == 0 and legal["may_act"] and MOVE in legal["actions"]
    assert client.get(match.url("?seat=0"), headers=bearer(token)).get_json()["viewer"] == 0
    assert client.get(match.url("/log"), headers=bearer(token)).get_json()["viewer"] == 0
    hint = client.post(match.url("/ai-move"), json={"level": "random"}, headers=bearer(token))
    assert hint.status_code == 202 and hint.get_json()["seat"] == 0
    job = client.get(hint.get_json()["url"], headers=bearer(token))
    assert job.status_code == 200 and job.get_json()["seat"] == 0
    answer = act(client, match, token, 0)
    assert answer.status_code == 200 and answer.get_json()["viewer"] == 0 and answer.get_json()["version"] == 1
    stream = client.get(match.url("/events"), headers=bearer(token), buffered=False)
    assert stream.status_code == 200
    stream.close()


def test_a_bot_token_is_refused_outside_its_seats(client: FlaskClient) -> None:
    bot, other_bot = register(client), register(client, "other")
    match = bot_match(client, bot, seat=0)
    elsewhere = bot_match(client, other_bot, seat=0, assistance="allowed")
    token = bot["token"]
    for path in ("/legal-actions?seat=1", "?seat=1", "/log?seat=1", "/events?seat=1"):
        refused = client.get(match.url(path), headers=bearer(token))
        assert refused.status_code == 403, path
        assert refused.get_json()["detail"] == f"bot {bot['id']} does not hold seat 1 of this match; its seats: [0]"
    for path in ("/legal-actions", "", "/log", "/events"):
        refused = client.get(elsewhere.url(path), headers=bearer(token))
        assert refused.status_code == 403 and "holds no seat in match" in refused.get_json()["detail"], path
    assert act(client, elsewhere, token, 0).status_code == 403
    assert client.post(elsewhere.url("/ai-move"), json={}, headers=bearer(token)).status_code == 403
    hint = client.post(elsewhere.url("/ai-move"), json={}, headers=bearer(other_bot["token"])).get_json()
    assert client.get(hint["url"], headers=bearer(token)).status_code == 403
    # a forged or unknown bot token is no credential at all
    forged = f"bot.{bot['id']}.not-the-secret"
    assert client.get(match.url("/legal-actions"), headers=bearer(forged)).status_code == 401
    assert client.get(match.url("/legal-actions"), headers=bearer("bot.nobody.secret")).status_code == 401
    # a seat token never acts for the bot's seat
    human = match.tokens[1]
    assert client.get(match.url("/legal-actions?seat=0"), headers=bearer(human)).status_code == 403


def test_a_bot_holding_two_seats_names_one(client: FlaskClient) -> None:
    bot = register(client)
    seat = {"type": "bot", "bot": bot["id"]}
    match = create_match(client, seats=[seat, seat])
    assert match.tokens == {}
    unnamed = client.get(match.url("/legal-actions"), headers=bearer(bot["token"]))
    assert unnamed.status_code == 400 and unnamed.get_json()["errors"] == {"seat": ["one of [0, 1]"]}
    assert client.get(match.url("/legal-actions?seat=1"), headers=bearer(bot["token"])).get_json()["seat"] == 1
    answer = client.post(
        match.url("/actions?seat=0"), json={"action": MOVE, "expected_version": 0}, headers=bearer(bot["token"])
    )
    assert answer.status_code == 200 and answer.get_json()["viewer"] == 0


# --- the bot's event stream ------------------------------------------------------------------------
def test_the_stream_says_started_your_turn_and_over_each_once(client: FlaskClient) -> None:
    bot = register(client)
    stream = follow_bot(client, bot)
    match = bot_match(client, bot, seat=0)
    started, turn = stream.next(), stream.next()
    assert started is not None and turn is not None
    assert (started.id, started.name, started.data) == (
        1,
        "match-started",
        {"match": match.id, "seat": 0, "game": "icecream", "players": 2, "version": 0},
    )
    # A your-turn carries the seat's legal actions at its version: the bot acts on it with no other request.
    legal = client.get(match.url("/legal-actions"), headers=bearer(bot["token"])).get_json()
    assert legal["may_act"] and legal["version"] == 0
    assert (turn.id, turn.name, turn.data) == (
        2,
        "your-turn",
        {"match": match.id, "seat": 0, "version": 0, "deadline": None, "legal_actions": legal},
    )
    play_line(client, match, bot["token"], 0, 0, len(WINNING_LINE))
    rest = [stream.next() for _ in range(5)]
    assert [(e.id, e.name, e.data["version"]) for e in rest if e] == [
        (3, "your-turn", 2),
        (4, "your-turn", 3),
        (5, "your-turn", 5),
        (6, "your-turn", 6),
        (7, "match-over", 7),
    ]
    for event in rest[:-1]:
        assert event is not None
        assert (
            event.data["legal_actions"]["version"] == event.data["version"] and event.data["legal_actions"]["may_act"]
        )
    assert rest[-1] is not None and "legal_actions" not in rest[-1].data
    over = rest[-1]
    assert over is not None and over.data["result"]["winners"] == [0]
    stream.close()
    profile = client.get(f"/v1/bots/{bot['id']}").get_json()
    assert (profile["matches_playing"], profile["matches_finished"]) == (0, 1)


def test_the_stream_carries_no_hidden_information(client: FlaskClient) -> None:
    bot = register(client)
    seat = {"type": "bot", "bot": bot["id"]}
    match = create_match(client, game="sundae_split", players=3, seats=[seat, seat, seat])
    answer = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=bearer(bot["token"])).get_json()
    assert sorted(event["event"] for event in answer["events"]) == ["match-started"] * 3 + ["your-turn"]
    for event in answer["events"]:
        data = dict(event["data"])
        # Only the acting seat's own choices, as its legal-actions read gives them (no other seat's, no view).
        legal = data.pop("legal_actions", None)
        assert (legal is not None) == (event["event"] == "your-turn")
        if legal is not None:
            path = f"/legal-actions?seat={data['seat']}"
            assert legal == client.get(match.url(path), headers=bearer(bot["token"])).get_json()
        assert set(data) <= {"match", "seat", "game", "players", "version", "deadline"}


def test_the_stream_resumes_after_the_last_event_id(client: FlaskClient) -> None:
    bot = register(client)
    match = bot_match(client, bot, seat=0)
    play_line(client, match, bot["token"], 0, 0, 3)  # your-turn at versions 0, 2 and 3: events 2, 3, 4
    for headers, query, expected in (
        ({"Last-Event-ID": "0"}, "", [1, 2, 3, 4]),  # from the first: everything kept
        ({"Last-Event-ID": "2"}, "", [3, 4]),
        ({}, "?after=3", [4]),
        ({"Last-Event-ID": "3"}, "?after=0", [4]),  # the header, sent by a reconnecting EventSource, wins
    ):
        response = client.get(
            f"/v1/bots/{bot['id']}/events{query}", headers={**bearer(bot["token"]), **headers}, buffered=False
        )
        stream = Stream(response)
        assert [event_id for event_id, _ in names(stream, len(expected))] == expected
        play_line(client, match, bot["token"], 0, 3, 3)
        stream.close()
    stream = follow_bot(client, bot, "4")
    play_line(client, match, bot["token"], 0, 3, 5)  # seat 0 may act again at version 5
    assert names(stream, 1) == [(5, "your-turn")]
    stream.close()


def test_the_long_poll_waits_for_the_next_event(client: FlaskClient) -> None:
    bot = register(client)
    url, headers = f"/v1/bots/{bot['id']}/events", bearer(bot["token"])
    empty = client.get(f"{url}?after=0&wait=0.2", headers=headers).get_json()
    assert empty == {"events": [], "last_event_id": 0}
    bot_match(client, bot, seat=1)
    answer = client.get(f"{url}?after=0&wait=5", headers=headers).get_json()
    assert [event["event"] for event in answer["events"]] == ["match-started"] and answer["last_event_id"] == 1


def test_a_lost_notice_is_sent_when_the_bot_reconnects(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = register(client)
    match = bot_match(client, bot, seat=0)
    store = app.services.store

    def lost(*args: Any) -> list[int]:
        raise redis.ConnectionError("lost")

    with monkeypatch.context() as patch:
        patch.setattr(store.bots, "announce", lost)
        play_line(client, match, bot["token"], 0, 0, 2)  # the change to version 2 is stored, the bot not told
    answer = client.get(f"/v1/bots/{bot['id']}/events?after=2&wait=0", headers=bearer(bot["token"])).get_json()
    assert [(e["id"], e["event"], e["data"]["version"]) for e in answer["events"]] == [(3, "your-turn", 2)]
    again = client.get(f"/v1/bots/{bot['id']}/events?after=2&wait=0", headers=bearer(bot["token"])).get_json()
    assert [e["id"] for e in again["events"]] == [3], "told once"


def test_the_stream_needs_the_bots_own_token(client: FlaskClient) -> None:
    bot, other = register(client), register(client, "other")
    match = bot_match(client, bot, seat=0)
    url = f"/v1/bots/{bot['id']}/events"
    assert client.get(url).status_code == 401
    assert client.get(url, headers=bearer(match.tokens[1])).status_code == 401
    assert client.get(url, headers=bearer(f"bot.{bot['id']}.wrong")).status_code == 401
    refused = client.get(url, headers=bearer(other["token"]))
    assert (
        refused.status_code == 403
        and refused.get_json()["detail"] == f"this token is bot {other['id']}'s, not bot {bot['id']}'s"
    )
    for query in ("?after=-1", "?after=x", "?wait=31&after=0", "?wait=-1"):
        assert client.get(url + query, headers=bearer(bot["token"])).status_code == 400, query
    for bad_id in ("v1", "\u00b2", "1" * 19):
        assert client.get(url, headers={**bearer(bot["token"]), "Last-Event-ID": bad_id}).status_code == 400


def test_a_bot_seat_in_a_match_with_open_seats_starts_when_the_last_is_taken(client: FlaskClient) -> None:
    bot = register(client)
    created = client.post(
        "/v1/matches",
        json={"game": "icecream", "players": 2, "seats": [{"type": "bot", "bot": bot["id"]}, {"type": "open"}]},
    ).get_json()
    assert created["status"] == "waiting" and created["open_seats"] == [1] and created["tokens"] == []
    url, headers = f"/v1/bots/{bot['id']}/events", bearer(bot["token"])
    assert client.get(f"{url}?after=0&wait=0", headers=headers).get_json()["events"] == []
    assert client.post(f"/v1/matches/{created['id']}/join", json={}).get_json()["status"] == "active"
    events = client.get(f"{url}?after=0&wait=0", headers=headers).get_json()["events"]
    assert [(event["event"], event["data"]["version"]) for event in events] == [("match-started", 1), ("your-turn", 1)]


def test_a_change_made_through_another_process_reaches_the_bot_stream(client: FlaskClient, settings: Settings) -> None:
    bot = register(client)
    match = bot_match(client, bot, seat=1)
    stream = follow_bot(client, bot)
    assert names(stream, 1) == [(1, "match-started")]
    other_app = create_app(settings)
    other = other_app.test_client()
    assert act(other, match, match.tokens[0], 0).status_code == 200
    event = stream.next()
    assert event is not None and (event.id, event.name, event.data["version"]) == (2, "your-turn", 1)
    stream.close()
    other_app.services.changes.stop()


def test_a_shutting_down_server_ends_bot_streams_and_long_polls(settings: Settings) -> None:
    app = create_app(replace(settings, events_heartbeat=QUIET))
    client = app.test_client()
    bot = register(client)
    stream = follow_bot(client, bot)
    answers: list[Any] = []
    url = f"/v1/bots/{bot['id']}/events?after=0&wait={QUIET:g}"
    poller = threading.Thread(target=lambda: answers.append(client.get(url, headers=bearer(bot["token"]))))
    poller.start()
    wait_until(lambda: app.services.changes.watched() == 2)  # both wait on the change feed now
    app.services.changes.stop()  # what the server's SIGTERM handler does
    assert stream.next(timeout=QUIET / 3) is None, "it ends well before its heartbeat: the bot resumes elsewhere"
    poller.join(timeout=QUIET / 3)
    assert answers, "the long-poll answers well before its wait is over"
    assert answers[0].status_code == 200 and answers[0].get_json() == {"events": [], "last_event_id": 0}


def test_a_bot_long_poll_answers_a_page_of_events_at_most(client: FlaskClient, app: ParlourApp) -> None:
    spec = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
    assert spec["components"]["schemas"]["BotEventList"]["properties"]["events"]["maxItems"] == BOT_EVENTS_PAGE
    bot = register(client)
    far = 2**42  # an expiry (ms) never reached while the test runs
    for number in range(BOT_EVENTS_PAGE + 1):
        data = json.dumps({"id": f"challenge-{number}"})
        app.services.store.bots.issue_challenge(bot["id"], f"challenge-{number}", far, data)
    url = f"/v1/bots/{bot['id']}/events?wait=1&after="
    first = client.get(url + "0", headers=bearer(bot["token"])).get_json()
    assert len(first["events"]) == BOT_EVENTS_PAGE and first["last_event_id"] == BOT_EVENTS_PAGE
    rest = client.get(url + str(first["last_event_id"]), headers=bearer(bot["token"])).get_json()
    assert [event["data"]["id"] for event in rest["events"]] == [f"challenge-{BOT_EVENTS_PAGE}"]


def bot_events(client: FlaskClient, bot: dict[str, Any]) -> list[tuple[str, Any]]:
    """The bot's kept events (a long-poll from the first): each event's name and its data."""
    answer = client.get(f"/v1/bots/{bot['id']}/events?wait=1&after=0", headers=bearer(bot["token"])).get_json()
    return [(event["event"], event["data"]) for event in answer["events"]]


def test_match_started_names_the_version_that_started_the_match(client: FlaskClient) -> None:
    """openapi.yaml, BotMatchStarted: '`0` when the match started as it was created ..., otherwise the version
    of the acceptance or join that started it'."""
    at_once, asked = register(client, "at-once", policy="anyone"), register(client, "asked", policy="ask")
    for bot in (at_once, asked):
        seats = [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]
        client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats})
    challenge = next(data for name, data in bot_events(client, asked) if name == "challenge")
    accepted = client.post(
        f"/v1/bots/{asked['id']}/challenges/{challenge['id']}/accept", headers=bearer(asked["token"])
    )
    assert accepted.status_code == 200
    for bot, version in ((at_once, 0), (asked, 1)):
        started = [data for name, data in bot_events(client, bot) if name == "match-started"]
        assert [data["version"] for data in started] == [version]


def test_a_bot_holding_two_seats_hears_of_the_match_once_per_seat(client: FlaskClient) -> None:
    """openapi.yaml, BotMatchOver: 'Sent once per seat the bot holds ..., naming its `seat`'."""
    bot = register(client, "both-seats", policy="anyone")
    seats = [{"type": "bot", "bot": bot["id"]}, {"type": "bot", "bot": bot["id"]}]
    created = client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats}).get_json()
    resigned = client.post(f"/v1/matches/{created['id']}/resign?seat=0", headers=bearer(bot["token"]))
    assert resigned.status_code == 200, resigned.get_json()
    events = bot_events(client, bot)
    assert sorted(data["seat"] for name, data in events if name == "match-started") == [0, 1]
    assert sorted(data["seat"] for name, data in events if name == "match-over") == [0, 1]


# --- opening without a cursor: a snapshot, never old events -----------------------------------------
def test_a_stream_opened_without_a_cursor_starts_with_a_snapshot_not_old_events(client: FlaskClient) -> None:
    """openapi.yaml, followBot: 'Opened with neither ..., it sends no old event: it starts with one `snapshot`
    event ..., numbered as the bot's newest event, holding what is true now'."""
    bot = register(client)
    asker = register(client, "asker", policy=None)  # `ask` by default: a match seating it waits for its answer
    over = bot_match(client, bot, seat=0)
    play_line(client, over, bot["token"], 0, 0, len(WINNING_LINE))  # a whole match: started, turns, over
    live = bot_match(client, bot, seat=1)  # seat 0 (human) moves first: the bot waits
    mine = bot_match(client, bot, seat=0)  # the bot moves first
    seats = [{"type": "bot", "bot": asker["id"]}, {"type": "human"}]
    challenged = client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats}).get_json()
    newest = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=bearer(bot["token"])).get_json()
    assert any(event["event"] == "match-over" for event in newest["events"]), "the old match-over is kept"

    stream = follow_bot(client, bot, None)  # no Last-Event-ID, no after
    first = stream.next()
    assert first is not None and (first.id, first.name) == (newest["last_event_id"], "snapshot")
    assert first.data["challenges"] == [] and first.data["next_challenges"] is None
    assert {(seat["match"], seat["seat"], seat["your_turn"]) for seat in first.data["matches"]} == {
        (live.id, 1, False),
        (mine.id, 0, True),
    }
    for seat in first.data["matches"]:  # what the seat may do, as a read of its legal actions answers
        read = client.get(f"/v1/matches/{seat['match']}/legal-actions", headers=bearer(bot["token"])).get_json()
        assert seat["legal_actions"] == read and read["may_act"] == (seat["match"] == mine.id)
    assert act(client, live, live.tokens[0], 0).status_code == 200  # now the bot's turn in `live`
    event = stream.next()
    assert event is not None and (event.id, event.name) == (newest["last_event_id"] + 1, "your-turn")
    assert event.data["match"] == live.id
    stream.close()

    asked = client.get(f"/v1/bots/{asker['id']}/events?wait=5", headers=bearer(asker["token"])).get_json()
    (only,) = asked["events"]  # a long-poll without `after` answers the snapshot alone, at once
    assert only["event"] == "snapshot" and only["id"] == asked["last_event_id"] >= 1
    assert [challenge["match"] for challenge in only["data"]["challenges"]] == [challenged["id"]]
    assert only["data"]["matches"] == []
