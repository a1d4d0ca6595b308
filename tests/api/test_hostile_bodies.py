"""Request bodies against the body timeout (api/bodies.py), in process, on a clock the test moves.

The served test (tests/test_hostile_slowloris.py) trickles a real body into gunicorn's gevent worker;
these check the rest: the 408's shape, that a body read in time or a request without one is untouched,
and the gunicorn limits on request heads.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import EnvironBuilder, TestResponse, run_wsgi_app
from werkzeug.wrappers import Request

from api.bodies import BodyTimedOut, BodyTimeout, TimedInput, has_body
from api.current import ParlourApp
from ops.supervisor import gunicorn_command
from tests.api.conftest import Match, create_match


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class SlowBody(io.RawIOBase):
    """A body that arrives a byte per read, each read taking `per_read` seconds on the clock."""

    def __init__(self, data: bytes, clock: Clock, per_read: float) -> None:
        self.data = data
        self.clock = clock
        self.per_read = per_read

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        self.clock.now += self.per_read
        byte, self.data = self.data[:1], self.data[1:]
        return byte


@pytest.fixture
def clock(app: ParlourApp) -> Clock:
    """The app's body timeout (10 s, the default) on a clock the test moves."""
    clock = Clock()
    timeout = app.wsgi_app
    assert isinstance(timeout, BodyTimeout) and timeout.seconds == 10
    timeout.clock = clock
    return clock


def waiting_match(client: FlaskClient) -> Match:
    """A 2-player IceCream match waiting for its seat 1."""
    return create_match(client, open_seats=[1])


def post_slowly(app: ParlourApp, path: str, body: bytes, clock: Clock, per_read: float) -> TestResponse:
    """POST `body` to `path`, a byte per read, each read `per_read` seconds."""
    environ = EnvironBuilder(path=path, method="POST", content_type="application/json", data=body).get_environ()
    environ["wsgi.input"] = SlowBody(body, clock, per_read)  # the test client's own input can only be read at once
    chunks, status, headers = run_wsgi_app(app, environ, buffered=True)
    return TestResponse(chunks, status, headers, request=Request(environ))


def test_a_body_that_takes_longer_than_the_timeout_in_all_is_a_408(
    app: ParlourApp, client: FlaskClient, clock: Clock
) -> None:
    match = waiting_match(client)
    body = b'{"name": "slow"}'  # 16 reads of 1 s: each read is quick, the whole is not
    response = post_slowly(app, match.url("/join"), body, clock, per_read=1.0)
    assert response.status_code == 408, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert (problem["code"], problem["status"]) == ("request-timeout", 408)
    assert "10 s" in problem["detail"]
    assert client.get(match.url()).get_json()["status"] == "waiting"  # the join took no seat


def test_a_body_read_in_time_is_served(app: ParlourApp, client: FlaskClient, clock: Clock) -> None:
    match = waiting_match(client)
    response = post_slowly(app, match.url("/join"), b'{"name": "steady"}', clock, per_read=0.5)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["seat"] == 1


def test_a_request_without_a_body_is_not_wrapped() -> None:
    seen: list[Any] = []

    def app(environ: Any, start_response: Any) -> list[bytes]:
        seen.append(environ["wsgi.input"])
        start_response("200 OK", [])
        return [b""]

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> Callable[[bytes], None]:
        return lambda data: None

    original = io.BytesIO(b"")
    timeout = BodyTimeout(app, 10)
    for environ in ({}, {"CONTENT_LENGTH": "0"}, {"CONTENT_LENGTH": ""}):
        timeout({**environ, "wsgi.input": original}, start_response)
    assert seen == [original] * 3
    assert has_body({"CONTENT_LENGTH": "5"}) and has_body({"HTTP_TRANSFER_ENCODING": "chunked"})


def test_the_time_counts_from_the_first_read_and_never_renews() -> None:
    clock = Clock()
    timed = TimedInput(io.BytesIO(b"abc"), 2, clock)
    clock.now += 50  # before the first read: the limit and the rate limits' time, not the body's
    assert timed.read(1) == b"a"
    clock.now += 1.5
    assert timed.read(1) == b"b"
    clock.now += 1.0
    with pytest.raises(BodyTimedOut):
        timed.read(1)


def test_gunicorn_limits_request_heads() -> None:
    command = gunicorn_command("app:app", "127.0.0.1", 8000, 1, 1)
    flags = dict(itertools.pairwise(command))  # each flag with the word after it
    assert flags["--keep-alive"] == "5"  # under gevent, also the time a request's head may take
    assert flags["--limit-request-fields"] == "50"
    assert flags["--limit-request-line"] == "4094" and flags["--limit-request-field_size"] == "8190"
