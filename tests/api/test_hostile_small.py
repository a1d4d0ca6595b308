"""Hostile clients, the smaller findings of the security review (issue 32, findings 9 to 11).

9: a cursor of non-ASCII digits (`²`, which `str.isdigit` accepts and `int` refuses) was a 500.
10: a bot name was reserved under `fold_name` (NFKC) but freed under `casefold`, so deleting "Bot²"
kept "bot2" reserved for ever.
11: no Content-Security-Policy, nosniff or framing ban on the web client and /docs (their buttons
could be clickjacked; the tokens sit in localStorage on the same origin as Swagger UI).
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.current import ParlourApp
from model.bot import BotRecord
from model.match import now_iso
from tests.api.conftest import bearer

ROOT = Path(__file__).resolve().parents[2]
MALFORMED_CURSORS = ["²:x", "¹²³:abc", "١٢:x", "\uff11\uff12:x", "12:", ":x", "x:y", "-1:x", "+1:x", " 1:x", "1 :x"]
"""Cursors no server hands out: non-ASCII digits (`int` reads the Arabic-Indic and fullwidth ones), signs, spaces."""


def assert_problem(response: TestResponse, status: int) -> None:
    """The answer is problem+json with this status."""
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json"


# --- 9: cursors -------------------------------------------------------------------------------
@pytest.mark.parametrize("cursor", MALFORMED_CURSORS)
def test_a_lobby_cursor_that_is_not_ascii_digits_and_an_id_is_a_400(client: FlaskClient, cursor: str) -> None:
    response = client.get("/v1/matches", query_string={"cursor": cursor})
    assert_problem(response, 400)
    assert list(response.get_json()["errors"]) == ["cursor"]


@pytest.mark.parametrize("cursor", MALFORMED_CURSORS)
def test_a_bot_history_cursor_that_is_not_ascii_digits_and_an_id_is_a_400(client: FlaskClient, cursor: str) -> None:
    bot = client.post("/v1/bots", json={"name": "cursor-bot"}).get_json()
    response = client.get(f"/v1/bots/{bot['id']}/matches", query_string={"status": "finished", "cursor": cursor})
    assert_problem(response, 400)


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/v1/bots/{bot}/challenges", {"cursor": "²²²:x"}),
        ("/v1/bots/{bot}/challenges", {"cursor": "\uff11\uff12.x"}),
        ("/v1/bots/{bot}/ratings", {"game": "icecream", "cursor": "²"}),
        ("/v1/games/icecream/leaderboard", {"cursor": "٣"}),
        ("/v1/bots/{bot}/events", {"after": "²", "wait": "0"}),
        ("/v1/matches", {"limit": "²"}),
    ],
)
def test_other_numbers_from_the_client_refuse_non_ascii_digits(
    client: FlaskClient, path: str, query: dict[str, str]
) -> None:
    bot = client.post("/v1/bots", json={"name": "numbers-bot"}).get_json()
    response = client.get(path.format(bot=bot["id"]), query_string=query, headers=bearer(bot["token"]))
    assert_problem(response, 400)


def test_a_last_event_id_of_non_ascii_digits_is_a_400(client: FlaskClient) -> None:
    bot = client.post("/v1/bots", json={"name": "event-id-bot"}).get_json()
    headers = {**bearer(bot["token"]), "Last-Event-ID": "²"}
    assert_problem(client.get(f"/v1/bots/{bot['id']}/events", query_string={"wait": "0"}, headers=headers), 400)


def test_a_cursor_the_server_handed_out_still_pages(client: FlaskClient) -> None:
    for _ in range(3):
        assert client.post("/v1/matches", json={"game": "icecream", "players": 2}).status_code == 201
    first = client.get("/v1/matches", query_string={"limit": 2}).get_json()
    assert first["next_cursor"] is not None
    second = client.get("/v1/matches", query_string={"limit": 2, "cursor": first["next_cursor"]})
    assert second.status_code == 200
    assert not {m["id"] for m in first["items"]} & {m["id"] for m in second.get_json()["items"]}


# --- 10: bot names --------------------------------------------------------------------------
# The API takes ASCII bot names only (`BOT_NAME`), where `fold_name` and `casefold` agree, so the store is
# tested directly: it is what reserves and frees a name, and it must not depend on that pattern.
FOLDED_NAMES = [
    ("Bot²", "bot2"),
    ("\uff32\uff21\uff2e\uff24\uff2f", "rando"),
    ("Straße", "strasse"),
    ("ﬁsh", "fish"),
    ("Ⅻ", "xii"),
]


def stored_bot(app: ParlourApp, bot_id: str, name: str) -> BotRecord:
    """Register a bot straight in the store under `name` (no API pattern applied)."""
    bot = BotRecord(bot_id, name, f"hash-of-{bot_id}", now_iso())
    assert app.services.store.bots.register(bot)
    return bot


def delete_bot(app: ParlourApp, bot: BotRecord) -> None:
    """Delete a bot stored by `stored_bot` as the API does (its token hash checked)."""
    assert app.services.store.bots.unregister(bot)
    app.services.store.bots.purge(bot.id)


@pytest.mark.parametrize(("name", "folded"), FOLDED_NAMES)
def test_deleting_a_bot_frees_the_name_under_the_key_it_was_reserved_by(
    app: ParlourApp, redis_url: str, name: str, folded: str
) -> None:
    """A name is reserved under its fold ("Bot²" as "bot2") and freed under the same, for another bot to take."""
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    bots = app.services.store.bots
    first = stored_bot(app, "first", name)
    assert raw.hgetall("parlour:bot-names") == {folded: "first"}
    assert not bots.register(BotRecord("second", folded, "hash-of-second", now_iso()))
    assert bots.unregister(first)
    assert raw.hlen("parlour:bot-names") == 0 and bots.bot_named(folded) is None
    stored_bot(app, "second", folded)
    assert bots.bot_named(name) == "second"


def test_a_freed_name_is_free_for_a_bot_and_a_human_seat_through_the_api(client: FlaskClient, app: ParlourApp) -> None:
    """After "Bot²" is deleted, "bot2" registers through the API and a human seat may be named "BOT2"."""
    delete_bot(app, stored_bot(app, "old", "Bot²"))
    human = client.post(
        "/v1/matches",
        json={
            "game": "icecream",
            "players": 2,
            "seats": [{"type": "human", "name": "BOT2"}, {"type": "ai", "level": "easy"}],
        },
    )
    assert human.status_code == 201, human.get_json()
    again = client.post("/v1/bots", json={"name": "bot2"})
    assert again.status_code == 201, again.get_json()
    taken = client.post("/v1/bots", json={"name": "BOT2"})
    assert_problem(taken, 409)


def test_the_api_takes_only_ascii_bot_names(client: FlaskClient) -> None:
    """Why finding 10 was out of a client's reach: "Bot²" is refused before the store sees it."""
    assert_problem(client.post("/v1/bots", json={"name": "Bot²"}), 400)


# --- 11: browser headers ----------------------------------------------------------------------
def directives(policy: str) -> dict[str, list[str]]:
    """A Content-Security-Policy header as {directive: sources}."""
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            parsed[words[0].lower()] = words[1:]
    return parsed


# A page, a script, JSON, a 404 of the API and of the files.
EVERY_KIND_OF_ANSWER = [
    "/",
    "/docs",
    "/web/app.js",
    "/v1/games",
    "/v1/openapi.json",
    "/v1/matches/nope",
    "/web/missing.js",
]


@pytest.mark.parametrize("path", EVERY_KIND_OF_ANSWER)
def test_every_answer_forbids_framing_sniffing_and_referrers(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    policy = directives(response.headers["Content-Security-Policy"])
    assert policy["frame-ancestors"] == ["'none'"]


def test_a_refused_request_carries_the_headers_too(client: FlaskClient) -> None:
    response = client.post("/v1/matches", data="{", content_type="application/json")
    assert_problem(response, 400)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/", "/docs"])
def test_the_pages_run_only_scripts_of_their_own_origin(client: FlaskClient, path: str) -> None:
    policy = directives(client.get(path).headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]


class InlineCode(HTMLParser):
    """Collects the inline scripts, style elements and style or event-handler attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "style" or (tag == "script" and "src" not in names):
            self.found.append(f"<{tag}> element")
        self.found += [f"{name} attribute on <{tag}>" for name in names if name == "style" or name.startswith("on")]


@pytest.mark.parametrize("page", ["index.html", "docs.html"])
def test_the_pages_hold_no_inline_script_or_style(page: str) -> None:
    """The policy allows no inline code, so the pages must hold none (the browser would refuse it)."""
    parser = InlineCode()
    parser.feed((ROOT / "web" / page).read_text(encoding="utf-8"))
    assert parser.found == []
