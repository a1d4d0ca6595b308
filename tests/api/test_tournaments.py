"""POST/GET /v1/tournaments: validation, the stored plan, and advancing as matches finish (played inline here)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask.testing import FlaskClient

from ai.levels import choose
from api.current import ParlourApp
from domain.matches import commands as matches
from domain.tournaments.director import Tournaments

RANDOMS = [{"type": "ai", "level": "random"}] * 3


def create(client: FlaskClient, **request: Any) -> dict[str, Any]:
    """POST /v1/tournaments (Rock'em Sock'em between three random players by default); the 201 body."""
    response = client.post("/v1/tournaments", json={"game": "rockem_sockem", "entrants": RANDOMS, **request})
    assert response.status_code == 201, response.get_json()
    assert response.headers["Location"] == response.get_json()["url"]
    return dict(response.get_json())


def play_running_matches(app: ParlourApp, body: dict[str, Any]) -> int:
    """Play every running match of the tournament to its end with random moves, as the AI workers would."""
    with app.app_context():
        store = app.services.store
        tournament = app.services.tournaments.load(body["id"])
        played = 0
        for index, match_id in tournament.matches.items():
            if index in tournament.outcomes:
                continue
            record = store.load(match_id)
            assert record is not None
            while record.status != "finished":
                state = matches.engine_state(record)
                seat = next(s for s in state.acting_seats() if matches.seat_may_act(record, state, s))
                action = choose(state, seat, "random", f"{record.version}")
                matches.apply_action(
                    store, record, seat, action, record.version, None, on_commit=app.services.after_change
                )
                record = store.load(match_id)
                assert record is not None
            played += 1
        return played


def test_a_tournament_is_created_with_its_plan_and_first_matches(client: FlaskClient) -> None:
    body = create(client, seed="plan", parallel=4)
    assert body["status"] == "running" and body["format"] == "round-robin"
    assert body["progress"] == {"done": 0, "total": 6, "running": 4, "round": 1, "rounds": 1}
    assert [entrant["name"] for entrant in body["entrants"]] == ["random", "random #2", "random #3"]
    assert body["games_per_pairing"] == 2 and body["seed"] == "plan"
    assert [match["status"] for match in body["matches"]] == ["running"] * 4 + ["planned"] * 2
    first = client.get(f"/v1/matches/{body['matches'][0]['match']}").get_json()
    assert [seat["type"] for seat in first["seats"]] == ["ai", "ai"]
    assert [seat["name"] for seat in first["seats"]] == ["random", "random #2"]
    assert all(row["played"] == 0 for row in body["standings"])
    assert client.get(body["url"]).get_json()["matches"] == body["matches"]


def test_a_server_seed_is_revealed_only_at_the_end(app: ParlourApp, client: FlaskClient) -> None:
    body = create(client, games_per_pairing=1)
    assert body["seed"] is None and len(body["seed_commitment"]) == 64
    play_running_matches(app, body)
    done = client.get(body["url"]).get_json()
    assert done["status"] == "finished" and done["seed"] is not None


def test_matches_start_up_to_the_limit_and_outcomes_are_counted_once(app: ParlourApp, client: FlaskClient) -> None:
    body = create(client, seed="limit", parallel=2)
    while client.get(body["url"]).get_json()["status"] == "running":
        assert play_running_matches(app, body) <= 2
        with app.app_context():
            tournaments: Tournaments = app.services.tournaments
            tournaments.sweep(app.services.after_change)  # a sweep on top of every finish's own advance changes nothing
    done = client.get(body["url"]).get_json()
    assert done["progress"] == {"done": 6, "total": 6, "running": 0, "round": 1, "rounds": 1}
    assert sum(row["played"] for row in done["standings"]) == 12
    assert len({match["match"] for match in done["matches"]}) == 6
    assert done["finished_at"] is not None


def test_concurrent_advances_start_each_match_once(app: ParlourApp, client: FlaskClient) -> None:
    body = create(client, seed="race", parallel=1)
    play_running_matches(app, body)
    with app.app_context():
        tournaments: Tournaments = app.services.tournaments

        def advance() -> None:
            with app.app_context():
                for _ in range(5):
                    tournaments.advance(body["id"], app.services.after_change)

        threads = [threading.Thread(target=advance) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        record = tournaments.load(body["id"])
    assert len(record.outcomes) == 1
    assert len(record.matches) == 2  # the finished one and exactly one more


def test_swiss_rounds_are_planned_as_rounds_finish(app: ParlourApp, client: FlaskClient) -> None:
    entrants = [{"type": "ai", "level": "random"}] * 4
    body = create(client, entrants=entrants, format="swiss", rounds=2, games_per_pairing=1, seed="swiss")
    assert [match["round"] for match in body["matches"]] == [1, 1]
    play_running_matches(app, body)
    second = client.get(body["url"]).get_json()
    assert [match["round"] for match in second["matches"]] == [1, 1, 2, 2]
    assert second["progress"]["round"] == 2 and second["progress"]["total"] == 4
    first_pairs = {frozenset(match["seats"]) for match in second["matches"][:2]}
    assert not first_pairs & {frozenset(match["seats"]) for match in second["matches"][2:]}
    play_running_matches(app, second)
    assert client.get(body["url"]).get_json()["status"] == "finished"


def test_games_without_an_end_on_defaults_get_a_turn_limit(client: FlaskClient) -> None:
    body = create(client, game="icecream", entrants=RANDOMS[:2], turn_timer={"seconds": 5})
    assert body["options"]["turn_limit"] == 200 and body["turn_timer"] == {"seconds": 5}
    match = client.get(f"/v1/matches/{body['matches'][0]['match']}").get_json()
    assert match["turn_timer"] == {"seconds": 5} and match["options"]["turn_limit"] == 200
    kept = create(client, game="freeze_factory", entrants=RANDOMS[:2], options={"turn_limit": 40})
    assert kept["options"]["turn_limit"] == 40


def test_multi_player_and_cooperative_tournaments(client: FlaskClient) -> None:
    body = create(client, game="sundae_split", players=5, entrants=[{"type": "ai", "level": "easy"}] * 5)
    assert body["progress"]["total"] == 5 and body["players"] == 5
    coop = create(client, game="robots_love_ice_cream", entrants=RANDOMS[:2], games_per_pairing=1)
    assert coop["cooperative"] is True and coop["ratings"] is None
    assert coop["standings"][0]["success_rate"] is None


@pytest.mark.parametrize(
    ("request_body", "field", "words"),
    [
        ({"game": "chess"}, "game", "unknown game"),
        ({"entrants": [{"type": "ai", "level": "random"}]}, "entrants", "Length"),
        ({"entrants": [{"type": "ai", "level": "genius"}] * 2}, "entrants", "no AI level 'genius'"),
        ({"game": "icecream", "entrants": [{"type": "ai", "level": "perfect"}] * 2, "players": 3}, "players", "2 to 2"),
        ({"entrants": [{"type": "ai"}] * 2}, "entrants", "needs `level`"),
        ({"entrants": [{"type": "ai", "level": "easy", "bot": "x"}] * 2}, "entrants", "takes no `bot`"),
        ({"entrants": [{"type": "bot", "bot": "nobody"}] * 2}, "entrants", "no registered bot"),
        ({"rounds": 3}, "rounds", "rounds are for swiss"),
        ({"format": "knockout"}, "format", "Must be one of"),
        ({"options": {"speed": 3}}, "options", "unknown option 'speed'"),
        ({"games_per_pairing": 0}, "games_per_pairing", "greater than or equal to 1"),
        ({"turn_timer": {"seconds": 0}}, "turn_timer", "greater than or equal to 1"),
        (
            {"players": 2, "game": "sundae_split", "entrants": RANDOMS * 20, "games_per_pairing": 2},
            "entrants",
            "at most",
        ),
    ],
)
def test_bad_requests_are_400_naming_the_field(
    client: FlaskClient, request_body: dict[str, Any], field: str, words: str
) -> None:
    body = {"game": "rockem_sockem", "entrants": RANDOMS, **request_body}
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 400, response.get_json()
    assert response.content_type == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "invalid-request" and field in problem["errors"]
    assert words in str(problem["errors"][field]) + problem["detail"]


def test_an_unknown_tournament_is_404(client: FlaskClient) -> None:
    response = client.get("/v1/tournaments/nope")
    assert response.status_code == 404 and response.get_json()["code"] == "not-found"


def test_listing_newest_first_by_status_a_page_at_a_time(app: ParlourApp, client: FlaskClient) -> None:
    first = create(client, games_per_pairing=1)
    play_running_matches(app, first)
    second, third = create(client), create(client)
    listed = client.get("/v1/tournaments?limit=2").get_json()
    assert [item["id"] for item in listed["items"]] == [third["id"], second["id"]]
    rest = client.get(f"/v1/tournaments?limit=2&cursor={listed['next_cursor']}").get_json()
    assert [item["id"] for item in rest["items"]] == [first["id"]] and rest["next_cursor"] is None
    finished = client.get("/v1/tournaments?status=finished").get_json()
    assert [item["id"] for item in finished["items"]] == [first["id"]]
    assert finished["items"][0]["progress"]["done"] == 3
    assert client.get("/v1/tournaments?status=paused").status_code == 400
