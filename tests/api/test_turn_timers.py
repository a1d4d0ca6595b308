"""Turn timers in the API: the `turn_timer` option, the deadlines in match views, the timeout flag in the log,
and deadlines moved across a downtime of the timers (`TurnTimers.keep_fair`, called here with chosen times).

The timeouts themselves fire in the timer worker (tests/workers/test_turn_timers.py); here the
server's part is checked without workers: what is refused, what each version's deadlines are,
and how a timeout's action is logged.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue

from api.current import ParlourApp
from domain.matches import commands as service
from domain.turn_timers import MAX_SECONDS, RESTART_AWAY_AFTER_MS, epoch_ms, moved_deadlines, parse_iso
from model.match import MatchRecord
from ops import supervisor as parlour_service
from store.turn_timers import TIMER_QUEUE, Downtime, timeout_job_id
from tests.api.conftest import Match, bearer, create_match
from tests.api.openapi_support import ContractClient


def deadlines(client: FlaskClient, match: Match) -> dict[int, str]:
    """The match's deadlines as the public sees them, by seat."""
    body = client.get(match.url()).get_json()
    return {entry["seat"]: entry["at"] for entry in body["deadlines"]}


def act(client: FlaskClient, match: Match, seat: int, action: dict[str, Any]) -> dict[str, Any]:
    """Post one action of a seat at the current version; the answer."""
    version = client.get(match.url()).get_json()["version"]
    response = client.post(
        match.url("/actions"), json={"action": action, "expected_version": version}, headers=bearer(match.tokens[seat])
    )
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


@pytest.mark.parametrize(
    "turn_timer",
    [
        {"seconds": 0},
        {"seconds": -5},
        {"seconds": MAX_SECONDS + 1},
        {"seconds": "30"},
        {"seconds": 1.5},
        {"seconds": True},
        {},
        {"seconds": 30, "increment": 5},
        30,
        "30s",
    ],
)
def test_bad_turn_timers_are_refused(client: FlaskClient, turn_timer: Any) -> None:
    """Seconds are a whole number from 1 to a day, in an object with nothing else: 400 problem+json otherwise."""
    response = client.post("/v1/matches", json={"game": "icecream", "players": 2, "turn_timer": turn_timer})
    assert response.status_code == 400
    assert response.content_type == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "invalid-request"
    assert "turn_timer" in problem["errors"]


def test_without_a_timer_there_are_no_deadlines(client: FlaskClient, match: Match) -> None:
    """Absent (or null) means no timer: `turn_timer` is null and `deadlines` empty."""
    body = client.get(match.url()).get_json()
    assert (body["turn_timer"], body["deadlines"]) == (None, [])
    nulled = create_match(client, turn_timer=None)
    assert client.get(nulled.url()).get_json()["turn_timer"] is None


def test_the_seat_to_move_has_a_deadline_the_timer_from_now(client: FlaskClient) -> None:
    """`deadlines` lists each waited-for seat with the ISO time its timer runs out."""
    before = datetime.now(UTC)
    match = create_match(client, turn_timer={"seconds": 30})
    body = client.get(match.url(), headers=bearer(match.tokens[1])).get_json()
    assert body["turn_timer"] == {"seconds": 30}
    assert [entry["seat"] for entry in body["deadlines"]] == body["waiting_for"] == [0]
    left = (parse_iso(body["deadlines"][0]["at"]) - before).total_seconds()
    assert 29 <= left <= 31


def test_a_seat_gets_a_fresh_clock_after_each_of_its_actions(client: FlaskClient) -> None:
    """IceCream's turn 2 is two moves: seat 1's clock starts at its turn and again after its first move."""
    match = create_match(client, turn_timer={"seconds": 60})
    act(client, match, 0, {"type": "move", "from_cone": 0, "scoops": 1})
    first = deadlines(client, match)
    assert list(first) == [1]
    act(client, match, 1, {"type": "move", "from_cone": 0, "scoops": 1})
    second = deadlines(client, match)
    assert list(second) == [1] and second[1] > first[1]
    act(client, match, 1, {"type": "move", "from_cone": 0, "scoops": 1})
    assert list(deadlines(client, match)) == [0]


def test_a_seat_keeps_its_clock_while_another_seat_acts(client: FlaskClient) -> None:
    """Rock'em Sock'em rounds: both seats roll; the seat that has not answered keeps the deadline it had."""
    match = create_match(client, game="rockem_sockem", turn_timer={"seconds": 60}, seed="clocks")
    act(client, match, 0, {"type": "flip"})
    both = deadlines(client, match)
    assert list(both) == [0, 1] and both[0] == both[1]
    act(client, match, 0, {"type": "roll", "keep": []})
    assert deadlines(client, match) == {1: both[1]}


def test_deadlines_start_when_the_last_seat_is_taken(client: FlaskClient) -> None:
    """A match waiting for players has no deadline; joining the last seat starts the clock."""
    response = client.post(
        "/v1/matches", json={"game": "icecream", "players": 2, "open_seats": [1], "turn_timer": {"seconds": 45}}
    )
    match_id = response.get_json()["id"]
    assert client.get(f"/v1/matches/{match_id}").get_json()["deadlines"] == []
    assert client.post(f"/v1/matches/{match_id}/join", json={}).status_code == 200
    body = client.get(f"/v1/matches/{match_id}").get_json()
    assert [entry["seat"] for entry in body["deadlines"]] == [0]


def test_a_finished_match_has_no_deadlines(client: FlaskClient) -> None:
    """Once over, nobody is waited for."""
    match = create_match(client, turn_timer={"seconds": 60}, options={"turn_limit": 1})
    answer = act(client, match, 0, {"type": "move", "from_cone": 0, "scoops": 1})
    assert (answer["status"], answer["deadlines"]) == ("finished", [])


def test_a_timeout_is_flagged_in_the_log(app: ParlourApp, client: FlaskClient) -> None:
    """The server's default action goes through the checked path and its log entry says `timeout: true`."""
    match = create_match(client, turn_timer={"seconds": 60})
    store = app.services.store
    record = service.load_match(store, match.id)
    action = service.engine_state(record).default_action(0)
    service.apply_action(store, record, 0, action, record.version, None, timeout=True)
    act(client, match, 1, {"type": "move", "from_cone": 1, "scoops": 1})
    entries = client.get(match.url("/log")).get_json()["entries"]
    assert [entry.get("timeout") for entry in entries] == [True, None]
    assert entries[0]["action"] == {"type": "move", "from_cone": 0, "scoops": 1}


def test_the_timer_fields_match_openapi(app: ParlourApp, client: FlaskClient) -> None:
    """The option, the deadlines in views and the timeout flag in the log are as openapi.yaml documents them."""
    contract = ContractClient(app, client)
    body = {"game": "icecream", "players": 2, "turn_timer": {"seconds": 30}}
    created = contract.post("/v1/matches", json=body, expect=201, request_valid=True).json
    bad = {**body, "turn_timer": {"seconds": 0}}
    contract.post("/v1/matches", json=bad, expect=400, request_valid=False)
    match = Match(created["id"], {seat["seat"]: seat["token"] for seat in created["tokens"]}, created)
    store = app.services.store
    record = service.load_match(store, match.id)
    service.apply_action(store, record, 0, service.engine_state(record).default_action(0), 0, None, timeout=True)
    view = contract.get(match.url(), headers=bearer(match.tokens[1]), expect=200).json
    assert [entry["seat"] for entry in view["deadlines"]] == [1]
    assert contract.get(match.url("/log"), expect=200).json["entries"][0]["timeout"] is True


@pytest.mark.parametrize("ai_workers", [0, 2])
def test_the_service_always_starts_a_timer_worker(ai_workers: int) -> None:
    """Timers fire without AI workers: `make run` starts one `python -m workers --timers` whatever their number."""
    settings = parlour_service.Settings(ai_workers=ai_workers)
    children = parlour_service.service_children(settings)
    timers = [child for child in children if child.argv[-2:] == ["workers", "--timers"]]
    assert len(timers) == 1 and timers[0].restart
    assert len(children) == 2 + ai_workers


# --- clocks fair across downtime ------------------------------------------------------------------


def at_ms(moment: str) -> int:
    """An ISO timestamp as epoch milliseconds."""
    return epoch_ms(parse_iso(moment))


def record_with(deadlines: dict[str, str], turn_seconds: int = 10) -> MatchRecord:
    """A bare running record with these deadlines (only the timer fields matter to `moved_deadlines`)."""
    return MatchRecord("m", "icecream", 2, {}, "seed", {}, [], turn_seconds=turn_seconds, deadlines=deadlines)


def test_a_seat_gets_back_the_part_of_a_downtime_its_clock_ran_through() -> None:
    """10 s clocks, timers away from 12:00:10 to 12:00:40: before, all 30 s back; during, the rest; after, none."""
    downtime = Downtime(at_ms("2026-03-01T12:00:10.000Z"), at_ms("2026-03-01T12:00:40.000Z"), "")
    record = record_with(
        {
            "0": "2026-03-01T12:00:15.000Z",  # clock started 12:00:05, before the downtime
            "1": "2026-03-01T12:00:30.500Z",  # started 12:00:20.5, during it (the API was up, the timers not)
            "2": "2026-03-01T12:00:55.000Z",  # started 12:00:45, after it
        }
    )
    assert moved_deadlines(record, downtime) == {
        "0": "2026-03-01T12:00:45.000Z",
        "1": "2026-03-01T12:00:50.000Z",
        "2": "2026-03-01T12:00:55.000Z",
    }


def test_a_heartbeat_silence_is_recorded_as_a_downtime_once(app: ParlourApp) -> None:
    """Beats a second apart are no downtime; a 5 s silence is one, recorded by the first beat after it only."""
    clock = app.services.timers.clock
    assert not clock.beat(1_000_000) and not clock.beat(1_001_000)
    assert clock.beat(1_006_000)
    assert not clock.beat(1_006_000) and not clock.beat(1_005_500)  # a second worker, or a clock behind: nothing
    assert [(d.since_ms, d.until_ms) for d in clock.downtimes()] == [(1_001_000, 1_006_000)]
    assert clock.last_beat() == 1_006_000


def test_a_starting_scheduler_counts_a_silence_of_over_one_beat_as_downtime(app: ParlourApp) -> None:
    """A 2 s silence is no downtime to a running scheduler (a slow beat), but is one to one that just started."""
    clock = app.services.timers.clock
    assert not clock.beat(2_000_000) and not clock.beat(2_002_000)
    assert not clock.beat(2_003_100, RESTART_AWAY_AFTER_MS)  # 1.1 s: one beat late, nothing missed
    assert clock.beat(2_005_100, RESTART_AWAY_AFTER_MS)
    assert [(d.since_ms, d.until_ms) for d in clock.downtimes()] == [(2_003_100, 2_005_100)]


def test_a_downtime_moves_the_deadlines_once_at_a_new_version(app: ParlourApp, client: FlaskClient) -> None:
    """Timers away 12.5 s: the seat's deadline moves 12.5 s later at version + 1, its timeout is rescheduled, once."""
    timers = app.services.timers
    match = create_match(client, turn_timer={"seconds": 60})
    before = client.get(match.url()).get_json()
    deadline = deadlines(client, match)[0]
    since = at_ms(before["updated_at"]) + 1000  # the last heartbeat, a second after the clock started
    timers.clock.beat(since)
    moved = timers.keep_fair(announce(app), now_ms=since + 12_500)
    after = client.get(match.url()).get_json()
    assert moved == [match.id] and after["version"] == before["version"] + 1
    assert at_ms(deadlines(client, match)[0]) - at_ms(deadline) == 12_500
    queue = Queue(TIMER_QUEUE, connection=redis.Redis.from_url(app.services.settings.redis_url))
    scheduled = queue.scheduled_job_registry.get_job_ids()
    assert timeout_job_id(match.id, 0, deadlines(client, match)[0]) in scheduled
    assert timers.clock.downtimes() == [] and timers.keep_fair(announce(app), now_ms=since + 13_000) == []
    assert client.get(match.url()).get_json()["version"] == after["version"]
    assert client.get(match.url("/log")).get_json()["entries"] == []  # moving a clock is no action


def test_a_downtime_made_up_half_way_is_finished_without_moving_a_match_twice(
    app: ParlourApp, client: FlaskClient
) -> None:
    """A scheduler died after moving one match: the next one moves the other and leaves the first as it was."""
    timers = app.services.timers
    first, second = (create_match(client, turn_timer={"seconds": 60}) for _ in range(2))
    since = at_ms(client.get(second.url()).get_json()["updated_at"]) + 1000
    timers.clock.beat(since)
    timers.clock.beat(since + 8000)
    [downtime] = timers.clock.downtimes()
    assert timers.move_deadlines(first.id, downtime, announce(app))
    timers.clock.mark_made_up(downtime, first.id)
    first_deadline = deadlines(client, first)[0]
    second_deadline = deadlines(client, second)[0]
    assert timers.keep_fair(announce(app), now_ms=since + 8500) == [second.id]
    assert deadlines(client, first)[0] == first_deadline
    assert at_ms(deadlines(client, second)[0]) - at_ms(second_deadline) == 8000


def test_a_match_is_moved_once_for_a_downtime_whoever_moves_it(app: ParlourApp, client: FlaskClient) -> None:
    """The scheduler and a timeout job may both reach a match: its record says it was moved, so it moves once."""
    timers = app.services.timers
    match = create_match(client, turn_timer={"seconds": 60})
    deadline = deadlines(client, match)[0]
    since = at_ms(client.get(match.url()).get_json()["updated_at"]) + 1000
    timers.clock.beat(since)
    timers.clock.beat(since + 6000)
    [downtime] = timers.clock.downtimes()
    assert timers.move_deadlines(match.id, downtime, announce(app))
    assert not timers.move_deadlines(match.id, downtime, announce(app))  # as a second process would
    assert at_ms(deadlines(client, match)[0]) - at_ms(deadline) == 6000
    assert not timers.make_up_match(match.id, announce(app))


def test_a_timeout_job_makes_up_its_own_match_before_the_scheduler_reaches_it(
    app: ParlourApp, client: FlaskClient
) -> None:
    """Two downtimes, neither made up: the match is moved for both, oldest first, and marked done for each."""
    timers = app.services.timers
    match = create_match(client, turn_timer={"seconds": 60})
    deadline = deadlines(client, match)[0]
    since = at_ms(client.get(match.url()).get_json()["updated_at"]) + 1000
    for beat in (since, since + 5000, since + 6000, since + 10_000):
        timers.clock.beat(beat)
    first, second = timers.clock.downtimes()
    assert timers.make_up_match(match.id, announce(app))
    assert at_ms(deadlines(client, match)[0]) - at_ms(deadline) == 5000 + 4000
    assert timers.clock.is_made_up(first, match.id) and timers.clock.is_made_up(second, match.id)
    assert timers.keep_fair(announce(app), now_ms=since + 10_500) == [] and timers.clock.downtimes() == []


def test_the_scheduler_makes_up_a_slice_at_a_time(app: ParlourApp, client: FlaskClient) -> None:
    """With no time for it, a look moves nothing and keeps the downtime; the next look moves the match."""
    timers = app.services.timers
    match = create_match(client, turn_timer={"seconds": 60})
    since = at_ms(client.get(match.url()).get_json()["updated_at"]) + 1000
    timers.clock.beat(since)
    assert timers.keep_fair(announce(app), now_ms=since + 7000, budget=0) == []
    assert len(timers.clock.downtimes()) == 1
    assert timers.keep_fair(announce(app), now_ms=since + 7500) == [match.id]
    assert timers.clock.downtimes() == []


def announce(app: ParlourApp) -> Callable[[MatchRecord], None]:
    """What the timer worker sets off after moving a match's deadlines: the app's listeners."""

    def after_change(record: MatchRecord) -> None:
        app.services.after_change(record, service.engine_state(record))

    return after_change
