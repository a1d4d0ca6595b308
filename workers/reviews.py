"""The review job: rebuild a finished match from its record and log, review every move, store the review once.

The match is rebuilt as the replay rebuilds it (`domain/matches/replay.py`): its game, players, options and
seed, then the actions of its log in order. A resignation is a log entry but no move (the engine never saw
it): nothing to review. A timeout's default action is a move like any other, reviewed, and marked `timeout`.

The budget is fixed (`domain/matches/reviews.py`: REVIEW_ITERATIONS per position, each search cut at
REVIEW_TIME_CAP s), and the job's time limit was sized from the match's moves when it was queued.

The job runs on the tournament queue and gives way to live AI turns as tournament turns do
(`workers/jobs.py`, `Relay`): before it starts, and after each reviewed move (at most every LOOK_EVERY s),
it looks at the live queue, and when a live AI turn waits for a worker it queues itself again behind it
(on the tournament queue, handing its claim on the review to the new job) and ends. `ai.review.review`
judges a match in one call, so a review that gave way starts again from its first move: it gives way
MAX_HANDOVERS times at most, and then runs to its end, so a busy service still reviews its matches.
"""

from __future__ import annotations

import logging
import time

from rq import get_current_job

from ai.review import review
from domain.matches.commands import is_move
from domain.matches.reviews import (
    BUDGET,
    REVIEW_ITERATIONS,
    REVIEW_TIME_CAP,
    StoredReview,
    review_timeout,
    stored_review_json,
)
from domain.wiring import Services
from engine.result import Result
from model import codec as jsoncodec
from model.jobs import ReviewJobResult
from model.match import FINISHED, LogEntry, MatchRecord
from store.jobs import LIVE_QUEUE
from store.reviews import ReviewStore
from workers.context import context

log = logging.getLogger(__name__)
LOOK_EVERY = 0.05
"""Seconds between a review's looks at the live queue (one LLEN a look)."""
MAX_HANDOVERS = 3
"""Times a review gives way to live AI turns at most; the next time it runs to its end."""


class GiveWay(Exception):
    """A live AI turn waits for a worker: the review ends here and is queued again behind it."""


def review_match(match_id: str, handovers: int = 0) -> ReviewJobResult:
    """Review a finished match and store the review, unless it is stored, gone, or another job has it."""
    ctx = context()
    reviews = ReviewStore(ctx.store.client)
    job = get_current_job()
    record = ctx.store.load(match_id)
    if record is None:
        return {"outcome": "match-gone", "match": match_id, "moves": 0}
    if record.status != FINISHED:
        return {"outcome": "not-finished", "match": match_id, "moves": 0}
    if reviews.read(match_id) is not None:
        return {"outcome": "stored", "match": match_id, "moves": 0}
    if job is not None and reviews.job(match_id) != job.id:
        return {"outcome": "superseded", "match": match_id, "moves": 0}
    moves = [(step, entry) for step, entry in enumerate(ctx.store.log(match_id), start=1) if is_move(entry)]
    gives_way = handovers < MAX_HANDOVERS and job is not None
    try:
        stored = review_moves(record, moves, LiveLook(ctx) if gives_way else None)
    except GiveWay:
        hand_over(ctx, reviews, record, job.id if job is not None else "", handovers + 1)
        return {"outcome": "handed-over", "match": match_id, "moves": 0}
    if not reviews.keep(match_id, jsoncodec.dumps(stored)):
        return {"outcome": "match-gone", "match": match_id, "moves": 0}
    log.info("match %s reviewed: %d moves", match_id, len(moves))
    return {"outcome": "stored", "match": match_id, "moves": len(moves)}


def review_moves(record: MatchRecord, moves: list[tuple[int, LogEntry]], give_way: LiveLook | None) -> StoredReview:
    """The review of the match's moves ((replay step, log entry) of each entry that plays an action), as stored."""
    if give_way is not None:
        give_way.check()
    reviewed = review(
        record.game,
        record.players,
        record.options,
        record.seed,
        [(entry["seat"], entry["action"]) for _, entry in moves],
        REVIEW_ITERATIONS,
        time_cap=REVIEW_TIME_CAP,
        progress=give_way.between_moves if give_way is not None else None,
        match=record.id,
        versions=[entry["version"] for _, entry in moves],
        result=Result.from_json(record.result) if record.result is not None else None,  # a resignation's
    )
    return stored_review_json(record, reviewed.to_json(), moves, BUDGET)


class LiveLook:
    """Looks at the live queue every LOOK_EVERY s at most; `check` raises GiveWay once a live AI turn waits there."""

    def __init__(self, ctx: Services) -> None:
        self.ctx = ctx
        self.next_look = 0.0

    def check(self) -> None:
        """Raise GiveWay when a live AI turn waits for a worker."""
        now = time.monotonic()
        if now < self.next_look:
            return
        self.next_look = now + LOOK_EVERY
        if self.ctx.jobs.waiting(LIVE_QUEUE) > 0:
            raise GiveWay

    def between_moves(self, reviewed: int, moves: int) -> None:
        """The review's progress after each move: where it gives way (a search is never cut short: the budget
        is fixed)."""
        self.check()


def hand_over(ctx: Services, reviews: ReviewStore, record: MatchRecord, job_id: str, handovers: int) -> None:
    """Queue the review again, behind the live AI turns, handing this job's claim on it to the new job."""

    def claim(new_id: str) -> bool:
        return reviews.claim_job(record.id, new_id, replacing=job_id, ttl=ttl)

    timeout = review_timeout(record.version)
    ttl = timeout * (ctx.jobs.retries + 1)
    queued = ctx.jobs.enqueue_review(record.id, timeout, claim, handovers=handovers)
    log.info("review of match %s gave way to a live AI turn (%d); queued again: %s", record.id, handovers, queued)
