"""The review job on real RQ workers: one job however many ask, the review stored once, moves as the log played them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import pytest
import redis
from flask.testing import FlaskClient
from rq import Queue
from rq.job import Job
from rq.registry import FinishedJobRegistry
from rq.serializers import JSONSerializer

from api.current import ParlourApp
from domain.matches.reviews import BUDGET
from engine import get_game
from model.jobs import ReviewJobResult
from store.jobs import LIVE_QUEUE, TOURNAMENT_QUEUE, JobQueue
from tests.api.conftest import Match, read_log
from tests.api.test_reviews import finished_match, queued_reviews
from tests.api.test_transcripts import run_jobs
from tests.workers.test_queues import run_burst_worker
from workers import reviews as review_jobs

ASKERS = 2


def review_results(redis_url: str) -> list[ReviewJobResult]:
    """What every finished review job returned, in the order they ended."""
    connection = redis.Redis.from_url(redis_url)
    registry = FinishedJobRegistry(TOURNAMENT_QUEUE, connection=connection, serializer=JSONSerializer)
    jobs = [Job.fetch(job_id, connection=connection, serializer=JSONSerializer) for job_id in registry.get_job_ids()]
    jobs = sorted((job for job in jobs if job.id.startswith("review-")), key=lambda job: job.ended_at or 0)
    return [cast(ReviewJobResult, job.return_value()) for job in jobs]


def check_review(client: FlaskClient, match: Match, review: dict[str, Any]) -> None:
    """The review judges every move of the log, in order, where the log played it (a resignation is no move)."""
    entries = read_log(client, match.id)["entries"]
    played = [(step, entry) for step, entry in enumerate(entries, start=1) if "action" in entry]
    assert [(move["seat"], move["action"]) for move in review["moves"]] == [(e["seat"], e["action"]) for _, e in played]
    assert [(move["step"], move["version"]) for move in review["moves"]] == [(s, e["version"]) for s, e in played]
    assert not any(move["timeout"] for move in review["moves"])
    assert all(move["class"] in (None, "inaccuracy", "mistake", "blunder") for move in review["moves"])
    assert all(move["loss"] >= 0 and move["loss"] == pytest.approx(max(0, move["value_best"] - move["value_played"]))
               for move in review["moves"])  # fmt: skip
    assert len(review["evaluation"]) == len(played) + 1 and all(len(step) == 2 for step in review["evaluation"])
    assert [seat["seat"] for seat in review["seats"]] == [0, 1]
    game = get_game("icecream")
    assert game is not None
    assert (review["match"], review["game"], review["rules_version"]) == (match.id, "icecream", game.info.rules_version)
    assert review["budget"] == BUDGET and set(review["thresholds"]) == {"inaccuracy", "mistake", "blunder"}


def test_two_asks_one_job_one_review(client: FlaskClient, redis_url: str) -> None:
    match = finished_match(client, seed="worker-review")
    before = client.get(match.url("/review"))
    assert before.status_code == 404 and before.get_json()["code"] == "review-not-ready"
    with ThreadPoolExecutor(ASKERS) as pool:
        asked = list(pool.map(lambda _: client.post(match.url("/review")), range(ASKERS)))
    assert [answer.status_code for answer in asked] == [202] * ASKERS and len(queued_reviews(redis_url)) == 1
    run_burst_worker(redis_url)
    answer = client.get(match.url("/review"))
    assert answer.status_code == 200, answer.get_json()
    review = answer.get_json()
    check_review(client, match, review)
    assert review_results(redis_url) == [{"outcome": "stored", "match": match.id, "moves": len(review["moves"])}]
    again = client.post(match.url("/review"))
    assert again.status_code == 200 and again.get_json() == review and not queued_reviews(redis_url)
    assert again.headers["ETag"] == answer.headers["ETag"]


def test_a_resignation_is_no_move_to_review(client: FlaskClient, redis_url: str) -> None:
    match = finished_match(client, seed="worker-resigned", resign=True)
    assert client.post(match.url("/review")).status_code == 202
    run_burst_worker(redis_url)
    review = client.get(match.url("/review")).get_json()
    check_review(client, match, review)
    assert read_log(client, match.id)["entries"][-1]["resign"] is True


def test_a_timeout_is_reviewed_and_marked(app: ParlourApp, client: FlaskClient) -> None:
    match = finished_match(client, seed="worker-timeout")
    record = app.services.store.load(match.id)
    assert record is not None
    log = app.services.store.log(match.id)
    log[0]["timeout"] = True  # as a turn timer plays a seat's default action
    review = review_jobs.review_moves(record, list(enumerate(log, start=1)), None)
    assert [move["timeout"] for move in review["moves"]] == [True] + [False] * (len(log) - 1)
    assert review["moves"][0]["action"] == log[0]["action"]


def test_a_review_gives_way_to_live_ai_turns(
    app: ParlourApp, client: FlaskClient, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a live AI turn waits, the review queues itself again behind it, MAX_HANDOVERS times at most."""
    match = finished_match(client, seed="worker-gives-way")
    assert client.post(match.url("/review")).status_code == 202
    original = JobQueue.waiting
    monkeypatch.setattr(JobQueue, "waiting", lambda jobs, queue: 1 if queue == LIVE_QUEUE else original(jobs, queue))
    run_jobs(monkeypatch, redis_url)  # an RQ worker in this process, so it sees a live turn waiting all along
    handed_over = {"outcome": "handed-over", "match": match.id, "moves": 0}
    results = review_results(redis_url)
    assert results[:-1] == [handed_over] * review_jobs.MAX_HANDOVERS and results[-1]["outcome"] == "stored"
    assert client.get(match.url("/review")).status_code == 200
    assert not Queue(LIVE_QUEUE, connection=redis.Redis.from_url(redis_url)).job_ids
