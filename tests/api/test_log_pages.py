"""The log a page at a time: `GET /v1/matches/{id}/log?after=V&limit=N`, and the bounded log of a stream's events.

Matches are played through the API with actions the engine picks from a local copy of the state
(the seed is the test's), so a long log costs one request per action.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.current import ParlourApp
from domain.events.match_stream import LOG_WINDOW
from domain.links import LOG_PAGE_MAX, LOG_PAGE_SIZE
from domain.matches import commands as service
from engine import Action, GameState, Rng, get_game, has_action
from tests.api.conftest import Match, bearer, create_match, read_log
from tests.api.test_errors import assert_problem
from tests.api.test_events import follow

LONG_LOG = LOG_PAGE_MAX + 120  # entries of the long match: more than the largest page


@dataclass
class Played:
    """A match the test plays through the API, with its own copy of the engine state."""

    client: FlaskClient
    match: Match
    state: GameState
    rng: Rng
    version: int = 0
    moves: list[tuple[int, Action]] = field(default_factory=list)

    @classmethod
    def create(cls, client: FlaskClient, game: str, players: int, seed: str, **request: Any) -> Played:
        """A match with every seat held by the test (unless `request` leaves some open).

        A match with an open seat takes no chosen seed, so it takes the server's: only a game without
        chance (IceCream) is then mirrored here, from the same start whatever the seed.
        """
        engine = get_game(game)
        assert engine is not None
        chosen = {} if request.get("open_seats") else {"seed": seed}
        assert chosen or not engine.info.chance, "a game of chance with an open seat cannot be mirrored"
        match = create_match(client, game=game, players=players, **chosen, **request)
        state = engine.start(players, match.body["options"], seed)
        return cls(client, match, state, Rng.from_seed(f"choices:{seed}"))

    def step(self) -> None:
        """One random legal action of a seat that has one, through POST .../actions."""
        seat = self.rng.choice([s for s in self.state.acting_seats() if has_action(self.state, s)])
        action = json.loads(json.dumps(self.state.sample_action(seat, self.rng)))
        body = {"action": action, "expected_version": self.version}
        answer = self.client.post(self.match.url("/actions"), json=body, headers=bearer(self.match.tokens[seat]))
        assert answer.status_code == 200, answer.get_json()
        self.state.play(seat, action)
        self.moves.append((seat, action))
        self.version += 1

    def play(self, actions: int) -> None:
        """Up to `actions` more actions, fewer if the game ends first."""
        for _ in range(actions):
            if self.state.is_over():
                return
            self.step()


def page(client: FlaskClient, match: Match, query: str = "", seat: int | None = None) -> dict[str, Any]:
    """One page of the log, for the public or a seat; it must answer 200."""
    headers = bearer(match.tokens[seat]) if seat is not None else {}
    response = client.get(match.url(f"/log{query}"), headers=headers)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def walk(client: FlaskClient, url: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    """Every entry from the page at `url` on, following `next`."""
    entries: list[dict[str, Any]] = []
    while url is not None:
        body = client.get(url, headers=headers).get_json()
        assert body["entries"] or body["next"] is None, "a page before the last is never empty"
        entries += body["entries"]
        url = body["next"]
    return entries


@pytest.fixture
def long_match(client: FlaskClient) -> Played:
    """Freeze Factory for two, LONG_LOG actions in (random play takes thousands to end)."""
    played = Played.create(client, "freeze_factory", 2, "long-log")
    played.play(LONG_LOG)
    assert played.version == LONG_LOG and not played.state.is_over()
    return played


# --- GET .../log ----------------------------------------------------------------------------------
def test_a_page_by_default_the_largest_page_and_the_cursor(client: FlaskClient, long_match: Played) -> None:
    match = long_match.match
    first = page(client, match)
    assert first["after"] == 0 and len(first["entries"]) == LOG_PAGE_SIZE
    assert [entry["version"] for entry in first["entries"]] == list(range(1, LOG_PAGE_SIZE + 1))
    assert first["next_after"] == LOG_PAGE_SIZE
    assert first["next"] == f"/v1/matches/{match.id}/log?after={LOG_PAGE_SIZE}&limit={LOG_PAGE_SIZE}"
    assert first["version"] == LONG_LOG and first["status"] == "active"

    largest = page(client, match, f"?limit={LOG_PAGE_MAX}")
    assert len(largest["entries"]) == LOG_PAGE_MAX and largest["next_after"] == LOG_PAGE_MAX
    rest = page(client, match, f"?after={largest['next_after']}&limit={LOG_PAGE_MAX}")
    assert [entry["version"] for entry in rest["entries"]] == list(range(LOG_PAGE_MAX + 1, LONG_LOG + 1))
    assert rest["next_after"] is None and rest["next"] is None
    beyond = page(client, match, f"?after={LONG_LOG}")
    assert beyond["entries"] == [] and beyond["next"] is None

    # Following `next` from the start, in pages of any size, reads the whole log once, in order.
    whole = [{"version": v, "seat": s, "action": a} for v, (s, a) in enumerate(long_match.moves, start=1)]
    for limit in (7, 37, LOG_PAGE_MAX):
        entries = walk(client, match.url(f"/log?limit={limit}"), {})
        assert [{k: e[k] for k in ("version", "seat", "action")} for e in entries] == whole
    # A seat's token keeps its seat in `next`.
    seat_page = page(client, match, "?limit=10", seat=1)
    assert seat_page["viewer"] == 1 and seat_page["next"] == f"/v1/matches/{match.id}/log?after=10&limit=10&seat=1"


@pytest.mark.parametrize(
    "query", ["after=-1", "after=x", "after=1.5", "limit=0", f"limit={LOG_PAGE_MAX + 1}", "limit=x", "limit=", "page=2"]
)
def test_bad_paging_parameters_are_400(client: FlaskClient, match: Match, query: str) -> None:
    body = assert_problem(client.get(match.url(f"/log?{query}")), 400, "invalid-request")
    assert set(body["errors"]) <= {"after", "limit", "page"} and body["errors"]


def test_versions_are_not_positions(app: ParlourApp, client: FlaskClient) -> None:
    """Joins and an abort change the version without a log entry: pages go by versions all the same."""
    played = Played.create(client, "icecream", 2, "positions", open_seats=[1])
    match = played.match
    joined = client.post(match.url("/join"), json={}).get_json()
    match.tokens[1], played.version = joined["token"], joined["version"]
    played.play(12)
    assert played.version == 13
    service.abort_match(app.services.store, match.id, "testing")
    first = page(client, match, "?limit=5")
    assert [entry["version"] for entry in first["entries"]] == [2, 3, 4, 5, 6] and first["next_after"] == 6
    assert [entry["version"] for entry in page(client, match, "?after=1&limit=2")["entries"]] == [2, 3]
    assert [entry["version"] for entry in page(client, match, "?after=11")["entries"]] == [12, 13]
    assert page(client, match, "?after=13")["entries"] == [] and page(client, match)["version"] == 14
    assert [(e["seat"], e["action"]) for e in walk(client, match.url("/log?limit=3"), {})] == played.moves


# --- redaction: a page hides exactly what the whole log hides ------------------------------------
CASES = [  # game, players, options, and whether its log hides something while it runs
    pytest.param("icecream", 2, {}, False, id="icecream"),
    pytest.param("sundae_split", 3, {}, True, id="sundae_split-3p"),
    pytest.param("freeze_factory", 3, {}, False, id="freeze_factory-3p"),
    pytest.param("rockem_sockem", 2, {"mode": "rounds"}, True, id="rockem_sockem-rounds"),
    pytest.param("rockem_sockem", 2, {"mode": "realtime"}, False, id="rockem_sockem-realtime"),
    pytest.param("robots_love_ice_cream", 2, {}, True, id="robots_love_ice_cream-2p"),
    pytest.param("robots_love_ice_cream", 3, {"attack_twice": True}, True, id="robots_love_ice_cream-3p"),
]
ACTIONS_PER_CASE = 90


def whole_log_redaction(played: Played, viewer: int | None) -> list[Action]:
    """What the log showed the viewer before it had pages: the engine's redaction of the whole log."""
    if played.state.is_over():
        return [action for _, action in played.moves]
    return played.state.redact_log(played.moves, viewer)


@pytest.mark.parametrize(("game", "players", "options", "hides"), CASES)
def test_every_page_is_redacted_as_the_whole_log(
    app: ParlourApp, client: FlaskClient, game: str, players: int, options: dict[str, Any], hides: bool
) -> None:
    played = Played.create(client, game, players, f"pages-{game}-{players}", options=options)
    store, rng = app.services.store, random.Random(f"{game}{players}")
    viewers: list[int | None] = [None, *range(players)]
    hidden = 0
    while played.version < ACTIONS_PER_CASE and not played.state.is_over():
        played.step()
        record = service.load_match(store, played.match.id)
        for viewer in viewers:
            expected = whole_log_redaction(played, viewer)
            hidden += sum(shown != action for shown, (_, action) in zip(expected, played.moves, strict=True))
            # A page anywhere, and the pages that end the log, where a game hides by place.
            for after in {rng.randrange(played.version), max(0, played.version - 1), max(0, played.version - 3)}:
                limit = rng.choice([1, 2, 3, 5])
                body = service.log_json(store, record, viewer, after, limit)
                assert [e["action"] for e in body["entries"]] == expected[after : after + limit], (viewer, after)
    # Through HTTP, every page of every viewer's walk at the end, in pages of 4.
    for viewer in viewers:
        headers = bearer(played.match.tokens[viewer]) if viewer is not None else {}
        entries = walk(client, played.match.url("/log?limit=4"), headers)
        assert [e["action"] for e in entries] == whole_log_redaction(played, viewer)
        assert [e["action"] for e in read_log(client, played.match.id, headers)["entries"]] == [
            e["action"] for e in entries
        ]
    assert bool(hidden) == hides, f"hidden parts seen: {hidden}"


# --- the event stream's first event ---------------------------------------------------------------
def test_a_first_event_carries_the_newest_entries_and_says_where_the_others_are(
    client: FlaskClient, long_match: Played
) -> None:
    match, newest = long_match.match, LONG_LOG - LOG_WINDOW
    whole = read_log(client, match.id)["entries"]

    stream = follow(client, match)
    first = stream.event()
    assert first.id == LONG_LOG and len(first.data["log"]) == LOG_WINDOW
    assert first.data["log"] == whole[newest:] and first.data["log_after"] == newest
    assert first.data["log_earlier"] == f"/v1/matches/{match.id}/log?after=0&limit={LOG_PAGE_MAX}"
    # The pages from `log_earlier` up to `log_after`, then the event's log: the whole log, once each.
    earlier = [e for e in walk(client, first.data["log_earlier"], {}) if e["version"] <= first.data["log_after"]]
    assert earlier + first.data["log"] == whole
    # The next event carries only what happened since, nothing left out.
    long_match.step()
    second = stream.event()
    assert second.id == LONG_LOG + 1 and [e["version"] for e in second.data["log"]] == [LONG_LOG + 1]
    assert second.data["log_after"] == LONG_LOG and second.data["log_earlier"] is None
    stream.close()

    # Resuming close behind: everything since, nothing left out.
    near_stream = follow(client, match, headers={"Last-Event-ID": str(LONG_LOG - 10)})
    near = near_stream.event()
    near_stream.close()
    assert [e["version"] for e in near.data["log"]] == list(range(LONG_LOG - 9, LONG_LOG + 2))
    assert near.data["log_after"] == LONG_LOG - 10 and near.data["log_earlier"] is None
    # Resuming far behind, as a seat: the newest entries, and the seat's page for the rest.
    far_stream = follow(client, match, seat=0, query_string={"after": 5})
    far = far_stream.event()
    assert len(far.data["log"]) == LOG_WINDOW and far.data["log_after"] == newest + 1
    assert far.data["log_earlier"] == f"/v1/matches/{match.id}/log?after=5&limit={LOG_PAGE_MAX}&seat=0"
    far_stream.close()


def test_a_short_log_comes_whole_in_the_first_event(app: Flask, client: FlaskClient) -> None:
    played = Played.create(client, "freeze_factory", 2, "short-log")
    played.play(30)
    stream = follow(client, played.match, seat=1)
    first = stream.event()
    assert len(first.data["log"]) == 30 and first.data["log_after"] == 0 and first.data["log_earlier"] is None
    assert first.data["log"] == read_log(client, played.match.id, bearer(played.match.tokens[1]))["entries"]
    stream.close()


@pytest.mark.parametrize(
    ("game", "players", "joined", "steps"),
    [
        pytest.param("sundae_split", 3, False, (1,) * 8, id="sundae_split-3p"),
        pytest.param("icecream", 2, True, (1, 3, 1, 2, 1), id="join-and-runs"),
    ],
)
def test_each_event_carries_the_log_since_the_last_one_as_the_viewer_reads_it(
    client: FlaskClient, game: str, players: int, joined: bool, steps: tuple[int, ...]
) -> None:
    """A stream that keeps up gets the entries since its last event from what this process wrote (no read): the
    entries each viewer's events bring are `/log?after=` its previous version, redacted alike and none missing,
    across a join (a version without an entry) and several moves between two reads.

    Sundae Split moves one version at a time: a later move reveals cards an earlier entry hid, so each event is
    compared with the log read at its own version."""
    played = Played.create(client, game, players, f"events-log-{game}", **({"open_seats": [1]} if joined else {}))
    match = played.match
    viewers: list[int | None] = [None, 0] if joined else [None, *range(players)]
    streams = {viewer: follow(client, match, seat=viewer) for viewer in viewers}
    seen: dict[int | None, int] = dict.fromkeys(viewers, 0)

    def read_events() -> None:
        for viewer, stream in streams.items():
            entries: list[dict[str, Any]] = []
            version = -1
            while version < played.version:  # one event, or one per version if they were announced apart
                event = stream.event()
                assert event.id is not None and event.name == "match", event
                version = event.id
                entries += event.data["log"]
            headers = bearer(match.tokens[viewer]) if viewer is not None else {}
            since = client.get(match.url(f"/log?after={seen[viewer]}"), headers=headers).get_json()["entries"]
            assert entries == since, viewer
            seen[viewer] = version

    read_events()
    if joined:
        answer = client.post(match.url("/join"), json={}).get_json()
        match.tokens[1], played.version = answer["token"], answer["version"]
        read_events()
    for count in steps:
        played.play(count)
        read_events()
    assert not played.state.is_over()  # the log is redacted while the match runs
    for stream in streams.values():
        stream.close()
