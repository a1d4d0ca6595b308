"""The WebSocket under gunicorn, as `make run` serves it: both worker classes the supervisor offers carry a match.

`gevent` (the service's default) holds a socket on greenlets; `gthread` on threads (four per socket:
the handler, simple-websocket's reader, the writer and the events pump), so it holds fewer at once.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.socket.protocol import NORMAL
from tests.api.test_openapi import WINNING_LINE
from tests.api.test_socket import Socket
from tests.multihost_support import Api, start_api, stop_group
from tests.test_service import free_port


def start_gunicorn(worker_class: str, redis_url: str, log_dir: Path) -> tuple[subprocess.Popen[bytes], Api]:
    """`gunicorn ops.wsgi:app` with one worker process of that class; once /v1/health answers."""
    port = free_port()
    env = {"PARLOUR_EVENTS_HEARTBEAT": "1"}
    process = start_api(f"gunicorn-{worker_class}", redis_url, port, log_dir, env, worker_class, 8, 100)
    return process, Api(f"http://127.0.0.1:{port}")


@pytest.fixture(params=["gevent", "gthread"])
def served(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[Api]:
    """The API under gunicorn with the worker class of the parameter."""
    process, api = start_gunicorn(request.param, redis_url, tmp_path)
    try:
        yield api
    finally:
        stop_group(process)


def test_a_match_is_played_over_sockets_under_each_worker_class(served: Api) -> None:
    created = served.post("/v1/matches", {"game": "icecream", "players": 2, "seed": "gunicorn"})
    assert created.status == 201, created
    tokens = {seat["seat"]: seat["token"] for seat in created.body["tokens"]}
    seats = [Socket(served.base) for _ in range(2)]
    try:
        for number, socket in enumerate(seats):
            assert socket.hello(tokens[number])["type"] == "welcome"
            assert socket.next()["id"] == 0
        for version, (seat, action) in enumerate(WINNING_LINE):
            answer = seats[seat].act(action, version)
            assert answer["type"] == "result" and answer["answer"]["version"] == version + 1, answer
        for socket in seats:
            assert socket.next_of("closed")["code"] == NORMAL
            assert [m["event"] for m in socket.seen if m["type"] == "event"][-1] == "end"
    finally:
        for socket in seats:
            socket.close()
