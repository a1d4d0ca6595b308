"""Fair play: a match allows or forbids its seats' asks for the AI's help while it runs (issue 36, item 4).

The default is forbidden when two or more seats are not the server's AI, or when the match would be
rated; a forbidden ask is a 403 `assistance-forbidden` before any job is queued; a match that allows
assistance is never rated; a rematch keeps its original's setting; records stored before the field
existed read back with the rule's default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.ladder.ratings import rated_entrants
from domain.matches.fair_play import assistance_allowed, check_assistance
from model.match import FINISHED, Assistance, MatchRecord, SeatRecord, default_assistance
from model.refusals import AssistanceForbidden
from store.jobs import HINT_QUEUE
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_bots import register
from tests.api.test_bots_listing import play, two_bot_match
from tests.api.test_lifecycle import finished_by_resignation, post
from tests.api.test_openapi import WINNING_LINE

HUMANS = [{"type": "human"}, {"type": "human"}]
VERSUS_AI = [{"type": "human"}, {"type": "ai", "level": "random"}]


def ask_hint(client: FlaskClient, match: Match, seat: int = 0) -> Any:
    """POST .../ai-move for the seat (a hint at the random level)."""
    return client.post(match.url("/ai-move"), json={"level": "random"}, headers=bearer(match.tokens[seat]))


def assistance_of(client: FlaskClient, match: Match) -> str:
    """The match's `assistance`, as the public reads it."""
    return str(client.get(match.url()).get_json()["assistance"])


def test_a_match_between_two_people_refuses_a_hint_with_403_before_any_job_is_queued(
    client: FlaskClient, app: ParlourApp
) -> None:
    match = create_match(client, seats=HUMANS)
    assert assistance_of(client, match) == "forbidden"
    refused = ask_hint(client, match)
    assert refused.status_code == 403 and refused.mimetype == "application/problem+json"
    problem = refused.get_json()
    assert problem["code"] == "assistance-forbidden"
    assert "forbids hints" in problem["detail"]
    assert app.services.jobs.waiting(HINT_QUEUE) == 0  # nothing for a worker to run
    assert app.services.store.requested_move(match.id, 0) is None  # nor a claim for one


def test_a_person_against_the_ai_may_ask_for_a_hint(client: FlaskClient, app: ParlourApp) -> None:
    match = create_match(client, seats=VERSUS_AI)
    assert assistance_of(client, match) == "allowed"
    asked = ask_hint(client, match)
    assert asked.status_code == 202, asked.get_json()
    assert app.services.jobs.waiting(HINT_QUEUE) == 1


@pytest.mark.parametrize(
    ("seats", "assistance", "status"),
    [(HUMANS, "allowed", 202), (VERSUS_AI, "forbidden", 403), (HUMANS, "forbidden", 403), (VERSUS_AI, None, 202)],
)
def test_the_creator_s_choice_is_honoured(
    client: FlaskClient, seats: list[dict[str, Any]], assistance: str | None, status: int
) -> None:
    match = create_match(client, seats=seats, assistance=assistance)
    assert assistance_of(client, match) == (assistance or "allowed")
    assert ask_hint(client, match).status_code == status


@pytest.mark.parametrize(
    "body",
    [
        {"assistance": "sometimes"},
        {"assistance": True},
        {"ai_pace": {"milliseconds": 99}},
        {"ai_pace": {"milliseconds": 10_001, "when": "always"}},
        {"ai_pace": {"milliseconds": 500, "when": "never"}},
        {"ai_pace": {"when": "always"}},
        {"ai_pace": {"milliseconds": "500"}},
    ],
)
def test_bad_options_are_400_naming_the_field(client: FlaskClient, body: dict[str, Any]) -> None:
    response = client.post("/v1/matches", json={"game": "icecream", "players": 2, **body})
    assert response.status_code == 400, response.get_json()
    assert set(response.get_json()["errors"]) == set(body)


def test_the_pace_is_shown_as_asked(client: FlaskClient) -> None:
    paced = create_match(client, seats=VERSUS_AI, ai_pace={"milliseconds": 400})
    assert client.get(paced.url()).get_json()["ai_pace"] == {"milliseconds": 400, "when": "watched"}
    assert client.get(create_match(client).url()).get_json()["ai_pace"] is None


def test_a_finished_match_no_longer_forbids_help(client: FlaskClient, app: ParlourApp) -> None:
    match = finished_by_resignation(client, seats=HUMANS)
    record = app.services.store.load(match.id)
    assert record is not None and record.status == FINISHED and not assistance_allowed(record)
    check_assistance(record, 0)  # over: its analysis is anyone's


def seats_of(*kinds: str) -> list[SeatRecord]:
    """Seats as created: `human` (a token), `open`, `ai` or `bot`."""
    made: dict[str, Callable[[int], SeatRecord]] = {
        "human": lambda n: SeatRecord(n, token_hash="h"),
        "open": lambda n: SeatRecord(n),
        "ai": lambda n: SeatRecord(n, ai_level="easy"),
        "bot": lambda n: SeatRecord(n, bot=f"bot{n}", pending=True),
    }
    return [made[kind](n) for n, kind in enumerate(kinds)]


@pytest.mark.parametrize(
    ("game", "kinds", "expected"),
    [
        ("icecream", ("human", "human"), "forbidden"),  # two people
        ("icecream", ("human", "bot"), "forbidden"),
        ("icecream", ("human", "open"), "forbidden"),
        ("sundae_split", ("human", "ai", "open"), "forbidden"),
        ("icecream", ("human", "ai"), "allowed"),  # one person against the AI
        ("icecream", ("ai", "ai"), "allowed"),  # the AI alone
        ("icecream", ("bot", "ai"), "forbidden"),  # rated: a bot against an AI level
        ("icecream", ("open", "ai"), "forbidden"),  # a bot may take the open seat: rated then
        ("robots_love_ice_cream", ("bot", "ai"), "allowed"),  # co-operative: never rated
        ("robots_love_ice_cream", ("human", "human"), "forbidden"),
    ],
)
def test_the_default_follows_the_seats(game: str, kinds: tuple[str, ...], expected: str) -> None:
    assert default_assistance(game, seats_of(*kinds)) == expected


def test_a_record_stored_before_fair_play_reads_back_with_the_rule_s_default() -> None:
    for kinds, expected in ((("human", "human"), "forbidden"), (("human", "ai"), "allowed")):
        record = MatchRecord("m", "icecream", 2, {}, "seed", {}, seats_of(*kinds), assistance="allowed")
        stored: dict[str, Any] = dict(record.to_json())
        del stored["assistance"], stored["ai_pace"]
        old = MatchRecord.from_json(stored)  # type: ignore[arg-type]
        assert old.assistance == expected and old.ai_pace is None
        assert isinstance(old.assistance, Assistance)


def test_check_assistance_refuses_while_a_forbidding_match_runs() -> None:
    running = MatchRecord("m", "icecream", 2, {}, "seed", {}, seats_of("human", "human"))
    with pytest.raises(AssistanceForbidden) as refused:
        check_assistance(running, 1)
    assert refused.value.code == "assistance-forbidden" and "seat 1" in refused.value.detail
    check_assistance(MatchRecord("m", "icecream", 2, {}, "seed", {}, seats_of("human", "ai")), 0)


def test_a_match_that_allows_assistance_is_never_rated(client: FlaskClient, app: ParlourApp) -> None:
    one, two = register(client, "one"), register(client, "two")
    rated = two_bot_match(client, one, two)
    assert assistance_of(client, rated) == "forbidden"  # rated: fair play by default
    seats = [{"type": "bot", "bot": one["id"]}, {"type": "bot", "bot": two["id"]}]
    helped = create_match(client, seats=seats, assistance="allowed")
    tokens = [one["token"], two["token"]]
    play(client, helped, tokens, 0, len(WINNING_LINE))
    record = app.services.store.load(helped.id)
    assert record is not None and record.status == FINISHED and rated_entrants(record) is None
    assert client.get(f"/v1/bots/{one['id']}").get_json()["ratings"] == []  # the helped match counted for nobody
    play(client, rated, tokens, 0, len(WINNING_LINE))
    record = app.services.store.load(rated.id)
    assert record is not None and rated_entrants(record) is not None
    [rating] = client.get(f"/v1/bots/{one['id']}").get_json()["ratings"]
    assert rating["games"] == 1


def test_a_rematch_keeps_its_original_s_setting(client: FlaskClient) -> None:
    for assistance in ("allowed", "forbidden"):
        match = finished_by_resignation(client, seats=HUMANS, assistance=assistance, ai_pace={"milliseconds": 200})
        post(client, match, "rematch", match.tokens[1])
        started = post(client, match, "rematch", match.tokens[0]).get_json()["rematch"]["match"]
        rematch = client.get(f"/v1/matches/{started}").get_json()
        assert rematch["assistance"] == assistance
        assert rematch["ai_pace"] == {"milliseconds": 200, "when": "watched"}
