"""Hostile clients against held connections (issue 32, finding 5), on the real Redis.

A long-poll holds its connection for up to 30 s as a stream does, so it counts against the client's held-stream
quota; and a waiting bot (stream or long-poll) holds no Redis connection of its own: it waits on the process's
one change feed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis

from api.current import ParlourApp
from tests.api.conftest import IN_PROCESS_LIMITS, bearer, create_match
from tests.api.test_bots import register
from tests.api.test_limits import limited_app
from tests.api.test_quotas import assert_quota_exceeded
from tests.test_service import wait_until

QUOTA = replace(IN_PROCESS_LIMITS, streams_held=2)
POLLS = 6


@pytest.fixture
def app(redis_url: str) -> Iterator[ParlourApp]:
    """The API with a held-stream quota of 2 per client."""
    app = limited_app(redis_url, QUOTA)
    yield app
    app.services.changes.stop()


def test_long_polls_count_against_the_held_stream_quota(app: ParlourApp) -> None:
    # Finding 5: long-polls held a connection up to 30 s outside the stream quota.
    client = app.test_client()
    match = create_match(client, seed="polls")
    version = client.get(match.url()).get_json()["version"]
    answers: list[int] = []
    polls = [
        threading.Thread(target=lambda: answers.append(client.get(match.url(f"?after={version}&wait=30")).status_code))
        for _ in range(2)
    ]
    for poll in polls:
        poll.start()
    wait_until(lambda: app.services.quotas.streams.held("addr:127.0.0.1") == 2)
    assert_quota_exceeded(client.get(match.url(f"?after={version}&wait=30")), "streams", 2, 2)
    assert_quota_exceeded(client.get(match.url("/events"), buffered=False), "streams", 2, 2)
    moved = client.post(
        match.url("/actions"),
        json={"action": {"type": "move", "from_cone": 0, "scoops": 1}},
        headers=bearer(match.tokens[0]),
    )
    assert moved.status_code == 200
    for poll in polls:
        poll.join()
    assert answers == [200, 200]
    assert app.services.quotas.streams.held("addr:127.0.0.1") == 0, "each long-poll gave its place back"


def blocked_clients(redis_url: str) -> int:
    """How many connections the Redis server holds blocked in a command (an XREAD BLOCK's, say)."""
    return sum("b" in client["flags"] for client in redis.Redis.from_url(redis_url).client_list())


def test_waiting_bots_hold_no_redis_connection_of_their_own(redis_url: str) -> None:
    # Finding 5: each bot long-poll (and bot stream) opened a Redis connection of its own for a blocking XREAD,
    # so a few identities could fill Redis's client limit.
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, streams_held=0))
    client = app.test_client()
    bot = register(client, "waiting")
    last = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=bearer(bot["token"])).get_json()
    answers: list[Any] = []

    def poll() -> None:
        url = f"/v1/bots/{bot['id']}/events?after={last['last_event_id']}&wait=30"
        answers.append(client.get(url, headers=bearer(bot["token"])).get_json())

    polls = [threading.Thread(target=poll) for _ in range(POLLS)]
    for thread in polls:
        thread.start()
    wait_until(lambda: app.services.changes.watched() + blocked_clients(redis_url) >= POLLS)  # all are waiting
    blocked = blocked_clients(redis_url)
    create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])  # the bot's next event
    for thread in polls:
        thread.join()
    assert [answer["events"][0]["event"] for answer in answers] == ["match-started"] * POLLS
    assert blocked == 0, f"{blocked} Redis connections held blocked by {POLLS} waiting long-polls"
    app.services.changes.stop()
