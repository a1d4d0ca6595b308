"""Analysis over HTTP (issue 36, item 1): a seat's position, a finished match's step, a client's position.

Each ask answers 202 with a job on the hints' queue; the jobs are run here by an RQ worker in this process
(`run_jobs`), and the job's answer and event stream are read back. A seat's analysis needs its token, and the
match's leave (fair play); the public analyses only a match that is over; budgets are capped (422); a position
that is no position of its game is a 4xx problem, never a 500.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.matches.analysis import DEFAULT_ITERATIONS, MAX_ITERATIONS, MAX_MILLISECONDS
from engine import get_game
from engine.rng import Rng
from store.jobs import HINT_QUEUE
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_replay import play_to_the_end
from tests.api.test_transcripts import run_jobs

HUMANS = [{"type": "human"}, {"type": "human"}]


def ask(client: FlaskClient, match: Match, token: int | None = 0, **body: Any) -> Any:
    """POST .../analysis, with the token of seat `token` (None: the public's ask)."""
    headers = bearer(match.tokens[token]) if token is not None else {}
    return client.post(match.url("/analysis"), json=body, headers=headers)


def accepted(response: Any) -> dict[str, Any]:
    """A 202's body, checked."""
    assert response.status_code == 202, response.get_json()
    assert response.headers["Location"] == response.get_json()["url"]
    return dict(response.get_json())


def events(client: FlaskClient, url: str, headers: dict[str, str] | None = None) -> list[tuple[str, Any, str | None]]:
    """The events of a job's stream up to its end: (event, data, id)."""
    response = client.get(url, headers=headers or {}, buffered=False)
    assert response.status_code == 200, response.get_json()
    assert response.mimetype == "text/event-stream"
    text = ""
    for chunk in response.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        if ("event: done" in text or "event: failed" in text) and text.endswith("\n\n"):
            break
    response.close()
    found = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            found.append((fields["event"], json.loads(fields["data"]), fields.get("id")))
    return found


def finished_match(client: FlaskClient) -> Match:
    """A two-person IceCream match played to its end with random moves."""
    match = create_match(client, seats=HUMANS, seed="analysis")
    play_to_the_end(client, match, random.Random(36))
    return match


def test_a_seat_asks_for_its_position_and_reads_the_analysis_with_its_token(
    app: ParlourApp, client: FlaskClient, match: Match, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    asked = accepted(ask(client, match, budget={"iterations": 50}))
    assert asked["scope"] == "seat" and asked["match"] == match.id and asked["seat"] == 0
    assert asked["version"] == 0 and asked["step"] is None and asked["budget"] == {"iterations": 50}
    assert asked["status"] == "queued" and asked["pending"] is False
    assert asked["events_url"] == f"/v1/jobs/{asked['id']}/events"
    assert app.services.jobs.fetch(asked["id"]) is not None
    assert app.services.jobs.waiting(HINT_QUEUE) == 1
    assert client.get(asked["url"]).status_code == 401  # a seat's analysis is that seat's
    assert client.get(asked["url"], headers=bearer(match.tokens[1])).status_code == 403
    assert client.get(asked["events_url"], headers=bearer(match.tokens[1])).status_code == 403
    again = accepted(ask(client, match, budget={"milliseconds": 100}))
    assert again == {**asked, "pending": True}  # one pending analysis per seat: the earlier one answers
    run_jobs(monkeypatch, redis_url)
    job = client.get(asked["url"], headers=bearer(match.tokens[0])).get_json()
    assert job["kind"] == "analysis" and job["status"] == "finished" and job["error"] is None
    analysis = job["result"]["analysis"]
    assert analysis["seat"] == 0 and analysis["exact"] is True  # IceCream: the solver's values
    assert analysis["moves"] and all(move["exact"] for move in analysis["moves"])
    values = [move["value"] for move in analysis["moves"]]
    assert values == sorted(values, reverse=True)
    streamed = events(client, asked["events_url"], bearer(match.tokens[0]))
    assert [event for event, _, _ in streamed] == ["progress", "done"]  # late: the newest report, then the end
    assert streamed[0][1] == analysis and streamed[1][1] == job
    resumed = events(client, asked["events_url"], {**bearer(match.tokens[0]), "Last-Event-ID": streamed[0][2] or ""})
    assert [event for event, _, _ in resumed] == ["done"]  # that report was seen already
    after = accepted(ask(client, match))
    assert after["id"] != asked["id"] and after["budget"] == {"iterations": DEFAULT_ITERATIONS}


def test_a_seat_is_refused_where_fair_play_forbids_it_or_it_has_nothing_to_do(
    client: FlaskClient, match: Match
) -> None:
    humans = create_match(client, seats=HUMANS)
    refused = ask(client, humans)
    assert refused.status_code == 403 and refused.get_json()["code"] == "assistance-forbidden"
    assert ask(client, match, token=1).get_json()["code"] == "not-your-turn"
    assert ask(client, match, step=0).status_code == 400  # a running match is analysed as it stands
    assert ask(client, match, token=0, seat=1).status_code == 400


def test_the_public_never_analyses_a_running_match(client: FlaskClient, match: Match) -> None:
    refused = ask(client, match, token=None)
    assert refused.status_code == 409 and refused.get_json()["code"] == "match-not-over"
    assert refused.mimetype == "application/problem+json"


def test_the_public_analyses_any_step_of_a_finished_match_with_full_information(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    match = finished_match(client)
    steps = client.get(match.url("/replay/0")).get_json()["steps"]
    last = accepted(ask(client, match, token=None, budget={"iterations": 10}))
    assert last["scope"] == "public" and last["step"] == steps - 1  # where the last move was played from
    replay = client.get(match.url(f"/replay/{steps - 1}")).get_json()
    assert last["seat"] == replay["to_act"][0]
    assert ask(client, match, token=None, step=steps + 1).status_code == 404
    over = ask(client, match, token=None, step=steps)
    assert over.status_code == 409 and over.get_json()["code"] == "nothing-to-analyse"
    first = client.get(match.url("/replay/0")).get_json()["to_act"]
    other = next(seat for seat in range(2) if seat not in first)
    assert ask(client, match, token=None, step=0, seat=other).get_json()["code"] == "nothing-to-analyse"
    run_jobs(monkeypatch, redis_url)
    job = client.get(last["url"]).get_json()  # anyone holding the id reads a public analysis
    assert job["status"] == "finished" and job["result"]["analysis"]["seat"] == last["seat"]
    step_zero = accepted(ask(client, match, token=None, step=0))
    assert step_zero["step"] == 0 and step_zero["seat"] == first[0]


def test_budgets_are_capped_with_422_and_malformed_ones_are_400(client: FlaskClient, match: Match) -> None:
    over = ask(client, match, budget={"iterations": MAX_ITERATIONS + 1})
    assert over.status_code == 422 and over.get_json()["code"] == "budget-over-cap"
    assert over.get_json()["cap"] == {"iterations": MAX_ITERATIONS}
    slow = ask(client, match, budget={"milliseconds": MAX_MILLISECONDS + 1})
    assert slow.status_code == 422 and slow.get_json()["cap"] == {"milliseconds": MAX_MILLISECONDS}
    budgets: list[Any] = [{}, {"iterations": 10, "milliseconds": 10}, {"iterations": 0}, {"iterations": "5"}, [], 5]
    for budget in budgets:
        refused = ask(client, match, budget=budget)
        assert refused.status_code == 400 and refused.get_json()["code"] == "invalid-request", budget


def position(game_id: str, players: int, seed: str, moves: int = 0) -> Any:
    """A state of the game after `moves` random moves."""
    game = get_game(game_id)
    assert game is not None
    state = game.start(players, None, seed)
    rng = Rng.from_seed(seed)
    for _ in range(moves):
        seat = rng.choice(list(state.acting_seats()))
        state.play(seat, state.sample_action(seat, rng))
    return state


def test_a_client_position_is_analysed_from_a_state_or_a_view(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    icecream = position("icecream", 2, "client", moves=3)
    seat = icecream.acting_seats()[0]
    body = {"game": "icecream", "players": 2, "seat": seat, "state": icecream.to_json()}
    from_state = accepted(client.post("/v1/analysis", json=body))
    assert from_state["scope"] == "position" and from_state["match"] is None and from_state["seat"] == seat
    sundae = position("sundae_split", 3, "client", moves=2)
    seat = sundae.acting_seats()[0]
    body = {"game": "sundae_split", "players": 3, "seat": seat, "view": sundae.view(seat), "budget": {"iterations": 20}}
    again = accepted(client.post("/v1/analysis", json=body))
    assert again == {**from_state, "pending": True}  # one pending analysis per address
    run_jobs(monkeypatch, redis_url)
    answer = client.get(from_state["url"]).get_json()
    assert answer["status"] == "finished" and answer["result"]["analysis"]["exact"] is True
    from_view = accepted(client.post("/v1/analysis", json=body))
    run_jobs(monkeypatch, redis_url)
    streamed = events(client, from_view["events_url"])
    assert [event for event, _, _ in streamed][-1] == "done"
    analysis = streamed[-1][1]["result"]["analysis"]
    assert analysis["seat"] == seat and analysis["exact"] is False and 1 <= analysis["iterations"] <= 20
    assert analysis["moves"]
    for move in analysis["moves"]:
        sundae.clone().play(seat, move["action"])  # a legal move of the position sent


def test_a_position_that_does_not_fit_its_game_is_a_4xx_problem(client: FlaskClient) -> None:
    sundae = position("sundae_split", 3, "bad")
    seat = sundae.acting_seats()[0]
    view = sundae.view(seat)
    mismatch = client.post("/v1/analysis", json={"game": "sundae_split", "players": 3, "seat": seat, "view": {}})
    assert mismatch.status_code == 422 and mismatch.get_json()["code"] == "view-mismatch"
    state = {"game": "sundae_split", "players": 3, "seat": seat, "state": sundae.to_json()}
    assert client.post("/v1/analysis", json=state).get_json()["code"] == "state-not-taken"
    waiting = next(other for other in range(3) if other not in sundae.acting_seats())
    idle = client.post(
        "/v1/analysis", json={"game": "sundae_split", "players": 3, "seat": waiting, "view": sundae.view(waiting)}
    )
    assert idle.status_code == 409 and idle.get_json()["code"] == "nothing-to-analyse"
    icecream = position("icecream", 2, "bad").to_json()
    robots_state = position("robots_love_ice_cream", 2, "bad")
    seat_0 = robots_state.acting_seats()[0]
    robots = robots_state.view(seat_0)  # a view whose values of the wrong kind only the rules find out
    freeze = position("freeze_factory", 2, "bad").view(0)  # rebuilt through its state's JSON
    shapes: list[Any] = [
        {},
        [],
        {"game": "chess", "players": 2, "seat": 0, "view": {}},
        {"game": "icecream", "players": 2, "seat": 0},
        {"game": "icecream", "players": 2, "seat": 0, "view": {}, "state": {}},
        {"game": "icecream", "players": 9, "seat": 0, "view": {}},
        {"game": "icecream", "players": 2, "seat": 5, "view": {}},
        {"game": "icecream", "players": 2, "seat": 0, "state": {}},
        {"game": "icecream", "players": 2, "seat": 0, "state": {**icecream, "cones": 7}},
        {"game": "icecream", "players": 2, "seat": 0, "state": {**icecream, "to_move": 9}},
        {"game": "icecream", "players": 2, "seat": 0, "state": {**icecream, "options": {"turn_limit": -1}}},
        {"game": "icecream", "players": 3, "seat": 0, "state": icecream},
        {"game": "icecream", "players": 2, "seat": 0, "options": {"nonsense": 1}, "view": {}},
        {"game": "sundae_split", "players": 3, "seat": seat, "view": {**view, "hand": "x"}},
        {"game": "sundae_split", "players": 3, "seat": seat, "view": {**view, "hand": [[]] * 3}},
        {"game": "sundae_split", "players": 3, "seat": seat, "view": {key: None for key in view}},
        {"game": "sundae_split", "players": 3, "seat": seat, "view": view, "budget": {"iterations": -1}},
        {"game": "freeze_factory", "players": 2, "seat": 0, "view": view},
        {"game": "robots_love_ice_cream", "players": 2, "seat": 0, "view": {"a": [1] * 50}},
        {"game": "robots_love_ice_cream", "players": 2, "seat": seat_0, "view": {**robots, "track_levels": [None]}},
        {"game": "freeze_factory", "players": 2, "seat": 0, "view": {**freeze, "points_left": None}},
        {"game": "rockem_sockem", "players": 2, "seat": 1, "view": {"round": "x"}},
    ]
    for shape in shapes:
        refused = client.post("/v1/analysis", json=shape)
        assert 400 <= refused.status_code < 500, (shape, refused.get_json())
        assert refused.mimetype == "application/problem+json", shape
