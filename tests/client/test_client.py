"""The Python client against a real served Parlour: a whole match, the log pages, the match stream to its end
and resumed after a drop, a stale version refused, a 429 waited out, busy answers retried under one key."""

from __future__ import annotations

import json
import random
import threading
from dataclasses import replace

import httpx
import pytest
import redis
from parlour_client import Chooser, Client, Event, LegalActions, LogEntry, ProblemError, RetryPolicy
from parlour_client.models import Action, MatchCreated

from tests.api.conftest import IN_PROCESS_LIMITS
from tests.api.test_limits import limited_app
from tests.serving import served

JOIN = 10.0  # seconds a test waits for its stream-reading thread before it fails (never asserted as a speed)


def random_legal(rng: random.Random) -> Chooser:
    """A chooser: a random listed action, or the server's example of a constructed one."""

    def choose(legal: LegalActions) -> Action:
        if legal["kind"] == "enumerated":
            return rng.choice(legal["actions"])
        return legal["example"]

    return choose


def tokens(match: MatchCreated) -> dict[int, str]:
    """The created match's seat tokens by seat."""
    return {seat["seat"]: seat["token"] for seat in match["tokens"]}


def play_out(client: Client, match_id: str, seats: dict[int, str], rng: random.Random) -> int:
    """Play every seat with `play_turn` until the match is over; the number of actions applied."""
    played = 0
    while client.match(match_id)["status"] == "active":
        for token in seats.values():
            if client.play_turn(match_id, token, random_legal(rng)) is not None:
                played += 1
    return played


def entries_of(events: list[Event]) -> list[LogEntry]:
    """The log entries the `match` events of a stream carried, in order."""
    return [entry for event in events if event.event == "match" for entry in event.data["log"]]


def test_a_whole_icecream_match_is_played_with_its_log_and_stream_followed_to_the_end(base_url: str) -> None:
    with Client(base_url) as client:
        assert client.health()
        assert any(game["id"] == "icecream" for game in client.games())
        match = client.create_match("icecream", 2, seed="client-seed")
        seats = tokens(match)
        streamed: list[Event] = []
        stream = client.match_events(match["id"])
        first = next(stream)  # connected: the match as it is now
        streamed.append(first)
        follower = threading.Thread(target=lambda: streamed.extend(stream), daemon=True)
        follower.start()

        played = play_out(client, match["id"], seats, random.Random(7))

        follower.join(JOIN)
        assert not follower.is_alive(), "the match stream did not end once the match was over"
        assert streamed[-1].event == "end" and streamed[-1].data["reason"] == "finished"
        finished = client.match(match["id"])
        assert finished["status"] == "finished" and finished["result"] is not None

        pages = list(client.log_pages(match["id"], limit=7))
        log = [entry for page in pages for entry in page["entries"]]
        assert len(log) == played and len(pages) == -(-played // 7)
        assert [entry["version"] for entry in log] == sorted({entry["version"] for entry in log})
        assert pages[-1]["next_after"] is None and pages[-1]["seed"] is not None
        assert list(client.log(match["id"])) == log
        assert [entry["version"] for entry in entries_of(streamed)] == [entry["version"] for entry in log]
        assert streamed[-2].id == finished["version"]


def test_a_stale_version_is_a_problem_error_with_its_code(base_url: str) -> None:
    with Client(base_url) as client:
        match = client.create_match("icecream", 2, seed="stale")
        seats = tokens(match)
        legal = next(
            answer
            for answer in (client.legal_actions(match["id"], token=token) for token in seats.values())
            if answer["may_act"]
        )
        token = seats[legal["seat"]]
        client.act(match["id"], legal["actions"][0], expected_version=legal["version"], token=token)
        with pytest.raises(ProblemError) as refused:
            client.act(match["id"], legal["actions"][0], expected_version=legal["version"], token=token)
        assert refused.value.status == 409 and refused.value.code == "stale-version"
        assert refused.value.problem["status"] == 409 and refused.value.detail


def test_a_dropped_match_stream_resumes_with_last_event_id_missing_and_repeating_nothing(base_url: str) -> None:
    rng = random.Random(3)
    with Client(base_url) as client:
        match = client.create_match("icecream", 2, seed="resume")
        seats = tokens(match)
        stream = client.match_events(match["id"])
        seen = [next(stream)]

        def move() -> None:
            """One action of whichever seat may act."""
            assert any(client.play_turn(match["id"], token, random_legal(rng)) for token in seats.values())

        move()
        seen.append(next(stream))  # the event of that move: the stream is live
        assert stream.last_event_id == seen[-1].id
        stream.drop()  # the connection is lost mid-stream
        move()
        move()
        seen.append(next(stream))  # reconnected with Last-Event-ID: both moves made while away
        assert stream.reconnects == 1
        client.resign(match["id"], token=seats[0])
        seen.extend(stream)
        assert seen[-1].event == "end"

        ids = [event.id for event in seen if event.id is not None]
        assert ids == sorted(set(ids))
        log = list(client.log(match["id"]))
        assert [entry["version"] for entry in entries_of(seen)] == [entry["version"] for entry in log]
        assert len(log) == 4 and log[-1].get("resign") is True  # three moves, then the resignation


def test_a_429_is_waited_out_for_its_retry_after(redis_url: str) -> None:
    app = limited_app(redis_url, replace(IN_PROCESS_LIMITS, create_match="2/minute"))
    store = redis.Redis.from_url(redis_url)
    waits: list[float] = []

    def time_passes(seconds: float) -> None:
        """Instead of sleeping: the window the server named ends (its counters are gone)."""
        waits.append(seconds)
        store.delete(*store.keys("parlour:limit*"))

    try:
        with served(app) as base_url, Client(base_url, sleep=time_passes) as client:
            created = [client.create_match("icecream", 2) for _ in range(3)]
            assert len({match["id"] for match in created}) == 3
    finally:
        app.services.changes.stop()
    assert len(waits) == 1 and 1 <= waits[0] <= 60


def busy_then_ok(statuses: list[int], sent: list[httpx.Request]) -> httpx.MockTransport:
    """A server answering `statuses` in turn (a 503 as a restarting Parlour does), then 200."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if len(sent) <= len(statuses):
            status = statuses[len(sent) - 1]
            problem = {"status": status, "code": "service-unavailable", "detail": "restarting"}
            return httpx.Response(status, json=problem, headers={"Content-Type": "application/problem+json"})
        return httpx.Response(200, json={"id": "m", "version": 4, "status": "active"})

    return httpx.MockTransport(answer)


def test_busy_answers_are_retried_with_capped_jittered_backoff_under_one_idempotency_key() -> None:
    sent: list[httpx.Request] = []
    waits: list[float] = []
    policy = RetryPolicy(attempts=4, backoff=0.5, cap=1.0, rng=random.Random(1))
    client = Client(
        "http://parlour.test", "t", transport=busy_then_ok([502, 503, 504], sent), sleep=waits.append, retry=policy
    )
    answer = client.act("m", {"type": "move"}, expected_version=3)
    assert answer["version"] == 4 and len(sent) == 4
    keys = {request.headers["Idempotency-Key"] for request in sent}
    assert len(keys) == 1 and len(keys.pop()) == 36
    assert all(json.loads(request.content)["expected_version"] == 3 for request in sent)
    assert len(waits) == 3 and all(0 <= wait <= bound for wait, bound in zip(waits, [0.5, 1.0, 1.0], strict=True))


def test_busy_answers_end_after_the_bounded_attempts_and_other_writes_are_not_retried() -> None:
    sent: list[httpx.Request] = []
    client = Client("http://parlour.test", transport=busy_then_ok([503] * 9, sent), sleep=lambda _: None)
    with pytest.raises(ProblemError) as busy:
        client.match("m")
    assert busy.value.status == 503 and busy.value.code == "service-unavailable"
    assert len(sent) == RetryPolicy().attempts
    sent.clear()
    with pytest.raises(ProblemError):
        client.resign("m")  # not idempotent on the server: a retry could be a second request
    assert len(sent) == 1


@pytest.mark.parametrize("game", ["rockem_sockem", "sundae_split", "freeze_factory", "robots_love_ice_cream"])
def test_play_turn_plays_every_game_to_its_end(base_url: str, game: str) -> None:
    """Simultaneous steps (Rock'em), constructed splits (Sundae Split), claims out of turn (Freeze Factory)."""
    with Client(base_url) as client:
        players = max(2, client.game(game)["min_players"])
        options = {"turn_limit": 8} if game == "freeze_factory" else {}  # random play runs long: cut it short
        match = client.create_match(game, players, seed=f"client-{game}", options=options)
        played = play_out(client, match["id"], tokens(match), random.Random(11))
        finished = client.match(match["id"])
        assert finished["status"] == "finished" and played == len(list(client.log(match["id"])))


def test_the_match_long_poll_yields_each_new_version_until_the_match_ends(base_url: str) -> None:
    with Client(base_url) as client:
        match = client.create_match("icecream", 2, seed="long-poll")
        seats = tokens(match)
        updates = client.match_updates(match["id"], after=match["version"], wait=5)
        assert any(client.play_turn(match["id"], token, random_legal(random.Random(2))) for token in seats.values())
        moved = next(updates)  # the version had passed `after` already: answered at once
        assert moved["version"] == match["version"] + 1 and moved["status"] == "active"
        client.resign(match["id"], token=seats[1])
        assert [update["status"] for update in updates] == ["finished"]


def test_a_dropped_stream_waits_the_servers_retry_before_it_reconnects(base_url: str) -> None:
    """The stream opens with `retry: 2000`: after a drop the client waits those 2 s (here recorded, not slept)."""
    waits: list[float] = []
    with Client(base_url, sleep=waits.append) as client:
        match = client.create_match("icecream", 2, seed="retry")
        stream = client.match_events(match["id"])
        next(stream)
        assert stream.retry == 2.0 and waits == []
        stream.drop()
        client.resign(match["id"], token=tokens(match)[0])
        assert [event.event for event in stream][-1] == "end"
        assert stream.reconnects == 1 and waits == [2.0]


def sse_answers(bodies: list[str], sent: list[httpx.Request]) -> httpx.MockTransport:
    """A server whose event stream answers `bodies` in turn, each connection closing after its body."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        body = bodies[len(sent) - 1].encode()
        return httpx.Response(200, content=body, headers={"Content-Type": "text/event-stream"})

    return httpx.MockTransport(answer)


def test_without_a_retry_the_stream_reconnects_with_its_backoff_and_a_long_retry_is_capped() -> None:
    sent: list[httpx.Request] = []
    waits: list[float] = []
    policy = RetryPolicy(backoff=0.5, cap=20.0, rng=random.Random(2))
    event, end = "id: 1\nevent: match\ndata: {}\n\n", "event: end\ndata: {}\n\n"
    bodies = [event, "", end]  # closed after an event (at once again), then with none (the backoff), then ended
    with Client("http://parlour.test", transport=sse_answers(bodies, sent), sleep=waits.append, retry=policy) as client:
        stream = client.match_events("m")
        assert [e.event for e in stream] == ["match", "end"] and stream.retry is None
    assert [request.headers.get("Last-Event-ID") for request in sent] == [None, "1", "1"]
    assert len(waits) == 1 and 0 <= waits[0] <= 0.5

    sent.clear()
    waits.clear()
    bodies = ["retry: 60000\n\n" + event, end]  # a minute asked for: capped as any backoff is
    with Client("http://parlour.test", transport=sse_answers(bodies, sent), sleep=waits.append, retry=policy) as client:
        stream = client.match_events("m")
        assert [e.event for e in stream] == ["match", "end"] and stream.retry == 60.0
    assert waits == [20.0]
