"""Robots Love Ice Cream with AI teammates on real RQ workers: all-AI teams, and a human among AI seats.

The AI seats decide from their own view only (tests/ai checks the agents); here the point is that
the workers carry a co-operative match of 1 to 4 seats, variants included, through every phase to
its end, and that a human playing beside them sees none of their cards.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import pytest
from flask.testing import FlaskClient

from engine import get_game
from tests.api.conftest import bearer, create_match
from tests.api.test_robots_love_ice_cream_api import (
    ALL_VARIANTS,
    GAME,
    Player,
    Table,
    bot_rngs,
    check_result,
    team_policy,
)
from tests.workers.conftest import StartWorker
from tests.workers.test_ai_seats import WAIT, ai_seats, assert_log_is_a_game, finished, job_done, wait_for


@pytest.mark.parametrize(
    ("levels", "options"),
    [
        pytest.param(("easy",), {}, id="solo-easy"),
        pytest.param(("random", "easy"), {"ice_cream_social": True}, id="2p-D"),
        pytest.param(("easy", "random", "easy"), {"attack_twice": True}, id="3p-E"),
        pytest.param(("random", "random", "random", "random"), ALL_VARIANTS, id="4p-A-F"),
    ],
)
def test_a_team_of_ai_seats_plays_to_the_end(
    client: FlaskClient, start_worker: StartWorker, levels: tuple[str, ...], options: dict[str, Any]
) -> None:
    start_worker("w1")
    start_worker("w2")
    players = len(levels)
    match = create_match(client, game=GAME, players=players, seats=ai_seats(*levels), options=options)
    assert match.tokens == {} and match.body["status"] == "active"
    over = wait_for(lambda: finished(client, match.id), f"{players}-seat AI team to finish")
    check_result(over)
    assert [(seat["type"], seat["level"]) for seat in over["seats"]] == [("ai", level) for level in levels]
    entries = assert_log_is_a_game(client, match.id)
    assert {entry["seat"] for entry in entries} == set(range(players))
    kinds = {entry["action"]["type"] for entry in entries}
    assert {"keep_drawn", "end_turn"} <= kinds or {"keep_drawn", "attack"} <= kinds
    if options.get("ice_cream_social"):
        assert {"equip_upgrades", "share_social_cards", "share_social_randomly"} & kinds or any(
            "Ice Cream Social" in event for event in over["view"]["events"]
        )
    # The seed and the log replay the match the workers played.
    game = get_game(GAME)
    assert game is not None
    replayed = game.replay(players, over["options"], over["seed"], [(e["seat"], e["action"]) for e in entries])
    result = replayed.result()
    assert result is not None and result.to_json() == over["result"]
    assert replayed.view(None) == over["view"]


def test_a_human_plays_beside_ai_teammates_and_sees_only_their_counts(
    client: FlaskClient, start_worker: StartWorker
) -> None:
    start_worker("w1")
    start_worker("w2")
    seed = "human-and-ai"
    seats = [*ai_seats("easy"), {"type": "human", "name": "ann"}, *ai_seats("random")]
    match = create_match(client, game=GAME, players=3, seed=seed, seats=seats)
    assert set(match.tokens) == {1}
    table = Table(client, 3, match.id, match.body["options"], seed, "team")
    table.seats = [Player(table, seat, match.tokens.get(seat)) for seat in range(3)]  # only seat 1 has a token
    human, table.public = table.seats[1], Player(table, None, None)
    rng = bot_rngs(seed, 3)[1]
    hinted, deadline, turns = False, time.monotonic() + WAIT, 0
    while time.monotonic() < deadline:
        public = table.public.read()
        table.check_match(None, public)
        if public["status"] == "finished":
            break
        seen, legal = human.read(), human.legal()
        table.check_match(1, seen)
        if not legal["may_act"] or legal["version"] != seen["version"]:
            time.sleep(0.02)
            continue
        if not hinted:  # ask the AI once for a hint: a legal move, not applied
            hinted = True
            job = client.post(match.url("/ai-move"), json={"level": "easy"}, headers=bearer(match.tokens[1]))
            assert job.status_code == 202, job.get_json()
            done = wait_for(partial(job_done, client, job.get_json()["url"], match.tokens[1]), "the hint")
            assert done["status"] == "finished" and done["result"]["action"] in legal["actions"]
            assert (
                done["result"]["applied"] is False and client.get(match.url()).get_json()["version"] == seen["version"]
            )
        table.send(1, team_policy(seen["view"], 1, legal["actions"], rng), legal["version"], seen["view"])
        turns += 1
        if turns % 5 == 0:  # the AI seats' keeps are hidden from the human while the match runs
            log = human.log()
            for entry in log["entries"]:
                if entry["action"]["type"] == "keep_drawn":
                    assert (entry["action"]["cards"] is None) == (entry["seat"] != 1), entry
    else:
        pytest.fail("the match with a human and AI teammates did not finish")

    final = table.public.read()
    check_result(final)
    entries = assert_log_is_a_game(client, match.id)
    assert {entry["seat"] for entry in entries} == {0, 1, 2} and turns == sum(e["seat"] == 1 for e in entries)
    table.moves = [(entry["seat"], entry["action"]) for entry in entries]
    table.check_seat_views()
    # Every answer the human and the public got was the engine's view for them at that version.
    assert table.check_against_replay(final) >= 2 * turns
