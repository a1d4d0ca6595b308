"""GET /v1/bots (paged, searched by name) and a bot's public history (`GET /v1/bots/{id}/matches?status=...`)."""

from __future__ import annotations

from typing import Any

import redis
from flask.testing import FlaskClient

from store.bot_history import history_key
from store.matches import match_key
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_bots import act, register
from tests.api.test_openapi import WINNING_LINE

HIDDEN = ("view", "seed", "token", "token_hash", "tokens")


def two_bot_match(client: FlaskClient, first: dict[str, Any], second: dict[str, Any]) -> Match:
    """An IceCream match for 2 between two bots (both accept by policy: it starts at once)."""
    seats = [{"type": "bot", "bot": first["id"]}, {"type": "bot", "bot": second["id"]}]
    return create_match(client, seats=seats)


def play(client: FlaskClient, match: Match, tokens: list[str], start: int, end: int) -> None:
    """Play WINNING_LINE's moves `start` to `end` (exclusive), each seat with its token (seat 0 wins at the end)."""
    for version in range(start, end):
        seat, action = WINNING_LINE[version]
        answer = act(client, match, tokens[seat], version, action)
        assert answer.status_code == 200, answer.get_json()


def history(client: FlaskClient, bot: dict[str, Any], query: str) -> dict[str, Any]:
    """The bot's public history page, read without any token."""
    response = client.get(f"/v1/bots/{bot['id']}/matches?{query}")
    assert response.status_code == 200, response.get_json()
    assert response.headers.get("Cache-Control") != "no-store"
    return dict(response.get_json())


def hidden_keys(value: Any) -> set[str]:
    """Every key anywhere in `value` that names hidden information."""
    if isinstance(value, dict):
        found = {key for key in value if key in HIDDEN}
        return found.union(*(hidden_keys(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(hidden_keys(item) for item in value))
    return set()


def test_bots_are_listed_by_name_a_page_at_a_time(client: FlaskClient) -> None:
    for name in ("gamma", "Alpha", "beta", "alpine"):
        register(client, name)
    first = client.get("/v1/bots?limit=3").get_json()
    assert [bot["name"] for bot in first["items"]] == ["Alpha", "alpine", "beta"]
    second = client.get(f"/v1/bots?limit=3&cursor={first['next_cursor']}").get_json()
    assert [bot["name"] for bot in second["items"]] == ["gamma"] and second["next_cursor"] is None
    assert set(first["items"][0]) == {"id", "name", "created_at", "policy", "matches_playing", "matches_finished"}


def test_search_keeps_names_starting_with_q_whatever_their_case(client: FlaskClient) -> None:
    for name in ("Alpha", "alpine", "beta", "Malpha"):
        register(client, name)
    assert [bot["name"] for bot in client.get("/v1/bots?q=AL").get_json()["items"]] == ["Alpha", "alpine"]
    assert [bot["name"] for bot in client.get("/v1/bots?q=%EF%BC%A1lp").get_json()["items"]] == ["Alpha", "alpine"]
    page = client.get("/v1/bots?q=al&limit=1").get_json()
    following = client.get(f"/v1/bots?q=al&limit=1&cursor={page['next_cursor']}").get_json()
    assert [bot["name"] for bot in page["items"] + following["items"]] == ["Alpha", "alpine"]
    assert client.get("/v1/bots?q=zz").get_json() == {"items": [], "next_cursor": None}


def test_a_deleted_bot_leaves_the_listing_and_its_name_is_listed_again_once_taken(client: FlaskClient) -> None:
    bot = register(client, "rando")
    assert client.delete(f"/v1/bots/{bot['id']}", headers=bearer(bot["token"])).status_code == 200
    assert client.get("/v1/bots").get_json()["items"] == []
    again = register(client, "Rando")
    assert [item["id"] for item in client.get("/v1/bots").get_json()["items"]] == [again["id"]]


def test_the_listing_is_rebuilt_for_bots_registered_before_it_existed(client: FlaskClient, redis_url: str) -> None:
    bot = register(client, "rando")
    redis.Redis.from_url(redis_url).delete("parlour:bot-index")
    assert [item["id"] for item in client.get("/v1/bots").get_json()["items"]] == [bot["id"]]


def test_bad_listing_queries_are_400(client: FlaskClient) -> None:
    assert client.get("/v1/bots?limit=0").status_code == 400
    assert client.get(f"/v1/bots?q={'x' * 41}").status_code == 400


def test_the_public_history_shows_running_and_finished_matches_with_results(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    finished = two_bot_match(client, one, two)
    play(client, finished, [one["token"], two["token"]], 0, len(WINNING_LINE))
    running = two_bot_match(client, two, one)
    play(client, running, [two["token"], one["token"]], 0, 2)

    everything = history(client, one, "status=all")
    assert [item["match"] for item in everything["items"]] == [running.id, finished.id]
    assert everything["next_cursor"] is None
    [live] = history(client, one, "status=running")["items"]
    assert live["match"] == running.id and live["status"] == "active" and live["result"] is None
    [over] = history(client, one, "status=finished")["items"]
    assert over["match"] == finished.id and over["status"] == "finished"
    assert over["result"]["winners"] == [0] and over["game"] == "icecream"
    assert [seat["name"] for seat in over["seats"]] == ["one", "two"]
    assert [seat["bot"] for seat in over["seats"]] == [one["id"], two["id"]]
    assert hidden_keys(everything) == set()
    assert history(client, two, "status=all")["items"] == everything["items"]


def test_the_history_is_written_as_a_match_starts_and_ends_not_on_every_move(
    client: FlaskClient, redis_url: str
) -> None:
    one, two = register(client, "one"), register(client, "two")
    match = two_bot_match(client, one, two)
    store = redis.Redis.from_url(redis_url)
    assert store.zscore(history_key(one["id"]), match.id) is not None  # listed as it started
    store.zrem(history_key(one["id"]), match.id)  # so a write on a move would show
    play(client, match, [one["token"], two["token"]], 0, 2)
    assert store.zscore(history_key(one["id"]), match.id) is None
    play(client, match, [one["token"], two["token"]], 2, len(WINNING_LINE))
    [over] = history(client, one, "status=finished")["items"]
    assert over["match"] == match.id


def test_the_history_pages_with_a_cursor_and_outlives_the_match_record(client: FlaskClient, redis_url: str) -> None:
    one, two = register(client, "one"), register(client, "two")
    ids = []
    for _ in range(3):
        match = two_bot_match(client, one, two)
        play(client, match, [one["token"], two["token"]], 0, len(WINNING_LINE))
        ids.append(match.id)
    redis.Redis.from_url(redis_url).delete(match_key(ids[0]))  # the record expired; its summary stays
    first = history(client, one, "status=finished&limit=2")
    second = history(client, one, f"status=finished&limit=2&cursor={first['next_cursor']}")
    assert [item["match"] for item in first["items"] + second["items"]] == ids[::-1]
    assert second["items"][0]["result"]["winners"] == [0]
    assert client.get(f"/v1/bots/{one['id']}/matches?status=all&cursor=nope").status_code == 400
    assert client.get("/v1/bots/nobody/matches?status=all").status_code == 404


def test_a_match_aborted_by_a_bot_deletion_leaves_the_history(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    match = two_bot_match(client, one, two)
    play(client, match, [one["token"], two["token"]], 0, 1)
    assert [item["match"] for item in history(client, one, "status=all")["items"]] == [match.id]
    assert client.delete(f"/v1/bots/{two['id']}", headers=bearer(two["token"])).get_json()["aborted_matches"] == [
        match.id
    ]
    assert history(client, one, "status=all")["items"] == []


def test_the_live_seat_list_still_needs_the_bots_own_token(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    match = two_bot_match(client, one, two)
    url = f"/v1/bots/{one['id']}/matches"
    assert client.get(url).status_code == 401
    assert client.get(f"{url}?status=playing", headers=bearer(two["token"])).status_code == 403
    answer = client.get(url, headers=bearer(one["token"]))
    assert answer.headers["Cache-Control"] == "no-store"
    [seat] = answer.get_json()["items"]
    assert seat["match"] == match.id and seat["may_act"] is True and seat["your_turn"] is True


def test_an_unlisted_match_is_in_the_history_only_once_it_is_over(client: FlaskClient) -> None:
    one, two = register(client, "one"), register(client, "two")
    seats = [{"type": "bot", "bot": one["id"]}, {"type": "bot", "bot": two["id"]}]
    match = create_match(client, seats=seats, unlisted=True)
    play(client, match, [one["token"], two["token"]], 0, 2)
    assert history(client, one, "status=all")["items"] == []
    play(client, match, [one["token"], two["token"]], 2, len(WINNING_LINE))
    assert [item["match"] for item in history(client, one, "status=finished")["items"]] == [match.id]
