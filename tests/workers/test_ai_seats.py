"""AI seats play by themselves on real RQ workers; hints and applied moves through /ai-move and /jobs."""

from __future__ import annotations

import itertools
import json
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, cast

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer

from ai.levels import choose
from ai.play import ai_seed
from api.current import ParlourApp
from domain.matches.commands import checked_move, commit_move, engine_state
from engine import GameState, get_game
from model.jobs import TurnJobResult
from model.match import MatchRecord
from model.settings import Settings
from store.jobs import LIVE_QUEUE, TOURNAMENT_QUEUE, WORKER_QUEUES, JobQueue
from store.matches import MatchStore, ai_turn_key
from store.tournaments import tournament_key
from tests.api.conftest import Match, bearer, create_match, read_log
from tests.api.openapi_support import ContractClient
from tests.workers.conftest import StartWorker
from workers import jobs
from workers.context import stop_requested
from workers.jobs import RUN_MOVES, Relay, acting_ai_seats
from workers.worker import ParlourWorker

WAIT = 120.0  # seconds a test waits for workers before it fails (never asserted as a speed)


def wait_for(check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll until `check()` is truthy and return it; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def ai_jobs_pending(redis_url: str) -> int:
    """AI jobs queued or being computed."""
    connection = redis.Redis.from_url(redis_url)
    return sum(
        len(Queue(name, connection=connection)) + len(StartedJobRegistry(name, connection=connection))
        for name in WORKER_QUEUES
    )


def ai_jobs_ever(redis_url: str) -> int:
    """AI jobs queued, being computed, finished or failed: every AI job there was."""
    connection = redis.Redis.from_url(redis_url)
    ended = sum(
        len(FinishedJobRegistry(name, connection=connection)) + len(FailedJobRegistry(name, connection=connection))
        for name in WORKER_QUEUES
    )
    return ai_jobs_pending(redis_url) + ended


def finished(client: FlaskClient, match_id: str) -> dict[str, Any] | None:
    """The public match once it is over, else None."""
    body = client.get(f"/v1/matches/{match_id}").get_json()
    return body if body["status"] == "finished" else None


def ai_seats(*levels: str) -> list[dict[str, str]]:
    """A `seats` list with one AI seat per level."""
    return [{"type": "ai", "level": level} for level in levels]


def assert_log_is_a_game(client: FlaskClient, match_id: str, first: int = 1) -> list[dict[str, Any]]:
    """Every version from `first` up has exactly one log entry: no lost and no doubled move.

    (`first` is 2 when version 1 seated someone: a bot's accepted challenge is a change without a move.)
    """
    log = read_log(client, match_id)
    assert [entry["version"] for entry in log["entries"]] == list(range(first, log["version"] + 1))
    return list(log["entries"])


@pytest.mark.parametrize(
    ("game", "players", "levels", "options"),
    [
        ("icecream", 2, ("easy", "medium"), {}),
        ("sundae_split", 3, ("easy", "random", "easy"), {}),
        ("rockem_sockem", 2, ("easy", "random"), {"mode": "rounds"}),
        ("freeze_factory", 2, ("random", "random"), {"turn_limit": 30}),
    ],
)
def test_a_match_of_ai_seats_plays_to_its_end_without_a_client(
    client: FlaskClient,
    start_worker: StartWorker,
    game: str,
    players: int,
    levels: tuple[str, ...],
    options: dict[str, object],
) -> None:
    start_worker("w1")
    start_worker("w2")
    match = create_match(client, game=game, players=players, seats=ai_seats(*levels), options=options)
    assert match.tokens == {} and match.body["status"] == "active"
    over = wait_for(lambda: finished(client, match.id), f"{game} AI match to finish")
    assert over["result"] is not None
    assert [seat["type"] for seat in over["seats"]] == ["ai"] * players
    entries = assert_log_is_a_game(client, match.id)
    assert {entry["seat"] for entry in entries} == set(range(players))


def empty_turn_queues(app: ParlourApp) -> None:
    """Drop every queued turn job, on either turn queue (an all-AI match's may go on the tournament one)."""
    for queue in (LIVE_QUEUE, TOURNAMENT_QUEUE):
        app.services.jobs.queues[queue].empty()  # type: ignore[no-untyped-call]  # RQ 3 leaves Queue.empty unannotated


def turn_jobs_run(redis_url: str) -> list[TurnJobResult]:
    """The results of the finished turn jobs, on either turn queue (an all-AI match's may go on the tournament one)."""
    connection = redis.Redis.from_url(redis_url)
    ids = [
        job_id
        for queue in (LIVE_QUEUE, TOURNAMENT_QUEUE)
        for job_id in FinishedJobRegistry(queue, connection=connection, serializer=JSONSerializer).get_job_ids()
    ]
    jobs = Job.fetch_many(ids, connection=connection, serializer=JSONSerializer)
    return [cast(TurnJobResult, job.return_value()) for job in jobs if job is not None]


def test_one_job_plays_a_run_of_ai_turns_each_its_own_version(
    client: FlaskClient, start_worker: StartWorker, redis_url: str
) -> None:
    start_worker("w1")
    match = create_match(client, game="rockem_sockem", seed="relay", seats=ai_seats("random", "random"))
    over = wait_for(lambda: finished(client, match.id), "the all-AI match to finish")
    entries = assert_log_is_a_game(client, match.id)
    answers = turn_jobs_run(redis_url)
    # Each of both seats' moves is in the log once, yet far fewer jobs played them all.
    assert sum(answer["moves"] for answer in answers) == len(entries) == over["version"]
    assert {entry["seat"] for entry in entries} == {0, 1}
    assert len(answers) * 4 <= len(entries), f"{len(answers)} jobs for {len(entries)} moves"


@pytest.mark.parametrize(("game", "players"), [("sundae_split", 3), ("robots_love_ice_cream", 2)])
def test_each_relayed_move_is_the_one_its_level_finds_at_its_version(
    client: FlaskClient, start_worker: StartWorker, game: str, players: int
) -> None:
    """A relay searches the next move while the last one is stored: what it plays must be what a search at the
    stored version finds, with that version's seed (so a tournament plays the same on the server and in process)."""
    start_worker("w1")
    match = create_match(client, game=game, players=players, seed=f"ahead-{game}", seats=ai_seats(*["easy"] * players))
    over = wait_for(lambda: finished(client, match.id), f"the all-easy {game} match to finish")
    entries = assert_log_is_a_game(client, match.id)
    rules = get_game(game)
    assert rules is not None
    state = rules.start(players, over["options"], over["seed"])
    for entry in entries:
        seat, version = entry["seat"], entry["version"] - 1
        expected = choose(state, seat, "easy", ai_seed(over["seed"], seat, version, "easy"))
        assert entry["action"] == json.loads(json.dumps(expected)), f"version {version}"
        state.play(seat, expected)
    assert state.is_over()


def test_a_tournament_s_run_of_turns_hands_over_to_a_waiting_live_turn(app: ParlourApp, redis_url: str) -> None:
    services = app.services
    assert not Relay(services, "turn-t", TOURNAMENT_QUEUE).higher_priority_waits()
    services.jobs.enqueue_turn("turn-live-0-0-a", "live", 0, 0, None, tournament=False)
    assert Relay(services, "turn-t", TOURNAMENT_QUEUE).higher_priority_waits()
    assert not Relay(services, "turn-l", LIVE_QUEUE).higher_priority_waits()  # no queue comes before the live one


def unclaimed(app: ParlourApp, match: Match) -> tuple[MatchRecord, GameState]:
    """A Rock'em match after its coin flip (both racers roll), at a version no job has claimed yet."""
    store = app.services.store
    record = store.load(match.id)
    assert record is not None
    store.client.delete(*(ai_turn_key(match.id, s, record.version) for s in (0, 1)))
    state = engine_state(record)
    state.play(0, {"type": "flip"})
    return record, state


def claim_next(relay: Relay, record: MatchRecord, state: GameState) -> tuple[int, MatchRecord, GameState] | None:
    """What the relay plays next after a move to this state."""
    return relay.claim_next(record, state, relay.acting_next(record, state))


def test_a_run_of_turns_stops_where_a_human_must_act_and_at_its_limit(client: FlaskClient, app: ParlourApp) -> None:
    store = app.services.store
    human = create_match(client, game="rockem_sockem", seed="relay-h", seats=[*ai_seats("random"), {"type": "human"}])
    assert acting_ai_seats(*unclaimed(app, human)) is None
    assert claim_next(Relay(app.services, "turn-h", LIVE_QUEUE), *unclaimed(app, human)) is None
    both = create_match(client, game="rockem_sockem", seed="relay-a", seats=ai_seats("random", "medium"))
    assert claim_next(Relay(app.services, "turn-s", LIVE_QUEUE, limit=0.0), *unclaimed(app, both)) is None
    record, state = unclaimed(app, both)
    seat, stored, _ = claim_next(Relay(app.services, "turn-a", LIVE_QUEUE), record, state) or (None, None, None)
    assert stored is record and seat in (0, 1)
    # A `medium` move may outlast the sweep's grace: both racers' turns are held by the job.
    assert {store.ai_turn_claim(both.id, s, record.version) for s in (0, 1)} == {"turn-a"}
    quick = create_match(client, game="rockem_sockem", seed="relay-q", seats=ai_seats("random", "easy"))
    record, state = unclaimed(app, quick)
    assert claim_next(Relay(app.services, "turn-q", LIVE_QUEUE), record, state) is not None
    assert {store.ai_turn_claim(quick.id, s, record.version) for s in (0, 1)} == {None}  # played sooner: no claim


def test_past_its_slice_a_run_of_turns_gives_way_to_another_match_s_waiting_turn(
    client: FlaskClient, app: ParlourApp
) -> None:
    jobs = app.services.jobs
    match = create_match(client, game="rockem_sockem", seed="relay-w", seats=ai_seats("random", "random"))
    empty_turn_queues(app)  # the match's own first turn, which no worker takes here
    record, state = unclaimed(app, match)
    assert claim_next(Relay(app.services, "turn-w", LIVE_QUEUE, time_slice=0.0), record, state) is not None
    assert claim_next(Relay(app.services, "turn-w", "parlour-ai-other", time_slice=0.0), record, state) is not None
    jobs.enqueue_turn(jobs.new_turn_id("other-match", 0, 3), "other-match", 0, 3, None, tournament=False)
    assert claim_next(Relay(app.services, "turn-w", LIVE_QUEUE), record, state) is not None  # within its slice
    assert claim_next(Relay(app.services, "turn-w", LIVE_QUEUE, time_slice=0.0), record, state) is None


def test_an_untimed_tournament_s_match_plays_on_past_its_slice_while_only_its_own_tournament_waits(
    client: FlaskClient, app: ParlourApp
) -> None:
    jobs, tournaments = app.services.jobs, app.services.tournaments.store
    match = create_match(client, game="rockem_sockem", seed="relay-t", seats=ai_seats("random", "random"))
    empty_turn_queues(app)
    record, state = unclaimed(app, match)
    untimed = replace(record, tournament="cup")
    tournaments.client.hset(tournament_key("cup", "matches"), mapping={"0": match.id, "1": "sibling-match"})

    def plays_on(record: MatchRecord) -> bool:
        """Whether a tournament relay past its slice plays the match's next turn."""
        return claim_next(Relay(app.services, "turn-t", TOURNAMENT_QUEUE, time_slice=0.0), record, state) is not None

    jobs.enqueue_turn(jobs.new_turn_id("sibling-match", 1, 9), "sibling-match", 1, 9, None, tournament=True)
    assert plays_on(untimed)
    assert not plays_on(replace(untimed, turn_seconds=30))  # a timed sibling waits on its clock: take turns
    tournaments.client.hset(tournament_key("cup", "matches"), "2", "later-match")  # started after the relay looked
    jobs.enqueue_turn(jobs.new_turn_id("later-match", 0, 1), "later-match", 0, 1, None, tournament=True)
    assert plays_on(untimed)
    jobs.enqueue_turn(jobs.new_turn_id("strangers-match", 0, 5), "strangers-match", 0, 5, None, tournament=True)
    assert not plays_on(untimed)
    assert jobs.waiting_turn_matches(TOURNAMENT_QUEUE, 2) == ["sibling-match", "later-match"]  # a look is bounded


def test_a_run_of_turns_hands_over_once_its_worker_is_asked_to_stop(client: FlaskClient, app: ParlourApp) -> None:
    match = create_match(client, game="rockem_sockem", seed="relay-x", seats=ai_seats("random", "random"))
    record, state = unclaimed(app, match)
    worker = ParlourWorker([LIVE_QUEUE], connection=app.services.jobs.connection, serializer=JSONSerializer)
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        worker.request_stop(
            signal.SIGTERM, None
        )  # not waiting for a job: kept for its loop (tests/workers/test_queues)
        assert worker._stop_requested
        assert claim_next(Relay(app.services, "turn-x", LIVE_QUEUE), record, state) is None
    finally:
        stop_requested.clear()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def play_inline(app: ParlourApp, monkeypatch: pytest.MonkeyPatch, match_id: str) -> list[TurnJobResult]:
    """Play a match's AI turns through the worker's own job, called in this process; the jobs' answers."""
    monkeypatch.setattr(jobs, "context", lambda: app.services)
    store = app.services.store
    answers: list[TurnJobResult] = []
    record = store.load(match_id)
    while record is not None and record.status == "active":
        answers.append(jobs.play_ai_turn(match_id, engine_state(record).waiting_for()[0], record.version))
        record = store.load(match_id)
    return answers


def announced(notices: redis.client.PubSub, match_id: str) -> list[int]:
    """The versions of the match announced on the change channel so far."""
    versions = []
    while (message := notices.get_message(timeout=0.5)) is not None:
        change = MatchStore.change_of(message["data"]) if message["type"] == "message" else None
        if change is not None and change[0] == match_id:
            versions.append(change[1])
    return versions


def test_an_all_ai_match_s_quick_moves_are_stored_together_each_its_own_version(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "RUN_SPAN", WAIT)  # a run ends at RUN_MOVES moves, however slow this machine is
    match = create_match(client, game="rockem_sockem", seed="run-a", seats=ai_seats("random", "random"))
    empty_turn_queues(app)  # its first turn, played here instead
    notices = app.services.store.subscribe_changes()
    assert announced(notices, match.id) == []  # subscribed
    answers = play_inline(app, monkeypatch, match.id)
    entries = assert_log_is_a_game(client, match.id)
    stores = announced(notices, match.id)
    assert sum(answer["moves"] for answer in answers) == len(entries) > RUN_MOVES
    assert stores[-1] == len(entries) and len(stores) < len(entries) / 2, stores
    assert max(b - a for a, b in itertools.pairwise([0, *stores])) == RUN_MOVES  # one compare-and-set each


def held_flip(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch, seed: str, *levels: str
) -> tuple[Relay, MatchRecord, Match]:
    """A new all-AI Rock'em match, a relay holding its coin flip (both racers roll next) however slow this machine
    is, and the record the flip was played on."""
    monkeypatch.setattr(jobs, "RUN_SPAN", WAIT)
    match = create_match(client, game="rockem_sockem", seed=seed, seats=ai_seats(*levels))
    record = app.services.store.load(match.id)
    assert record is not None
    relay = Relay(app.services, f"turn-{match.id}", LIVE_QUEUE)
    assert relay.commit(checked_move(record, 0, {"type": "flip"}, record.version)).kind == "ok"
    return relay, record, match


def test_moves_held_are_stored_once_their_span_is_over_even_mid_search(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = app.services.store
    relay, record, match = held_flip(client, app, monkeypatch, "run-b", "random", "easy")
    assert store.version(match.id) == record.version, "held, not stored"
    assert relay.store_held_when_due() is False and store.version(match.id) == record.version
    monkeypatch.setattr(jobs, "RUN_SPAN", 0.0)
    assert relay.store_held_when_due() is False, "the search goes on"
    assert store.version(match.id) == record.version + 1
    assert [entry["action"] for entry in read_log(client, match.id)["entries"]] == [{"type": "flip"}]


def test_a_run_whose_match_moved_on_meanwhile_stores_nothing(
    client: FlaskClient, app: ParlourApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = app.services.store
    relay, record, match = held_flip(client, app, monkeypatch, "run-c", "random", "random")
    assert commit_move(store, checked_move(record, 0, {"type": "flip"}, record.version)).kind == "ok"  # another job
    relay.store_held(playing_on=False)
    assert store.version(match.id) == record.version + 1
    assert len(read_log(client, match.id)["entries"]) == 1


def test_a_match_with_a_human_or_a_slow_level_holds_no_move(client: FlaskClient, app: ParlourApp) -> None:
    store, relay = app.services.store, Relay(app.services, "turn-h", LIVE_QUEUE)
    for seats in ([*ai_seats("random"), {"type": "human"}], ai_seats("random", "medium")):
        match = create_match(client, game="rockem_sockem", seed="run-h", seats=seats)
        record = store.load(match.id)
        assert record is not None
        move = checked_move(record, 0, {"type": "flip"}, record.version)
        assert not relay.holds(move, (1, [0, 1])), seats


def test_a_turn_job_s_id_names_its_match() -> None:
    job_id = JobQueue.new_turn_id("a-b_c-d", 2, 17)
    assert JobQueue.turn_match(job_id) == "a-b_c-d"
    assert JobQueue.turn_match("advance-cup-0a1b") is None
    assert JobQueue.turn_match("turn-short") is None


def test_an_ai_seat_answers_a_human_and_waits_for_them(
    client: FlaskClient, start_worker: StartWorker, redis_url: str
) -> None:
    start_worker("w1")
    match = create_match(client, seed="vs-ai", seats=[{"type": "human", "name": "ann"}, *ai_seats("easy")])
    assert set(match.tokens) == {0}
    token = match.tokens[0]
    for _ in range(3):  # three exchanges: the human plays a whole turn, then the AI does
        while (mine := client.get(match.url("/legal-actions"), headers=bearer(token)).get_json())["may_act"]:
            client.post(
                match.url("/actions"),
                json={"action": mine["actions"][0], "expected_version": mine["version"]},
                headers=bearer(token),
            )
        wait_for(lambda: client.get(match.url()).get_json()["waiting_for"] == [0], "the AI to hand the turn back")
    # A wrongly queued extra AI move is queued before the job that handed the turn back ends: played by then.
    wait_for(lambda: ai_jobs_pending(redis_url) == 0, "the AI's jobs to end")
    entries = assert_log_is_a_game(client, match.id)
    movers = [entry["seat"] for entry in entries]
    assert movers[0] == 0 and 1 in movers and movers[-1] == 1
    assert client.get(match.url()).get_json()["waiting_for"] == [0]


def request_move(client: FlaskClient, match: Match, seat: int, **body: Any) -> dict[str, Any]:
    """POST ai-move for a seat; the 202 answer."""
    response = client.post(match.url("/ai-move"), json=body, headers=bearer(match.tokens[seat]))
    assert response.status_code == 202, response.get_json()
    assert response.headers["Location"] == response.get_json()["url"]
    return dict(response.get_json())


def job_done(client: FlaskClient, url: str, token: str) -> dict[str, Any] | None:
    """The job once it finished or failed, else None."""
    body = client.get(url, headers=bearer(token)).get_json()
    return body if body["status"] in ("finished", "failed") else None


def test_a_hint_is_a_legal_move_and_is_not_applied(
    client: FlaskClient, match: Match, start_worker: StartWorker, redis_url: str
) -> None:
    start_worker("w1")
    job = request_move(client, match, 0, level="easy")
    assert job["status"] == "queued" and job["apply"] is False
    done = wait_for(lambda: job_done(client, job["url"], match.tokens[0]), "the hint")
    assert done["status"] == "finished" and done["error"] is None
    assert 0 < redis.Redis.from_url(redis_url).ttl(f"rq:job:{job['id']}") <= Settings().job_ttl  # results expire
    assert done["result"]["applied"] is False and done["result"]["version"] == 0
    assert client.get(match.url()).get_json()["version"] == 0
    played = client.post(
        match.url("/actions"),
        json={"action": done["result"]["action"], "expected_version": 0},
        headers=bearer(match.tokens[0]),
    )
    assert played.status_code == 200


def test_an_applied_ai_move_goes_through_compare_and_set(
    client: FlaskClient, match: Match, start_worker: StartWorker
) -> None:
    start_worker("w1")
    job = request_move(client, match, 0, level="random", apply=True)
    done = wait_for(lambda: job_done(client, job["url"], match.tokens[0]), "the applied move")
    assert done["result"]["applied"] is True and done["result"]["applied_version"] == 1
    entries = assert_log_is_a_game(client, match.id)
    assert entries == [{**entries[0], "seat": 0, "action": done["result"]["action"]}]


def test_a_job_is_only_shown_to_the_seat_that_asked(client: FlaskClient, match: Match) -> None:
    job = request_move(client, match, 0)
    assert client.get(job["url"]).status_code == 401
    other = client.get(job["url"], headers=bearer(match.tokens[1]))
    assert other.status_code == 403 and other.content_type == "application/problem+json"
    queued = client.get(job["url"], headers=bearer(match.tokens[0])).get_json()
    assert queued["status"] == "queued" and queued["result"] is None
    missing = client.get("/v1/jobs/no-such-job", headers=bearer(match.tokens[0]))
    assert missing.status_code == 404


def test_ai_move_refuses_what_cannot_be_asked(client: FlaskClient, match: Match) -> None:
    not_mine = client.post(match.url("/ai-move"), json={}, headers=bearer(match.tokens[1]))
    assert not_mine.status_code == 409 and not_mine.get_json()["code"] == "not-your-turn"
    bad_level = client.post(match.url("/ai-move"), json={"level": "godlike"}, headers=bearer(match.tokens[0]))
    assert bad_level.status_code == 400 and "godlike" in bad_level.get_json()["detail"]
    assert client.post(match.url("/ai-move"), json={}).status_code == 401


@pytest.mark.parametrize(
    ("seats", "field"),
    [
        ([{"type": "ai", "level": "easy"}], "seats"),  # one entry for two players
        ([{"type": "ai"}, {"type": "human"}], "seats"),  # an AI seat needs a level
        ([{"type": "human", "level": "easy"}, {"type": "human"}], "seats"),  # only AI seats have levels
        ([{"type": "robot"}, {"type": "human"}], "seats"),
    ],
)
def test_creating_with_bad_seats_is_a_400(client: FlaskClient, seats: list[dict[str, Any]], field: str) -> None:
    response = client.post("/v1/matches", json={"game": "icecream", "players": 2, "seats": seats})
    assert response.status_code == 400 and field in response.get_json()["errors"]


def test_a_level_the_game_does_not_offer_is_a_400(client: FlaskClient) -> None:
    catalog = client.get("/v1/games/sundae_split").get_json()
    assert "perfect" not in catalog["ai_levels"] and "hard" in catalog["ai_levels"]
    response = client.post(
        "/v1/matches", json={"game": "sundae_split", "players": 2, "seats": ai_seats("perfect", "easy")}
    )
    assert response.status_code == 400 and "perfect" in response.get_json()["detail"]
    assert response.get_json()["errors"] == {"seats": {"0": {"level": ["one of: random, easy, medium, hard"]}}}


def test_open_and_ai_seats_wait_for_a_player_then_the_ai_moves(
    client: FlaskClient, start_worker: StartWorker, redis_url: str
) -> None:
    start_worker("w1")
    match = create_match(client, seats=[*ai_seats("easy"), {"type": "open"}])
    assert match.body["status"] == "waiting" and match.body["open_seats"] == [1]
    # An AI turn is queued by the request that makes it due, before its answer: none was, so none can come.
    assert ai_jobs_ever(redis_url) == 0
    assert client.get(match.url()).get_json()["version"] == 0  # nobody moves before the match starts
    joined = client.post(match.url("/join"), json={}).get_json()
    assert joined["status"] == "active"
    wait_for(lambda: client.get(match.url()).get_json()["version"] == joined["version"] + 1, "the AI's first move")
    entries = read_log(client, match.id)["entries"]
    assert [(entry["version"], entry["seat"]) for entry in entries] == [(joined["version"] + 1, 0)]


def test_finished_and_failed_jobs_follow_the_contract(
    app: ParlourApp, client: FlaskClient, match: Match, start_worker: StartWorker
) -> None:
    contract = ContractClient(app, client)
    token = bearer(match.tokens[0])
    hint = contract.post(match.url("/ai-move"), json={"level": "easy"}, headers=token, expect=202).json
    late = contract.post(match.url("/ai-move"), json={"apply": True}, headers=token, expect=202).json
    while (mine := client.get(match.url("/legal-actions"), headers=token).get_json())["may_act"]:
        client.post(match.url("/actions"), json={"action": mine["actions"][0]}, headers=token)
    start_worker("w1")  # both jobs run now that seat 0's turn is over
    for job in (hint, late):
        wait_for(partial(job_done, client, job["url"], match.tokens[0]), "the job")
    failed = contract.get(hint["url"], headers=token, expect=200).json
    assert failed["status"] == "failed" and failed["error"]["code"] == "not-your-turn" and failed["result"] is None
    assert contract.get(late["url"], headers=token, expect=200).json["error"]["code"] == "not-your-turn"
    mine = client.get(match.url(), headers=token).get_json()
    assert [entry["seat"] for entry in read_log(client, match.id)["entries"]] == [0] * mine["version"]
    wait_for(lambda: client.get(match.url()).get_json()["waiting_for"] == [1], "nothing: seat 1 is human")
    seat1 = bearer(match.tokens[1])
    answer = contract.post(match.url("/ai-move"), json={"level": "random"}, headers=seat1, expect=202).json
    wait_for(lambda: job_done(client, answer["url"], match.tokens[1]), "the hint for seat 1")
    done = contract.get(answer["url"], headers=seat1, expect=200).json
    assert done["status"] == "finished" and done["result"]["version"] == mine["version"]
