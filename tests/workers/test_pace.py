"""The spectator pace on real RQ workers: an AI move stored no sooner than the pace after the match's previous change.

What is asserted is a lower bound the server keeps (each log entry's `at` at least the pace after the one before),
never a wall-clock speed; the tests follow the match on its event stream (or, where nobody may watch, on the
change channel) instead of sleeping.
"""

from __future__ import annotations

import itertools
import threading
import time
from datetime import datetime
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from rq.registry import FinishedJobRegistry, ScheduledJobRegistry
from rq.serializers import JSONSerializer

from api.current import ParlourApp
from domain.matches.ai_turns import AiTurns
from domain.matches.commands import engine_state
from domain.matches.pace import CREATOR_WATCHER, CREATOR_WATCHES_FOR
from store.matches import MatchStore, ai_turn_key
from store.turn_timers import TIMER_QUEUE
from tests.api.conftest import Match, bearer, create_match, read_log
from tests.api.test_events import Stream, follow
from tests.api.test_openapi import MOVE
from tests.workers.conftest import StartTimerWorker, StartWorker
from tests.workers.test_ai_seats import ai_seats, announced, empty_turn_queues, finished, turn_jobs_run, wait_for
from workers import jobs, pace

PACE_MS = 300
ICECREAM = {"game": "icecream", "options": {"turn_limit": 6}}


def stamp(text: str) -> datetime:
    """A log entry's or record's time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def gaps_ms(client: FlaskClient, match: Match, since: str) -> list[float]:
    """The milliseconds between each move's `at` and the change before it (the first: `since`)."""
    times = [stamp(since)] + [stamp(entry["at"]) for entry in read_log(client, match.id)["entries"]]
    return [(later - earlier).total_seconds() * 1000 for earlier, later in itertools.pairwise(times)]


def follow_to_the_end(stream: Stream) -> list[dict[str, Any]]:
    """Read the stream's `match` events until its `end` event; their data."""
    events = []
    while (event := stream.next(timeout=120.0)) is not None and event.name == "match":
        events.append(event.data)
    assert event is not None and event.name == "end", event
    return events


def paced_jobs_run(redis_url: str) -> list[str]:
    """The ids of the paced moves' jobs the timer worker ran."""
    connection = redis.Redis.from_url(redis_url)
    ids = FinishedJobRegistry(TIMER_QUEUE, connection=connection, serializer=JSONSerializer).get_job_ids()
    return [job_id for job_id in ids if job_id.startswith("pace-")]


def test_an_always_paced_match_of_easy_seats_stores_its_moves_the_pace_apart_and_finishes(
    client: FlaskClient,
    app: ParlourApp,
    start_worker: StartWorker,
    start_timer_worker: StartTimerWorker,
    redis_url: str,
) -> None:
    notices = app.services.store.subscribe_changes()
    always = {"milliseconds": PACE_MS, "when": "always"}
    match = create_match(client, **ICECREAM, players=2, seats=ai_seats("easy", "easy"), ai_pace=always)
    created = client.get(match.url()).get_json()
    assert created["ai_pace"] == {"milliseconds": PACE_MS, "when": "always"} and created["assistance"] == "allowed"
    stream = follow(client, match)
    start_timer_worker("pace-timers")
    wait_for(app.services.timers.clock.last_beat, "the timer scheduler's first heartbeat")  # moves wait only then
    start_worker("pace-ai")
    events = follow_to_the_end(stream)
    over = finished(client, match.id)
    assert over is not None and events[-1]["version"] == over["version"]
    gaps = gaps_ms(client, match, created["updated_at"])
    assert len(gaps) == over["version"] and min(gaps) >= PACE_MS, gaps
    # The moves found early waited on the timer queue, not in an AI worker; none was held for a run.
    assert paced_jobs_run(redis_url), "no move went through the timer queue"
    assert [v for v in announced(notices, match.id) if v > 0] == list(range(1, over["version"] + 1))


def test_a_match_paced_while_watched_runs_at_full_speed_while_nobody_watches(
    client: FlaskClient, app: ParlourApp, start_worker: StartWorker, redis_url: str
) -> None:
    notices = app.services.store.subscribe_changes()  # the change channel: it does not count as watching
    match = create_match(
        client, **ICECREAM, players=2, seats=ai_seats("random", "random"), ai_pace={"milliseconds": 10_000}
    )
    app.services.store.watchers.unwatch(match.id, CREATOR_WATCHER)  # as if its creator's while had passed
    start_worker("unwatched-ai")  # no timer worker: a paced move would never be stored
    over = wait_for(lambda: finished(client, match.id), "the unwatched match to finish")
    moves = over["version"]
    assert not paced_jobs_run(redis_url)
    answers = turn_jobs_run(redis_url)
    assert sum(answer["moves"] for answer in answers) == moves
    assert len(answers) * 4 <= moves, f"{len(answers)} jobs for {moves} moves: the relay played on as before"
    changes = [version for version in announced(notices, match.id) if version > 0]
    assert changes[-1] == moves and len(changes) < moves, "moves were stored together as before"


def test_a_match_paced_while_watched_is_paced_while_its_stream_is_open(
    client: FlaskClient,
    app: ParlourApp,
    start_worker: StartWorker,
    start_timer_worker: StartTimerWorker,
    redis_url: str,
) -> None:
    match = create_match(
        client, **ICECREAM, players=2, seats=ai_seats("random", "random"), ai_pace={"milliseconds": PACE_MS}
    )
    created = client.get(match.url()).get_json()
    assert created["ai_pace"] == {"milliseconds": PACE_MS, "when": "watched"}
    stream = follow(client, match)  # a watcher, before any worker plays a move
    assert stream.event().data["version"] == 0
    start_timer_worker("watched-timers")
    wait_for(app.services.timers.clock.last_beat, "the timer scheduler's first heartbeat")
    start_worker("watched-ai")
    follow_to_the_end(stream)
    over = finished(client, match.id)
    assert over is not None
    gaps = gaps_ms(client, match, created["updated_at"])
    assert len(gaps) == over["version"] and min(gaps) >= PACE_MS, gaps
    assert paced_jobs_run(redis_url)


def test_a_match_paced_while_watched_is_paced_from_its_first_move_before_its_creator_opens_a_stream(
    client: FlaskClient,
    app: ParlourApp,
    start_worker: StartWorker,
    start_timer_worker: StartTimerWorker,
) -> None:
    """The creator of a match to watch opens its stream only once the creation is answered: the match counts as
    watched by its creator meanwhile (CREATOR_WATCHES_FOR s), so its first moves wait for the pace rather than pass
    unseen. The web client's page of a match between two easy AI seats saw it from its ninth move on, before."""
    start_timer_worker("creator-timers")
    wait_for(app.services.timers.clock.last_beat, "the timer scheduler's first heartbeat")
    start_worker("creator-ai")  # both ready before the match exists: its first move is found at once
    match = create_match(
        client, **ICECREAM, players=2, seats=ai_seats("random", "random"), ai_pace={"milliseconds": PACE_MS}
    )
    created = client.get(match.url()).get_json()
    assert app.services.store.watchers.watched(match.id), "its creator watches it, with no stream open"
    over = wait_for(lambda: finished(client, match.id), "the match watched by its creator alone to finish")
    # A move stored before its pace had passed was found while nobody watched: after the creator's while, only.
    grace_ends = stamp(created["created_at"]).timestamp() + CREATOR_WATCHES_FOR
    entries = read_log(client, match.id)["entries"]
    gaps = gaps_ms(client, match, created["updated_at"])
    within = [gap for gap, entry in zip(gaps, entries, strict=True) if stamp(entry["at"]).timestamp() < grace_ends]
    assert len(gaps) == over["version"] and within, f"no move within the creator's {CREATOR_WATCHES_FOR} s: {gaps}"
    assert min(within) >= PACE_MS, f"moves stored unpaced while the creator watched: {gaps}"


def test_without_a_timer_worker_a_paced_match_plays_on_unpaced_rather_than_stall(
    client: FlaskClient, start_worker: StartWorker, redis_url: str
) -> None:
    always = {"milliseconds": 10_000, "when": "always"}
    match = create_match(client, **ICECREAM, players=2, seats=ai_seats("random", "random"), ai_pace=always)
    start_worker("timerless-ai")  # no timer worker: its scheduler's heartbeat is silent
    wait_for(lambda: finished(client, match.id), "the paced match to finish without a timer worker")
    assert not paced_jobs_run(redis_url)


def test_a_stream_and_a_long_poll_watch_the_match_while_they_are_open(client: FlaskClient, app: ParlourApp) -> None:
    watchers = app.services.store.watchers
    watched = {"milliseconds": 100, "when": "watched"}
    match = create_match(client, seats=[{"type": "human"}, *ai_seats("random")], ai_pace=watched)
    assert watchers.watched(match.id), "its creator, a while"
    watchers.unwatch(match.id, CREATOR_WATCHER)
    assert not watchers.watched(match.id)
    stream = follow(client, match, seat=0)
    stream.event()
    assert watchers.watched(match.id)
    stream.close()
    wait_for(lambda: not watchers.watched(match.id), "the closed stream to stop watching")
    watchers.watch(match.id, "lapsed", 0)  # a watch that lapsed (its process died) counts for nothing
    assert not watchers.watched(match.id)
    polled: list[int] = []
    poll = threading.Thread(target=lambda: polled.append(client.get(match.url("?after=0&wait=25")).status_code))
    poll.start()
    wait_for(lambda: watchers.watched(match.id) or polled, "the long-poll to watch")
    assert not polled, polled
    move = {"action": MOVE, "expected_version": 0}
    assert client.post(match.url("/actions"), json=move, headers=bearer(match.tokens[0])).status_code == 200
    poll.join()
    assert polled == [200] and not watchers.watched(match.id)


def test_only_a_match_with_a_watched_pace_counts_its_long_polls(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a match whose pace applies while watched counts its watchers: other long-polls write nothing."""
    watchers = app.services.store.watchers
    registered: list[str] = []
    watch = watchers.watch

    def counted(match_id: str, watcher: str, seconds: float) -> None:
        if watcher != CREATOR_WATCHER:  # the creator of a match with a watched pace counts too, once
            registered.append(match_id)
        watch(match_id, watcher, seconds)

    monkeypatch.setattr(watchers, "watch", counted)
    for ai_pace in (None, {"milliseconds": 100, "when": "always"}, {"milliseconds": 100, "when": "watched"}):
        match = create_match(client, seats=[{"type": "human"}, *ai_seats("random")], ai_pace=ai_pace)
        assert client.get(match.url("?after=0&wait=0.05")).status_code == 200  # waits, no change: answers as is
        assert registered.count(match.id) == (ai_pace is not None and ai_pace["when"] == "watched"), ai_pace


def test_a_paced_turn_is_neither_played_again_nor_swept_while_its_move_waits(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    """The turn job hands its early move to the timer queue: the turn's claim goes with it, so neither the
    listeners nor the sweep (past its grace) queue the turn again, and the job stored nothing itself."""
    monkeypatch.setattr(jobs, "context", lambda: app.services)
    store: MatchStore = app.services.store
    always = {"milliseconds": 10_000, "when": "always"}
    match = create_match(client, **ICECREAM, players=2, seats=ai_seats("random", "random"), ai_pace=always)
    empty_turn_queues(app)  # the first turn, played here instead
    app.services.timers.clock.beat(int(time.time() * 1000))  # as if a timer worker ran: the move waits for it
    record = store.load(match.id)
    assert record is not None
    seat = int(client.get(match.url()).get_json()["waiting_for"][0])
    assert store.ai_turn_claim(match.id, seat, 0) is not None  # the listener's job's, dropped above
    store.client.delete(ai_turn_key(match.id, seat, 0))  # as a relay's quick turn, which plays on unclaimed
    answer = jobs.play_ai_turn(match.id, seat, 0)
    assert answer["outcome"] == "paced" and answer["moves"] == 0
    paced = pace.pace_job_id(match.id, seat, 0)
    assert store.client.get(ai_turn_key(match.id, seat, 0)) == paced
    connection = redis.Redis.from_url(redis_url)
    scheduled = ScheduledJobRegistry(TIMER_QUEUE, connection=connection, serializer=JSONSerializer)  # type: ignore[no-untyped-call]
    assert paced in scheduled.get_job_ids()
    assert app.services.jobs.is_pending(paced)
    assert AiTurns(store, app.services.jobs).sweep(grace=0) == []
    assert AiTurns(store, app.services.jobs).after_change(record, engine_state(record)) == []
    stored = store.load(match.id)
    assert stored is not None and stored.version == 0  # nothing stored until the move is due
