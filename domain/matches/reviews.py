"""A finished match's review: each move's loss against the best move found at a fixed budget, computed once.

Anyone may ask for the review of a finished match (its seed and whole log are public). The review is
computed off the request path, by one RQ job on the tournament queue (`workers/reviews.py`), and stored
with the match (`store/reviews.py`): it never changes, and goes when the match goes. However many ask,
one job computes it: the job is claimed in the store before it is queued (as a seat's requested move
is, `domain/matches/hints.py`), and asking while it waits or runs answers that job. A job that ended
without storing the review (it failed every retry) is replaced by the next ask.

The budget is fixed, so two reviews of one match agree: REVIEW_ITERATIONS iterations per searched
position, each search cut at REVIEW_TIME_CAP s, so a match of hundreds of moves holds a worker for a
bounded time (its job's time limit is sized from its moves, `review_timeout`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Literal, TypedDict

from domain.matches.commands import game_of
from engine import Action
from model.match import ABORTED, FINISHED, LogEntry, MatchRecord
from model.refusals import Conflict, ReviewNotReady, ServiceUnavailable
from store.jobs import JobQueue
from store.reviews import ReviewStore

if TYPE_CHECKING:
    from ai.review import ReviewJson

REVIEW_ITERATIONS = 200
"""Iterations of the search per position a review looks at (exact solvers answer at once, whatever the budget)."""
REVIEW_TIME_CAP = 0.5
"""Seconds one search of a review may take at most, whatever its iterations."""
SEARCHES_PER_MOVE = 2
"""Searches a reviewed move may cost: the position before it, and the played move's when the first did not rate it."""
JOB_MARGIN = 60
"""Seconds a review job gets beyond its searches: loading and replaying the match, storing the review."""
CLAIM_ATTEMPTS = 5
"""Claims an ask tries; each one lost means another ask just queued the job, which the next attempt finds."""

JobStatus = Literal["queued", "started", "failed", "none"]
"""Where a match's review job is: waiting, running, ended without a review (ask again), or never asked for."""


class ReviewBudget(TypedDict):
    """The fixed budget of a review: iterations per position, and each search's cap in milliseconds."""

    iterations: int
    milliseconds: int


BUDGET: ReviewBudget = {"iterations": REVIEW_ITERATIONS, "milliseconds": int(REVIEW_TIME_CAP * 1000)}


class Thresholds(TypedDict):
    """The losses (on the engine's reward scale) from which a move is an inaccuracy, a mistake, a blunder."""

    inaccuracy: float
    mistake: float
    blunder: float


ReviewedMove = TypedDict(
    "ReviewedMove",
    {
        "version": int,  # the match's version the move made (its log entry's)
        "step": int,  # the replay step after it (`GET .../replay/{step}`): its place in the log, from 1
        "seat": int,
        "action": Action,
        "timeout": bool,  # a turn timer played it (the seat's default action)
        "best": Action,
        "value_played": float,
        "value_best": float,
        "loss": float,
        "class": str | None,  # None, inaccuracy, mistake or blunder
    },
)
"""One reviewed move as the review is stored and answered."""


class SeatAccuracy(TypedDict):
    """A seat's accuracy (0-100) over its moves, and how many of them were marked."""

    seat: int
    accuracy: float | None  # None for a seat without a move of its own choice (forced moves are not counted)
    inaccuracies: int
    mistakes: int
    blunders: int


class StoredReview(TypedDict):
    """A match's review as stored and answered: the review (`ai/review.py`'s ReviewJson) of its moves, each with
    its place in the log, and the budget and rules it was computed with."""

    match: str
    game: str
    rules_version: int
    budget: ReviewBudget
    thresholds: Thresholds
    moves: list[ReviewedMove]
    evaluation: list[list[float]]  # every seat's expected reward at each step: 0 is the start, i after move i
    seats: list[SeatAccuracy]


def stored_review_json(
    record: MatchRecord, reviewed: ReviewJson, moves: list[tuple[int, LogEntry]], budget: ReviewBudget
) -> StoredReview:
    """The review of the match's `moves` ((replay step, log entry) of each entry that plays an action), as stored."""
    reviewed_moves: list[ReviewedMove] = [
        {
            "version": entry["version"],
            "step": step,
            "seat": move["seat"],
            "action": move["action"],
            "timeout": entry.get("timeout", False),
            "best": move["best"],
            "value_played": move["value_played"],
            "value_best": move["value_best"],
            "loss": move["loss"],
            "class": move["class"],
        }
        for move, (step, entry) in zip(reviewed["moves"], moves, strict=True)
    ]
    thresholds = reviewed["thresholds"]
    return {
        "match": record.id,
        "game": record.game,
        "rules_version": record.rules_version,
        "budget": budget,
        "thresholds": {
            "inaccuracy": thresholds["inaccuracy"],
            "mistake": thresholds["mistake"],
            "blunder": thresholds["blunder"],
        },
        "moves": reviewed_moves,
        "evaluation": [list(step) for step in reviewed["evaluation"]],
        "seats": [
            {
                "seat": seat["seat"],
                "accuracy": seat["accuracy"],
                "inaccuracies": seat["inaccuracies"],
                "mistakes": seat["mistakes"],
                "blunders": seat["blunders"],
            }
            for seat in reviewed["seats"]
        ],
    }


@dataclass(frozen=True)
class ReviewJob:
    """The job computing a match's review: queued by this ask, or an earlier ask's still pending."""

    id: str
    status: str  # queued | started
    pending: bool  # True: an earlier ask's job, still waiting or running


def review_timeout(moves: int) -> int:
    """Seconds a review job of a match of `moves` moves may run: every search at its cap, and a margin."""
    return JOB_MARGIN + math.ceil(max(moves, 1) * SEARCHES_PER_MOVE * REVIEW_TIME_CAP)


def check_reviewable(record: MatchRecord) -> None:
    """Refuse (409) a match that has no review: one still waiting or running, or aborted; or stored under
    earlier rules of its game (`rules-changed`)."""
    if record.status == ABORTED:
        raise Conflict("match-aborted", "an aborted match has no result, and nothing to review")
    if record.status != FINISHED:
        raise Conflict("match-not-over", "a match is reviewed once it is finished (its seed is still secret)")
    game_of(record)


def stored_review(reviews: ReviewStore, record: MatchRecord) -> str | None:
    """The stored review of a finished match (JSON text), if there is one."""
    check_reviewable(record)
    return reviews.read(record.id)


def review_or_not_ready(reviews: ReviewStore, jobs: JobQueue, record: MatchRecord) -> str:
    """The stored review of a finished match (JSON text); `review-not-ready` (with its job's status) if none."""
    review = stored_review(reviews, record)
    if review is not None:
        return review
    status = job_status(reviews, jobs, record.id)
    detail = {
        "queued": "the review is queued; ask again in a while",
        "started": "the review is being computed; ask again in a while",
        "failed": "the review could not be computed; POST to ask again",
        "none": "nobody asked for this match's review yet: POST to ask for it",
    }[status]
    raise ReviewNotReady(detail, job_status=status)


def job_status(reviews: ReviewStore, jobs: JobQueue, match_id: str) -> JobStatus:
    """Where the match's review job is (`JobStatus`)."""
    held = reviews.job(match_id)
    job = jobs.fetch(held) if held is not None else None
    if job is None:
        return "none"
    if job.status in ("queued", "started") and not jobs.is_pending(job.id):
        return "failed"  # lost with its worker before it was recorded as started: the next ask replaces it
    if job.status == "queued":
        return "queued"
    if job.status == "started":
        return "started"
    return "failed"  # ended, and no review stored: the next ask queues another job


def request_review(reviews: ReviewStore, jobs: JobQueue, record: MatchRecord) -> str | ReviewJob:
    """The stored review of a finished match (JSON text) if there is one, else the job computing it: the pending
    one, or one queued now."""
    for _ in range(CLAIM_ATTEMPTS):
        review = stored_review(reviews, record)
        if review is not None:
            return review
        held = reviews.job(record.id)
        earlier = jobs.fetch_unended(held) if held is not None else None
        if earlier is not None and jobs.is_pending(earlier.id):
            return ReviewJob(earlier.id, earlier.status, pending=True)
        timeout = review_timeout(record.version)  # a version per log entry at least: an upper bound on moves
        claim = partial(reviews.claim_job, record.id, replacing=held, ttl=timeout * (jobs.retries + 1))
        job_id = jobs.enqueue_review(record.id, timeout, claim)
        if job_id is not None:
            return ReviewJob(job_id, "queued", pending=False)
    raise ServiceUnavailable("other requests for this match's review kept racing this one; ask again")
