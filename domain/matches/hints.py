"""Moves a seat asks the AI for (hints, or applied for it): one job waiting or running per seat.

Asking again while the seat's job waits or runs answers that job, so a flood of asks costs one
job; once it has ended, the next ask queues a new one. The seat's job is claimed in the store
(SET NX, or compare-and-set in place of an ended job) before it is queued, so asks that race
queue one job between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from ai.levels import Level
from model.match import MatchRecord
from model.refusals import ServiceUnavailable
from store.jobs import JobQueue
from store.matches import MatchStore

CLAIM_ATTEMPTS = 5
"""Claims an ask tries; each one lost means another ask just queued a job, which the next attempt finds."""


@dataclass(frozen=True)
class RequestedMove:
    """The job computing a seat's requested move: a new one, or the seat's earlier one still pending."""

    id: str
    status: str
    version: int
    level: str
    apply: bool
    pending: bool  # True: the seat's earlier request, still waiting or running (its version, level and apply)


def request_move(
    store: MatchStore, jobs: JobQueue, record: MatchRecord, seat: int, level: Level, apply: bool
) -> RequestedMove:
    """The seat's pending requested move if it has one, else a job newly queued for this request."""
    for _ in range(CLAIM_ATTEMPTS):
        held = store.requested_move(record.id, seat)
        earlier = jobs.fetch_unended(held) if held is not None else None
        if earlier is not None:
            meta = earlier.meta
            return RequestedMove(earlier.id, earlier.status, meta["version"], meta["level"], meta["apply"], True)
        claim = partial(
            store.claim_requested_move, record.id, seat, replacing=held, ttl=jobs.pending_ttl(level.time_cap)
        )
        job_id = jobs.enqueue_move(record.id, seat, record.version, level.name, apply, level.time_cap, claim)
        if job_id is not None:
            return RequestedMove(job_id, "queued", record.version, level.name, apply, False)
    raise ServiceUnavailable("other requests for this seat's move kept racing this one; ask again")
