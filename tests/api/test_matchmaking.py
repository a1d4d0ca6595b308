"""Matchmaking: pools pair bots and people by ladder rating, seat them in a match made like any other, and end
tickets that wait too long; tickets are read, long-polled and cancelled with their own tokens.

Time is driven through the sweep's `at_ms` (a clock the test sets), never a sleep.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from api.current import ParlourApp
from domain.matchmaking.tickets import now_ms
from model.ladder import Entrant, Rating
from model.settings import Settings
from tests.api.conftest import Match, bearer
from tests.api.test_bots import register
from tests.api.test_bots_listing import play
from tests.api.test_ladder import ratings
from tests.api.test_openapi import WINNING_LINE
from tests.test_service import wait_until

POOL = {"game": "icecream", "players": 2}


def enter(client: FlaskClient, bot: dict[str, Any] | None = None, expect: int = 201, **body: Any) -> dict[str, Any]:
    """POST /v1/matchmaking (IceCream for 2, unrated, by default): a bot with its token, else a person; the answer."""
    headers = bearer(bot["token"]) if bot is not None else {}
    response = client.post("/v1/matchmaking", json={**POOL, **body}, headers=headers)
    assert response.status_code == expect, response.get_json()
    answer = dict(response.get_json())
    if expect in (200, 201):
        assert response.headers["Location"] == f"/v1/matchmaking/{answer['id']}"
        assert response.headers["Cache-Control"] == "no-store"
    return answer


def read(client: FlaskClient, ticket: dict[str, Any], token: str, query: str = "") -> dict[str, Any]:
    """GET the ticket with `token`; its answer."""
    response = client.get(f"/v1/matchmaking/{ticket['id']}{query}", headers=bearer(token))
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def match_of(client: FlaskClient, match_id: str) -> dict[str, Any]:
    """The public view of a match."""
    response = client.get(f"/v1/matches/{match_id}")
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def rate(app: ParlourApp, bot: dict[str, Any], mu: float, sigma: float = 1.0) -> float:
    """Give the bot a ladder rating in IceCream (as if it had played); its displayed rating, mu - 3 sigma."""
    rating = Rating(mu, sigma, 5)
    app.services.ladder.store.count(
        "icecream", f"past-{bot['id']}", [Entrant(f"bot:{bot['id']}", bot["name"])], lambda _: [rating], "", {}
    )
    return rating.ordinal


def sweep(app: ParlourApp, seconds_from_now: float) -> None:
    """Run the workers' sweep as if `seconds_from_now` had passed."""
    with app.app_context():
        app.services.matchmaking.sweep(app.services.after_change, at_ms=now_ms() + int(seconds_from_now * 1000))


# --- pairing ---------------------------------------------------------------------------------------------
def test_a_bot_and_a_person_are_paired_and_seated(client: FlaskClient, app: ParlourApp) -> None:
    bot = register(client, "matcher", policy=None)  # joining a pool is its consent: no policy needed
    waiting = enter(client, bot, rated=True)
    assert waiting["status"] == "waiting" and waiting["bot"] == bot["id"] and waiting["name"] == "matcher"
    assert waiting["rating"] == 0 and waiting["window"] == pytest.approx(5, abs=0.5) and waiting["match"] is None
    assert "token" not in waiting
    assert (waiting["game"], waiting["players"], waiting["rated"]) == ("icecream", 2, True)
    person = enter(client, name="Ann", rated=True)
    assert person["status"] == "matched" and person["token"].startswith(f"owner.{person['id']}.")
    assert person["seat_token"].startswith(f"{person['match']}.{person['seat']}.")
    seen = read(client, waiting, bot["token"])
    assert seen["status"] == "matched" and seen["match"] == person["match"] and {seen["seat"], person["seat"]} == {0, 1}
    assert "seat_token" not in seen
    match = match_of(client, person["match"])
    assert match["status"] == "active" and match["unlisted"] and match["rematch"] is None
    assert match["turn_timer"] == {"seconds": 60}, "PARLOUR_MATCHMAKING_TURN_SECONDS: nobody stalls the others"
    names = {seat["seat"]: (seat["type"], seat["name"]) for seat in match["seats"]}
    assert names == {seen["seat"]: ("bot", "matcher"), person["seat"]: ("human", "Ann")}
    mine = client.get(f"/v1/matches/{person['match']}", headers=bearer(person["seat_token"]))
    assert mine.status_code == 200 and mine.get_json()["viewer"] == person["seat"]
    again = read(client, person, person["token"])  # the seat was taken at entry (version 1): reading changes nothing
    assert again["seat_token"] == person["seat_token"] and match_of(client, person["match"])["version"] == 1
    live = client.get(f"/v1/bots/{bot['id']}/matches?status=playing", headers=bearer(bot["token"])).get_json()
    assert [(item["match"], item["seat"]) for item in live["items"]] == [(seen["match"], seen["seat"])]


def test_two_people_each_take_their_reserved_seat_and_the_match_starts_with_the_last(client: FlaskClient) -> None:
    first = enter(client, name="Ann")
    second = enter(client, name="Bob")
    assert second["status"] == "matched" and second["seat_token"]
    match = match_of(client, second["match"])
    assert match["status"] == "waiting"
    reserved = match["seats"][1 - second["seat"]]
    assert reserved["filled"] is False and reserved["name"] == "Ann"
    joined = client.post(f"/v1/matches/{second['match']}/join", json={"name": "Eve"})
    assert joined.status_code == 409, joined.get_json()  # a reserved seat is nobody else's
    came = read(client, first, first["token"], "?wait=5")
    assert came["status"] == "matched" and came["match"] == second["match"] and came["seat"] != second["seat"]
    started = match_of(client, second["match"])
    assert started["status"] == "active" and started["version"] == 2  # created, then one seat taken per person
    assert read(client, first, first["token"])["seat_token"] == came["seat_token"]
    assert match_of(client, second["match"])["version"] == 2  # reading again changes nothing


def test_a_reserved_seat_nobody_comes_for_aborts_the_match(client: FlaskClient, app: ParlourApp) -> None:
    enter(client, name="Ann")
    second = enter(client, name="Bob")
    sweep(app, app.services.settings.challenge_seconds + 1)
    match = match_of(client, second["match"])
    assert match["status"] == "aborted" and "never came" in match["abort_reason"]


def test_a_rated_match_of_two_bots_counts_on_the_ladder(client: FlaskClient, app: ParlourApp) -> None:
    one, two = register(client, "one", policy=None), register(client, "two", policy=None)
    first = enter(client, one, rated=True)
    second = enter(client, two, rated=True)
    assert second["status"] == "matched"
    first = read(client, first, one["token"])
    tokens = {first["seat"]: one["token"], second["seat"]: two["token"]}
    match = Match(second["match"], {}, {})
    play(client, match, [tokens[0], tokens[1]], 0, len(WINNING_LINE))
    assert match_of(client, match.id)["status"] == "finished"
    assert [rating["games"] for rating in ratings(client, one)] == [1] == [r["games"] for r in ratings(client, two)]
    assert app.services.ladder.store.is_counted("icecream", match.id) == "rated"


def test_an_unrated_match_of_two_bots_never_counts(client: FlaskClient, app: ParlourApp) -> None:
    one, two = register(client, "one", policy=None), register(client, "two", policy=None)
    first = enter(client, one, rated=False)
    second = enter(client, two, rated=False)
    first = read(client, first, one["token"])
    tokens = {first["seat"]: one["token"], second["seat"]: two["token"]}
    play(client, Match(second["match"], {}, {}), [tokens[0], tokens[1]], 0, len(WINNING_LINE))
    assert ratings(client, one) == [] == ratings(client, two)
    assert app.services.ladder.store.is_counted("icecream", second["match"]) == "unrated"


def test_a_bots_second_entry_to_a_pool_answers_its_waiting_ticket(client: FlaskClient) -> None:
    bot = register(client, "twice", policy=None)
    first = enter(client, bot, rated=True)
    again = enter(client, bot, expect=200, rated=True)
    assert again["id"] == first["id"] and again["status"] == "waiting"
    other_pool = enter(client, bot, rated=False)
    assert other_pool["id"] != first["id"]
    listed = client.get("/v1/matchmaking").get_json()["items"]
    pools = {(p["game"], p["players"], p["rated"]): p["waiting"] for p in listed}
    assert pools[("icecream", 2, True)] == 1 and pools[("icecream", 2, False)] == 1
    assert pools[("sundae_split", 5, True)] == 0 and ("robots_love_ice_cream", 1, True) not in pools


def test_a_long_poll_answers_as_soon_as_the_ticket_is_matched(client: FlaskClient, app: ParlourApp) -> None:
    first = enter(client, name="Ann")
    answers: list[dict[str, Any]] = []
    poll = threading.Thread(target=lambda: answers.append(read(app.test_client(), first, first["token"], "?wait=20")))
    poll.start()
    wait_until(lambda: app.services.changes.watched() == 1, timeout=10)  # the long-poll waits on the ticket
    second = enter(client, name="Bob")
    poll.join()
    [came] = answers
    assert came["status"] == "matched" and came["match"] == second["match"] and came["seat_token"]


def test_a_group_whose_process_died_before_seating_it_is_seated_by_the_sweep(
    client: FlaskClient, app: ParlourApp
) -> None:
    strong = register(client, "strong", policy=None)
    rate(app, strong, 45.0)
    bot_ticket = enter(client, strong, rated=True)
    person = enter(client, name="Ann", rated=True)
    mm = app.services.matchmaking
    pool = mm.load(person["id"]).pool
    later = now_ms() + 100_000  # both windows at their cap, 50: the two fit
    [group] = mm.tickets.pair(pool, later, 0.5, 50, [("lostmatch0000001", [1, 0])]).groups
    assert set(group.seats) == {bot_ticket["id"], person["id"]}  # paired, then the process "died"
    assert read(client, person, person["token"])["status"] == "waiting"  # paired is still waiting to its holder
    busy = client.post(f"/v1/matchmaking/{person['id']}/cancel", headers=bearer(person["token"]))
    assert busy.status_code == 409 and busy.get_json()["code"] == "ticket-paired"
    with app.app_context():
        mm.sweep(app.services.after_change, at_ms=later + 1000)  # too soon: its process may still seat it
    assert read(client, person, person["token"])["status"] == "waiting"
    with app.app_context():
        mm.sweep(app.services.after_change, at_ms=later + 10_000)
    seated = read(client, person, person["token"])
    assert seated["status"] == "matched" and seated["match"] == "lostmatch0000001" and seated["seat"] == 0
    assert read(client, bot_ticket, strong["token"])["seat"] == 1


# --- windows and time --------------------------------------------------------------------------------------
def test_entrants_far_apart_pair_only_once_their_windows_have_widened(client: FlaskClient, app: ParlourApp) -> None:
    strong = register(client, "strong", policy=None)
    ordinal = rate(app, strong, 45.0)  # 42 points above a person's default 0
    bot_ticket = enter(client, strong, rated=True)
    assert bot_ticket["rating"] == pytest.approx(ordinal)
    person = enter(client, name="Ann", rated=True)
    assert person["status"] == "waiting"
    widen = app.services.settings.matchmaking.widen
    sweep(app, (ordinal - 5) / widen - 10)  # both windows 10 s short of the gap
    assert read(client, person, person["token"])["status"] == "waiting"
    sweep(app, (ordinal - 5) / widen + 1)
    paired = read(client, person, person["token"])
    assert paired["status"] == "matched" and paired["seat_token"]
    assert read(client, bot_ticket, strong["token"])["match"] == paired["match"]


def test_a_window_asked_for_pairs_at_once(client: FlaskClient, app: ParlourApp) -> None:
    strong = register(client, "strong", policy=None)
    rate(app, strong, 45.0)
    enter(client, strong, rated=True, rating_window=50)
    narrow = enter(client, name="Ann", rated=True)
    assert narrow["status"] == "waiting"  # the bot's window holds the person, but not the person's
    wide = enter(client, name="Bob", rated=True, rating_window=45)
    assert wide["status"] == "matched"


def test_a_ticket_nobody_pairs_expires(client: FlaskClient, app: ParlourApp) -> None:
    person = enter(client, name="Ann")
    sweep(app, app.services.settings.matchmaking.seconds - 1)
    assert read(client, person, person["token"])["status"] == "waiting"
    sweep(app, app.services.settings.matchmaking.seconds + 1)
    expired = read(client, person, person["token"])
    assert expired["status"] == "expired" and expired["match"] is None
    late = client.post(f"/v1/matchmaking/{person['id']}/cancel", headers=bearer(person["token"]))
    assert late.status_code == 409 and late.get_json()["code"] == "ticket-expired"
    assert enter(client, name="Bob")["status"] == "waiting"  # the expired ticket pairs with nobody


# --- cancelling ----------------------------------------------------------------------------------------------
def test_a_waiting_ticket_is_cancelled_once_and_a_matched_one_not_at_all(client: FlaskClient) -> None:
    bot = register(client, "quitter", policy=None)
    ticket = enter(client, bot)
    cancelled = client.post(f"/v1/matchmaking/{ticket['id']}/cancel", headers=bearer(bot["token"]))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    again = client.post(f"/v1/matchmaking/{ticket['id']}/cancel", headers=bearer(bot["token"]))
    assert again.status_code == 200 and again.get_json()["status"] == "cancelled"
    person = enter(client, name="Ann")
    assert person["status"] == "waiting"  # the cancelled bot is out of the pool
    other = enter(client, name="Bob")
    refused = client.post(f"/v1/matchmaking/{other['id']}/cancel", headers=bearer(other["token"]))
    assert refused.status_code == 409 and refused.get_json()["code"] == "ticket-matched"
    assert refused.headers["Content-Type"] == "application/problem+json"


def test_a_bot_whose_cap_filled_while_it_waited_is_cancelled_and_the_others_wait_on(client: FlaskClient) -> None:
    bot = register(client, "busy", policy="anyone")
    client.patch(f"/v1/bots/{bot['id']}", json={"max_matches": 1}, headers=bearer(bot["token"]))
    ticket = enter(client, bot)
    seated = client.post("/v1/matches", json={**POOL, "seats": [{"type": "bot", "bot": bot["id"]}, {"type": "human"}]})
    assert seated.status_code == 201, seated.get_json()
    assert enter(client, bot, expect=200)["id"] == ticket["id"]  # full now, but its waiting ticket is still its
    person = enter(client, name="Ann")
    assert person["status"] == "waiting"
    dropped = read(client, ticket, bot["token"])
    assert dropped["status"] == "cancelled" and dropped["reason"] == "bot-at-capacity"
    refused = enter(client, bot, expect=409)
    assert refused["code"] == "bot-at-capacity"


# --- refusals --------------------------------------------------------------------------------------------
def test_tickets_answer_401_403_and_404_as_elsewhere(client: FlaskClient) -> None:
    bot, other_bot = register(client, "mine", policy=None), register(client, "yours", policy=None)
    bots_ticket = enter(client, bot)
    client.post(f"/v1/matchmaking/{bots_ticket['id']}/cancel", headers=bearer(bot["token"]))
    person, stranger = enter(client, name="Ann"), enter(client, name="Bob", players=2, game="sundae_split")
    url = f"/v1/matchmaking/{person['id']}"
    assert client.get(url).status_code == 401
    assert client.get(url).headers["WWW-Authenticate"] == 'Bearer realm="parlour"'
    assert client.get(url, headers=bearer(f"owner.{person['id']}.forged")).status_code == 401
    assert client.get(url, headers=bearer(stranger["token"])).status_code == 403
    assert client.get(url, headers=bearer(bot["token"])).status_code == 403
    assert client.get(f"/v1/matchmaking/{bots_ticket['id']}", headers=bearer(other_bot["token"])).status_code == 403
    assert client.get(f"/v1/matchmaking/{bots_ticket['id']}", headers=bearer(person["token"])).status_code == 403
    assert client.post(f"{url}/cancel", headers=bearer(stranger["token"])).status_code == 403
    assert client.get(url, headers=bearer("not a token")).status_code == 401
    for missing in ("icecream-2u-0123456789abcdef", "nothing", "a.b"):
        answer = client.get(f"/v1/matchmaking/{missing}", headers=bearer(person["token"]))
        assert answer.status_code == 404 and answer.get_json()["code"] == "not-found"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "chess", "players": 2}, "game"),
        ({"game": "icecream", "players": 3}, "players"),
        ({"game": "icecream", "players": "2"}, "players"),
        ({"game": "icecream"}, "players"),
        ({"game": "robots_love_ice_cream", "players": 2, "rated": True}, "rated"),
        ({"game": "icecream", "players": 2, "rating_window": -1}, "rating_window"),
        ({"game": "icecream", "players": 2, "rating_window": 1e9}, "rating_window"),
        ({"game": "icecream", "players": 2, "name": "<b>"}, "name"),
        ({"game": "icecream", "players": 2, "name": None}, "name"),
    ],
)
def test_bad_entries_answer_400_naming_the_field(client: FlaskClient, body: dict[str, Any], field: str) -> None:
    response = client.post("/v1/matchmaking", json={"name": "Ann", **body})
    assert response.status_code == 400, response.get_json()
    assert response.headers["Content-Type"] == "application/problem+json" and field in response.get_json()["errors"]


def test_a_person_may_not_enter_as_a_bot_nor_with_another_token(client: FlaskClient) -> None:
    bot = register(client, "Famous", policy=None)
    taken = client.post("/v1/matchmaking", json={**POOL, "name": "famous"})
    assert taken.status_code == 409 and taken.get_json()["code"] == "name-taken"
    person = enter(client, name="Ann")
    with_owner = client.post("/v1/matchmaking", json={**POOL, "name": "Ann"}, headers=bearer(person["token"]))
    assert with_owner.status_code == 401
    forged = client.post("/v1/matchmaking", json=POOL, headers=bearer(f"bot.{bot['id']}.forged"))
    assert forged.status_code == 401


def test_a_client_holds_a_few_waiting_tickets_at_most(client: FlaskClient, app: ParlourApp) -> None:
    quota = app.services.settings.limits.tickets
    held = [enter(client, name=f"P{n}", game="sundae_split", players=5) for n in range(quota)]
    refused = enter(client, name="One more", game="sundae_split", players=5, expect=429)
    assert refused["code"] == "quota-exceeded" and refused["resource"] == "tickets"
    client.post(f"/v1/matchmaking/{held[0]['id']}/cancel", headers=bearer(held[0]["token"]))
    enter(client, name="One more", game="sundae_split", players=5)


# --- concurrency ---------------------------------------------------------------------------------------------
def test_entries_at_once_from_two_processes_seat_each_ticket_once(settings: Settings, client: FlaskClient) -> None:
    bots = [register(client, f"racer{n}", policy=None) for n in range(10)]
    apps = [create_app(settings) for _ in range(2)]
    start = threading.Barrier(len(bots))
    tickets: dict[str, dict[str, Any]] = {}

    def race(n: int) -> None:
        own = apps[n % 2].test_client()
        start.wait()
        answer = own.post("/v1/matchmaking", json={**POOL, "rated": True}, headers=bearer(bots[n]["token"]))
        assert answer.status_code == 201, answer.get_json()
        tickets[bots[n]["id"]] = answer.get_json()

    threads = [threading.Thread(target=race, args=(n,)) for n in range(len(bots))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for one in apps:
        one.services.changes.stop()
    final = {bot["id"]: read(client, tickets[bot["id"]], bot["token"]) for bot in bots}
    seated: dict[str, list[tuple[int, str]]] = {}
    for bot_id, ticket in final.items():
        assert ticket["status"] in ("matched", "waiting")
        if ticket["status"] == "matched":
            seated.setdefault(ticket["match"], []).append((ticket["seat"], bot_id))
    assert len(seated) == len(bots) // 2  # all fit each other: only an odd one out could still wait
    for match_id, members in seated.items():
        seats = {seat["seat"]: seat["bot"] for seat in match_of(client, match_id)["seats"]}
        assert sorted(members) == sorted(seats.items())
