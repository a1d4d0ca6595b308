"""The ladder on real workers: a tournament between bots and an AI level feeds it, and the timer worker's
maintenance counts a finished match whose count was lost."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.ladder.ratings import anchor
from tests.api.conftest import bearer
from tests.api.test_bots import register
from tests.api.test_bots_listing import play, two_bot_match
from tests.api.test_openapi import WINNING_LINE
from tests.workers.conftest import StartTimerWorker, StartWorker
from tests.workers.test_ai_seats import wait_for
from tests.workers.test_tournaments import finished_tournament

TOURNAMENT_TIMEOUT = 300.0  # seconds the tournament may take (never asserted as a speed)


def play_bot_turns(client: FlaskClient, bot: dict[str, Any], rng: random.Random) -> None:
    """Act once in every live seat of the bot that may act now, with a random legal action (stale ones skipped)."""
    token = bearer(bot["token"])
    seats = client.get(f"/v1/bots/{bot['id']}/matches?status=playing", headers=token).get_json()["items"]
    for seat in seats:
        if not seat["may_act"]:
            continue
        url = f"/v1/matches/{seat['match']}"
        legal = client.get(f"{url}/legal-actions?seat={seat['seat']}", headers=token).get_json()
        if not legal.get("may_act") or legal["version"] != seat["version"]:
            continue
        action = rng.choice(legal["actions"])
        body = {"action": action, "expected_version": seat["version"]}
        client.post(f"{url}/actions?seat={seat['seat']}", json=body, headers=token)  # a 409 means it moved on


def test_a_tournament_of_bots_and_an_ai_level_ranks_them_on_the_leaderboard(
    client: FlaskClient, start_worker: StartWorker
) -> None:
    start_worker("ladder-ai")
    bots = [register(client, name, policy="tournaments") for name in ("one", "two")]
    entrants = [{"type": "bot", "bot": bot["id"]} for bot in bots] + [{"type": "ai", "level": "random"}]
    created = client.post("/v1/tournaments", json={"game": "icecream", "entrants": entrants, "parallel": 6})
    assert created.status_code == 201, created.get_json()
    url = created.headers["Location"]
    rng = random.Random(17)

    def done() -> dict[str, Any] | None:
        for bot in bots:
            play_bot_turns(client, bot, rng)
        return finished_tournament(client, url)

    tournament = wait_for(done, "the tournament to finish", timeout=TOURNAMENT_TIMEOUT)
    counted = [match for match in tournament["matches"] if match["status"] == "finished"]
    assert len(counted) == 6
    board = client.get("/v1/games/icecream/leaderboard").get_json()["items"]
    assert [item["rating"] for item in board] == sorted((item["rating"] for item in board), reverse=True)
    rows = {item["name"]: item for item in board}
    assert {"one", "two", "random", "easy", "medium", "hard"} <= set(rows)
    for bot in bots:
        row = rows[bot["name"]]
        assert row["kind"] == "bot" and row["bot"] == bot["id"] and row["games"] == 4
        assert 0 < row["sigma"] < 25 / 3 and row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=1e-3)
        [rating] = client.get(f"/v1/bots/{bot['id']}").get_json()["ratings"]
        assert rating["games"] == 4 and rating["rank"] == board.index(row) + 1
        history = client.get(f"/v1/bots/{bot['id']}/ratings?game=icecream").get_json()["items"]
        assert len(history) == 4
        finished = client.get(f"/v1/bots/{bot['id']}/matches?status=finished").get_json()["items"]
        assert len(finished) == 4 and all(item["tournament"] == tournament["id"] for item in finished)
    assert rows["random"]["games"] == 4 and rows["easy"]["games"] == 0  # the anchors count games, never move
    fixed = anchor("icecream", "random")  # measured (ai/level_ratings.json)
    assert (rows["random"]["mu"], rows["random"]["sigma"]) == (fixed.mu, fixed.sigma)


def test_the_timer_workers_maintenance_counts_a_match_whose_count_was_lost(
    client: FlaskClient, app: ParlourApp, start_timer_worker: StartTimerWorker
) -> None:
    app.services.listeners.remove(app.services.count_for_ladder)  # as if the process died right after the end
    one, two = register(client, "one"), register(client, "two")
    match = two_bot_match(client, one, two)
    play(client, match, [one["token"], two["token"]], 0, len(WINNING_LINE))
    assert client.get(f"/v1/bots/{one['id']}").get_json()["ratings"] == []
    start_timer_worker("ladder-timers")

    def rated() -> list[dict[str, Any]]:
        return list(client.get(f"/v1/bots/{one['id']}").get_json()["ratings"])

    [rating] = wait_for(rated, "the sweep to count the match", timeout=60)
    assert rating["games"] == 1
