"""GET /v1/matches/{id}/replay/{step}: a match that is over, rebuilt step by step from its seed and log."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.matches.replay import SNAPSHOT_EVERY
from tests.api.conftest import Match, bearer, create_match


def play_to_the_end(client: FlaskClient, match: Match, rng: random.Random) -> tuple[list[Any], list[list[Any]]]:
    """Random enumerated legal actions until the end; the public view and every seat's view after each action."""
    public: list[Any] = [client.get(match.url()).get_json()["view"]]
    seats: list[list[Any]] = [[seat_view(client, match, seat)] for seat in match.tokens]
    while (current := client.get(match.url()).get_json())["status"] == "active":
        seat = rng.choice(current["to_act"])
        legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
        assert legal["kind"] == "enumerated", legal
        body = {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
        response = client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[seat]))
        assert response.status_code == 200, response.get_json()
        public.append(client.get(match.url()).get_json()["view"])
        for views, seat_number in zip(seats, match.tokens, strict=True):
            views.append(seat_view(client, match, seat_number))
    return public, seats


def seat_view(client: FlaskClient, match: Match, seat: int) -> Any:
    """What the seat's own token reads as the match's view."""
    return client.get(match.url(), headers=bearer(match.tokens[seat])).get_json()["view"]


@pytest.mark.parametrize(("game", "players"), [("icecream", 2), ("rockem_sockem", 2)])
def test_every_step_shows_what_was_seen_live(client: FlaskClient, game: str, players: int) -> None:
    """Step k's public view is the one the public read after k actions; `seat` gives that seat's view then.

    Seeded, with seeded choices: the match is long enough (a random Rock'em Sock'em race was once 46 steps)."""
    match = create_match(client, game=game, players=players, seed=f"replay-{game}")
    public, seats = play_to_the_end(client, match, random.Random(game))
    final = client.get(match.url()).get_json()
    steps = len(public) - 1
    assert steps > 2 * SNAPSHOT_EVERY, steps  # steps from several of the kept states
    for step in range(steps + 1):
        assert client.get(match.url(f"/replay/{step}")).get_json()["view"] == public[step], step
    for step in sorted({0, 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 1, steps // 2, steps - 1, steps}):
        answer = client.get(match.url(f"/replay/{step}")).get_json()
        assert (answer["step"], answer["steps"], answer["view"]) == (step, steps, public[step])
        assert (answer["entry"] is None) == (step == 0)
        for seat, views in enumerate(seats):
            assert client.get(match.url(f"/replay/{step}?seat={seat}")).get_json()["view"] == views[step]
    last = client.get(match.url(f"/replay/{steps}")).get_json()
    assert last["result"] == final["result"] and last["to_act"] == []
    assert last["seed"] == final["seed"] and last["seed_commitment"] == final["seed_commitment"]


def test_a_running_match_is_not_replayed_and_unknown_steps_are_404(client: FlaskClient) -> None:
    """The seed of a running match is secret (its next draws with it); steps past the end do not exist."""
    match = create_match(client)
    response = client.get(match.url("/replay/0"))
    assert response.status_code == 409 and response.get_json()["code"] == "match-not-over"
    play_to_the_end(client, match, random.Random(1))
    steps = client.get(match.url("/replay/0")).get_json()["steps"]
    assert client.get(match.url(f"/replay/{steps + 1}")).status_code == 404
    assert client.get(match.url("/replay/0?seat=7")).status_code in (400, 404)
    assert client.get(match.url("/replay/-1")).status_code == 404
    assert client.get("/v1/matches/nope/replay/0").status_code == 404
