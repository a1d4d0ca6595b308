"""Hostile clients against a served API (gunicorn, gevent worker, as `make run` serves it): bodies sent slowly.

Issue 32, finding 6: a request body sent a byte at a time held a connection for as long as the
client liked. Now the body must arrive within PARLOUR_BODY_TIMEOUT (1 s here), or a 408 answers
it and the connection is dropped; and the rate limits are counted before any body is read.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.multihost_support import Api, start_api, stop_group
from tests.test_service import free_port

ANSWER_WAIT = 60.0
"""Seconds a test waits for an answer it expects: far past the 1 s body timeout, so a busy machine still passes."""
TRICKLE_PACE = 0.05
"""Seconds between the bytes of a trickled body: the trickle paces itself, the assertions never wait on it."""


def serve(redis_url: str, tmp_path: Path, env: dict[str, str]) -> Iterator[Api]:
    """One gunicorn gevent worker on the test Redis, with these settings; stopped after."""
    port = free_port()
    settings = {"PARLOUR_BODY_TIMEOUT": "1", "PARLOUR_LIMIT_CREATE_MATCH": "100/minute", **env}
    process = start_api("slowloris", redis_url, port, tmp_path, settings)
    try:
        yield Api(f"http://127.0.0.1:{port}")
    finally:
        stop_group(process)


@pytest.fixture
def api(redis_url: str, tmp_path: Path) -> Iterator[Api]:
    """The served API with a 1 s body timeout."""
    yield from serve(redis_url, tmp_path, {})


def request_head(api: Api, method: str, path: str, length: int) -> bytes:
    """A request's line and headers announcing a JSON body of `length` bytes (sent separately)."""
    host = api.base.removeprefix("http://")
    return (
        f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def connect(api: Api) -> socket.socket:
    """A raw connection to the API."""
    host, port = api.base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=ANSWER_WAIT)


def read_answer(connection: socket.socket) -> tuple[int, dict[str, Any], bytes]:
    """The status, JSON body and whatever follows the answer on the connection (b'' once the server closed it)."""
    response = http.client.HTTPResponse(connection)
    response.begin()
    body = json.loads(response.read())
    rest = connection.recv(1024)  # the server closing the connection: b''
    return response.status, body, rest


class Trickle(threading.Thread):
    """Sends a body a byte at a time, paced, until the server stops taking bytes or it is stopped."""

    def __init__(self, connection: socket.socket, body: bytes) -> None:
        super().__init__(daemon=True)
        self.connection = connection
        self.body = body
        self.started_sending = threading.Event()
        self.stop = threading.Event()

    def run(self) -> None:
        for byte in self.body:
            try:
                self.connection.sendall(bytes([byte]))
            except OSError:  # the server dropped the connection
                return
            self.started_sending.set()
            if self.stop.wait(TRICKLE_PACE):
                return


def test_a_join_whose_body_trickles_is_answered_408_and_dropped_while_others_play(api: Api) -> None:
    waiting = api.post("/v1/matches", {"game": "icecream", "players": 2, "open_seats": [1]})
    assert waiting.status == 201, waiting
    connection = connect(api)
    body = json.dumps(
        {"name": "slow" + " " * 60_000}
    ).encode()  # under the size limit; far more than the trickle sends in the test
    connection.sendall(request_head(api, "POST", f"/v1/matches/{waiting.body['id']}/join", len(body)))
    trickle = Trickle(connection, body)
    trickle.start()
    try:
        assert trickle.started_sending.wait(ANSWER_WAIT)
        # Meanwhile other clients are served: another match is created, joined and played.
        other = api.post("/v1/matches", {"game": "icecream", "players": 2, "open_seats": [1]})
        assert other.status == 201, other
        joined = api.post(f"/v1/matches/{other.body['id']}/join", {"name": "quick"})
        assert joined.status == 200, joined
        status, problem, rest = read_answer(connection)
        assert status == 408, problem
        assert problem["code"] == "request-timeout" and problem["status"] == 408
        assert rest == b""  # the server dropped the connection rather than drain the rest of the trickle
    finally:
        trickle.stop.set()
        trickle.join()
        connection.close()
    # The trickled join took no seat: the match still waits for its second player.
    still = api.get(f"/v1/matches/{waiting.body['id']}")
    assert still["status"] == "waiting" and not still["seats"][1]["filled"]


@pytest.fixture
def limited_api(redis_url: str, tmp_path: Path) -> Iterator[Api]:
    """The served API allowing one match creation a minute per address."""
    yield from serve(redis_url, tmp_path, {"PARLOUR_LIMIT_CREATE_MATCH": "1/minute"})


def answer_to(api: Api, *chunks: bytes) -> tuple[http.client.HTTPResponse, Any]:
    """Send the raw chunks on a new connection; the response and its JSON."""
    connection = connect(api)
    try:
        for chunk in chunks:
            connection.sendall(chunk)
        response = http.client.HTTPResponse(connection)
        response.begin()
        return response, json.loads(response.read())
    finally:
        connection.close()


def test_a_client_over_its_limit_is_refused_before_it_sends_its_body(limited_api: Api) -> None:
    assert limited_api.post("/v1/matches", {"game": "icecream", "players": 2}).status == 201
    # The headers promise a body that never comes: the answer must not wait for it.
    response, problem = answer_to(limited_api, request_head(limited_api, "POST", "/v1/matches", 1000))
    # Had the body been read first, the answer would be the body timeout's 408.
    assert response.status == 429, problem
    assert problem["code"] == "rate-limited"


def test_a_body_sent_in_time_is_served_as_ever(api: Api) -> None:
    waiting = api.post("/v1/matches", {"game": "icecream", "players": 2, "open_seats": [1]})
    body = json.dumps({"name": "steady"}).encode()
    response, answer = answer_to(
        api, request_head(api, "POST", f"/v1/matches/{waiting.body['id']}/join", len(body)), body
    )
    assert response.status == 200, answer
    assert answer["seat"] == 1
