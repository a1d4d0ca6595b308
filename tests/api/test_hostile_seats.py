"""Hostile clients against hidden information (issue 32, findings 1 and 2), on the real Redis.

Nothing private is served before the start: a seat taken, read and left before the start takes no knowledge of
the cards the next holder of that seat gets. And a stream or long-poll whose token no longer holds its seat
(left, given to the AI, bot token rotated) ends at once and carries no later private view or token.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from model.settings import Settings
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_bots import register
from tests.api.test_events import Stream, follow

HIDDEN = [("freeze_factory", 3), ("robots_love_ice_cream", 3)]
"""Games whose every seat is dealt something only it sees (checked below: the test fails if not)."""


def join(client: FlaskClient, match: Match, seat: int, name: str) -> str:
    """Take `seat`; its token."""
    answer = client.post(match.url("/join"), json={"seat": seat, "name": name})
    assert answer.status_code == 200, answer.get_json()
    return str(answer.get_json()["token"])


def leave(client: FlaskClient, match: Match, token: str) -> None:
    """Leave the seat of `token`."""
    answer = client.post(match.url("/leave"), headers=bearer(token))
    assert answer.status_code == 200, answer.get_json()


def read(client: FlaskClient, match: Match, token: str | None = None, suffix: str = "") -> Any:
    """GET the match (or a sub-path) as the token's seat, or publicly."""
    answer = client.get(match.url(suffix), headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


@pytest.mark.parametrize(("game", "players"), HIDDEN)
def test_a_seat_joined_read_and_left_before_the_start_learns_nothing_of_the_next_holder_s_hand(
    client: FlaskClient, game: str, players: int
) -> None:
    # Finding 1: the deal is made at creation; a joined seat read its private view of the waiting match, left,
    # and the next holder of the seat got the hand the leaver had read.
    match = create_match(client, game=game, players=players, open_seats=[1, 2], assistance="allowed")  # past fair play
    spy = join(client, match, 1, "spy")
    public = read(client, match)["view"]
    seen = [read(client, match, spy)["view"], read(client, match, match.tokens[0])["view"]]
    stream = follow(client, match, headers=bearer(spy))
    seen.append(stream.event().data["match"]["view"])
    assert client.post(match.url("/ai-move"), json={}, headers=bearer(spy)).status_code == 409
    assert read(client, match, spy, "/legal-actions")["actions"] == []
    leave(client, match, spy)
    assert stream.event("end").data["reason"] == "seat-left"
    assert seen == [public] * 3, "a seat's view before the start is the public view"
    stranger = join(client, match, 1, "stranger")
    join(client, match, 2, "third")
    started = read(client, match, stranger)
    assert started["status"] == "active"
    assert started["view"] != read(client, match)["view"], f"{game}: seat 1 has something hidden to check"


def test_a_stream_of_a_seat_that_was_left_ends_and_shows_nothing_of_its_next_holder(client: FlaskClient) -> None:
    # Finding 2: the stream kept its seat number for good, and went on sending seat 1's private view (and the
    # rematch token) to whoever had left it.
    match = create_match(client, game="freeze_factory", players=3, open_seats=[1, 2])
    spy = join(client, match, 1, "spy")
    stream = follow(client, match, headers=bearer(spy), query_string={"rematch": "true"})
    assert stream.event().data["match"]["viewer"] == 1
    leave(client, match, spy)
    end = stream.event("end").data
    assert end == {"version": 1, "reason": "seat-left"}
    assert stream.next() is None
    join(client, match, 1, "stranger")
    join(client, match, 2, "third")
    assert read(client, match)["status"] == "active"


def test_a_long_poll_of_a_seat_left_while_it_waited_is_refused(client: FlaskClient) -> None:
    match = create_match(client, game="freeze_factory", players=3, open_seats=[1, 2])
    spy = join(client, match, 1, "spy")
    version = read(client, match)["version"]
    answers: list[Any] = []
    poll = threading.Thread(
        target=lambda: answers.append(client.get(match.url(f"?after={version}&wait=30"), headers=bearer(spy)))
    )
    poll.start()
    leave(client, match, spy)
    poll.join()
    assert answers[0].status_code == 401, answers[0].get_json()


def test_a_co_operative_seat_s_stream_ends_when_its_player_resigns_and_the_ai_takes_it(client: FlaskClient) -> None:
    match = create_match(client, game="robots_love_ice_cream", players=2)
    stream = follow(client, match, 0)
    assert stream.event().data["match"]["viewer"] == 0
    resigned = client.post(match.url("/resign"), headers=bearer(match.tokens[0]))
    assert resigned.status_code == 200 and resigned.get_json()["seats"][0]["type"] == "ai"
    assert stream.event("end").data["reason"] == "seat-given-up"
    assert stream.next() is None


def bot_in_a_match(client: FlaskClient, name: str) -> tuple[dict[str, Any], Match]:
    """A registered bot seated at seat 0 of a running IceCream match against a human seat."""
    bot = register(client, name)
    match = create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
    assert read(client, match)["status"] == "active"
    return bot, match


def follow_as_bot(client: FlaskClient, match: Match, bot: dict[str, Any]) -> Stream:
    """The match's event stream opened with the bot's token."""
    stream = follow(client, match, headers=bearer(bot["token"]))
    assert stream.event().data["match"]["viewer"] == 0
    return stream


def test_a_match_stream_opened_with_a_bot_token_ends_when_the_token_is_rotated(settings: Settings) -> None:
    # Finding 2: match streams opened with the old token kept flowing until the match ended. No heartbeat comes
    # within the test's wait here: the rotation itself must end the stream, at once.
    app = create_app(replace(settings, events_heartbeat=3_600))
    client = app.test_client()
    bot, match = bot_in_a_match(client, "rotating")
    stream = follow_as_bot(client, match, bot)
    rotated = client.post(f"/v1/bots/{bot['id']}/token", headers=bearer(bot["token"]))
    assert rotated.status_code == 200
    assert stream.event("end").data["reason"] == "token-rotated"
    assert stream.next() is None
    app.services.changes.stop()


def test_a_match_stream_of_a_deleted_bot_ends(client: FlaskClient) -> None:
    bot, match = bot_in_a_match(client, "deleted")
    stream = follow_as_bot(client, match, bot)
    assert client.delete(f"/v1/bots/{bot['id']}", headers=bearer(bot["token"])).status_code in (200, 204)
    assert stream.event("end").data["reason"] == "bot-deleted"
    assert stream.next() is None


def test_no_rematch_token_is_stored_in_plain_text(client: FlaskClient, redis_url: str) -> None:
    # Finding 13: the rematch's seat tokens were kept in plain text in the finished match's record, where anyone
    # reading Redis (a backup, a replica) could take the new seats.
    match = create_match(client, seats=[{"type": "human"}, {"type": "human"}])
    assert client.post(match.url("/resign"), headers=bearer(match.tokens[0])).status_code == 200
    assert client.post(match.url("/rematch"), headers=bearer(match.tokens[0])).status_code == 200
    last = client.post(match.url("/rematch"), headers=bearer(match.tokens[1])).get_json()["rematch"]
    first = read(client, match, match.tokens[0])["rematch"]  # the seat that offered first reads its token
    tokens = [first["token"], last["token"]]
    assert all(token and token.startswith(f"{last['match']}.") for token in tokens) and len(set(tokens)) == 2
    for token, seat in zip(tokens, (first["seat"], last["seat"]), strict=True):
        legal = client.get(f"/v1/matches/{last['match']}/legal-actions", headers=bearer(token))
        assert legal.status_code == 200 and legal.get_json()["seat"] == seat
    stored = redis.Redis.from_url(redis_url)
    dump = b"".join(
        part if isinstance(part, bytes) else str(part).encode()
        for key in stored.scan_iter("*")
        if stored.type(key) == b"hash"
        for item in stored.hgetall(key).items()
        for part in item
    )
    for token in tokens:
        assert token.encode() not in dump and token.split(".")[2].encode() not in dump
