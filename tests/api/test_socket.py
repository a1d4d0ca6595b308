"""GET /v1/socket: a seat and a bot play over a WebSocket, with HTTP's checks, limits, problems and resumption.

The app is served over real HTTP (Werkzeug in a thread: tests/serving.py); tests/test_socket_gunicorn.py
runs the same socket under gunicorn's gevent and gthread workers. Every wait is for a message.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import websocket
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from api.socket import outbox as outbox_module
from api.socket import protocol
from model.settings import Settings
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_bots import bot_match, register
from tests.api.test_events import CARD_ID, hidden_cards
from tests.api.test_openapi import WINNING_LINE
from tests.serving import served

RECEIVE_TIMEOUT = 30.0
"""Seconds a test waits for the next message before it fails (a busy machine may be slow; it is never a sleep)."""


class Socket:
    """A test's WebSocket client: JSON messages in and out, heartbeats skipped, and the close code kept."""

    def __init__(self, base: str) -> None:
        self.ws = websocket.create_connection(base.replace("http", "ws", 1) + "/v1/socket", timeout=RECEIVE_TIMEOUT)
        self.close_code: int | None = None
        self.seen: list[dict[str, Any]] = []  # every message received, in order
        self.backlog: list[dict[str, Any]] = []  # messages received while waiting for another kind, kept in order

    def send(self, message: dict[str, Any] | str) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def hello(self, token: str, **fields: Any) -> dict[str, Any]:
        """Say hello; the welcome (or the problem) answered."""
        self.send({"type": "hello", "token": token, **fields})
        return self.next()

    def next(self) -> dict[str, Any]:
        """The next message that is not a heartbeat; {"type": "closed"} once the server closed."""
        if self.backlog:
            return self.backlog.pop(0)
        return self.next_received()

    def next_received(self) -> dict[str, Any]:
        """The next message off the wire that is not a heartbeat."""
        while True:
            opcode, data = self.ws.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                self.close_code = int.from_bytes(data[:2], "big") if len(data) >= 2 else None
                return {"type": "closed", "code": self.close_code}
            if opcode != websocket.ABNF.OPCODE_TEXT:
                continue
            message = json.loads(data)
            if message["type"] != "heartbeat":
                self.seen.append(message)
                return dict(message)

    def next_of(self, kind: str) -> dict[str, Any]:
        """The next message of one type (or the close); those before it are kept for `next`."""
        return self.next_among(kind, "closed")

    def next_among(self, *kinds: str) -> dict[str, Any]:
        """The next message of one of these types; those before it are kept for `next`."""
        passed: list[dict[str, Any]] = []
        for message in self.backlog:
            if message["type"] in kinds:
                self.backlog.remove(message)
                return message
        while True:
            message = self.next_received()
            if message["type"] in kinds:
                self.backlog += passed
                return message
            passed.append(message)

    def next_event(self, name: str) -> dict[str, Any]:
        """The next event of that name (others before it are passed over)."""
        while True:
            message = self.next_of("event")
            assert message["type"] == "event", message
            if message["event"] == name:
                return message

    def act(self, action: dict[str, Any], version: int | None, ref: str = "r", **fields: Any) -> dict[str, Any]:
        """Send an action; its `result` or `problem` (events before it are passed over)."""
        self.send({"type": "action", "ref": ref, "action": action, "expected_version": version, **fields})
        return self.next_among("result", "problem", "closed")

    def close(self) -> None:
        self.ws.close()


@pytest.fixture
def base(app: ParlourApp) -> Iterator[str]:
    """The app served over HTTP on a free loopback port."""
    with served(app) as url:
        yield url


@pytest.fixture
def sockets(base: str) -> Iterator[list[Socket]]:
    """Sockets a test opens (`open_socket`), every one closed afterwards."""
    opened: list[Socket] = []
    yield opened
    for socket in opened:
        socket.close()


def open_socket(base: str, opened: list[Socket]) -> Socket:
    socket = Socket(base)
    opened.append(socket)
    return socket


def legal_action(client: FlaskClient, match: Match, seat: int) -> dict[str, Any]:
    """The first legal action of the seat (as `GET .../legal-actions` lists it)."""
    answer = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
    return dict(answer["actions"][0])


def test_a_seat_plays_a_whole_match_over_its_socket(client: FlaskClient, base: str, sockets: list[Socket]) -> None:
    match = create_match(client, seed="socket-seed")
    seats = [open_socket(base, sockets) for _ in range(2)]
    for number, socket in enumerate(seats):
        welcome = socket.hello(match.tokens[number])
        assert welcome == {
            "type": "welcome",
            "kind": "seat",
            "match": match.id,
            "seat": number,
            "bot": None,
            "heartbeat": welcome["heartbeat"],
            "max_message_bytes": welcome["max_message_bytes"],
        }
        first = socket.next()
        assert (first["type"], first["event"], first["id"]) == ("event", "match", 0)
        assert first["data"]["match"]["viewer"] == number
    for version, (seat, action) in enumerate(WINNING_LINE):
        answer = seats[seat].act(action, version, ref=f"move-{version}")
        assert answer["type"] == "result", answer
        assert answer["ref"] == f"move-{version}"
        assert answer["answer"]["version"] == version + 1 and answer["answer"]["viewer"] == seat
    version = len(WINNING_LINE)
    for socket in seats:
        assert socket.next_of("closed")["code"] == protocol.NORMAL
        events = [message for message in socket.seen if message["type"] == "event"]
        assert events[-1]["event"] == "end" and events[-1]["data"] == {"version": version, "reason": "finished"}


def test_events_are_the_streams_and_never_another_seats(client: FlaskClient, base: str, sockets: list[Socket]) -> None:
    match = create_match(client, game="sundae_split", players=3, seed="events")
    splitter = client.get(match.url()).get_json()["view"]["splitter"]
    hidden = hidden_cards(client.get(match.url(), headers=bearer(match.tokens[splitter])).get_json()["view"])
    assert hidden
    for seat in range(3):
        socket = open_socket(base, sockets)
        socket.hello(match.tokens[seat])
        event = socket.next()
        mine = client.get(match.url(), headers=bearer(match.tokens[seat])).get_json()
        seen = event["data"]["match"]
        assert (seen["version"], seen["viewer"], seen["view"]) == (
            mine["version"],
            seat,
            mine["view"],
        )  # the seat's own
        assert event["data"].get("legal_actions", {"seat": seat})["seat"] == seat
        if seat != splitter:
            assert not hidden & set(CARD_ID.findall(json.dumps(event))), f"seat {seat} sees the Splitter's cards"


def test_a_bad_hello_is_a_problem_then_a_close(base: str, sockets: list[Socket], match: Match) -> None:
    cases: list[tuple[Any, int, str]] = [
        ({"type": "hello", "token": "s.nothing.0.secret"}, protocol.UNAUTHORIZED, "unauthorized"),
        ({"type": "hello", "token": match.tokens[0][:-2] + "xx"}, protocol.UNAUTHORIZED, "unauthorized"),
        ({"type": "action", "token": match.tokens[0]}, protocol.BAD_HELLO, "invalid-request"),
        ("not json", protocol.BAD_HELLO, "invalid-request"),
        ({"type": "hello"}, protocol.BAD_HELLO, "invalid-request"),
    ]
    for message, code, problem_code in cases:
        socket = open_socket(base, sockets)
        socket.send(message)
        problem = socket.next()
        assert problem["type"] == "problem" and problem["problem"]["code"] == problem_code, (message, problem)
        assert socket.next() == {"type": "closed", "code": code}


def test_a_malformed_message_is_a_problem_and_the_socket_goes_on(
    base: str, sockets: list[Socket], match: Match
) -> None:
    socket = open_socket(base, sockets)
    socket.hello(match.tokens[0])
    socket.next()  # the match as it stands
    for bad in ("{", "[]", '{"type": "dance"}', json.dumps({"type": "action", "ref": "x", "action": "move"})):
        socket.send(bad)
        problem = socket.next()
        assert problem["type"] == "problem" and problem["problem"]["status"] == 400, (bad, problem)
    socket.send({"type": "ping", "ref": "still-there"})
    assert socket.next() == {"type": "pong", "ref": "still-there"}


def test_a_stale_version_is_the_same_problem_as_over_http(
    client: FlaskClient, base: str, sockets: list[Socket], match: Match
) -> None:
    socket = open_socket(base, sockets)
    socket.hello(match.tokens[0])
    action = legal_action(client, match, 0)
    over_http = client.post(
        match.url("/actions"), json={"action": action, "expected_version": 7}, headers=bearer(match.tokens[0])
    )
    answer = socket.act(action, 7)
    assert answer["type"] == "problem"
    assert answer["problem"] == over_http.get_json()
    assert answer["problem"]["code"] == "stale-version" and answer["problem"]["status"] == 409


def test_an_action_at_a_version_the_server_holds_is_answered_as_on_the_match_stored(
    client: FlaskClient, base: str, sockets: list[Socket], match: Match
) -> None:
    """The socket checks an action on the version it was chosen at when the process holds it (read for the seat's
    first event here); once the match moved on, the answer is HTTP's, from the match as stored."""
    socket = open_socket(base, sockets)
    socket.hello(match.tokens[1])
    assert socket.next_event("match")["data"]["version"] == 0  # version 0 is now held by the server
    moved = client.post(
        match.url("/actions"),
        json={"action": legal_action(client, match, 0), "expected_version": 0},
        headers=bearer(match.tokens[0]),
    )
    assert moved.status_code == 200
    action = legal_action(client, match, 1)  # seat 1's turn at version 1; at version 0 it was not
    request = {"action": action, "expected_version": 0}
    over_http = client.post(match.url("/actions"), json=request, headers=bearer(match.tokens[1]))
    answer = socket.act(action, 0)
    assert answer["type"] == "problem"
    assert answer["problem"] == over_http.get_json()
    assert answer["problem"]["code"] == "stale-version" and answer["problem"]["current_version"] == 1
    played = socket.act(action, 1, ref="again")
    assert played["type"] == "result" and played["answer"]["version"] == 2


def test_a_token_revoked_mid_socket_is_refused_on_its_next_message(
    client: FlaskClient, base: str, sockets: list[Socket]
) -> None:
    bot = register(client, "turncoat")
    match = bot_match(client, bot, seat=0)
    socket = open_socket(base, sockets)
    assert socket.hello(bot["token"])["kind"] == "bot"
    assert socket.next()["event"] == "snapshot"
    rotated = client.post(f"/v1/bots/{bot['id']}/token", headers=bearer(bot["token"]))
    assert rotated.status_code == 200
    answer = socket.act(WINNING_LINE[0][1], 0, match=match.id)
    assert answer["type"] == "problem" and answer["problem"]["code"] == "unauthorized", answer
    assert socket.next() == {"type": "closed", "code": protocol.UNAUTHORIZED}
    assert client.get(match.url()).get_json()["version"] == 0  # nothing was played


def test_a_seat_left_mid_socket_ends_it(client: FlaskClient, base: str, sockets: list[Socket]) -> None:
    waiting = create_match(client, game="sundae_split", players=3, open_seats=[2])
    socket = open_socket(base, sockets)
    socket.hello(waiting.tokens[1])
    assert socket.next()["event"] == "match"
    left = client.post(waiting.url("/leave"), headers=bearer(waiting.tokens[1]))
    assert left.status_code == 200
    socket.send({"type": "ping", "ref": "p"})
    problem = socket.next_of("problem")
    assert problem["problem"]["code"] == "unauthorized"
    assert socket.next_of("closed")["code"] == protocol.UNAUTHORIZED


@pytest.fixture
def limited_app(settings: Settings) -> Iterator[ParlourApp]:
    """The app with a seat's actions limited to three a minute."""
    limits = replace(settings.limits, actions="3/minute")
    app = create_app(replace(settings, limits=limits))
    app.testing = True
    yield app
    app.services.changes.stop()


def test_a_socket_spends_the_seats_action_limit_as_http_does(limited_app: ParlourApp) -> None:
    client = limited_app.test_client()
    match = create_match(client, seed="limited")
    with served(limited_app) as base:
        socket = Socket(base)
        try:
            socket.hello(match.tokens[0])
            socket.next()
            socket.send({"type": "ping", "ref": "1"})
            assert socket.next()["type"] == "pong"
            over_http = client.post(match.url("/actions"), json={"action": {}}, headers=bearer(match.tokens[0]))
            assert over_http.status_code == 422  # the second of three: an illegal action, refused after its count
            socket.send({"type": "ping", "ref": "3"})
            assert socket.next()["type"] == "pong"
            answer = socket.act(legal_action(client, match, 0), 0)
            assert answer["type"] == "problem", answer
            assert answer["problem"]["code"] == "rate-limited" and answer["problem"]["status"] == 429
            assert answer["problem"]["retry_after"] >= 1
            refused = client.post(match.url("/actions"), json={"action": {}}, headers=bearer(match.tokens[0]))
            assert refused.status_code == 429  # the same bucket, spent
            other = client.post(match.url("/actions"), json={"action": {}}, headers=bearer(match.tokens[1]))
            assert other.status_code == 409  # not its turn, but counted: another seat's bucket is untouched
        finally:
            socket.close()


def test_an_action_refused_on_a_held_version_counts_once(limited_app: ParlourApp) -> None:
    """An action checked on the version the server holds and then on the match as stored is one message, counted
    once (three a minute: the stale action, two pings, and only then a refusal)."""
    client = limited_app.test_client()
    match = create_match(client, seed="limited-held")
    with served(limited_app) as base:
        socket = Socket(base)
        try:
            socket.hello(match.tokens[0])  # the hello counts as opening a stream, not as an action
            assert socket.next_event("match")["data"]["version"] == 0
            action = legal_action(client, match, 0)
            moved = client.post(
                match.url("/actions"),
                json={"action": action, "expected_version": 0},
                headers=bearer(match.tokens[1]),
            )
            assert moved.status_code == 409  # not seat 1's turn: counted in seat 1's bucket, not seat 0's
            over_http = client.post(
                match.url("/actions"),
                json={"action": action, "expected_version": 0},
                headers=bearer(match.tokens[0]),
            )
            assert over_http.status_code == 200  # seat 0's first count: the match is at version 1
            stale = socket.act(action, 0)
            assert stale["type"] == "problem" and stale["problem"]["code"] == "stale-version", stale
            socket.send({"type": "ping", "ref": "3"})
            third = socket.next_among("pong", "problem")
            assert third["type"] == "pong", third  # the third message: the stale action counted once
            socket.send({"type": "ping", "ref": "4"})
            refused = socket.next_of("problem")
            assert refused["problem"]["code"] == "rate-limited", refused
        finally:
            socket.close()


def test_a_dropped_socket_resumes_after_its_last_version_losing_nothing(
    client: FlaskClient, base: str, sockets: list[Socket]
) -> None:
    match = create_match(client, seed="resume-seed")
    first = open_socket(base, sockets)
    first.hello(match.tokens[0])
    seen = first.next()["id"]
    first.close()
    for version in range(3):
        seat = client.get(match.url()).get_json()["to_act"][0]
        body = {"action": legal_action(client, match, seat), "expected_version": version}
        assert client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[seat])).status_code == 200
    again = open_socket(base, sockets)
    again.hello(match.tokens[0], after=seen)
    event = again.next()
    assert event["id"] == 3 and event["data"]["log_after"] == seen
    assert [entry["version"] for entry in event["data"]["log"]] == [1, 2, 3]


def test_a_bot_plays_through_its_socket(client: FlaskClient, base: str, sockets: list[Socket]) -> None:
    bot = register(client, "socketeer")
    socket = open_socket(base, sockets)
    welcome = socket.hello(bot["token"])
    assert (welcome["kind"], welcome["bot"], welcome["match"]) == ("bot", bot["id"], None)
    assert socket.next()["event"] == "snapshot"
    match = bot_match(client, bot, seat=0)
    for version, (seat, action) in enumerate(WINNING_LINE):
        if seat == 0:
            turn = socket.next_event("your-turn")
            assert (turn["data"]["match"], turn["data"]["version"]) == (match.id, version)
            answer = socket.act(action, version, match=match.id)
            assert answer["type"] == "result" and answer["answer"]["version"] == version + 1, answer
        else:
            body = {"action": action, "expected_version": version}
            assert client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[1])).status_code == 200
    over = socket.next_event("match-over")
    assert over["data"]["result"]["winners"] == [0]


def test_a_bot_socket_may_follow_one_match_as_its_seat(client: FlaskClient, base: str, sockets: list[Socket]) -> None:
    bot = register(client, "follower")
    match = bot_match(client, bot, seat=1)
    socket = open_socket(base, sockets)
    welcome = socket.hello(bot["token"], match=match.id)
    assert (welcome["kind"], welcome["match"], welcome["seat"]) == ("bot", match.id, 1)
    assert socket.next()["data"]["match"]["viewer"] == 1
    body = {"action": WINNING_LINE[0][1], "expected_version": 0}
    assert client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[0])).status_code == 200
    assert socket.next()["id"] == 1
    answer = socket.act(WINNING_LINE[1][1], 1)  # the followed match is the default
    assert answer["type"] == "result" and answer["answer"]["version"] == 2


# --- a socket that cannot keep up -------------------------------------------------------------------


class StuckSocket:
    """A simple-websocket connection whose client reads nothing: every send waits until `released`."""

    def __init__(self) -> None:
        self.sock = self
        self.event = threading.Event()
        self.released = threading.Event()
        self.sending = threading.Event()
        self.closed_with: tuple[int, str] | None = None
        self.thread = None

    def send(self, message: str) -> None:
        self.sending.set()
        self.released.wait()

    def sendall(self, data: bytes) -> None:
        pass

    def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.closed_with = (code or 1000, reason or "")

    def shutdown(self, how: int) -> None:
        self.released.set()

    def fileno(self) -> int:
        return -1


def test_a_lagging_socket_is_closed_so_its_client_resumes() -> None:
    ws = StuckSocket()
    outbox = outbox_module.Outbox(ws, max_bytes=100, lag_seconds=60)
    assert outbox.put("x" * 60)
    assert ws.sending.wait(RECEIVE_TIMEOUT)  # the writer is stuck on that first message
    assert outbox.put("y" * 60)
    assert not outbox.put("z" * 60)  # over 100 bytes waiting: lagging
    assert outbox.wait_closed(RECEIVE_TIMEOUT)
    assert outbox.close_code == protocol.LAGGING
    assert ws.closed_with is not None and ws.closed_with[0] == protocol.LAGGING


def test_a_message_over_the_body_limit_closes_the_socket(base: str, sockets: list[Socket], match: Match) -> None:
    socket = open_socket(base, sockets)
    welcome = socket.hello(match.tokens[0])
    socket.send({"type": "ping", "ref": "x" * welcome["max_message_bytes"]})
    assert socket.next_of("closed")["code"] == 1009


def test_a_server_stopping_closes_its_sockets_to_be_resumed(
    app: ParlourApp, base: str, sockets: list[Socket], match: Match
) -> None:
    socket = open_socket(base, sockets)
    socket.hello(match.tokens[0])
    assert socket.next()["id"] == 0
    app.services.changes.stop()  # what SIGTERM does (ops/wsgi.py)
    assert socket.next_of("closed")["code"] == protocol.GOING_AWAY
