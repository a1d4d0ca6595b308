"""Live events: the SSE stream of a match and the long-poll form of GET /v1/matches/{id}.

Streams are read by a background thread, so a missing event fails a test after a timeout
instead of hanging it. The heartbeat is short here, so an idle stream still yields now and then
and can be closed.
"""

from __future__ import annotations

import json
import queue
import random
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api.app import create_app
from api.current import ParlourApp
from model.settings import Settings
from store.changes import ChangeFeed
from tests.api.conftest import Match, bearer, create_match
from tests.api.test_openapi import ROCKEM_SOCKEM_LINE, WINNING_LINE
from tests.api.test_sundae_split_api import random_split

TIMEOUT = 10.0  # seconds any expected event may take: generous, it comes within milliseconds
CARD_ID = re.compile(r"(?<![\w-])C\d\d(?![\w-])")


@dataclass
class Event:
    """One Server-Sent Event: its id, its name and its JSON data."""

    id: int | None
    name: str
    data: dict[str, Any]
    text: str


def parse_event(block: str) -> Event | None:
    """An event from one block of lines, or None for a comment or a bare `retry`."""
    fields: dict[str, str] = {}
    for line in block.split("\n"):
        if line and not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
    if "data" not in fields:
        return None
    event_id = int(fields["id"]) if "id" in fields else None
    return Event(event_id, fields.get("event", "message"), json.loads(fields["data"]), block)


@dataclass
class Stream:
    """An event stream read by a thread: events, comments and the end of the stream, in order."""

    response: TestResponse
    blocks: queue.Queue[str | None] = field(default_factory=queue.Queue)
    comments: list[str] = field(default_factory=list)
    closing: threading.Event = field(default_factory=threading.Event)
    ended: bool = False

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Split the body into blocks as the server writes it; None marks the end."""
        pending = ""
        try:
            for chunk in self.response.response:
                pending += chunk.decode() if isinstance(chunk, bytes) else chunk
                *blocks, pending = pending.split("\n\n")
                for block in blocks:
                    self.blocks.put(block)
                if self.closing.is_set():
                    break
        finally:
            self.response.close()
            self.blocks.put(None)

    def next(self, timeout: float = TIMEOUT) -> Event | None:
        """The next event (comments are kept aside), or None when the stream has ended."""
        while True:
            block = self.blocks.get(timeout=timeout)
            if block is None:
                self.ended = True
                return None
            event = parse_event(block)
            if event is not None:
                return event
            self.comments.append(block)

    def event(self, name: str = "match") -> Event:
        """The next event, which must be named `name`."""
        event = self.next()
        assert event is not None, f"the stream ended while a {name} event was expected"
        assert event.name == name, f"expected a {name} event, got {event.name}: {event.data}"
        return event

    def close(self) -> None:
        """Stop reading (the server notices at its next heartbeat) and wait for the end."""
        self.closing.set()
        while not self.ended:
            self.ended = self.blocks.get(timeout=TIMEOUT) is None


def follow(client: FlaskClient, match: Match, seat: int | None = None, **kwargs: Any) -> Stream:
    """Open the match's event stream, publicly or as a seat."""
    headers = kwargs.pop("headers", {})
    if seat is not None:
        headers.update(bearer(match.tokens[seat]))
    response = client.get(match.url("/events"), headers=headers, buffered=False, **kwargs)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    # A seat's view is private: no cache may keep it; the public stream is only not to be replayed from one.
    assert response.headers["Cache-Control"] == ("no-cache" if "Authorization" not in headers else "no-store")
    return Stream(response)


def act(client: FlaskClient, match: Match, seat: int, action: dict[str, Any], version: int) -> dict[str, Any]:
    """Play an action; the answer."""
    body = {"action": action, "expected_version": version}
    response = client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[seat]))
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def seen_by(client: FlaskClient, match: Match, seat: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """What GET /v1/matches/{id} and /log answer the viewer now."""
    headers = bearer(match.tokens[seat]) if seat is not None else {}
    view = client.get(match.url(), headers=headers).get_json()
    return view, client.get(match.url("/log"), headers=headers).get_json()


def check_event(client: FlaskClient, match: Match, seat: int | None, event: Event, since: int) -> None:
    """The event is exactly what the viewer reads from the API at its version: view, and log since `since`; a
    seat's carries beside its view the legal actions its read carries (those of `GET .../legal-actions`)."""
    view, log = seen_by(client, match, seat)
    assert event.id == event.data["version"] == view["version"]
    legal = view.pop("legal_actions", None)
    assert event.data["match"] == view
    assert event.data.get("legal_actions") == legal
    if seat is None:
        assert legal is None and "legal_actions" not in event.text  # the public never sees a seat's choices
    else:
        assert legal == client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
        assert legal["seat"] == seat and legal["version"] == event.data["version"]
    assert event.data["log"] == [entry for entry in log["entries"] if entry["version"] > since]


def feed_of(app: ParlourApp) -> ChangeFeed:
    """The app's change listener."""
    return app.services.changes


def until_watched(app: ParlourApp, count: int) -> None:
    """Wait until `count` streams or long-polls watch for changes: they read the match and are now waiting."""
    deadline = time.monotonic() + TIMEOUT
    while feed_of(app).watched() < count:
        assert time.monotonic() < deadline, f"{feed_of(app).watched()} watches open, {count} expected"
        time.sleep(0.01)


def count_watches(app: ParlourApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The matches the app's feed is asked to watch from now on (the real feed watches them all the same)."""
    feed, watched = feed_of(app), []
    real = feed.watch

    def watch(match_id: str) -> Any:
        watched.append(match_id)
        return real(match_id)

    monkeypatch.setattr(feed, "watch", watch)
    return watched


# --- the stream ------------------------------------------------------------------------------------
def test_a_stream_sees_each_action_in_order_then_ends(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="s")
    stream = follow(client, match)
    first = stream.event()
    assert first.id == 0 and first.data["log"] == [] and first.data["match"]["viewer"] is None
    for step, (seat, action) in enumerate(WINNING_LINE):
        answer = act(client, match, seat, action, step)
        event = stream.event()
        assert event.id == answer["version"] == step + 1
        assert [(e["version"], e["seat"], e["action"]) for e in event.data["log"]] == [(step + 1, seat, action)]
        check_event(client, match, None, event, step)
    assert event.data["match"]["status"] == "finished" and event.data["match"]["seed"] == "s"
    end = stream.event("end")
    assert end.id is None and end.data == {"version": len(WINNING_LINE), "reason": "finished"}
    assert stream.next() is None, "the stream closes after the end event"
    assert feed_of(app).watched() == 0


def test_a_finished_match_sends_its_last_view_and_ends(client: FlaskClient) -> None:
    match = create_match(client, seed="s", options={"turn_limit": 1})
    act(client, match, 0, WINNING_LINE[0][1], 0)
    stream = follow(client, match, seat=1)
    event = stream.event()
    assert event.id == 1 and event.data["match"]["status"] == "finished" and len(event.data["log"]) == 1
    check_event(client, match, 1, event, 0)
    assert stream.event("end").data["reason"] == "finished"
    assert stream.next() is None
    resumed = follow(client, match, headers={"Last-Event-ID": "1"})
    assert resumed.event("end").data == {"version": 1, "reason": "finished"}
    assert resumed.next() is None


def test_an_idle_stream_sends_heartbeats(app: ParlourApp, client: FlaskClient, match: Match) -> None:
    stream = follow(client, match)
    stream.event()
    assert stream.blocks.get(timeout=TIMEOUT) == ": heartbeat"
    assert stream.blocks.get(timeout=TIMEOUT) == ": heartbeat"
    stream.close()
    assert feed_of(app).watched() == 0, "a closed stream stops watching"


def test_a_join_is_an_event(client: FlaskClient) -> None:
    match = create_match(client, open_seats=[1])
    stream = follow(client, match)
    assert stream.event().data["match"]["status"] == "waiting"
    assert client.post(match.url("/join"), json={}).status_code == 200
    event = stream.event()
    assert event.id == 1 and event.data["match"]["status"] == "active" and event.data["log"] == []
    stream.close()


@pytest.fixture
def quiet_app(settings: Settings) -> Iterator[ParlourApp]:
    """An app on the same Redis whose streams re-read the match only when told (a minute's heartbeat)."""
    app = create_app(replace(settings, events_heartbeat=60))
    yield app
    feed_of(app).stop()


def test_a_change_through_another_app_reaches_the_stream(client: FlaskClient, quiet_app: ParlourApp) -> None:
    match = create_match(client, seed="s")
    stream = follow(quiet_app.test_client(), match)
    stream.event()
    for step, (seat, action) in enumerate(WINNING_LINE):
        act(client, match, seat, action, step)
        assert stream.event().id == step + 1
    assert stream.event("end").data["reason"] == "finished"


def test_a_lost_subscription_is_made_again(client: FlaskClient, quiet_app: ParlourApp, redis_url: str) -> None:
    match = create_match(client, seed="s")
    stream = follow(quiet_app.test_client(), match)
    stream.event()
    redis.Redis.from_url(redis_url).client_kill_filter(_type="pubsub")
    act(client, match, 0, WINNING_LINE[0][1], 0)
    assert stream.event().id == 1
    act(client, match, 1, WINNING_LINE[1][1], 1)
    assert stream.event().id == 2


# --- what each viewer sees ---------------------------------------------------------------------------
def hidden_cards(splitter_view: dict[str, Any]) -> set[str]:
    """Card ids only the Splitter may see now: its drawn hand, and face-down cards of untaken piles."""
    hidden = {card["id"] for card in splitter_view["hand"]}
    for pile in splitter_view["piles"]:
        if pile["taken_by"] is None:
            hidden |= {card["id"] for card in pile["face_down"]}
    return hidden


def test_sundae_split_streams_leak_nothing(client: FlaskClient) -> None:
    """Each viewer's events equal what it may read from the API; hidden cards never reach the others."""
    match = create_match(client, game="sundae_split", players=3, seed="events")
    viewers: list[int | None] = [None, 0, 1, 2]
    streams = {viewer: follow(client, match, seat=viewer) for viewer in viewers}
    last = {viewer: streams[viewer].event() for viewer in viewers}
    rng = random.Random(7)
    checked_hidden = 0
    for version in range(12):
        splitter = last[0].data["match"]["view"]["splitter"]
        views = {viewer: event.data["match"]["view"] for viewer, event in last.items()}
        hidden = hidden_cards(views[splitter])
        for viewer, event in last.items():
            if viewer != splitter:
                assert not hidden & set(CARD_ID.findall(event.text)), f"viewer {viewer} sees a hidden card"
                checked_hidden += len(hidden)
        seat = last[0].data["match"]["to_act"][0]
        legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
        action = random_split(legal["constraints"], rng) if legal["kind"] == "constructed" else legal["actions"][0]
        act(client, match, seat, action, version)
        for viewer in viewers:
            last[viewer] = streams[viewer].event()
            check_event(client, match, viewer, last[viewer], version)
    assert checked_hidden > 50, "the hidden cards were looked for"
    for stream in streams.values():
        stream.close()


def test_a_pending_rockem_sockem_keep_stays_hidden_in_the_stream(client: FlaskClient) -> None:
    match = create_match(client, game="rockem_sockem", seed="robots", options={"mode": "rounds"})
    streams = {viewer: follow(client, match, seat=viewer) for viewer in (None, 0, 1)}
    for stream in streams.values():
        stream.event()
    for version, (seat, action) in enumerate(ROCKEM_SOCKEM_LINE):
        act(client, match, seat, action, version)
        events = {viewer: stream.event() for viewer, stream in streams.items()}
        for viewer, event in events.items():
            check_event(client, match, viewer, event, version)
    final = len(ROCKEM_SOCKEM_LINE)
    assert events[0].data["log"] == [{**events[0].data["log"][0], "action": {"type": "roll", "keep": [0, 2]}}]
    for viewer in (None, 1):
        assert events[viewer].id == final and events[viewer].data["log"][0]["action"] == {"type": "roll", "keep": None}
    for stream in streams.values():
        stream.close()


# --- resuming --------------------------------------------------------------------------------------
def play(client: FlaskClient, match: Match, start: int, count: int) -> None:
    """Play the winning line's moves from `start`, `count` of them."""
    for version in range(start, start + count):
        seat, action = WINNING_LINE[version]
        act(client, match, seat, action, version)


def test_resuming_sends_exactly_the_missed_versions(client: FlaskClient) -> None:
    match = create_match(client, seed="s")
    stream = follow(client, match)
    assert stream.event().id == 0
    stream.close()
    play(client, match, 0, 3)
    for headers, query, missed in (
        ({"Last-Event-ID": "0"}, "", [1, 2, 3]),
        ({}, "?after=1", [2, 3]),
        ({"Last-Event-ID": "2"}, "?after=0", [3]),  # the header, sent by a reconnecting EventSource, wins
    ):
        response = client.get(match.url(f"/events{query}"), headers=headers, buffered=False)
        resumed = Stream(response)
        event = resumed.event()
        assert event.id == 3 and [entry["version"] for entry in event.data["log"]] == missed
        check_event(client, match, None, event, missed[0] - 1)
        resumed.close()


def test_resuming_at_the_current_version_waits_for_the_next(client: FlaskClient) -> None:
    match = create_match(client, seed="s")
    play(client, match, 0, 2)
    stream = follow(client, match, seat=0, headers={"Last-Event-ID": "2"})
    block = stream.blocks.get(timeout=TIMEOUT)
    assert block is not None and block.startswith("retry:")
    assert stream.blocks.get(timeout=TIMEOUT) == ": heartbeat", "nothing new to send yet"
    play(client, match, 2, 1)
    event = stream.event()
    assert event.id == 3 and [entry["version"] for entry in event.data["log"]] == [3]
    stream.close()


def test_a_client_ahead_of_the_match_is_resynced(client: FlaskClient, match: Match) -> None:
    stream = follow(client, match, headers={"Last-Event-ID": "9"})
    event = stream.event()
    assert event.id == 0 and event.data["log"] == []
    stream.close()


# --- the long-poll ---------------------------------------------------------------------------------
def test_a_long_poll_returns_as_soon_as_the_version_passes(app: ParlourApp, client: FlaskClient, match: Match) -> None:
    answers: list[Any] = []
    poller = threading.Thread(target=lambda: answers.append(client.get(match.url("?wait=30&after=0"))))
    poller.start()
    until_watched(app, 1)  # it read version 0 and waits
    assert not answers
    act(client, match, 0, WINNING_LINE[0][1], 0)
    poller.join(timeout=TIMEOUT)  # far less than its 30 s wait: it answered the change, not its wait's end
    assert answers, "the long-poll did not return after the change"
    assert answers[0].status_code == 200 and answers[0].get_json()["version"] == 1
    assert answers[0].headers["ETag"] == '"1"'


def test_a_long_poll_times_out_with_the_same_version(
    app: ParlourApp, client: FlaskClient, match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    watched = count_watches(app, monkeypatch)
    response = client.get(match.url("?wait=0.5&after=0"), headers=bearer(match.tokens[1]))
    assert watched == [match.id], "it waited for a change"
    assert response.status_code == 200 and response.get_json()["version"] == 0
    assert response.get_json()["viewer"] == 1
    unchanged = client.get(match.url("?wait=0.3&after=0"), headers={"If-None-Match": '"0"'})
    assert unchanged.status_code == 304 and unchanged.headers["ETag"] == '"0"'


def test_a_long_poll_behind_or_on_a_settled_match_answers_at_once(
    app: ParlourApp, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = create_match(client, seed="s", options={"turn_limit": 1})
    act(client, match, 0, WINNING_LINE[0][1], 0)  # finished at version 1
    aborted = create_match(client, game="sundae_split", players=3, open_seats=[2])
    assert client.post(aborted.url("/abort"), headers=bearer(aborted.body["owner_token"])).status_code == 200
    watched = count_watches(app, monkeypatch)
    for url in (match.url("?wait=30&after=0"), aborted.url("?wait=30&after=1"), aborted.url("?wait=30&after=5")):
        assert client.get(url).status_code == 200
    assert watched == [], "none of them waited for a change"


def test_a_long_poll_on_a_finished_match_answers_its_rematch_offer(app: ParlourApp, client: FlaskClient) -> None:
    match = create_match(client, seed="s", options={"turn_limit": 1})
    act(client, match, 0, WINNING_LINE[0][1], 0)  # finished at version 1; a rematch may still be offered
    answers: list[Any] = []
    poller = threading.Thread(target=lambda: answers.append(client.get(match.url("?wait=25&after=1"))))
    poller.start()
    until_watched(app, 1)  # it read the finished match and waits
    assert not answers, "a finished match whose rematch may come answered before its wait"
    assert client.post(match.url("/rematch"), headers=bearer(match.tokens[1])).status_code == 200
    poller.join(timeout=TIMEOUT)
    assert answers and answers[0].get_json()["version"] == 2
    assert answers[0].get_json()["rematch"]["offered_by"] == [1]


# --- refusals --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "suffix",
    [
        "/events?after=-1",
        "/events?after=x",
        "/events?seat=9",
        "/events?since=1",
        "?wait=31&after=0",
        "?wait=-1&after=0",
        "?wait=soon&after=0",
        "?wait=nan&after=0",
        "?wait=5",
        "?after=-2",
    ],
)
def test_bad_parameters_are_400(client: FlaskClient, match: Match, suffix: str) -> None:
    response = client.get(match.url(suffix))
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json" and response.get_json()["errors"]


@pytest.mark.parametrize("last_event_id", ["v3", "-1", "²", "9" * 19])
def test_a_bad_last_event_id_is_400(client: FlaskClient, match: Match, last_event_id: str) -> None:
    response = client.get(match.url("/events"), headers={"Last-Event-ID": last_event_id})
    assert response.status_code == 400 and "Last-Event-ID" in response.get_json()["errors"]


def test_unknown_matches_and_bad_tokens_are_refused(client: FlaskClient, match: Match) -> None:
    assert client.get("/v1/matches/nope/events").status_code == 404
    assert client.get("/v1/matches/nope?wait=1&after=0").status_code == 404
    assert client.get(match.url("/events"), headers=bearer("not-a-token")).status_code == 401
    assert client.get(match.url("/events"), headers=bearer(f"{match.id}.0.{'x' * 43}")).status_code == 401
    other = create_match(client)
    assert client.get(match.url("/events"), headers=bearer(other.tokens[0])).status_code == 403
    assert client.get(match.url("/events?seat=1"), headers=bearer(match.tokens[0])).status_code == 403


def test_a_browser_may_resume_across_origins(client: FlaskClient, match: Match) -> None:
    preflight = client.options(
        match.url("/events"),
        headers={
            "Origin": "https://front.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "Authorization, Last-Event-ID",
        },
    )
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://front.example"
    assert "last-event-id" in preflight.headers["Access-Control-Allow-Headers"].lower()


def test_a_shutting_down_server_ends_its_streams_and_long_polls(
    app: ParlourApp, client: FlaskClient, match: Match
) -> None:
    stream = follow(client, match)
    stream.event()
    answers: list[Any] = []
    poller = threading.Thread(target=lambda: answers.append(client.get(match.url("?wait=25&after=0"))))
    poller.start()
    until_watched(app, 2)  # the stream and the long-poll both wait
    feed_of(app).stop()
    assert stream.next() is None, "the stream ends, without an end event: the client resumes elsewhere"
    poller.join(timeout=TIMEOUT)
    assert answers and answers[0].status_code == 200 and answers[0].get_json()["version"] == 0
