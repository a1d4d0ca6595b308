"""POST and GET /v1/matches/{id}/review: a finished match's review, asked for by anyone, computed by one job.

The job itself runs in tests/workers/test_review_jobs.py; here no worker runs, so a review asked for
stays queued, and a stored review is put in the store as its job would.
"""

from __future__ import annotations

import json
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import redis
from flask.testing import FlaskClient
from rq import Queue
from rq.serializers import JSONSerializer

from api.current import ParlourApp
from domain.matches.reviews import review_timeout
from store.jobs import TOURNAMENT_QUEUE
from store.matches import log_key, match_key
from store.reviews import ReviewStore, review_job_key, review_key
from tests.api.conftest import Match, bearer, create_match

ASKERS = 8


def finished_match(client: FlaskClient, seed: str = "review", resign: bool = False) -> Match:
    """A two-person IceCream match of two turns played to its end with random legal actions (or a resignation
    after the first move)."""
    match = create_match(client, seed=seed, options={"turn_limit": 2})
    rng = random.Random(seed)
    while (current := client.get(match.url()).get_json())["status"] == "active":
        seat = rng.choice(current["to_act"])
        if resign and current["version"] > 0:
            assert client.post(match.url("/resign"), headers=bearer(match.tokens[seat])).status_code == 200
            continue
        legal = client.get(match.url("/legal-actions"), headers=bearer(match.tokens[seat])).get_json()
        body = {"action": rng.choice(legal["actions"]), "expected_version": legal["version"]}
        assert client.post(match.url("/actions"), json=body, headers=bearer(match.tokens[seat])).status_code == 200
    assert current["status"] == "finished", current
    return match


def queued_reviews(redis_url: str) -> list[str]:
    """The review jobs waiting on the tournament queue."""
    queue = Queue(TOURNAMENT_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    return [job_id for job_id in queue.job_ids if job_id.startswith("review-")]


def a_review(match_id: str) -> dict[str, Any]:
    """A review as its job stores it (the values made up: only its keeping is tested here)."""
    return {"match": match_id, "game": "icecream", "moves": [], "evaluation": [[0.0, 0.0]], "seats": []}


def test_asking_queues_one_job_however_many_ask(client: FlaskClient, redis_url: str) -> None:
    match = finished_match(client)
    before = client.get(match.url("/review"))
    assert before.status_code == 404 and before.mimetype == "application/problem+json"
    assert before.get_json()["code"] == "review-not-ready" and before.get_json()["job_status"] == "none"
    with ThreadPoolExecutor(ASKERS) as pool:
        answers = list(pool.map(lambda _: client.post(match.url("/review")), range(ASKERS)))
    assert {answer.status_code for answer in answers} == {202}
    url = f"/v1/matches/{match.id}/review"
    assert all(answer.get_json() == {"status": "queued", "match": match.id, "url": url} for answer in answers)
    assert all(answer.headers["Location"] == url for answer in answers)
    assert len(queued_reviews(redis_url)) == 1
    waiting = client.get(match.url("/review"))
    assert waiting.status_code == 404 and waiting.get_json()["job_status"] == "queued"
    assert client.post(match.url("/review")).status_code == 202 and len(queued_reviews(redis_url)) == 1


def test_a_stored_review_is_answered_and_cached(app: ParlourApp, client: FlaskClient, redis_url: str) -> None:
    match = finished_match(client, seed="stored")
    reviews = ReviewStore(app.services.store.client)
    assert reviews.keep(match.id, json.dumps(a_review(match.id)))
    for ask in (client.post, client.get):
        answer = ask(match.url("/review"))
        assert answer.status_code == 200 and answer.get_json() == a_review(match.id)
        assert answer.headers["ETag"].startswith('"') and answer.headers["Cache-Control"] == "public, max-age=3600"
    assert not queued_reviews(redis_url)  # stored: no job
    etag = client.get(match.url("/review")).headers["ETag"]
    unchanged = client.get(match.url("/review"), headers={"If-None-Match": f"W/{etag}"})
    assert unchanged.status_code == 304 and unchanged.headers["ETag"] == etag and not unchanged.data


def test_only_a_finished_match_has_a_review(client: FlaskClient, match: Match) -> None:
    for ask in (client.post, client.get):
        running = ask(match.url("/review"))
        assert running.status_code == 409 and running.get_json()["code"] == "match-not-over"
        unknown = ask("/v1/matches/no-such-match/review")
        assert unknown.status_code == 404 and unknown.get_json()["code"] == "not-found"
    waiting = create_match(client, seats=[{"type": "human"}, {"type": "open"}])
    owner = bearer(waiting.body["owner_token"])
    assert client.post(waiting.url("/abort"), headers=owner).status_code == 200
    for ask in (client.post, client.get):
        aborted = ask(waiting.url("/review"))
        assert aborted.status_code == 409 and aborted.get_json()["code"] == "match-aborted"


def test_a_resigned_match_is_reviewed_too(client: FlaskClient, redis_url: str) -> None:
    match = finished_match(client, seed="resigned", resign=True)
    assert client.post(match.url("/review")).status_code == 202 and len(queued_reviews(redis_url)) == 1


def test_the_review_goes_with_its_match(app: ParlourApp, client: FlaskClient) -> None:
    match = finished_match(client, seed="expiring")
    reviews = ReviewStore(app.services.store.client)
    connection = redis.Redis.from_url(app.services.settings.redis_url)
    assert client.post(match.url("/review")).status_code == 202
    assert reviews.keep(match.id, json.dumps(a_review(match.id)))
    match_ttl = connection.pttl(match_key(match.id))
    assert 0 < connection.pttl(review_key(match.id)) <= match_ttl
    assert 0 < connection.pttl(review_job_key(match.id)) <= match_ttl
    # The match's life moves (a rematch offer renews it): reading the review moves the review's and the claim's.
    connection.pexpire(match_key(match.id), 400)
    assert client.get(match.url("/review")).status_code == 200
    assert 0 < connection.pttl(review_key(match.id)) <= 400 and 0 < connection.pttl(review_job_key(match.id)) <= 400
    while connection.exists(match_key(match.id)):  # the match expires
        time.sleep(0.05)
    assert client.get(match.url("/review")).status_code == 404
    while connection.exists(review_key(match.id), review_job_key(match.id)):  # so do the review and its job's claim
        time.sleep(0.05)
    assert reviews.read(match.id) is None


def test_a_review_is_never_stored_without_its_match(app: ParlourApp, client: FlaskClient) -> None:
    match = finished_match(client, seed="deleted")
    reviews = ReviewStore(app.services.store.client)
    assert reviews.keep(match.id, json.dumps(a_review(match.id)))
    connection = redis.Redis.from_url(app.services.settings.redis_url)
    connection.delete(match_key(match.id), log_key(match.id))  # gone at once
    assert reviews.read(match.id) is None and not connection.exists(review_key(match.id))  # the read deleted it
    assert not reviews.keep(match.id, json.dumps(a_review(match.id)))
    assert not reviews.claim_job(match.id, "review-x", replacing=None, ttl=60)
    assert not connection.exists(review_key(match.id), review_job_key(match.id))


def test_a_job_that_ended_without_a_review_is_replaced(app: ParlourApp, client: FlaskClient, redis_url: str) -> None:
    match = finished_match(client, seed="failed")
    assert client.post(match.url("/review")).status_code == 202
    [first] = queued_reviews(redis_url)
    queue = Queue(TOURNAMENT_QUEUE, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)
    lost = queue.fetch_job(first)
    assert lost is not None
    lost.delete()  # lost: neither queued nor running (its worker died, its retries spent)
    assert client.get(match.url("/review")).get_json()["job_status"] == "none"
    assert client.post(match.url("/review")).status_code == 202
    [second] = queued_reviews(redis_url)
    assert second != first and ReviewStore(app.services.store.client).job(match.id) == second


def test_a_review_job_may_run_as_long_as_its_match_has_moves() -> None:
    assert review_timeout(2) < review_timeout(200) < review_timeout(2000)
    assert review_timeout(2000) >= 2000 * 2 * 0.5
