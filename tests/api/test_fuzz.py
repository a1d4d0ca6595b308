"""Schemathesis fuzzes every operation of openapi.yaml in process: whatever a stranger sends, no answer is a 5xx.

Each operation gets a fresh match (IceCream, then the other games by turns), a bot, a tournament and a
person's matchmaking ticket. Three cases in four are aimed at them, so that generated requests reach the
views behind real ids and not only the 404 of an unknown one, and every other case carries a real token
of the kind its path takes in place of the generated header, so both the refusals and the authenticated
paths are fuzzed. Positive and negative cases are mixed. The contract tests (test_openapi.py) check
answers against the document; this looks for what no example covers (it found a 500 on `GET
/v1/jobs/{id}`).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from requests.structures import CaseInsensitiveDict
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from api.current import ParlourApp
from tests.api.conftest import bearer, create_match
from tests.api.openapi_support import documented_operations, load_document

GAMES = itertools.cycle(
    [("icecream", 2), ("robots_love_ice_cream", 3), ("freeze_factory", 3), ("rockem_sockem", 2), ("sundae_split", 3)]
)
MATCH_STREAM = ("/v1/matches/{match_id}/events", "GET")
"""A match's stream stays open while the match runs: it is fuzzed on a finished match (no rematch followed)."""
BOT_STREAM = "/v1/bots/{bot_id}/events"
"""A bot's stream stays open for as long as its client reads: it is fuzzed as the long poll it also is (`wait=0`)."""
EXAMPLES = int(os.environ.get("PARLOUR_FUZZ_EXAMPLES", "40"))
"""Cases per operation; set PARLOUR_FUZZ_EXAMPLES higher for a longer hunt."""
OPERATIONS = sorted(documented_operations(load_document()))


@dataclass(frozen=True)
class Targets:
    """Real ids and tokens for the generated requests to aim at."""

    ids: dict[str, str]
    tokens: dict[str, str]  # the bot's and the owners'
    seats: tuple[str, ...]  # every seat's token of the match, seat 0's first


@pytest.fixture
def targets(client: FlaskClient) -> Targets:
    """A fresh match of the next game, a bot and a tournament between it and a random AI."""
    return make_targets(client)


def make_targets(client: FlaskClient) -> Targets:
    """A fresh match of the next game, a bot, a tournament between it and a random AI, and a person's waiting
    matchmaking ticket."""
    game, players = next(GAMES)
    match = create_match(client, game=game, players=players)
    bot = client.post("/v1/bots", json={"name": "Fuzzy"}).get_json()
    tournament = client.post(
        "/v1/tournaments",
        json={"game": "icecream", "entrants": [{"type": "ai", "level": "random"}, {"type": "bot", "bot": bot["id"]}]},
    ).get_json()
    ticket = client.post(
        "/v1/matchmaking", json={"game": "sundae_split", "players": 5, "name": "Fuzzy person"}
    ).get_json()
    return Targets(
        ids={"match_id": match.id, "bot_id": bot["id"], "tournament_id": tournament["id"], "ticket_id": ticket["id"]},
        tokens={
            "bot": bot["token"],
            "ticket": ticket["token"],
            "match owner": match.body["owner_token"],
            "tournament owner": tournament["owner_token"],
        },
        seats=tuple(token for _, token in sorted(match.tokens.items())),
    )


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_no_request_gets_a_server_error(
    path: str, method: str, app: ParlourApp, client: FlaskClient, targets: Targets
) -> None:
    if (path, method) == MATCH_STREAM:
        end_match(client, targets)
    operation = schemathesis.openapi.from_wsgi("/v1/openapi.json", app)[path][method]
    cases = st.one_of([operation.as_strategy(mode) for mode in GenerationMode])

    turns = itertools.count()

    @given(case=cases)
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def fuzz(case: schemathesis.Case[Any]) -> None:
        turn = next(turns)  # taken by turns, not drawn: Hypothesis leans its draws towards False
        aim(case, targets, real_ids=turn % 4 != 3, real_token=turn % 2 == 0)
        case.call_and_validate(checks=[not_a_server_error])

    fuzz()


def end_match(client: FlaskClient, targets: Targets) -> None:
    """Every seat resigns until the match is over: in a co-operative game a seat that resigns goes to the AI."""
    for token in targets.seats:
        resigned = client.post(f"/v1/matches/{targets.ids['match_id']}/resign", headers=bearer(token))
        assert resigned.status_code == 200, resigned.get_json()
        if resigned.get_json()["status"] == "finished":
            return
    raise AssertionError("the match did not end when every seat resigned")


def aim(case: schemathesis.Case[Any], targets: Targets, real_ids: bool, real_token: bool) -> None:
    """Point the case at the real resources and give it a real token of the kind its path takes, as told."""
    for name in case.path_parameters or {}:
        if name in targets.ids and real_ids:
            case.path_parameters[name] = targets.ids[name]
    query = case.query if case.query is not None else {}
    if "wait" in query or case.path == BOT_STREAM:
        query["wait"] = 0  # a long poll answers at once instead of holding the test for up to 30 s
    query.pop("rematch", None)  # a finished match's stream would wait for its rematch
    case.query = query
    if real_token:
        headers = case.headers if case.headers is not None else CaseInsensitiveDict()
        headers["Authorization"] = f"Bearer {token_for(case.path, targets)}"
        case.headers = headers


def token_for(path: str, targets: Targets) -> str:
    """The token an operation's path asks for: a bot's, an owner's or a seat's."""
    if path.startswith("/v1/bots"):
        return targets.tokens["bot"]
    if path.startswith("/v1/tournaments"):
        return targets.tokens["tournament owner"]
    if path.startswith("/v1/matchmaking"):
        return targets.tokens["ticket"]
    if path.endswith("/abort"):
        return targets.tokens["match owner"]
    return targets.seats[0]
