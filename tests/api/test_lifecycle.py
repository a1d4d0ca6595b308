"""Resign, leave, rematch and unlisted matches, through the API on the real Redis."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.matches import lifecycle
from tests.api.conftest import Match, bearer, create_match, read_log
from tests.api.test_bots import follow_bot, register
from tests.api.test_events import Event, Stream, follow

COMPETITIVE = ("icecream", "sundae_split", "freeze_factory", "rockem_sockem")
CO_OPERATIVE = "robots_love_ice_cream"


def post(client: FlaskClient, match: Match, what: str, token: str) -> Any:
    """POST /v1/matches/{id}/<what> with a token; the response."""
    return client.post(match.url(f"/{what}"), headers=bearer(token))


def play_a_few(client: FlaskClient, match: Match, moves: int) -> int:
    """Play up to `moves` first-listed legal actions (enumerated spaces only); the version reached."""
    for _ in range(moves):
        body = client.get(match.url()).get_json()
        if body["status"] != "active" or not body["to_act"]:
            return int(body["version"])
        seat = body["to_act"][0]
        legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
        if legal["kind"] != "enumerated" or not legal["actions"]:
            return int(body["version"])
        answer = client.post(
            match.url("/actions"),
            json={"action": legal["actions"][0], "expected_version": body["version"]},
            headers=bearer(match.tokens[seat]),
        )
        assert answer.status_code == 200, answer.get_json()
    return int(client.get(match.url()).get_json()["version"])


@pytest.mark.parametrize("game", COMPETITIVE)
def test_a_resignation_ends_a_competitive_match_with_the_resigner_last(client: FlaskClient, game: str) -> None:
    match = create_match(
        client, game=game, players=2 if game in ("icecream", "rockem_sockem") else 3, seed=f"resign-{game}"
    )
    version = play_a_few(client, match, 3)
    answer = post(client, match, "resign", match.tokens[1])
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    others = [seat for seat in range(match.body["players"]) if seat != 1]
    assert body["status"] == "finished" and body["version"] == version + 1 and body["viewer"] == 1
    assert body["result"]["ranking"] == [others, [1]] and body["result"]["winners"] == others
    assert body["result"]["reason"] == "seat 1 resigned" and body["result"]["scores"][1] == 0.0
    assert body["seed"] is not None, "the match is over: its seed is revealed"
    entries = read_log(client, match.id)["entries"]
    assert entries[-1] == {"version": version + 1, "seat": 1, "at": body["updated_at"], "resign": True}
    public = client.get(match.url()).get_json()
    assert public["result"] == body["result"]
    replayed = client.get(match.url(f"/replay/{len(entries)}")).get_json()
    assert replayed["result"] == body["result"] and replayed["entry"]["resign"] is True
    if len(entries) > 1:
        assert client.get(match.url(f"/replay/{len(entries) - 1}")).get_json()["result"] is None


def test_a_co_operative_seat_goes_to_the_ai_then_the_team_gives_up(client: FlaskClient) -> None:
    match = create_match(client, game=CO_OPERATIVE, players=2, seed="resign-robots")
    answer = post(client, match, "resign", match.tokens[1])
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["status"] == "active" and body["result"] is None
    assert body["seats"][1]["type"] == "ai" and body["seats"][1]["level"] == "easy"
    assert post(client, match, "resign", match.tokens[1]).status_code == 401, "the seat's token stopped working"
    entries = read_log(client, match.id)["entries"]
    assert entries[-1]["resign"] is True and entries[-1]["handed_to"] == "easy" and "action" not in entries[-1]
    last = post(client, match, "resign", match.tokens[0])
    assert last.status_code == 200, last.get_json()
    result = last.get_json()["result"]
    assert last.get_json()["status"] == "finished"
    assert result == {
        "scores": [0.0, 0.0],
        "ranking": [[0, 1]],
        "winners": [],
        "draw": False,
        "reason": "the team gave up",
        "team_success": False,
    }
    assert read_log(client, match.id)["entries"][-1].get("handed_to") is None


def test_resign_needs_the_seat_s_own_token_and_a_running_match(client: FlaskClient) -> None:
    match = create_match(client, seed="who-resigns")
    other = create_match(client, seed="someone-else")
    assert client.post(match.url("/resign")).status_code == 401
    assert post(client, match, "resign", other.tokens[0]).status_code == 403
    assert post(client, match, "resign", "not-a-token").status_code == 401
    assert post(client, match, "resign", match.body["owner_token"]).status_code == 403
    assert post(client, match, "resign", match.tokens[0]).status_code == 200
    late = post(client, match, "resign", match.tokens[1])
    assert late.status_code == 409 and late.get_json()["code"] == "match-over"
    action = client.post(match.url("/actions"), json={"action": {}}, headers=bearer(match.tokens[1]))
    assert action.status_code == 409


def test_resign_and_an_action_never_both_apply(client: FlaskClient) -> None:
    match = create_match(client, seed="race")
    seat = client.get(match.url()).get_json()["to_act"][0]
    legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
    answers: dict[str, int] = {}

    def resign() -> None:
        answers["resign"] = post(client, match, "resign", match.tokens[1 - seat]).status_code

    def act() -> None:
        response = client.post(
            match.url("/actions"),
            json={"action": legal["actions"][0], "expected_version": 0},
            headers=bearer(match.tokens[seat]),
        )
        answers["act"] = response.status_code

    threads = [threading.Thread(target=resign), threading.Thread(target=act)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    body = client.get(match.url()).get_json()
    assert answers["resign"] == 200 and body["status"] == "finished"
    assert body["version"] == (2 if answers["act"] == 200 else 1)
    assert len(read_log(client, match.id)["entries"]) == body["version"]


def test_leave_opens_the_seat_and_ends_the_token(client: FlaskClient) -> None:
    match = create_match(client, open_seats=[1])
    joined = client.post(match.url("/join"), json={"name": "Ada"}).get_json()
    assert joined["status"] == "active"
    assert post(client, match, "leave", joined["token"]).get_json()["code"] == "match-started"

    waiting = create_match(client, game="sundae_split", players=3, open_seats=[2])
    token = waiting.tokens[1]
    answer = post(client, waiting, "leave", token)
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["open_seats"] == [1, 2]
    assert post(client, waiting, "leave", token).status_code == 401, "the token stopped working"
    seats = client.get(waiting.url()).get_json()["seats"]
    assert seats[1]["filled"] is False and seats[1]["name"] is None
    again = client.post(waiting.url("/join"), json={"seat": 1, "name": "Bea"})
    assert again.status_code == 200 and again.get_json()["seat"] == 1
    abort = client.post(waiting.url("/abort"), headers=bearer(waiting.body["owner_token"]))
    assert abort.status_code == 200 and abort.get_json()["status"] == "aborted"
    assert post(client, waiting, "leave", waiting.tokens[0]).get_json()["code"] == "match-aborted"


def finished_by_resignation(client: FlaskClient, **request: Any) -> Match:
    """A match created with `request` that seat 0 resigned at once."""
    match = create_match(client, **request)
    assert post(client, match, "resign", match.tokens[0]).status_code == 200
    return match


def test_a_rematch_of_two_humans_rotates_the_seats_and_hands_each_its_own_token(client: FlaskClient) -> None:
    match = finished_by_resignation(
        client, seats=[{"type": "human", "name": "Ada"}, {"type": "human", "name": "Bea"}], turn_timer={"seconds": 60}
    )
    offered = post(client, match, "rematch", match.tokens[1])
    assert offered.status_code == 200
    offer = offered.get_json()["rematch"]
    assert offer == {"offered_by": [1], "waiting_for": [0], "match": None, "seat": None, "token": None}
    assert post(client, match, "rematch", match.tokens[1]).get_json()["rematch"] == offer, "posting twice is one offer"
    assert client.get(match.url()).get_json()["rematch"]["waiting_for"] == [0]
    accepted = post(client, match, "rematch", match.tokens[0]).get_json()["rematch"]
    new_id = accepted["match"]
    assert new_id is not None and accepted["seat"] == 1 and accepted["token"].startswith(f"{new_id}.1.")
    public = client.get(match.url()).get_json()["rematch"]
    assert public["match"] == new_id and public["token"] is None and public["seat"] is None
    mine = client.get(match.url(), headers=bearer(match.tokens[1])).get_json()["rematch"]
    assert mine["seat"] == 0 and mine["token"].startswith(f"{new_id}.0.") and mine["token"] != accepted["token"]
    rematch = client.get(f"/v1/matches/{new_id}").get_json()
    assert rematch["status"] == "active" and rematch["game"] == "icecream"
    assert [seat["name"] for seat in rematch["seats"]] == ["Bea", "Ada"]
    assert rematch["turn_timer"] == {"seconds": 60} and rematch["options"] == match.body["options"]
    move = client.get(f"/v1/matches/{new_id}/legal-actions", headers=bearer(mine["token"]))
    assert move.status_code == 200 and move.get_json()["seat"] == 0


def test_a_rematch_with_an_ai_seat_starts_when_the_human_posts(client: FlaskClient) -> None:
    match = finished_by_resignation(client, seats=[{"type": "human"}, {"type": "ai", "level": "random"}])
    answer = post(client, match, "rematch", match.tokens[0]).get_json()["rematch"]
    assert answer["offered_by"] == [0] and answer["waiting_for"] == [] and answer["match"] is not None
    rematch = client.get(f"/v1/matches/{answer['match']}").get_json()
    assert [seat["type"] for seat in rematch["seats"]] == ["ai", "human"]
    assert rematch["seats"][0]["level"] == "random" and answer["seat"] == 1


def test_a_rematch_needs_a_finished_match(client: FlaskClient, match: Match) -> None:
    early = post(client, match, "rematch", match.tokens[0])
    assert early.status_code == 409 and early.get_json()["code"] == "match-not-over"
    assert client.post(match.url("/rematch")).status_code == 401


def test_concurrent_acceptances_start_one_rematch(client: FlaskClient) -> None:
    match = finished_by_resignation(client, game="sundae_split", players=3)
    assert post(client, match, "rematch", match.tokens[0]).status_code == 200
    answers: dict[int, dict[str, Any]] = {}

    def accept(seat: int) -> None:
        answers[seat] = post(client, match, "rematch", match.tokens[seat]).get_json()

    threads = [threading.Thread(target=accept, args=(seat,)) for seat in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    started = {
        client.get(match.url(), headers=bearer(match.tokens[seat])).get_json()["rematch"]["match"] for seat in (0, 1, 2)
    }
    assert len(started) == 1 and None not in started
    listed = client.get("/v1/matches?game=sundae_split&limit=100").get_json()["items"]
    assert len(listed) == 2 and started.pop() in [item["id"] for item in listed], "the match and one rematch"


def test_an_unlisted_match_is_not_listed_but_readable_and_joinable(client: FlaskClient) -> None:
    hidden = create_match(client, game="sundae_split", players=2, open_seats=[1], unlisted=True)
    shown = create_match(client, game="sundae_split", players=2, open_seats=[1])
    assert hidden.body["unlisted"] is True and shown.body["unlisted"] is False
    for query in ("", "?game=sundae_split", "?status=waiting", "?game=sundae_split&status=waiting"):
        ids = [item["id"] for item in client.get(f"/v1/matches{query}").get_json()["items"]]
        assert hidden.id not in ids and shown.id in ids, query
    assert client.get(hidden.url()).get_json()["unlisted"] is True
    joined = client.post(hidden.url("/join"), json={"name": "Cy"})
    assert joined.status_code == 200 and joined.get_json()["status"] == "active"


def test_a_lobby_page_fills_itself_past_unlisted_matches(client: FlaskClient) -> None:
    listed = [create_match(client, game="freeze_factory", players=2).id for _ in range(2)]
    for _ in range(3):
        create_match(client, game="freeze_factory", players=2, unlisted=True)
    page = client.get("/v1/matches?game=freeze_factory&limit=2").get_json()
    assert [item["id"] for item in page["items"]] == listed[::-1]
    assert page["next_cursor"] is not None
    rest = client.get(f"/v1/matches?game=freeze_factory&limit=2&cursor={page['next_cursor']}").get_json()
    assert rest == {"items": [], "next_cursor": None}


def test_unlisted_must_be_a_boolean(client: FlaskClient) -> None:
    answer = client.post("/v1/matches", json={"game": "icecream", "players": 2, "unlisted": "yes"})
    assert answer.status_code == 400 and "unlisted" in answer.get_json()["errors"]


def rematch_events(stream: Stream) -> list[dict[str, Any]]:
    """The `rematch` of each `match` event until the stream's `end`."""
    offers = []
    while (event := stream.next()) is not None and event.name == "match":
        offers.append(event.data["match"]["rematch"])
    assert event is not None and event.name == "end", "the stream ends once the rematch started"
    return offers


def test_the_offer_and_each_seat_s_own_token_reach_the_streams_that_follow_the_rematch(client: FlaskClient) -> None:
    match = finished_by_resignation(client, seed="streamed")
    streams = {seat: follow(client, match, seat, query_string={"rematch": "true"}) for seat in (0, 1)}
    public = follow(client, match, query_string={"rematch": "true"})
    plain = follow(client, match)
    assert plain.event("match").data["match"]["status"] == "finished" and plain.event("end")
    for stream in (*streams.values(), public):
        first = stream.event("match").data["match"]
        assert first["status"] == "finished" and first["rematch"] is None
    post(client, match, "rematch", match.tokens[1])
    for stream in (*streams.values(), public):
        offer = stream.event("match").data["match"]["rematch"]
        assert offer["offered_by"] == [1] and offer["waiting_for"] == [0] and offer["match"] is None
    post(client, match, "rematch", match.tokens[0])
    seen = {seat: rematch_events(stream)[-1] for seat, stream in streams.items()}
    last_public = rematch_events(public)[-1]
    new_id = last_public["match"]
    assert new_id is not None and last_public["token"] is None
    for seat, offer in seen.items():
        new_seat = (seat - 1) % 2
        assert offer["match"] == new_id and offer["seat"] == new_seat
        assert offer["token"].startswith(f"{new_id}.{new_seat}."), "each seat sees its own token only"


def test_two_bots_resign_and_rematch_with_their_bot_tokens(client: FlaskClient) -> None:
    bots = [register(client, name) for name in ("lifecycle-a", "lifecycle-b")]
    streams = [follow_bot(client, bot) for bot in bots]
    match = create_match(client, seats=[{"type": "bot", "bot": bot["id"]} for bot in bots])
    assert client.get(match.url()).get_json()["status"] == "active"
    resigned = post(client, match, "resign", bots[0]["token"]).get_json()
    assert resigned["result"]["reason"] == "seat 0 resigned" and resigned["result"]["winners"] == [1]
    for stream in streams:
        events: list[Event] = []
        while not events or events[-1].name != "match-over":
            event = stream.next()
            assert event is not None
            events.append(event)
        assert events[-1].data["result"]["reason"] == "seat 0 resigned", "bots hear the resignation's result"
    offered = post(client, match, "rematch", bots[1]["token"]).get_json()["rematch"]
    assert offered["waiting_for"] == [0]
    started = post(client, match, "rematch", bots[0]["token"]).get_json()["rematch"]
    assert started["match"] is not None and started["seat"] == 1 and started["token"] is None
    rematch = client.get(f"/v1/matches/{started['match']}").get_json()
    assert rematch["status"] == "active"
    assert [seat["bot"] for seat in rematch["seats"]] == [bots[1]["id"], bots[0]["id"]], "the seats rotated"
    for stream, seat in zip(streams, (1, 0), strict=True):
        event = stream.next()
        assert event is not None and event.name == "match-started"
        assert event.data["match"] == started["match"] and event.data["seat"] == seat
        stream.close()
    legal = client.get(f"/v1/matches/{started['match']}/legal-actions", headers=bearer(bots[1]["token"]))
    assert legal.status_code == 200 and legal.get_json()["seat"] == 0, "a bot token works for its new seat"


def test_a_rematch_a_bot_has_no_room_for_is_refused_and_may_be_asked_again(client: FlaskClient) -> None:
    bot = register(client, "lifecycle-capped")
    capped = client.patch(f"/v1/bots/{bot['id']}", json={"max_matches": 1}, headers=bearer(bot["token"]))
    assert capped.status_code == 200, capped.get_json()
    match = create_match(client, seats=[{"type": "human"}, {"type": "bot", "bot": bot["id"]}])
    assert post(client, match, "resign", match.tokens[0]).status_code == 200
    busy = create_match(client, seats=[{"type": "human"}, {"type": "bot", "bot": bot["id"]}])
    assert post(client, match, "rematch", match.tokens[0]).status_code == 200
    refused = post(client, match, "rematch", bot["token"])
    assert refused.status_code == 409 and refused.get_json()["code"] == "bot-at-capacity"
    offer = client.get(match.url()).get_json()["rematch"]
    assert offer == {"offered_by": [0], "waiting_for": [1], "match": None, "seat": None, "token": None}
    assert post(client, busy, "resign", busy.tokens[0]).status_code == 200
    started = post(client, match, "rematch", bot["token"]).get_json()["rematch"]
    assert started["match"] is not None
    assert client.get(f"/v1/matches/{started['match']}").get_json()["status"] == "active"


class ProcessDied(BaseException):
    """Stands for the death of the process that completed an offer (no `except Exception` catches it)."""


def test_a_rematch_whose_start_died_with_its_process_is_started_by_the_next_post(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = finished_by_resignation(client, seats=[{"type": "human"}, {"type": "human"}])
    assert post(client, match, "rematch", match.tokens[0]).status_code == 200

    def dies(*args: Any, **kwargs: Any) -> None:
        raise ProcessDied

    with monkeypatch.context() as patched:
        patched.setattr(lifecycle, "store_new_match", dies)
        with pytest.raises(ProcessDied):
            post(client, match, "rematch", match.tokens[1])  # the acceptance is stored; the rematch is not
    stuck = client.get(match.url()).get_json()["rematch"]
    assert stuck["waiting_for"] == [] and stuck["match"] is None
    resumed = post(client, match, "rematch", match.tokens[0]).get_json()["rematch"]  # any seat's next post
    assert resumed["match"] is not None and resumed["token"].startswith(f"{resumed['match']}.{resumed['seat']}.")
    theirs = client.get(match.url(), headers=bearer(match.tokens[1])).get_json()["rematch"]
    assert theirs["match"] == resumed["match"] and theirs["token"] != resumed["token"]
    for rematch in (resumed, theirs):
        mine = client.get(f"/v1/matches/{rematch['match']}/legal-actions", headers=bearer(rematch["token"]))
        assert mine.status_code == 200 and mine.get_json()["seat"] == rematch["seat"]
    again = post(client, match, "rematch", match.tokens[1]).get_json()["rematch"]
    assert again["match"] == resumed["match"], "posting after the start changes nothing"
    listed = client.get("/v1/matches?game=icecream&limit=100").get_json()["items"]
    assert len(listed) == 2, "the match and one rematch"
