"""The ladder: finished rated matches update openskill ratings once; unrated and aborted ones never count."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from flask.testing import FlaskClient

from ai.level_ratings import rating as measured_rating
from ai.levels import choose, levels_for
from api.current import ParlourApp
from domain.bots.history import final_result
from domain.ladder.ratings import ANCHOR_SIGMA, ANCHORS, anchor
from domain.matches import commands as matches
from domain.wiring import build_services
from model.match import MatchRecord
from model.settings import Settings
from store.matches import FINISHED_FEED_KEY
from tests.api.conftest import bearer, create_match
from tests.api.test_bots import register
from tests.api.test_bots_listing import play, two_bot_match
from tests.api.test_openapi import WINNING_LINE


def board(client: FlaskClient, game: str = "icecream", query: str = "") -> dict[str, Any]:
    """The game's leaderboard page."""
    response = client.get(f"/v1/games/{game}/leaderboard{query}")
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def ratings(client: FlaskClient, bot: dict[str, Any]) -> list[dict[str, Any]]:
    """The ratings on the bot's profile."""
    return list(client.get(f"/v1/bots/{bot['id']}").get_json()["ratings"])


def won_by_first(client: FlaskClient, first: dict[str, Any], second: dict[str, Any]) -> str:
    """A whole IceCream match between two bots that the first wins; its id."""
    match = two_bot_match(client, first, second)
    play(client, match, [first["token"], second["token"]], 0, len(WINNING_LINE))
    return match.id


def without_ladder_listener(app: ParlourApp) -> None:
    """Lose every count the listener would make: as if each process died between storing an end and counting it."""
    app.services.listeners.remove(app.services.count_for_ladder)


def stored(app: ParlourApp, match_id: str) -> MatchRecord:
    """The stored record of a match that exists."""
    record = app.services.store.load(match_id)
    assert record is not None, match_id
    return record


def test_a_match_between_two_bots_updates_both_ratings_once(client: FlaskClient, app: ParlourApp) -> None:
    one, two = register(client, "one"), register(client, "two")
    match_id = won_by_first(client, one, two)
    [winner], [loser] = ratings(client, one), ratings(client, two)
    assert winner["game"] == loser["game"] == "icecream" and winner["games"] == loser["games"] == 1
    assert winner["mu"] > 25 > loser["mu"] and winner["sigma"] < 25 / 3
    assert winner["rating"] == pytest.approx(winner["mu"] - 3 * winner["sigma"], abs=1e-3)
    record = stored(app, match_id)
    with app.app_context():
        app.services.after_change(record, matches.engine_state(record))  # the end seen again
    assert ratings(client, one) == [winner] and app.services.ladder.sweep(grace=0) == []
    history = client.get(f"/v1/bots/{one['id']}/ratings?game=icecream").get_json()
    assert [entry["match"] for entry in history["items"]] == [match_id] and history["next_cursor"] is None
    assert (history["items"][0]["mu"], history["items"][0]["sigma"]) == (winner["mu"], winner["sigma"])


def test_the_leaderboard_ranks_bots_among_the_fixed_ai_levels(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    won_by_first(client, one, two)
    items = board(client)["items"]
    assert [item["rank"] for item in items] == list(range(1, len(items) + 1))
    assert [item["rating"] for item in items] == sorted((item["rating"] for item in items), reverse=True)
    levels = {item["level"]: item for item in items if item["kind"] == "ai"}
    assert set(levels) == set(levels_for("icecream"))
    for level, item in levels.items():
        fixed = anchor("icecream", level)
        assert (item["mu"], item["sigma"], item["games"], item["bot"]) == (fixed.mu, fixed.sigma, 0, None)
    bots = {item["name"]: item for item in items if item["kind"] == "bot"}
    assert bots["one"]["bot"] == one["id"] and bots["one"]["level"] is None and bots["one"]["games"] == 1
    page = board(client, query="?limit=2")
    assert page["items"] == items[:2] and page["next_cursor"] == "2"
    assert board(client, query="?limit=2&cursor=2")["items"][0] == items[2]


def test_a_bot_beating_an_ai_level_moves_only_the_bot(client: FlaskClient, app: ParlourApp) -> None:
    bot = register(client, "rando")
    match = create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "ai", "level": "easy"}])
    with app.app_context():
        store = app.services.store
        record = stored(app, match.id)
        while record.status != "finished":
            state = matches.engine_state(record)
            seat = next(s for s in state.acting_seats() if matches.seat_may_act(record, state, s))
            action = choose(state, seat, "random", f"{record.version}")
            matches.apply_action(store, record, seat, action, record.version, None, on_commit=app.services.after_change)
            record = stored(app, match.id)
    [rated] = ratings(client, bot)
    assert rated["games"] == 1 and rated["mu"] != 25
    easy = next(item for item in board(client)["items"] if item["level"] == "easy")
    fixed = anchor("icecream", "easy")
    assert (easy["mu"], easy["sigma"], easy["games"]) == (fixed.mu, fixed.sigma, 1)


def test_a_match_with_a_human_seat_does_not_count(client: FlaskClient) -> None:
    bot = register(client, "rando")
    match = create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
    tokens = [bot["token"], match.tokens[1]]
    play(client, match, tokens, 0, len(WINNING_LINE))
    assert client.get(match.url()).get_json()["status"] == "finished"
    assert ratings(client, bot) == [] and board(client)["items"] == []


def test_an_aborted_match_never_counts(client: FlaskClient, app: ParlourApp) -> None:
    one, two = register(client, "one"), register(client, "two")
    match = two_bot_match(client, one, two)
    play(client, match, [one["token"], two["token"]], 0, 1)
    assert client.delete(f"/v1/bots/{two['id']}", headers=bearer(two["token"])).status_code == 200
    assert client.get(match.url()).get_json()["status"] == "aborted"
    assert app.services.ladder.sweep(grace=0) == []
    assert ratings(client, one) == [] and board(client)["items"] == []


def test_a_co_operative_game_has_no_ladder(client: FlaskClient) -> None:
    answer = client.get("/v1/games/robots_love_ice_cream/leaderboard")
    assert answer.status_code == 404 and "co-operative" in answer.get_json()["detail"]
    assert client.get("/v1/games/nope/leaderboard").status_code == 404
    assert client.get("/v1/games/icecream/leaderboard?cursor=x").status_code == 400


def test_concurrent_end_processing_counts_once(client: FlaskClient, app: ParlourApp, settings: Settings) -> None:
    without_ladder_listener(app)
    one, two = register(client, "one"), register(client, "two")
    match_id = won_by_first(client, one, two)
    record = stored(app, match_id)
    result = final_result(record)
    ladders = [build_services(settings).ladder for _ in range(6)]  # as many processes, each its own connections
    barrier = threading.Barrier(len(ladders))
    counted: list[bool] = []

    def count(index: int) -> None:
        barrier.wait()
        counted.append(ladders[index].count(record, result))

    threads = [threading.Thread(target=count, args=(index,)) for index in range(len(ladders))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(counted) == [False] * 5 + [True]
    assert [rating["games"] for rating in ratings(client, one) + ratings(client, two)] == [1, 1]


def test_concurrent_matches_of_one_game_all_count(client: FlaskClient, app: ParlourApp, settings: Settings) -> None:
    without_ladder_listener(app)
    one, two = register(client, "one"), register(client, "two")
    records = [stored(app, won_by_first(client, one, two)) for _ in range(4)]
    ladders = [build_services(settings).ladder for _ in records]
    barrier = threading.Barrier(len(records))

    def count(index: int) -> None:
        barrier.wait()
        ladders[index].count(records[index], final_result(records[index]))

    threads = [threading.Thread(target=count, args=(index,)) for index in range(len(records))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [rating["games"] for rating in ratings(client, one) + ratings(client, two)] == [4, 4]


def test_the_sweep_counts_a_match_whose_count_was_lost(client: FlaskClient, app: ParlourApp) -> None:
    without_ladder_listener(app)
    one, two = register(client, "one"), register(client, "two")
    match_id = won_by_first(client, one, two)
    assert ratings(client, one) == []
    assert app.services.ladder.sweep(grace=0) == [match_id]
    assert [rating["games"] for rating in ratings(client, one) + ratings(client, two)] == [1, 1]
    assert app.services.ladder.sweep(grace=0) == []


def test_the_sweep_reads_only_the_ends_since_the_last_sweep(client: FlaskClient, app: ParlourApp) -> None:
    without_ladder_listener(app)
    one, two = register(client, "one"), register(client, "two")
    old = won_by_first(client, one, two)
    feed = app.services.store.client
    an_hour_ago = time.time_ns() // 1000 - 3600 * 1_000_000
    feed.zadd(FINISHED_FEED_KEY, {f"icecream {old}": an_hour_ago})  # as if it ended long before the last sweep
    app.services.ladder.store.mark_swept(time.time_ns() // 1000)
    new = won_by_first(client, one, two)
    assert app.services.ladder.sweep(grace=0) == [new]  # the old end, though uncounted, is not read again
    assert app.services.ladder.store.swept_through() > an_hour_ago
    app.services.ladder.store.mark_swept(0)  # a sweep that starts afresh reads every kept end
    assert app.services.ladder.sweep(grace=0) == [old]


def test_a_deleted_bot_leaves_the_ladder(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    won_by_first(client, one, two)
    assert client.delete(f"/v1/bots/{two['id']}", headers=bearer(two["token"])).status_code == 200
    assert {item["name"] for item in board(client)["items"] if item["kind"] == "bot"} == {"one"}


def test_bad_rating_history_queries(client: FlaskClient) -> None:
    bot = register(client, "rando")
    assert client.get(f"/v1/bots/{bot['id']}/ratings").status_code == 400
    assert client.get(f"/v1/bots/{bot['id']}/ratings?game=robots_love_ice_cream").status_code == 404
    assert client.get("/v1/bots/nobody/ratings?game=icecream").status_code == 404
    empty = client.get(f"/v1/bots/{bot['id']}/ratings?game=icecream").get_json()
    assert empty == {"game": "icecream", "items": [], "next_cursor": None}


def test_a_resignation_counts_with_the_resigner_last(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    match = two_bot_match(client, one, two)
    play(client, match, [one["token"], two["token"]], 0, 2)
    answer = client.post(match.url("/resign"), headers=bearer(one["token"]))
    assert answer.status_code == 200 and answer.get_json()["result"]["winners"] == [1], answer.get_json()
    [resigner], [winner] = ratings(client, one), ratings(client, two)
    assert resigner["games"] == winner["games"] == 1 and winner["mu"] > 25 > resigner["mu"]
    [over] = client.get(f"/v1/bots/{one['id']}/matches?status=finished").get_json()["items"]
    assert over["result"]["reason"] == "seat 0 resigned"


def test_the_ai_levels_stand_at_their_measured_ratings() -> None:
    """The ladder anchors each level of a game on the rating `lab.level_ratings` measured (ai/level_ratings.json)."""
    for level in levels_for("icecream"):
        measured = measured_rating("icecream", level)
        assert measured is not None, f"{level} was not measured in icecream"
        assert (anchor("icecream", level).mu, anchor("icecream", level).sigma) == (measured.mu, measured.sigma)
    assert (anchor("no-such-game", "hard").mu, anchor("no-such-game", "hard").sigma) == (ANCHORS["hard"], ANCHOR_SIGMA)
