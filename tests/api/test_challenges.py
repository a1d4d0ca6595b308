"""Bot consent: seating a bot is a challenge it accepts or declines, its policy and cap, and its resync listings."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.turn_timers import iso
from store import bots as store_module
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_bots import act, play_line, register
from tests.api.test_openapi import WINNING_LINE


def events(client: FlaskClient, bot: dict[str, Any], after: int = 0) -> list[dict[str, Any]]:
    """The bot's kept events numbered above `after` (long-polls that do not wait, a page of 100 at a time)."""
    found: list[dict[str, Any]] = []
    while True:
        answer = client.get(f"/v1/bots/{bot['id']}/events?after={after}&wait=0", headers=bearer(bot["token"]))
        assert answer.status_code == 200, answer.get_json()
        page = answer.get_json()
        found += page["events"]
        if not page["events"]:
            return found
        after = page["last_event_id"]


def challenges(client: FlaskClient, bot: dict[str, Any], query: str = "") -> dict[str, Any]:
    """GET /v1/bots/{id}/challenges with the bot's token."""
    answer = client.get(f"/v1/bots/{bot['id']}/challenges{query}", headers=bearer(bot["token"]))
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    return dict(answer.get_json())


def live_seats(client: FlaskClient, bot: dict[str, Any], query: str = "?status=playing") -> dict[str, Any]:
    """GET /v1/bots/{id}/matches with the bot's token."""
    answer = client.get(f"/v1/bots/{bot['id']}/matches{query}", headers=bearer(bot["token"]))
    assert answer.status_code == 200, answer.get_json()
    return dict(answer.get_json())


def answer(client: FlaskClient, bot: dict[str, Any], challenge: str, verb: str) -> Any:
    """POST .../challenges/{id}/accept or /decline with the bot's token; the response."""
    return client.post(f"/v1/bots/{bot['id']}/challenges/{challenge}/{verb}", headers=bearer(bot["token"]))


def challenge_match(client: FlaskClient, *bots: dict[str, Any], **request: Any) -> Match:
    """An IceCream match for 2: the bots in the first seats, a human (held by the creator) in the others."""
    seats: list[dict[str, Any]] = [{"type": "bot", "bot": bot["id"]} for bot in bots]
    seats += [{"type": "human", "name": "Ada"}] * (2 - len(bots))
    return create_match(client, seats=seats, **request)


def bot_request(bot: dict[str, Any]) -> dict[str, Any]:
    """The body of POST /v1/matches seating the bot against a human."""
    return {"game": "icecream", "players": 2, "seats": [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]}


def overdue(app: ParlourApp, match_id: str) -> None:
    """Move the match's start_by into the past (as if its challenges' time ran out)."""
    store = app.services.store
    record = store.load(match_id)
    assert record is not None
    past = iso(datetime.now(UTC) - timedelta(seconds=1))
    assert store.commit(replace(record, start_by=past, version=record.version + 1), record.version).kind == "ok"


# --- a match challenge -----------------------------------------------------------------------------
def test_a_challenged_bot_is_not_seated_until_it_accepts(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    assert bot["policy"] == "ask" and bot["max_matches"] is None
    match = challenge_match(client, bot, turn_timer={"seconds": 30})
    assert match.body["status"] == "waiting" and match.body["open_seats"] == [] and list(match.tokens) == [1]
    body = client.get(match.url()).get_json()
    assert body["seats"][0] == {
        "seat": 0,
        "filled": False,
        "name": "rando",
        "type": "bot",
        "level": None,
        "bot": bot["id"],
        "challenge": "pending",
    }
    assert body["start_by"] is not None and body["deadlines"] == [] and body["to_act"] == []
    # Nothing starts meanwhile: no move, no join into its seat, no event about the match itself.
    refused = act(client, match, match.tokens[1], 0)
    assert refused.status_code == 409 and refused.get_json()["code"] == "match-not-started"
    assert "to accept their challenges" in refused.get_json()["detail"]
    assert client.post(match.url("/join"), json={}).get_json()["code"] == "no-open-seat"
    [event] = events(client, bot)
    assert event["event"] == "challenge"
    challenge = event["data"]
    assert challenge == {
        "id": f"match-{match.id}",
        "type": "match",
        "status": "pending",
        "bot": bot["id"],
        "match": match.id,
        "tournament": None,
        "challenger": [{"seat": 1, "name": "Ada"}],
        "game": "icecream",
        "players": 2,
        "options": body["options"],
        "your_seats": [0],
        "seats": body["seats"],
        "entrants": None,
        "matches": 1,
        "turn_timer": {"seconds": 30},
        "expires_at": body["start_by"],
        "created_at": body["created_at"],
    }
    assert challenges(client, bot) == {"items": [challenge], "next_cursor": None}
    assert live_seats(client, bot) == {"items": [], "next_cursor": None}


def test_accepting_starts_the_match_and_the_bot_gets_its_events(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = challenge_match(client, bot, turn_timer={"seconds": 30})
    accepted = answer(client, bot, f"match-{match.id}", "accept")
    assert accepted.status_code == 200 and accepted.headers["Cache-Control"] == "no-store"
    assert accepted.get_json()["status"] == "accepted" and accepted.get_json()["seats"][0]["challenge"] == "accepted"
    body = client.get(match.url()).get_json()
    assert body["status"] == "active" and body["version"] == 1 and body["start_by"] is None
    assert body["seats"][0]["filled"] and [d["seat"] for d in body["deadlines"]] == [0]
    assert [(e["event"], e["data"].get("version")) for e in events(client, bot)] == [
        ("challenge", None),
        ("match-started", 1),
        ("your-turn", 1),
    ]
    assert challenges(client, bot)["items"] == []
    [seat] = live_seats(client, bot)["items"]
    assert seat == {
        "match": match.id,
        "seat": 0,
        "game": "icecream",
        "players": 2,
        "status": "active",
        "version": 1,
        "may_act": True,
        "your_turn": True,
        "deadline": body["deadlines"][0]["at"],
        "turn_timer": {"seconds": 30},
        "legal_actions": client.get(match.url("/legal-actions"), headers=bearer(bot["token"])).get_json(),
    }
    assert seat["legal_actions"]["may_act"] and seat["legal_actions"]["version"] == 1
    assert answer(client, bot, f"match-{match.id}", "accept").status_code == 200, "accepting again is a retry"
    declined = answer(client, bot, f"match-{match.id}", "decline")
    assert declined.status_code == 409 and declined.get_json()["code"] == "challenge-accepted"
    assert act(client, match, bot["token"], 1).status_code == 200
    profile = client.get(f"/v1/bots/{bot['id']}").get_json()
    assert profile["matches_playing"] == 1


def test_declining_aborts_the_match_without_a_result(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = challenge_match(client, bot)
    declined = answer(client, bot, f"match-{match.id}", "decline")
    assert declined.status_code == 200 and declined.get_json()["status"] == "declined"
    body = client.get(match.url()).get_json()
    assert body["status"] == "aborted" and body["result"] is None and "declined" in body["abort_reason"]
    assert [e["event"] for e in events(client, bot)] == ["challenge"], "told nothing more: it declined itself"
    for verb in ("accept", "decline"):
        again = answer(client, bot, f"match-{match.id}", verb)
        assert again.status_code == 409 and again.get_json()["code"] == "challenge-over", verb
    assert challenges(client, bot)["items"] == [] and live_seats(client, bot)["items"] == []
    assert client.post(match.url("/join"), json={}).status_code == 409


def test_one_bot_declining_tells_the_others(client: FlaskClient) -> None:
    first, second, third = (register(client, name, policy=None) for name in ("one", "two", "three"))
    match = create_match(
        client,
        game="sundae_split",
        players=3,
        seats=[{"type": "bot", "bot": bot["id"]} for bot in (first, second, third)],
    )
    assert answer(client, first, f"match-{match.id}", "accept").status_code == 200
    assert client.get(match.url()).get_json()["status"] == "waiting"
    assert answer(client, second, f"match-{match.id}", "decline").status_code == 200
    told = events(client, first)
    assert [e["event"] for e in told] == ["challenge", "match-over"], "no match-started for a match never started"
    assert told[1]["data"]["status"] == "aborted" and told[1]["data"]["result"] is None
    canceled = events(client, third)[-1]
    assert canceled["event"] == "challenge-canceled"
    assert canceled["data"] == {
        "challenge": f"match-{match.id}",
        "type": "match",
        "match": match.id,
        "tournament": None,
        "status": "canceled",
        "reason": "bot 'two' declined the challenge",
    }
    assert client.get(f"/v1/bots/{first['id']}").get_json()["matches_playing"] == 0


def test_the_last_answer_starts_a_match_with_several_bots(client: FlaskClient) -> None:
    first, second = register(client, "one", policy=None), register(client, "two", policy=None)
    match = challenge_match(client, first, second)
    assert match.tokens == {} and match.body["status"] == "waiting"
    assert answer(client, second, f"match-{match.id}", "accept").status_code == 200
    assert answer(client, first, f"match-{match.id}", "accept").status_code == 200
    assert client.get(match.url()).get_json()["status"] == "active"
    assert act(client, match, first["token"], 2).status_code == 200, "the version counts both answers"


def test_accepting_after_the_expiry_is_refused_and_aborts_the_match(app: ParlourApp, client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = challenge_match(client, bot)
    overdue(app, match.id)
    late = answer(client, bot, f"match-{match.id}", "accept")
    assert late.status_code == 409 and late.get_json()["code"] == "challenge-expired"
    body = client.get(match.url()).get_json()
    assert body["status"] == "aborted" and "did not accept" in body["abort_reason"]
    canceled = events(client, bot)[-1]
    assert canceled["event"] == "challenge-canceled" and canceled["data"]["status"] == "expired"


@pytest.mark.parametrize(
    ("challenge", "status"),
    [("match-nope", 404), ("nonsense", 404), ("tournament-nope", 404), ("match-" + "x" * 70, 404)],
)
def test_answering_what_is_no_challenge_of_the_bot_is_404(client: FlaskClient, challenge: str, status: int) -> None:
    bot = register(client, policy=None)
    assert answer(client, bot, challenge, "accept").status_code == status


def test_only_the_bot_itself_answers_or_lists(client: FlaskClient) -> None:
    bot, other = register(client, policy=None), register(client, "other", policy=None)
    match = challenge_match(client, bot)
    url = f"/v1/bots/{bot['id']}/challenges"
    for path, method in (
        (f"{url}/match-{match.id}/accept", "post"),
        (url, "get"),
        (f"/v1/bots/{bot['id']}/matches", "get"),
    ):
        assert getattr(client, method)(path).status_code == 401
        assert getattr(client, method)(path, headers=bearer(match.tokens[1])).status_code == 401
        assert getattr(client, method)(path, headers=bearer(other["token"])).status_code == 403
    assert answer(client, other, f"match-{match.id}", "accept").status_code == 404
    assert client.get(match.url()).get_json()["status"] == "waiting"


def test_a_bot_in_two_seats_gets_one_challenge(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = challenge_match(client, bot, bot)
    [challenge] = challenges(client, bot)["items"]
    assert challenge["your_seats"] == [0, 1] and challenge["challenger"] == []
    assert answer(client, bot, challenge["id"], "accept").status_code == 200
    assert [seat["seat"] for seat in live_seats(client, bot)["items"]] == [0, 1]
    assert client.get(match.url()).get_json()["status"] == "active"


def test_the_challenges_page_soonest_first(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    ids = [challenge_match(client, bot).id for _ in range(3)]
    first = challenges(client, bot, "?limit=2")
    assert [item["match"] for item in first["items"]] == ids[:2] and first["next_cursor"]
    rest = challenges(client, bot, f"?limit=2&cursor={first['next_cursor']}")
    assert [item["match"] for item in rest["items"]] == ids[2:] and rest["next_cursor"] is None
    for query in ("?limit=0", "?limit=201", "?cursor=x", "?cursor=12", "?cursor=abc.match-x", "?other=1"):
        url = f"/v1/bots/{bot['id']}/challenges{query}"
        assert client.get(url, headers=bearer(bot["token"])).status_code == 400, query


# --- the policy and the cap ------------------------------------------------------------------------
def test_the_policy_is_set_with_the_bots_token_and_shown_in_its_profile(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    url = f"/v1/bots/{bot['id']}"
    changed = client.patch(url, json={"policy": "tournaments", "max_matches": 3}, headers=bearer(bot["token"]))
    assert changed.status_code == 200
    profile = client.get(url).get_json()
    assert profile == changed.get_json() and (profile["policy"], profile["max_matches"]) == ("tournaments", 3)
    uncapped = client.patch(url, json={"max_matches": None}, headers=bearer(bot["token"])).get_json()
    assert (uncapped["policy"], uncapped["max_matches"]) == ("tournaments", None)
    bad: object
    for bad in ({}, {"policy": "everyone"}, {"max_matches": 0}, {"max_matches": "2"}, {"name": "x"}, []):
        assert client.patch(url, json=bad, headers=bearer(bot["token"])).status_code == 400, bad
    assert client.patch(url, json={"policy": "ask"}).status_code == 401
    other = register(client, "other", policy=None)
    assert client.patch(url, json={"policy": "ask"}, headers=bearer(other["token"])).status_code == 403
    assert client.patch("/v1/bots/nobody", json={"policy": "ask"}, headers=bearer(bot["token"])).status_code == 404


def test_policy_anyone_seats_the_bot_at_once_and_tournaments_still_asks_for_matches(client: FlaskClient) -> None:
    anyone = register(client, "anyone", policy="anyone")
    match = challenge_match(client, anyone)
    assert match.body["status"] == "active"
    assert [e["event"] for e in events(client, anyone)] == ["match-started", "your-turn"], "no challenge to answer"
    tournaments_only = register(client, "cups", policy="tournaments")
    asked = challenge_match(client, tournaments_only)
    assert asked.body["status"] == "waiting"
    assert [e["event"] for e in events(client, tournaments_only)] == ["challenge"]


def test_the_cap_declines_a_challenge_at_once_and_frees_when_a_match_is_over(client: FlaskClient) -> None:
    bot = register(client, policy="anyone")
    headers = bearer(bot["token"])
    client.patch(f"/v1/bots/{bot['id']}", json={"max_matches": 1}, headers=headers)
    match = challenge_match(client, bot)
    full = client.post("/v1/matches", json=bot_request(bot))
    assert full.status_code == 409 and full.get_json()["code"] == "bot-at-capacity"
    assert full.get_json()["bot"] == bot["id"] and "maximum (1)" in full.get_json()["detail"]
    play_line(client, match, bot["token"], 0, 0, len(WINNING_LINE))  # over: its place is free again
    assert challenge_match(client, bot).body["status"] == "active"


def test_a_bot_that_asks_may_not_accept_beyond_its_cap(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    client.patch(f"/v1/bots/{bot['id']}", json={"max_matches": 1}, headers=bearer(bot["token"]))
    first, second = challenge_match(client, bot), challenge_match(client, bot)
    assert answer(client, bot, f"match-{first.id}", "accept").status_code == 200
    refused = answer(client, bot, f"match-{second.id}", "accept")
    assert refused.status_code == 409 and refused.get_json()["code"] == "bot-at-capacity"
    assert client.get(second.url()).get_json()["status"] == "waiting", "the challenge stays open"
    assert [item["match"] for item in challenges(client, bot)["items"]] == [second.id]
    assert client.post("/v1/matches", json=bot_request(bot)).status_code == 409, "full now: declined at once"


# --- what a bot must act on is never pushed out by volume -------------------------------------------
def test_a_flood_of_challenges_evicts_nothing_the_bot_must_act_on(
    app: ParlourApp, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "BOT_EVENTS_KEPT", 10)
    monkeypatch.setattr(store_module, "BOT_CHALLENGES_KEPT", 10)
    # The flood stands for many clients: one address may hold only 50 unfinished matches, 200 kept ones.
    monkeypatch.setattr(app.services.quotas.matches, "quota", 0)
    monkeypatch.setattr(app.services.quotas.kept, "quota", 0)
    bot = register(client, policy="tournaments")
    real = challenge_match(client, bot)
    assert answer(client, bot, f"match-{real.id}", "accept").status_code == 200
    junk = [challenge_match(client, bot).id for _ in range(250)]
    kept = events(client, bot)
    assert [(e["id"], e["event"]) for e in kept[:2]] == [(2, "match-started"), (3, "your-turn")]
    assert kept[2]["event"] == "challenge" and kept[2]["id"] > 4, "the oldest challenges were trimmed, on their own"
    assert live_seats(client, bot)["items"][0]["match"] == real.id
    for match_id in junk[:125]:
        assert answer(client, bot, f"match-{match_id}", "decline").status_code == 200
    for match_id in junk[125:]:
        overdue(app, match_id)
    app.services.challenges.sweep(app.services.tournaments, app.services.after_change, grace=0)
    assert all(client.get(f"/v1/matches/{m}").get_json()["status"] == "aborted" for m in junk)
    assert challenges(client, bot)["items"] == []
    assert [item["match"] for item in live_seats(client, bot)["items"]] == [real.id]
    assert [e["event"] for e in events(client, bot)[:2]] == ["match-started", "your-turn"]
    assert act(client, real, bot["token"], 1).status_code == 200, "its real match plays on"


def test_the_live_seats_list_whose_turn_it_is_a_page_at_a_time(client: FlaskClient) -> None:
    bot = register(client)
    matches = sorted([challenge_match(client, bot) for _ in range(3)], key=lambda m: m.id)
    assert act(client, matches[0], bot["token"], 0).status_code == 200  # now seat 1's turn there
    first = live_seats(client, bot, "?status=playing&limit=2")
    assert [item["match"] for item in first["items"]] == [m.id for m in matches[:2]]
    assert [item["may_act"] for item in first["items"]] == [False, True]
    rest = live_seats(client, bot, f"?limit=2&cursor={first['next_cursor']}")
    assert [item["match"] for item in rest["items"]] == [matches[2].id] and rest["next_cursor"] is None
    for query in ("?status=lost", "?limit=0", "?limit=501", "?cursor="):
        assert client.get(f"/v1/bots/{bot['id']}/matches{query}", headers=bearer(bot["token"])).status_code == 400


# --- join with a bot token --------------------------------------------------------------------------
def test_join_with_a_bot_token_seats_the_bot_as_itself(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = create_match(client, open_seats=[1])
    joined = client.post(match.url("/join"), json={}, headers=bearer(bot["token"]))
    assert joined.status_code == 200
    assert joined.get_json() == {
        "id": match.id,
        "seat": 1,
        "token": None,
        "version": 1,
        "status": "active",
        "open_seats": [],
        "bot": bot["id"],
    }
    seat = client.get(match.url()).get_json()["seats"][1]
    assert (seat["type"], seat["name"], seat["bot"], seat["challenge"]) == ("bot", "rando", bot["id"], "accepted")
    assert [e["event"] for e in events(client, bot)] == ["match-started"]
    assert act(client, match, match.tokens[0], 1).status_code == 200
    legal = client.get(match.url("/legal-actions"), headers=bearer(bot["token"])).get_json()
    assert legal["seat"] == 1 and legal["may_act"]
    assert act(client, match, bot["token"], 2, legal["actions"][0]).status_code == 200


def test_join_with_a_bot_token_is_refused_clearly(client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = create_match(client, open_seats=[1])
    named = client.post(match.url("/join"), json={"name": "imposter"}, headers=bearer(bot["token"]))
    assert named.status_code == 400 and named.get_json()["errors"] == {"name": ["not with a bot token"]}
    forged = client.post(match.url("/join"), json={}, headers=bearer(f"bot.{bot['id']}.wrong"))
    assert forged.status_code == 401
    client.patch(f"/v1/bots/{bot['id']}", json={"max_matches": 1}, headers=bearer(bot["token"]))
    busy = create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
    assert answer(client, bot, f"match-{busy.id}", "accept").status_code == 200
    full = client.post(match.url("/join"), json={}, headers=bearer(bot["token"]))
    assert full.status_code == 409 and full.get_json()["code"] == "bot-at-capacity"
    assert client.get(match.url()).get_json()["seats"][1]["filled"] is False


# --- a lost process loses nothing -------------------------------------------------------------------
def test_the_sweep_tells_a_challenge_a_lost_process_did_not(
    app: ParlourApp, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = register(client, policy=None)
    with monkeypatch.context() as patch:
        patch.setattr(app.services.challenges, "after_change", lambda record, state: None)
        match = challenge_match(client, bot)
    assert events(client, bot) == [] and challenges(client, bot)["items"] == []
    app.services.challenges.sweep(app.services.tournaments, app.services.after_change, grace=0)
    assert [item["match"] for item in challenges(client, bot)["items"]] == [match.id]
    assert [e["event"] for e in events(client, bot)] == ["challenge"]
    app.services.challenges.sweep(app.services.tournaments, app.services.after_change, grace=0)
    assert len(events(client, bot)) == 1, "told once"
    overdue(app, match.id)
    app.services.challenges.sweep(app.services.tournaments, app.services.after_change, grace=0)
    assert client.get(match.url()).get_json()["status"] == "aborted"
    assert app.services.store.challenged_matches() == [] and challenges(client, bot)["items"] == []


def test_a_stale_pending_entry_is_dropped_when_listed(app: ParlourApp, client: FlaskClient) -> None:
    bot = register(client, policy=None)
    match = challenge_match(client, bot)
    record = app.services.store.load(match.id)
    assert record is not None
    accepted = replace(record, seats=[replace(s, pending=False) for s in record.seats], version=record.version + 1)
    assert app.services.store.commit(accepted, record.version).kind == "ok"  # accepted, but the index not told
    assert challenges(client, bot)["items"] == []
    assert app.services.store.bots.pending_count(bot["id"]) == 0
