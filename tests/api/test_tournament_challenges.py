"""Tournaments with bot entrants: one challenge per bot, the tournament waits for it, and the bots' caps."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from ai.levels import choose
from api.current import ParlourApp
from domain.matches import commands as matches
from store.tournaments import tournament_key
from tests.api.conftest import bearer
from tests.api.test_bots import register
from tests.api.test_challenges import answer, challenges, events, live_seats

RANDOM = {"type": "ai", "level": "random"}


def bot_tournament(client: FlaskClient, *bots: dict[str, Any], **request: Any) -> dict[str, Any]:
    """A Rock'em Sock'em round robin between a random AI and the bots (one game per pairing); the 201 body."""
    entrants = [RANDOM, *({"type": "bot", "bot": bot["id"]} for bot in bots)]
    body = {"game": "rockem_sockem", "entrants": entrants, "games_per_pairing": 1, **request}
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.get_json()
    return dict(response.get_json())


def play_one(app: ParlourApp, match_id: str) -> None:
    """Play a match to its end with random moves for every seat (bots' included), as they would."""
    store = app.services.store
    record = store.load(match_id)
    assert record is not None
    while record.status != "finished":
        state = matches.engine_state(record)
        seat = next(s for s in state.acting_seats() if matches.seat_may_act(record, state, s))
        action = choose(state, seat, "random", f"{record.version}")
        matches.apply_action(store, record, seat, action, record.version, None, on_commit=app.services.after_change)
        record = store.load(match_id)
        assert record is not None


def running(client: FlaskClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tournament's running matches, as it lists them now."""
    return [match for match in client.get(body["url"]).get_json()["matches"] if match["status"] == "running"]


def test_a_tournament_waits_for_its_bots_challenge_and_seats_it_in_every_match_once_accepted(
    app: ParlourApp, client: FlaskClient
) -> None:
    bot = register(client, policy=None)
    body = bot_tournament(client, bot)
    assert body["status"] == "waiting" and body["progress"]["running"] == 0
    assert body["challenges"] == [{"bot": bot["id"], "status": "pending"}] and body["challenge_expires_at"]
    assert all(match["status"] == "planned" for match in body["matches"])
    [event] = events(client, bot)
    assert event["event"] == "challenge"
    challenge = event["data"]
    assert challenge["id"] == f"tournament-{body['id']}" and challenge["type"] == "tournament"
    assert (challenge["tournament"], challenge["match"], challenge["matches"]) == (body["id"], None, 1)
    assert [entrant["name"] for entrant in challenge["entrants"]] == ["random", "rando"]
    assert challenge["expires_at"] == body["challenge_expires_at"]
    assert challenges(client, bot)["items"] == [challenge]

    accepted = answer(client, bot, challenge["id"], "accept")
    assert accepted.status_code == 200 and accepted.get_json()["status"] == "accepted"
    now = client.get(body["url"]).get_json()
    assert now["status"] == "running" and now["challenges"] == [{"bot": bot["id"], "status": "accepted"}]
    [match] = running(client, now)
    seats = client.get(f"/v1/matches/{match['match']}").get_json()["seats"]
    assert seats[match["seats"].index(1)]["challenge"] == "accepted"
    assert [e["event"] for e in events(client, bot)][:2] == ["challenge", "match-started"]
    assert challenges(client, bot)["items"] == [] and len(live_seats(client, bot)["items"]) == 1
    assert answer(client, bot, challenge["id"], "accept").status_code == 200, "a retry"
    assert answer(client, bot, challenge["id"], "decline").get_json()["code"] == "challenge-accepted"
    play_one(app, match["match"])
    assert client.get(body["url"]).get_json()["status"] == "finished"


def test_every_match_of_an_accepted_tournament_seats_the_bot_without_asking_again(
    app: ParlourApp, client: FlaskClient
) -> None:
    bot = register(client, policy=None)
    body = bot_tournament(client, bot, games_per_pairing=4, parallel=2)
    answer(client, bot, f"tournament-{body['id']}", "accept")
    told: list[str] = []
    last = 0
    while (now := client.get(body["url"]).get_json())["status"] == "running":
        for match in running(client, now):
            play_one(app, match["match"])
            # Read as a bot would, match by match: random play is long, and the stream keeps ~1,000 events.
            fresh = events(client, bot, last)
            told += [e["event"] for e in fresh]
            last = fresh[-1]["id"] if fresh else last
    assert now["progress"]["done"] == 4
    assert told.count("challenge") == 1 and told.count("match-started") == 4 and told.count("match-over") == 4


def test_a_declined_tournament_is_aborted_and_never_plays(client: FlaskClient) -> None:
    bot, other = register(client, policy=None), register(client, "other", policy=None)
    body = bot_tournament(client, bot, other)
    declined = answer(client, bot, f"tournament-{body['id']}", "decline")
    assert declined.status_code == 200 and declined.get_json()["status"] == "declined"
    now = client.get(body["url"]).get_json()
    assert now["status"] == "aborted" and "declined" in now["abort_reason"] and now["finished_at"]
    assert all(match["match"] is None for match in now["matches"]) and now["seed"] is not None  # revealed once it ended
    listed = client.get("/v1/tournaments?status=aborted").get_json()["items"]
    assert [item["id"] for item in listed] == [body["id"]]
    assert answer(client, bot, f"tournament-{body['id']}", "decline").status_code == 200, "a retry"
    assert answer(client, other, f"tournament-{body['id']}", "accept").get_json()["code"] == "challenge-over"
    canceled = events(client, other)[-1]
    assert canceled["event"] == "challenge-canceled" and canceled["data"]["status"] == "canceled"
    assert challenges(client, other)["items"] == []


def test_an_unanswered_tournament_challenge_expires(app: ParlourApp, client: FlaskClient) -> None:
    bot = register(client, policy=None)
    body = bot_tournament(client, bot)
    store = app.services.tournaments.store
    store.client.hset(tournament_key(body["id"]), "challenge_expires_at", "2000-01-01T00:00:00.000Z")
    late = answer(client, bot, f"tournament-{body['id']}", "accept")
    assert late.status_code == 409 and late.get_json()["code"] == "challenge-expired"
    now = client.get(body["url"]).get_json()
    assert now["status"] == "aborted" and "did not accept" in now["abort_reason"]
    canceled = events(client, bot)[-1]
    assert canceled["event"] == "challenge-canceled" and canceled["data"]["status"] == "expired"
    assert store.running() == []


def test_policy_tournaments_enters_at_once(client: FlaskClient) -> None:
    bot = register(client, policy="tournaments")
    body = bot_tournament(client, bot)
    assert body["status"] == "running" and body["challenge_expires_at"] is None
    assert body["challenges"] == [{"bot": bot["id"], "status": "accepted"}]
    assert [e["event"] for e in events(client, bot)][:1] == ["match-started"], "no challenge to answer"


def test_the_scheduler_never_puts_a_bot_above_its_cap(app: ParlourApp, client: FlaskClient) -> None:
    capped, second, third = (register(client, name, policy="tournaments") for name in ("capped", "two", "three"))
    client.patch(f"/v1/bots/{capped['id']}", json={"max_matches": 1}, headers=bearer(capped["token"]))
    body = bot_tournament(client, capped, second, third, games_per_pairing=2)  # capped is entrant 1
    assert body["progress"]["total"] == 12
    first = running(client, body)
    # One match of the capped bot runs; the six without it run beside it, later slots going first.
    assert sum(1 for match in first if 1 in match["seats"]) == 1 and len(first) == 7
    played = 0
    while (now := client.get(body["url"]).get_json())["status"] == "running":
        live = running(client, now)
        assert sum(1 for match in live if 1 in match["seats"]) <= 1
        assert len(live_seats(client, capped)["items"]) <= 1
        play_one(app, live[0]["match"])
        played += 1
    assert now["progress"]["done"] == 12 and played == 12
