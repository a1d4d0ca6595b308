"""Owners and seeds: owner tokens, aborting a waiting match, cancelling a tournament, rotating and deleting
a bot's token, and a chosen seed only where nobody else can be cheated by it (on the real Redis)."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.matches.commands import new_match_id
from model.bot import SeatNotice
from model.tokens import BotToken, OwnerToken, SeatToken, parse_credential
from model.tournament import Plan
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_bots import act, bot_match, follow_bot, play_line, register
from tests.api.test_events import follow
from tests.api.test_openapi import WINNING_LINE
from tests.api.test_tournaments import RANDOMS, play_running_matches

MOVE = {"type": "move", "from_cone": 0, "scoops": 1}


def owner(match: Match) -> dict[str, str]:
    """The Authorization header with the match's owner token."""
    return bearer(match.body["owner_token"])


def stored_values(redis_url: str) -> str:
    """Every string, hash, list and set value in Redis, as one text (to look for a secret in)."""
    raw = redis.Redis.from_url(redis_url)
    parts: list[Any] = []
    for key in raw.scan_iter("*"):
        kind = raw.type(key)
        if kind == b"string":
            parts.append(raw.get(key))
        elif kind == b"hash":
            parts.extend(raw.hgetall(key).values())
        elif kind == b"list":
            parts.extend(raw.lrange(key, 0, -1))
        elif kind == b"set":
            parts.extend(raw.smembers(key))
        elif kind == b"zset":
            parts.extend(raw.zrange(key, 0, -1))
    return "\n".join(part.decode(errors="replace") for part in parts if isinstance(part, bytes))


def new_tournament(client: FlaskClient, **request: Any) -> dict[str, Any]:
    """POST /v1/tournaments (three random players at Rock'em Sock'em unless told); the 201 body."""
    response = client.post("/v1/tournaments", json={"game": "rockem_sockem", "entrants": RANDOMS, **request})
    assert response.status_code == 201, response.get_json()
    return dict(response.get_json())


def cancel(client: FlaskClient, tournament: dict[str, Any], token: str | None = None) -> Any:
    """POST .../cancel with the tournament's owner token (or `token`); the response."""
    return client.post(f"{tournament['url']}/cancel", headers=bearer(token or tournament["owner_token"]))


# --- the token ---------------------------------------------------------------------------------------
def test_the_owner_token_is_shown_once_and_stored_only_as_its_hash(client: FlaskClient, redis_url: str) -> None:
    response = client.post("/v1/matches", json={"game": "icecream", "players": 2, "open_seats": [1]})
    assert response.status_code == 201 and response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    token = body["owner_token"]
    assert token.startswith(f"owner.{body['id']}.") and len(token.split(".")) == 3
    tournament = client.post("/v1/tournaments", json={"game": "rockem_sockem", "entrants": RANDOMS[:2]})
    assert tournament.status_code == 201 and tournament.headers["Cache-Control"] == "no-store"
    tournament_token = tournament.get_json()["owner_token"]
    assert tournament_token.startswith(f"owner.{tournament.get_json()['id']}.")
    for url in (f"/v1/matches/{body['id']}", f"/v1/matches/{body['id']}/log", "/v1/matches", "/v1/tournaments"):
        assert "owner" not in client.get(url).get_data(as_text=True), url
    assert "owner_token" not in client.get(tournament.get_json()["url"]).get_json()
    stored = stored_values(redis_url)
    for shown in (token, tournament_token):
        assert shown not in stored and shown.split(".")[2] not in stored
        assert hashlib.sha256(shown.encode()).hexdigest() in stored


def test_the_token_forms_cannot_be_confused() -> None:
    assert parse_credential("owner.k3J9xQ2mV8pLr0aZ.s3cret") == OwnerToken("k3J9xQ2mV8pLr0aZ", "s3cret")
    assert parse_credential("owner.1.s3cret") == OwnerToken("1", "s3cret")  # no match is called `owner`
    assert parse_credential("bot.Xk2pQ9vLm0aZ.s3cret") == BotToken("Xk2pQ9vLm0aZ", "s3cret")
    assert parse_credential("k3J9xQ2mV8pLr0aZ.1.s3cret") == SeatToken("k3J9xQ2mV8pLr0aZ", 1, "s3cret")
    assert parse_credential("owner..s3cret") is None and parse_credential("owner.x.") is None
    ids = {new_match_id() for _ in range(200)}
    assert all(len(match_id) == 16 and "." not in match_id for match_id in ids)


# --- aborting a match that has not started ---------------------------------------------------------------
def test_the_owner_aborts_a_waiting_match_and_its_streams_end(client: FlaskClient) -> None:
    bot = register(client)
    match = create_match(
        client,
        seats=[{"type": "human"}, {"type": "bot", "bot": bot["id"]}, {"type": "open"}],
        game="sundae_split",
        players=3,
    )
    stream = follow(client, match)
    assert stream.event().data["match"]["status"] == "waiting"
    response = client.post(match.url("/abort"), headers=owner(match))
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert (body["status"], body["version"], body["viewer"]) == ("aborted", 1, None)
    assert body["abort_reason"] == "aborted by its owner before it started" and body["result"] is None
    assert hashlib.sha256(body["seed"].encode()).hexdigest() == body["seed_commitment"]
    assert stream.event().data["match"]["status"] == "aborted"
    assert stream.event("end").data == {"version": 1, "reason": "aborted"}
    assert stream.next() is None
    events = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=bearer(bot["token"])).get_json()
    assert events["events"][-1]["event"] == "match-over"
    assert events["events"][-1]["data"] == {
        "match": match.id,
        "seat": 1,
        "version": 1,
        "status": "aborted",
        "result": None,
    }
    for refused in (
        client.post(match.url("/join"), json={}),
        client.post(match.url("/abort"), headers=owner(match)),
        client.post(
            match.url("/actions"), json={"action": MOVE, "expected_version": 1}, headers=bearer(match.tokens[0])
        ),
    ):
        assert refused.status_code == 409 and refused.get_json()["code"] == "match-aborted"
    assert [item["id"] for item in client.get("/v1/matches?status=aborted").get_json()["items"]] == [match.id]
    assert client.get("/v1/matches?status=waiting").get_json()["items"] == []


def test_a_match_that_started_or_ended_is_not_aborted(client: FlaskClient, match: Match) -> None:
    started = client.post(match.url("/abort"), headers=owner(match))
    assert started.status_code == 409 and started.get_json()["code"] == "match-started"
    play_line(client, match, match.tokens[0], 0, 0, len(WINNING_LINE))
    over = client.post(match.url("/abort"), headers=owner(match))
    assert over.status_code == 409 and over.get_json()["code"] == "match-over"
    assert client.get(match.url()).get_json()["status"] == "finished"


def test_only_the_owner_token_aborts(client: FlaskClient) -> None:
    match, other = create_match(client, open_seats=[1]), create_match(client, open_seats=[1])
    bot = register(client)
    for headers, status in (
        ({}, 401),
        (bearer(f"owner.{match.id}.not-the-secret"), 401),
        (bearer("owner.nothing-at-all.x"), 401),
        (bearer(f"bot.{bot['id']}.wrong"), 401),
        (bearer(f"{match.id}.0.wrong"), 401),
        (bearer(match.tokens[0]), 403),  # a seat token of this very match
        (owner(other), 403),
        (bearer(bot["token"]), 403),
    ):
        response = client.post(match.url("/abort"), headers=headers)
        assert response.status_code == status, (headers, response.get_json())
        if status == 401:
            assert response.headers["WWW-Authenticate"] == 'Bearer realm="parlour"'
    assert client.get(match.url()).get_json()["status"] == "waiting"
    assert client.post("/v1/matches/no-such-match/abort", headers=owner(match)).status_code == 404
    # The owner token acts for no seat, and is no key to another match.
    assert client.get(match.url(), headers=owner(match)).status_code == 403
    assert client.get(match.url("/legal-actions"), headers=owner(match)).status_code == 403
    assert client.get(other.url(), headers=owner(match)).status_code == 401


def test_a_join_racing_the_abort_either_starts_the_match_or_finds_it_aborted(app: ParlourApp) -> None:
    outcomes = set()
    for _ in range(8):
        match = create_match(app.test_client(), open_seats=[1])
        answers: dict[str, int] = {}

        def join(answers: dict[str, int] = answers, match: Match = match) -> None:
            answers["join"] = app.test_client().post(match.url("/join"), json={}).status_code

        def abort(answers: dict[str, int] = answers, match: Match = match) -> None:
            answers["abort"] = app.test_client().post(match.url("/abort"), headers=owner(match)).status_code

        threads = [threading.Thread(target=join), threading.Thread(target=abort)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        status = app.test_client().get(match.url()).get_json()["status"]
        assert (answers["join"], answers["abort"], status) in {(200, 409, "active"), (409, 200, "aborted")}
        outcomes.add(status)
    assert outcomes  # which wins is the race's; that each is whole is the test


# --- cancelling a tournament ---------------------------------------------------------------------------
def test_cancelling_stops_the_tournament_and_keeps_the_standings(app: ParlourApp, client: FlaskClient) -> None:
    body = new_tournament(client, seed="cancel", parallel=2)  # 6 matches, 2 at a time
    assert play_running_matches(app, body) == 2
    before = client.get(body["url"]).get_json()
    assert [m["status"] for m in before["matches"]] == ["finished"] * 2 + ["running"] * 2 + ["planned"] * 2
    running = [m["match"] for m in before["matches"] if m["status"] == "running"]
    response = cancel(client, body)
    assert response.status_code == 200, response.get_json()
    after = response.get_json()
    assert after["status"] == "cancelled" and after["finished_at"] is not None and after["seed"] == "cancel"
    assert [m["status"] for m in after["matches"]] == ["finished"] * 2 + ["void"] * 2 + ["cancelled"] * 2
    assert after["progress"] == {**before["progress"], "done": 4, "running": 0}
    assert (after["standings"], after["ratings"], after["crosstable"]) == (
        before["standings"],
        before["ratings"],
        before["crosstable"],
    )
    for match_id in running:
        match = client.get(f"/v1/matches/{match_id}").get_json()
        assert match["status"] == "aborted"
        assert match["abort_reason"] == f"tournament {body['id']} was cancelled by its owner"
    with app.app_context():
        app.services.tournaments.sweep(app.services.after_change)
        app.services.tournaments.advance(body["id"], app.services.after_change)
    again = cancel(client, body)  # a retry is safe: the same tournament, nothing more started
    assert again.status_code == 200 and again.get_json()["matches"] == after["matches"]
    assert client.get(body["url"]).get_json() == again.get_json()
    assert [item["id"] for item in client.get("/v1/tournaments?status=cancelled").get_json()["items"]] == [body["id"]]
    assert client.get("/v1/tournaments?status=running").get_json()["items"] == []
    assert client.get("/v1/matches?status=active").get_json()["items"] == []


def test_a_finished_tournament_is_not_cancelled(app: ParlourApp, client: FlaskClient) -> None:
    body = new_tournament(client, entrants=RANDOMS[:2], games_per_pairing=1)
    play_running_matches(app, body)
    response = cancel(client, body)
    assert response.status_code == 409 and response.get_json()["code"] == "tournament-over"
    assert client.get(body["url"]).get_json()["status"] == "finished"


def test_only_the_owner_token_cancels(client: FlaskClient) -> None:
    body, other = new_tournament(client), new_tournament(client)
    match = create_match(client)
    tournament_match = body["matches"][0]["match"]
    for token, status in (
        (None, 401),
        (f"owner.{body['id']}.not-the-secret", 401),
        (other["owner_token"], 403),
        (match.body["owner_token"], 403),
        (match.tokens[0], 403),
    ):
        headers = bearer(token) if token else {}
        response = client.post(f"{body['url']}/cancel", headers=headers)
        assert response.status_code == status, (token, response.get_json())
    assert client.get(body["url"]).get_json()["status"] == "running"
    assert client.post("/v1/tournaments/nope/cancel", headers=bearer(body["owner_token"])).status_code == 404
    # A tournament's matches have no owner of their own: its owner cancels the tournament instead.
    refused = client.post(f"/v1/matches/{tournament_match}/abort", headers=bearer(body["owner_token"]))
    assert refused.status_code == 403 and "has no owner token" in refused.get_json()["detail"]


def test_an_advance_racing_the_cancel_starts_nothing_new(
    app: ParlourApp, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = new_tournament(client, seed="race", parallel=1)
    tournaments = app.services.tournaments
    real_new_match = tournaments.new_match
    made: list[str] = []

    def cancelled_meanwhile(tournament_id: str, plan: Plan, slot: Any) -> Any:
        """The advance stores its next match, and the owner's cancellation lands before it claims the slot."""
        match, state = real_new_match(tournament_id, plan, slot)
        made.append(match.id)
        assert cancel(client, body).status_code == 200
        return match, state

    monkeypatch.setattr(tournaments, "new_match", cancelled_meanwhile)
    play_running_matches(app, body)  # its finish advances the tournament
    after = client.get(body["url"]).get_json()
    assert after["status"] == "cancelled" and len(made) == 1
    assert [m["status"] for m in after["matches"]] == ["finished"] + ["cancelled"] * 5
    orphan = client.get(f"/v1/matches/{made[0]}").get_json()
    assert orphan["status"] == "aborted" and "cancelled" in orphan["abort_reason"]
    assert client.get("/v1/matches?status=active").get_json()["items"] == []


def test_a_bot_in_a_cancelled_tournament_is_told_its_match_is_over(client: FlaskClient) -> None:
    bot = register(client)
    body = new_tournament(client, entrants=[RANDOMS[0], {"type": "bot", "bot": bot["id"]}])
    assert cancel(client, body).status_code == 200
    polled = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=bearer(bot["token"])).get_json()
    over = [event["data"] for event in polled["events"] if event["event"] == "match-over"]
    assert [(event["status"], event["result"]) for event in over] == [("aborted", None)] * 2


# --- rotating and deleting a bot's token ------------------------------------------------------------------
def test_a_rotated_bot_token_replaces_the_old_one_at_once(client: FlaskClient, app: ParlourApp) -> None:
    bot = register(client)
    old, url = bot["token"], f"/v1/bots/{bot['id']}"
    match = bot_match(client, bot, seat=0)
    held = follow_bot(client, bot)
    assert [held.next().name for _ in range(2)] == ["match-started", "your-turn"]  # type: ignore[union-attr]
    response = client.post(f"{url}/token", headers=bearer(old))
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    rotated = response.get_json()
    new = rotated["token"]
    assert new != old and new.startswith(f"bot.{bot['id']}.")
    assert {k: v for k, v in rotated.items() if k != "token"} == client.get(url).get_json()
    assert app.services.store.bots.token_hash(bot["id"]) == hashlib.sha256(new.encode()).hexdigest()
    for refused in (
        client.get(match.url("/legal-actions"), headers=bearer(old)),
        act(client, match, old, 0),
        client.get(f"{url}/events?after=0&wait=0", headers=bearer(old)),
        client.post(f"{url}/token", headers=bearer(old)),
        client.delete(url, headers=bearer(old)),
    ):
        assert refused.status_code == 401
    assert act(client, match, new, 0).status_code == 200
    assert act(client, match, match.tokens[1], 1, WINNING_LINE[1][1]).status_code == 200  # the bot's turn again
    assert held.next() is None, "the stream opened with the old token ended without the new event"
    polled = client.get(f"{url}/events?after=2&wait=5", headers=bearer(new)).get_json()
    assert [(e["id"], e["event"], e["data"]["version"]) for e in polled["events"]] == [(3, "your-turn", 2)]
    fresh = follow_bot(client, {**bot, "token": new}, "2")
    event = fresh.next()
    assert event is not None and (event.id, event.name) == (3, "your-turn")
    fresh.close()
    assert not app.services.store.bots.rotate(bot["id"], hashlib.sha256(old.encode()).hexdigest(), "x" * 64)


def test_rotation_and_deletion_need_the_bots_own_token(client: FlaskClient) -> None:
    bot, other = register(client), register(client, "other")
    match = bot_match(client, bot, seat=0)
    url = f"/v1/bots/{bot['id']}"
    for headers, status in (
        ({}, 401),
        (bearer(f"bot.{bot['id']}.wrong"), 401),
        (bearer(match.tokens[1]), 401),
        (owner(match), 401),
        (bearer(other["token"]), 403),
    ):
        assert client.post(f"{url}/token", headers=headers).status_code == status, headers
        assert client.delete(url, headers=headers).status_code == status, headers
    assert client.post("/v1/bots/nobody/token", headers=bearer(bot["token"])).status_code == 404
    assert client.delete("/v1/bots/nobody", headers=bearer(bot["token"])).status_code == 404
    assert client.get(url).status_code == 200


def test_deleting_a_bot_aborts_its_matches_frees_its_name_and_leaves_no_key(
    client: FlaskClient, app: ParlourApp, redis_url: str
) -> None:
    bot = register(client)
    done = bot_match(client, bot, seat=0)
    play_line(client, done, bot["token"], 0, 0, len(WINNING_LINE))  # over: its seat mark stays until it expires
    running = bot_match(client, bot, seat=1)
    waiting = create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "open"}])
    stream = follow(client, running, seat=0)
    stream.event()
    response = client.delete(f"/v1/bots/{bot['id']}", headers=bearer(bot["token"]))
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {
        "id": bot["id"],
        "name": "rando",
        "aborted_matches": sorted([running.id, waiting.id]),
    }
    for match in (running, waiting):
        state = client.get(match.url()).get_json()
        assert state["status"] == "aborted" and state["abort_reason"] == f"bot {bot['id']} was deleted"
    assert client.get(done.url()).get_json()["status"] == "finished"
    assert stream.event().data["match"]["status"] == "aborted"
    assert stream.event("end").data["reason"] == "aborted"
    assert client.get(f"/v1/bots/{bot['id']}").status_code == 404
    assert client.get(done.url("/log"), headers=bearer(bot["token"])).status_code == 401
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    assert list(raw.scan_iter(f"parlour:bot:{{{bot['id']}}}*")) == []
    assert bot["id"] not in raw.hvals("parlour:bot-names")
    # A notice still in flight from before the deletion makes no key again.
    late = SeatNotice(bot["id"], running.id, 1, 9, False, True, "{}", "{}", "{}")
    assert app.services.store.bots.announce(late) == []
    assert list(raw.scan_iter(f"parlour:bot:{{{bot['id']}}}*")) == []
    again = register(client, "RANDO")
    assert again["id"] != bot["id"]
    refused = client.post(
        "/v1/matches",
        json={"game": "icecream", "players": 2, "seats": [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]},
    )
    assert refused.status_code == 400 and refused.get_json()["errors"] == {"seats": {"0": {"bot": ["no such bot"]}}}


def test_a_deleted_bots_tournament_matches_are_void_and_the_tournament_ends(
    app: ParlourApp, client: FlaskClient
) -> None:
    bot = register(client)
    entrants = [RANDOMS[0], RANDOMS[0], {"type": "bot", "bot": bot["id"]}]
    body = new_tournament(client, entrants=entrants, games_per_pairing=1, parallel=2)
    assert [m["status"] for m in body["matches"]] == ["running", "running", "planned"]
    bots_match = body["matches"][1]["match"]
    assert client.delete(f"/v1/bots/{bot['id']}", headers=bearer(bot["token"])).get_json()["aborted_matches"] == [
        bots_match
    ]
    play_running_matches(app, client.get(body["url"]).get_json())
    done = client.get(body["url"]).get_json()
    assert done["status"] == "finished"
    assert [(m["status"], bool(m["match"])) for m in done["matches"]] == [
        ("finished", True),
        ("void", True),
        ("void", False),
    ]
    assert [row["played"] for row in sorted(done["standings"], key=lambda row: row["entrant"])] == [1, 1, 0]


# --- seeds only where nobody can be cheated ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("request_body", "kinds"),
    [
        ({"open_seats": [1]}, "open"),  # IceCream has no chance, and still: every game
        ({"game": "sundae_split", "players": 3, "open_seats": [2]}, "open"),
        ({"seats": [{"type": "human"}, {"type": "open"}]}, "open"),
        ({"seats": [{"type": "human"}, {"type": "bot", "bot": "<bot>"}]}, "bot"),
        ({"seats": [{"type": "open"}, {"type": "bot", "bot": "<bot>"}]}, "bot or open"),
        ({"seats": [{"type": "ai", "level": "easy"}, {"type": "bot", "bot": "<bot>"}]}, "bot"),
    ],
)
def test_a_chosen_seed_is_refused_when_a_seat_is_not_the_creators(
    client: FlaskClient, request_body: dict[str, Any], kinds: str
) -> None:
    bot = register(client)
    seats = [{**seat, "bot": bot["id"]} if seat.get("bot") else seat for seat in request_body.get("seats", [])]
    body = {"game": "icecream", "players": 2, **request_body, **({"seats": seats} if seats else {})}
    refused = client.post("/v1/matches", json={**body, "seed": "foreseen"})
    assert refused.status_code == 400 and refused.content_type == "application/problem+json"
    problem = refused.get_json()
    assert problem["errors"] == {"seed": [f"not allowed with {kinds} seats"]}
    assert "foresee" in problem["detail"] and "leave seed out" in problem["detail"]
    assert client.post("/v1/matches", json=body).status_code == 201  # a server seed is fine


@pytest.mark.parametrize(
    "request_body",
    [
        {},
        {"seats": [{"type": "human", "name": "Ada"}, {"type": "ai", "level": "easy"}]},
        {"seats": [{"type": "ai", "level": "random"}, {"type": "ai", "level": "easy"}]},
        {"game": "sundae_split", "players": 3},
        {"game": "rockem_sockem", "seats": [{"type": "human"}, {"type": "ai", "level": "random"}]},
    ],
)
def test_a_chosen_seed_is_taken_when_every_seat_is_the_creators_or_an_ais(
    client: FlaskClient, request_body: dict[str, Any]
) -> None:
    match = create_match(client, seed="mine", **request_body)
    assert match.body["seed_commitment"] == hashlib.sha256(b"mine").hexdigest()


def test_a_chosen_tournament_seed_needs_built_in_ai_entrants_only(client: FlaskClient) -> None:
    bot = register(client)
    with_bot = [RANDOMS[0], {"type": "ai", "level": "easy"}, {"type": "bot", "bot": bot["id"]}]
    refused = client.post("/v1/tournaments", json={"game": "rockem_sockem", "entrants": with_bot, "seed": "cup"})
    assert refused.status_code == 400
    problem = refused.get_json()
    assert list(problem["errors"]) == ["seed"] and "entrants [2] are bots" in problem["detail"]
    assert new_tournament(client, seed="cup")["seed"] == "cup"  # AI levels only: the seed is taken
    # Without a seed the server draws one, and each match's seed derives from it (not refused by the match rule).
    body = new_tournament(client, entrants=with_bot, games_per_pairing=1)
    assert body["seed"] is None and [m["status"] for m in body["matches"]] == ["running"] * 3
    revealed = cancel(client, body).get_json()
    assert hashlib.sha256(revealed["seed"].encode()).hexdigest() == revealed["seed_commitment"]
    plan = Plan(
        game="rockem_sockem",
        players=2,
        options={},
        entrants=(),
        format="round-robin",
        rounds=1,
        games_per_pairing=1,
        seed=revealed["seed"],
    )
    for slot in revealed["matches"]:
        assert client.get(f"/v1/matches/{slot['match']}").get_json()["seed"] == plan.match_seed(slot["index"])
