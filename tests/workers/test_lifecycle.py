"""A co-operative seat handed to the AI on a resignation, played on by a real RQ worker."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from engine import get_game
from tests.api.conftest import bearer, create_match, read_log
from tests.workers.conftest import StartWorker
from tests.workers.test_ai_seats import assert_log_is_a_game, wait_for

GAME = "robots_love_ice_cream"


def test_the_easy_ai_plays_a_resigned_seat_until_the_team_gives_up(
    client: FlaskClient, start_worker: StartWorker
) -> None:
    start_worker("w1")
    match = create_match(client, game=GAME, players=2, seed="hand-over")
    first = client.get(match.url()).get_json()["waiting_for"][0]
    resigned = client.post(match.url("/resign"), headers=bearer(match.tokens[first])).get_json()
    assert resigned["seats"][first] == {**resigned["seats"][first], "type": "ai", "level": "easy"}

    def ai_played() -> list[dict[str, Any]] | None:
        entries = read_log(client, match.id)["entries"]
        return entries if any(entry["seat"] == first and "action" in entry for entry in entries) else None

    wait_for(ai_played, "the easy AI to play the resigned seat")
    other = 1 - first
    last = client.post(match.url("/resign"), headers=bearer(match.tokens[other]))
    assert last.status_code == 200, last.get_json()
    over = last.get_json()
    assert over["status"] == "finished" and over["result"]["reason"] == "the team gave up"
    entries = assert_log_is_a_game(client, match.id)
    assert entries[0] == {**entries[0], "seat": first, "resign": True, "handed_to": "easy"}
    assert entries[-1] == {"version": over["version"], "seat": other, "at": over["updated_at"], "resign": True}
    game = get_game(GAME)
    assert game is not None
    moves = [(entry["seat"], entry["action"]) for entry in entries if "action" in entry]
    replayed = game.replay(2, over["options"], over["seed"], moves)
    assert replayed.view(other) == over["view"], "the engine replays the actions alone; resignations are not moves"
    step = client.get(match.url(f"/replay/{len(entries)}")).get_json()
    assert step["result"] == over["result"] and step["view"] == replayed.view(None)
