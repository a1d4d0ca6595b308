"""Concurrent requests never lose or double-apply an action; retries with an Idempotency-Key apply once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, cast

from flask import Flask

from api.current import ParlourApp
from model.match import LogEntry
from tests.api.conftest import Match, bearer, create_match

MOVE_LEFT = {"type": "move", "from_cone": 0, "scoops": 1}
MOVE_RIGHT = {"type": "move", "from_cone": 1, "scoops": 1}


def race(
    app: Flask, match: Match, requests: list[tuple[dict[str, Any], dict[str, str]]]
) -> list[tuple[int, dict[str, Any]]]:
    """Send the requests at the same instant from separate threads and clients."""
    barrier = threading.Barrier(len(requests))

    def send(payload: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        client = app.test_client()
        barrier.wait()
        response = client.post(match.url("/actions"), json=payload, headers=headers)
        return response.status_code, response.get_json()

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(lambda args: send(*args), requests))


def test_two_actions_on_one_version_exactly_one_applies(app: Flask) -> None:
    client = app.test_client()
    for round_ in range(20):
        match = create_match(client, seed=f"race-{round_}")
        headers = bearer(match.tokens[0])
        answers = race(
            app,
            match,
            [
                ({"action": MOVE_LEFT, "expected_version": 0}, headers),
                ({"action": MOVE_RIGHT, "expected_version": 0}, headers),
            ],
        )
        statuses = sorted(status for status, _ in answers)
        assert statuses == [200, 409], answers
        loser = next(body for status, body in answers if status == 409)
        assert loser["code"] == "stale-version" and loser["current_version"] == 1
        log = client.get(match.url("/log")).get_json()["entries"]
        assert len(log) == 1
        winner = next(body for status, body in answers if status == 200)
        assert log[0]["action"] == (MOVE_LEFT if len(winner["view"]["cones"][0]) == 5 else MOVE_RIGHT)


def test_many_racers_one_version_one_winner(app: Flask) -> None:
    match = create_match(app.test_client(), seed="crowd")
    headers = bearer(match.tokens[0])
    answers = race(app, match, [({"action": MOVE_LEFT, "expected_version": 0}, headers)] * 8)
    assert sorted(status for status, _ in answers) == [200] + [409] * 7
    assert app.test_client().get(match.url()).get_json()["version"] == 1


def test_idempotent_retry_returns_first_answer_and_applies_once(app: Flask, match: Match) -> None:
    client = app.test_client()
    headers = {**bearer(match.tokens[0]), "Idempotency-Key": "step-1"}
    payload = {"action": MOVE_LEFT, "expected_version": 0}
    first = client.post(match.url("/actions"), json=payload, headers=headers)
    retry = client.post(match.url("/actions"), json=payload, headers=headers)
    assert first.status_code == retry.status_code == 200
    assert retry.get_json() == first.get_json()
    assert len(client.get(match.url("/log")).get_json()["entries"]) == 1
    reused = client.post(match.url("/actions"), json={"action": MOVE_RIGHT, "expected_version": 0}, headers=headers)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency-key-reused"


def test_concurrent_retries_with_one_key_apply_once(app: Flask) -> None:
    for round_ in range(10):
        match = create_match(app.test_client(), seed=f"retry-{round_}")
        headers = {**bearer(match.tokens[0]), "Idempotency-Key": "same"}
        answers = race(app, match, [({"action": MOVE_LEFT, "expected_version": 0}, headers)] * 4)
        ok = [body for status, body in answers if status == 200]
        assert ok, answers
        assert all(body == ok[0] for body in ok)
        # A racer that lost before the first answer was stored sees a stale version; none applies twice.
        assert all(status in (200, 409) for status, _ in answers)
        assert len(app.test_client().get(match.url("/log")).get_json()["entries"]) == 1


def test_concurrent_joins_never_give_one_seat_twice(app: Flask) -> None:
    for _ in range(10):
        match = create_match(app.test_client(), open_seats=[0, 1])
        barrier = threading.Barrier(6)

        def join(m: Match = match, b: threading.Barrier = barrier) -> tuple[int, dict[str, Any]]:
            client = app.test_client()
            b.wait()
            response = client.post(m.url("/join"), json={})
            return response.status_code, response.get_json()

        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(lambda _: join(), range(6)))
        seats = [body["seat"] for status, body in answers if status == 200]
        assert len(seats) == len(set(seats)) <= 2
        state = app.test_client().get(match.url()).get_json()
        assert sum(seat["filled"] for seat in state["seats"]) == len(seats)


def test_unpinned_actions_are_rechecked_on_the_current_version(app: Flask) -> None:
    """Without expected_version the server retries its compare-and-set, re-checking the rules each time."""
    match = create_match(app.test_client(), seed="unpinned")
    headers = bearer(match.tokens[0])
    answers = race(app, match, [({"action": MOVE_LEFT}, headers)] * 6)
    statuses = sorted(status for status, _ in answers)
    # Seat 0 has one movement point: one move applies, the rest are re-checked and refused as out of turn.
    assert statuses == [200] + [409] * 5, answers
    assert all(body["code"] == "not-your-turn" for status, body in answers if status == 409)
    assert len(app.test_client().get(match.url("/log")).get_json()["entries"]) == 1
    # Both seats acting at once, unpinned: each applies on whatever version is current, none is lost.
    second = create_match(app.test_client(), seed="unpinned-2")
    first = app.test_client().post(second.url("/actions"), json={"action": MOVE_LEFT}, headers=bearer(second.tokens[0]))
    assert first.status_code == 200 and first.get_json()["version"] == 1


def test_an_action_at_a_held_version_the_match_moved_past_is_stale(app: Flask) -> None:
    """The process holds version 0 (it created the match) and checks an action chosen there on it without a read;
    the match is at version 1, where the action would be seat 1's to play: the answer is stale-version, as on
    the match as stored, not the not-your-turn version 0 would give."""
    client = app.test_client()
    match = create_match(client, seed="held-stale")
    moved = client.post(
        match.url("/actions"), json={"action": MOVE_LEFT, "expected_version": 0}, headers=bearer(match.tokens[0])
    )
    assert moved.status_code == 200
    stale = client.post(
        match.url("/actions"), json={"action": MOVE_LEFT, "expected_version": 0}, headers=bearer(match.tokens[1])
    )
    assert stale.status_code == 409 and stale.get_json()["code"] == "stale-version", stale.get_json()
    assert stale.get_json()["current_version"] == 1
    played = client.post(
        match.url("/actions"), json={"action": MOVE_LEFT, "expected_version": 1}, headers=bearer(match.tokens[1])
    )
    assert played.status_code == 200 and played.get_json()["version"] == 2


def test_a_commit_sent_again_after_its_answer_was_lost_is_ok_and_writes_once(app: Flask, match: Match) -> None:
    """A failover can cut a connection after Redis ran the commit but before its answer came; redis-py then sends
    the same script again. That second run must say `ok` (the move is stored: the client may be told so), not
    `stale`, and write nothing more; another commit of the very same record is still `stale`."""
    store = cast(ParlourApp, app).services.store
    record = store.load(match.id)
    assert record is not None
    after = replace(record, version=record.version + 1)
    entry = cast(LogEntry, {"version": after.version, "seat": 0, "action": MOVE_LEFT})
    keys, args = store._commit_arguments(after, record.version, [entry], None, None)
    assert store._commit(keys=keys, args=args) == ["ok", str(after.version)]
    assert store._commit(keys=keys, args=args) == ["ok", str(after.version)]  # the same call, sent again
    assert [logged["version"] for logged in store.log(match.id)] == [after.version]
    assert store.commit(after, record.version, entry).kind == "stale"  # an identical change, from another writer
