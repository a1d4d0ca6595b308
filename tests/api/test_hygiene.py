"""Input hygiene: malformed tokens, odd paths, private answers kept out of caches, and names."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from model.names import fold_name, name_problem
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_errors import assert_problem

MOVE = {"type": "move", "from_cone": 0, "scoops": 1}


@pytest.fixture
def bot(client: FlaskClient) -> dict[str, Any]:
    """A registered bot named `Rando`."""
    response = client.post("/v1/bots", json={"name": "Rando"})
    assert response.status_code == 201
    return dict(response.get_json())


# --- tokens -----------------------------------------------------------------------------------------
BAD_TOKENS = [
    "abc.².secret",  # a superscript two: str.isdigit() says yes, int() says no
    "abc.\u00c2\u00b2.secret",  # the same seat sent as UTF-8 bytes, read as Latin-1 by the server
    "abc.\u0663.secret",  # an Arabic-Indic three, which int() reads as 3
    "\uff41bc.0.secret",  # a fullwidth letter in the match id
    "abc.0.s\u00e9cret",
    "abc.0.secret\u202e",
    "abc.100.secret",
    "abc.0.",
    ".0.secret",
    "abc..secret",
    "abc.0.se.cret",
    "bot.\u00b2.secret",
    "bot.id.secret.more",
    "bot..secret",
    "bot.id.",
]


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_a_malformed_or_non_ascii_token_is_401(
    client: FlaskClient, match: Match, bot: dict[str, Any], token: str
) -> None:
    for method, url in (
        ("GET", match.url()),
        ("GET", match.url("/legal-actions")),
        ("GET", match.url("/log")),
        ("GET", match.url("/events")),
        ("POST", match.url("/actions")),
        ("POST", match.url("/ai-move")),
        ("GET", "/v1/jobs/some-job"),
        ("GET", f"/v1/bots/{bot['id']}/events"),
    ):
        body = {"action": MOVE, "expected_version": 0} if url.endswith("/actions") else None
        response = client.open(url, method=method, json=body, headers=bearer(token))
        assert_problem(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_the_exact_case_of_the_issue(client: FlaskClient, match: Match) -> None:
    response = client.get(match.url("/legal-actions"), headers=bearer("abc.².secret"))
    body = assert_problem(response, 401, "unauthorized")
    assert "Traceback" not in body["detail"]


# --- paths ------------------------------------------------------------------------------------------
def filled(argument: re.Match[str]) -> str:
    """A route's argument filled in: `1` for an int, else `x`."""
    return "1" if argument[0].startswith("<int:") else "x"


def routes(app: Flask) -> list[tuple[str, str]]:
    """(METHOD, a concrete path) for every route the app serves, each argument filled in with `x`."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[a-z]+:)?[a-z_]+>", filled, rule.rule)
        found += [(method, path) for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})]
    return found


def test_no_route_ends_with_a_slash(app: Flask) -> None:
    """Only the web client's page is `/`: no other rule ends with a slash (Werkzeug would redirect to it)."""
    assert [rule.rule for rule in app.url_map.iter_rules() if rule.rule.endswith("/")] == ["/"]


def test_odd_paths_answer_problem_json_on_every_route(app: Flask, client: FlaskClient) -> None:
    for method, path in routes(app):
        if path == "/":
            continue  # the web client's page: `//` is a trailing slash too, checked with the other paths
        odd = [f"{path}/", f"{path}//"]
        if path.startswith("/v1/"):  # (`//docs` would be a host to the test client, not a path)
            odd.append(path.replace("/v1/", "/v1//", 1))
        if "/x" in path:
            odd.append(path.replace("/x", "/", 1))  # an empty id: `/v1/matches//legal-actions`
        for url in dict.fromkeys(odd):
            response = client.open(url, method=method)
            body = assert_problem(response, 404, "not-found")
            assert "Location" not in response.headers and "trailing slash" in body["detail"], (method, url)


def test_the_issues_paths(client: FlaskClient, match: Match) -> None:
    empty_id = client.get("/v1/matches//legal-actions", headers=bearer(match.tokens[0]))
    assert_problem(empty_id, 404, "not-found")
    assert empty_id.status_code != 308
    assert_problem(client.get(match.url("/log/")), 404, "not-found")
    assert_problem(client.get("/v1/matches/"), 404, "not-found")
    assert_problem(client.post("/v1/matches/", json={"game": "icecream", "players": 2}), 404, "not-found")


# --- Cache-Control ----------------------------------------------------------------------------------
def no_store(response: TestResponse) -> bool:
    """True when the answer tells every cache not to keep it."""
    return response.headers.get("Cache-Control") == "no-store"


def test_every_answer_carrying_a_token_or_a_seat_view_is_no_store(client: FlaskClient, bot: dict[str, Any]) -> None:
    body = {"game": "icecream", "players": 2, "open_seats": [1], "assistance": "allowed"}  # hints allowed
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201 and no_store(created)
    match_id, token = created.get_json()["id"], created.get_json()["tokens"][0]["token"]
    url = f"/v1/matches/{match_id}"
    joined = client.post(f"{url}/join", json={"name": "Ada"})
    assert joined.status_code == 200 and no_store(joined)
    seat = bearer(token)
    for path in ("", "/legal-actions", "/log"):
        answer = client.get(f"{url}{path}", headers=seat)
        assert answer.status_code == 200 and no_store(answer), path
    assert no_store(client.get(url, headers={**seat, "If-None-Match": '"1"'}))  # the 304 too
    acted = client.post(f"{url}/actions", json={"action": MOVE, "expected_version": 1}, headers=seat)
    assert acted.status_code == 200 and no_store(acted)
    asked = client.post(f"{url}/ai-move", json={}, headers=bearer(joined.get_json()["token"]))
    assert asked.status_code == 202 and no_store(asked)
    job = client.get(asked.get_json()["url"], headers=bearer(joined.get_json()["token"]))
    assert job.status_code == 200 and no_store(job)
    refused = client.get(f"{url}/legal-actions?seat=1", headers=seat)  # an error to a token holder, too
    assert refused.status_code == 403 and no_store(refused)

    # A bot's token: its registration, its seat's answers, its events.
    registered = client.post("/v1/bots", json={"name": "other-bot"})
    assert registered.status_code == 201 and no_store(registered)
    bot_match = create_match(client, seats=[{"type": "bot", "bot": bot["id"]}, {"type": "human"}])
    by_bot = bearer(bot["token"])
    for path in ("", "/legal-actions", "/log"):
        answer = client.get(bot_match.url(path), headers=by_bot)
        assert answer.status_code == 200 and no_store(answer), path
    polled = client.get(f"/v1/bots/{bot['id']}/events?after=0&wait=0", headers=by_bot)
    assert polled.status_code == 200 and no_store(polled)
    stream = client.get(f"/v1/bots/{bot['id']}/events", headers=by_bot, buffered=False)
    assert stream.status_code == 200 and no_store(stream)
    stream.close()


def test_public_answers_keep_their_caching(client: FlaskClient, match: Match) -> None:
    for url in (match.url(), match.url("/log"), "/v1/games", "/v1/matches"):
        answer = client.get(url)
        assert answer.status_code == 200 and "Cache-Control" not in answer.headers, url
    assert client.get(match.url()).headers["ETag"] == '"0"'
    assert client.get(match.url(), headers={"If-None-Match": '"0"'}).status_code == 304


# --- names ------------------------------------------------------------------------------------------
BAD_NAMES = [
    "\u202eevil",  # a right-to-left override
    "Ada\u202c",
    "a\u2066b\u2069",  # an isolate
    "a\u200fb",  # a right-to-left mark
    "a\u200bb",  # a zero-width space
    "line\nbreak",
    "Ada\n",
    "tab\there",
    "nul\x00",
    "a\u2028b",  # a line separator
    "a\u00a0b",  # a no-break space
    "<script>alert(1)</script>",
    "a<b",
    "b>a",
    " Ada",
    "Ada ",
    "",
    "x" * 65,
    "\ue000",  # private use
]
GOOD_NAMES = ["Ada", "Ö. Ğüneş", "Tom & Jerry", "O'Brien", "李小龍", "🍦 fan", "x" * 64]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_name_is_refused_everywhere(client: FlaskClient, name: str) -> None:
    assert name_problem(name) is not None
    seats = [{"type": "human", "name": name}, {"type": "open"}]
    body = assert_problem(
        client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats}), 400, "invalid-request"
    )
    assert body["errors"] == {"seats": {"0": {"name": body["errors"]["seats"]["0"]["name"]}}}
    match = create_match(client, open_seats=[1])
    body = assert_problem(client.post(match.url("/join"), json={"name": name}), 400, "invalid-request")
    assert list(body["errors"]) == ["name"]
    entrants = [{"type": "ai", "level": "random", "name": name}, {"type": "ai", "level": "easy"}]
    body = assert_problem(
        client.post("/v1/tournaments", json={"game": "icecream", "entrants": entrants}), 400, "invalid-request"
    )
    assert body["errors"] == {"entrants": {"0": {"name": body["errors"]["entrants"]["0"]["name"]}}}
    assert_problem(client.post("/v1/bots", json={"name": name}), 400, "invalid-request")


def test_the_bot_pattern_no_longer_takes_a_trailing_newline(client: FlaskClient) -> None:
    assert_problem(client.post("/v1/bots", json={"name": "rando\n"}), 400, "invalid-request")


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_a_good_name_is_shown_as_given(client: FlaskClient, name: str) -> None:
    match = create_match(client, seats=[{"type": "human", "name": name}, {"type": "open"}])
    joined = client.post(match.url("/join"), json={"name": name})
    assert joined.status_code == 200, joined.get_json()
    assert [seat["name"] for seat in client.get(match.url()).get_json()["seats"]] == [name, name]


def test_a_human_may_not_take_a_bots_name(client: FlaskClient, bot: dict[str, Any]) -> None:
    for name in ("Rando", "rando", "RANDO", "\uff32\uff41\uff4e\uff44\uff4f"):  # the last one fullwidth
        assert fold_name(name) == "rando"
        for seats in (
            [{"type": "human", "name": name}, {"type": "ai", "level": "easy"}],
            [{"type": "open", "name": name}, {"type": "human"}],
        ):
            refused = client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats})
            assert "registered bot" in assert_problem(refused, 409, "name-taken")["detail"]
        match = create_match(client, open_seats=[1])
        assert_problem(client.post(match.url("/join"), json={"name": name}), 409, "name-taken")
        assert client.get(match.url()).get_json()["status"] == "waiting", "nothing was joined"
    # An AI seat shows its level and type, so its name may be anything printable.
    seats = [{"type": "human", "name": "Ada"}, {"type": "ai", "level": "easy", "name": "Rando"}]
    assert client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats}).status_code == 201


def test_an_entrant_may_not_take_another_bots_name(client: FlaskClient, bot: dict[str, Any]) -> None:
    other = client.post("/v1/bots", json={"name": "Other"}).get_json()
    base = {"game": "sundae_split", "games_per_pairing": 1, "turn_timer": {"seconds": 30}}

    def entrants(*specs: dict[str, Any]) -> dict[str, Any]:
        return {**base, "entrants": [*specs, {"type": "ai", "level": "random"}]}

    as_ai = entrants({"type": "ai", "level": "easy", "name": "RANDO"})
    assert_problem(client.post("/v1/tournaments", json=as_ai), 409, "name-taken")
    as_other = entrants({"type": "bot", "bot": other["id"], "name": "rando"})
    assert_problem(client.post("/v1/tournaments", json=as_other), 409, "name-taken")
    as_itself = entrants({"type": "bot", "bot": bot["id"], "name": "rando"})  # its own name, in another case
    assert client.post("/v1/tournaments", json=as_itself).status_code == 201
