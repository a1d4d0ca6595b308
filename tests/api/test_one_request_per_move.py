"""One request per move: the answer to a seat's action, its read of the match and its events carry what that
seat may do at their version (exactly `GET .../legal-actions` there); nobody else's, and never the public's."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.matches import commands
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_events import follow

GAMES = [
    ("icecream", 2),
    ("sundae_split", 3),
    ("freeze_factory", 2),
    ("rockem_sockem", 2),
    ("robots_love_ice_cream", 2),
]
MOVES = 40  # per match: enough to cross turns, claims and chance in every game


def legal_read(client: FlaskClient, match: Match, seat: int) -> dict[str, Any]:
    """What `GET .../legal-actions` answers the seat now."""
    response = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat]))
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def pick(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal action of the answer: a listed one, or the example of a constructed space."""
    return dict(legal["example"]) if legal["kind"] == "constructed" else dict(rng.choice(legal["actions"]))


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_each_action_answers_the_seats_legal_actions_at_the_new_version(
    client: FlaskClient, game: str, players: int
) -> None:
    match = create_match(client, game=game, players=players, seed=f"one-request-{game}")
    rng = random.Random(game)
    known: dict[int, dict[str, Any]] = {}  # each seat's legal actions, as its last answer gave them
    reads = 0
    for _ in range(MOVES):
        current = client.get(match.url()).get_json()
        if current["status"] != "active":
            break
        seat = current["waiting_for"][0]
        legal = known.get(seat)
        if legal is None or legal["version"] != current["version"]:  # another seat moved since: read them
            legal, reads = legal_read(client, match, seat), reads + 1
        assert legal["may_act"]
        body = {"action": pick(legal, rng), "expected_version": legal["version"]}
        response = client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[seat]))
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
        carried = answer["legal_actions"]
        assert carried == legal_read(client, match, seat)  # exactly what the seat would read, at the new version
        assert (carried["seat"], carried["version"], answer["viewer"]) == (seat, answer["version"], seat)
        if answer["status"] != "active":
            assert not carried["may_act"] and carried["actions"] == []
        known[seat] = carried
    assert reads < MOVES  # the answers saved reads (every game here lets a seat act twice in a row at times)


def test_a_replayed_answer_is_the_first_one_legal_actions_included(client: FlaskClient, match: Match) -> None:
    headers = {**bearer(match.tokens[0]), "Idempotency-Key": "once"}
    body = {"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 0}
    first = client.post(match.url("/actions"), json=body, headers=headers)
    again = client.post(match.url("/actions"), json=body, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json()
    assert first.get_json()["legal_actions"] == legal_read(client, match, 0)


def test_reads_carry_the_seats_own_legal_actions_and_the_public_none(client: FlaskClient, match: Match) -> None:
    client.post(
        match.url("/actions"),
        json={"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 0},
        headers=bearer(match.tokens[0]),
    )
    for seat in (0, 1):
        for query in ("", "?after=0&wait=5"):  # a read, and a long-poll answered at once
            read = client.get(match.url(query), headers=bearer(match.tokens[seat])).get_json()
            assert read["legal_actions"] == legal_read(client, match, seat)
    public = client.get(match.url("?after=0&wait=5"))
    assert "legal_actions" not in public.get_data(as_text=True)


def test_a_seats_stream_carries_its_own_legal_actions_and_the_public_stream_none(
    client: FlaskClient, match: Match
) -> None:
    seat_stream, public_stream = follow(client, match, seat=1), follow(client, match)
    assert seat_stream.event().data["legal_actions"] == legal_read(client, match, 1)  # version 0: not its turn
    assert "legal_actions" not in public_stream.event().text
    client.post(
        match.url("/actions"),
        json={"action": {"type": "move", "from_cone": 0, "scoops": 1}, "expected_version": 0},
        headers=bearer(match.tokens[0]),
    )
    event = seat_stream.event()
    assert event.data["legal_actions"] == legal_read(client, match, 1)
    assert event.data["legal_actions"]["may_act"] and event.data["legal_actions"]["seat"] == 1
    assert '"seat":0,"may_act"' not in event.text  # never seat 0's choices on seat 1's stream
    assert "legal_actions" not in public_stream.event().text
    seat_stream.close()
    public_stream.close()


def test_a_timeouts_default_action_answers_legal_actions_too(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="one-request-timeout")
    store = app.services.store
    record = store.load(match.id)
    assert record is not None
    action = commands.engine_state(record).default_action(0)
    answer = commands.apply_action(store, record, 0, action, 0, None, timeout=True)
    assert answer["legal_actions"] == legal_read(client, match, 0)
