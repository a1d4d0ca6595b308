"""The AI job queues: RQ jobs that compute moves, enqueued by the API and by the workers.

Three queues, in the order every AI worker serves them (RQ takes the next job from the first
queue that has one): the AI seats of live matches, the AI seats of tournament matches (and of matches
the AI plays alone: nobody waits for them), then the moves seats ask for (hints). So a flood of hints,
or of all-AI matches, waits behind every live AI seat instead of delaying it.
Jobs are named by their dotted path, so the API never imports the worker code, and carry
JSON (RQ's JSONSerializer), so nothing in Redis is unpickled. A job that fails, or whose
work-horse is killed, is retried up to `retries` times, on its own queue; results expire after
`result_ttl`.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from model.jobs import (
    AdvanceJobResult,
    AnalysisJobResult,
    ExpireMatchResult,
    ExpireTournamentResult,
    MoveJobResult,
    ReviewJobResult,
    TimeoutJobResult,
    TurnJobResult,
)
from store.connection import redis_client

JOB_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a job id can be (RQ's own pattern, and no longer than ours): any other text names no job."""

LIVE_QUEUE = "parlour-ai-live"
TOURNAMENT_QUEUE = "parlour-ai-tournament"
HINT_QUEUE = "parlour-ai-hints"
LEGACY_QUEUE = "parlour-ai"
"""The one queue of earlier versions, drained last, so jobs queued before an upgrade still run."""
WORKER_QUEUES = (LIVE_QUEUE, TOURNAMENT_QUEUE, HINT_QUEUE, LEGACY_QUEUE)
"""What every AI worker serves, in priority order."""
TURN_JOB = "workers.jobs.play_ai_turn"
MOVE_JOB = "workers.jobs.compute_move"
ADVANCE_JOB = "workers.jobs.advance_tournament"
REVIEW_JOB = "workers.reviews.review_match"
ANALYSIS_JOB = "workers.analysis.analyse_position"
TIMEOUT_MARGIN = 30
"""Seconds a job gets beyond its level's time cap: loading, checking and committing the move."""
UNCAPPED_TIMEOUT = 300

STATUS_NAMES = {
    JobStatus.CREATED: "queued",  # a requested move's job, stored just before it is queued
    JobStatus.QUEUED: "queued",
    JobStatus.DEFERRED: "queued",
    JobStatus.SCHEDULED: "queued",
    JobStatus.STARTED: "started",
    JobStatus.FINISHED: "finished",
    JobStatus.FAILED: "failed",
    JobStatus.STOPPED: "failed",
    JobStatus.CANCELED: "failed",
}


def job_timeout(time_cap: float | None) -> int:
    """How long a job may run: the level's search cap plus a margin."""
    return UNCAPPED_TIMEOUT if time_cap is None else int(time_cap) + TIMEOUT_MARGIN


class JobMeta(TypedDict):
    """What a job carries beside its arguments (RQ's `meta`): its kind (`turn`, `move`, `advance` or `review`), and
    for a requested move (`move`) who asked for what: the match, seat and version, the level, and whether to apply
    it; for a review, the match; for an analysis (`analysis`), its scope, game, match, seat, version and step where
    it has them, and its budget."""

    kind: str
    match: NotRequired[str]
    seat: NotRequired[int]
    version: NotRequired[int]
    level: NotRequired[str]
    apply: NotRequired[bool]
    scope: NotRequired[str]  # an analysis: `seat` (a seat's, its token reads it), `public` or `position`
    game: NotRequired[str]
    step: NotRequired[int | None]
    budget: NotRequired[dict[str, int]]


JobResult = (
    TurnJobResult
    | MoveJobResult
    | AdvanceJobResult
    | ExpireMatchResult
    | ExpireTournamentResult
    | TimeoutJobResult
    | ReviewJobResult
    | AnalysisJobResult
)
"""What any of Parlour's jobs returns (model/jobs.py), as RQ keeps it."""


@dataclass(frozen=True)
class JobInfo:
    """What a client may know of a requested move: status, who asked, the answer or the error."""

    id: str
    status: str
    meta: JobMeta
    result: JobResult | None
    enqueued_at: str | None
    ended_at: str | None


class JobQueue:
    """Enqueues and reads AI jobs on one Redis server."""

    @classmethod
    def from_url(cls, url: str, result_ttl: int, retries: int) -> JobQueue:
        """A queue on the Redis server at `url` (RQ needs undecoded replies)."""
        return cls(redis_client(url), result_ttl, retries)

    def __init__(self, connection: redis.Redis, result_ttl: int, retries: int) -> None:
        self.connection = connection
        self.result_ttl = result_ttl
        self.retries = retries
        self.queues = {name: Queue(name, connection=connection, serializer=JSONSerializer) for name in WORKER_QUEUES}

    @staticmethod
    def new_turn_id(match_id: str, seat: int, version: int) -> str:
        """A fresh id for the job that plays an AI seat at one version."""
        return f"turn-{match_id}-{seat}-{version}-{secrets.token_hex(4)}"

    @staticmethod
    def turn_match(job_id: str) -> str | None:
        """The match of an AI seat's turn job, read from its id (`new_turn_id`); None for any other job."""
        parts = job_id.removeprefix("turn-").rsplit("-", 3)  # a match id may hold "-"; the three parts after it do not
        return parts[0] if job_id.startswith("turn-") and len(parts) == 4 else None

    def pending_ttl(self, time_cap: float | None) -> int:
        """Seconds a seat's claim on its requested move is kept: as long as the job may run, every retry included."""
        return job_timeout(time_cap) * (self.retries + 1)

    def enqueue_turn(
        self, job_id: str, match_id: str, seat: int, version: int, time_cap: float | None, tournament: bool
    ) -> None:
        """Queue the job that plays an AI seat's turn: on the tournament queue when `tournament` (a tournament's
        match, or one the AI plays alone), else on the live queue."""
        queue = TOURNAMENT_QUEUE if tournament else LIVE_QUEUE
        job = self._create(queue, TURN_JOB, job_id, [match_id, seat, version], {"kind": "turn"}, time_cap)
        self.queues[queue].enqueue_job(job)

    def enqueue_move(
        self,
        match_id: str,
        seat: int,
        version: int,
        level: str,
        apply: bool,
        time_cap: float | None,
        claim: Callable[[str], bool],
    ) -> str | None:
        """Queue a move a seat asked for (a hint, or applied) if `claim(job id)` holds; its id (unguessable) or None."""
        job_id = secrets.token_urlsafe(16)
        meta: JobMeta = {
            "kind": "move",
            "match": match_id,
            "seat": seat,
            "version": version,
            "level": level,
            "apply": apply,
        }
        job = self._create(HINT_QUEUE, MOVE_JOB, job_id, [match_id, seat, version, level, apply], meta, time_cap)
        return self._enqueue_claimed(HINT_QUEUE, job, claim)

    def enqueue_review(
        self, match_id: str, timeout: int, claim: Callable[[str], bool], handovers: int = 0
    ) -> str | None:
        """Queue the review of a finished match on the tournament queue (nobody waits on a move of it) if
        `claim(job id)` holds; its id, or None. `timeout`: seconds the job may run (sized from the match's moves);
        `handovers`: times the review already gave way to live AI turns."""
        job_id = f"review-{secrets.token_urlsafe(12)}"
        meta: JobMeta = {"kind": "review", "match": match_id}
        args: list[Any] = [match_id, handovers]
        job = self._create(TOURNAMENT_QUEUE, REVIEW_JOB, job_id, args, meta, None, timeout=timeout)
        return self._enqueue_claimed(TOURNAMENT_QUEUE, job, claim)

    def enqueue_analysis(
        self, arguments: list[Any], meta: JobMeta, time_cap: float, claim: Callable[[str], bool]
    ) -> str | None:
        """Queue an analysis on the hints' queue (served last) if `claim(job id)` holds; its id (unguessable) or None.
        `arguments`: what `workers.analysis.analyse_position` takes (JSON), `time_cap`: the search's seconds at most."""
        job_id = secrets.token_urlsafe(16)
        job = self._create(HINT_QUEUE, ANALYSIS_JOB, job_id, arguments, meta, time_cap)
        return self._enqueue_claimed(HINT_QUEUE, job, claim)

    def _enqueue_claimed(self, queue: str, job: Job, claim: Callable[[str], bool]) -> str | None:
        """Queue a created job if `claim(its id)` holds; its id, or None (the job is deleted: another ask holds it).
        The job is saved before the claim, so whoever reads the claim finds its job, even before it is queued."""
        job.save()
        if not claim(job.id):
            job.delete()
            return None
        self.queues[queue].enqueue_job(job)
        return job.id

    def enqueue_advance(self, tournament_id: str) -> None:
        """Queue a job that carries on advancing a tournament (a call made as many steps as it may)."""
        job_id = f"advance-{tournament_id}-{secrets.token_hex(4)}"
        job = self._create(TOURNAMENT_QUEUE, ADVANCE_JOB, job_id, [tournament_id], {"kind": "advance"}, None)
        self.queues[TOURNAMENT_QUEUE].enqueue_job(job)

    def live_turns(self) -> tuple[int, int]:
        """Jobs of live matches' AI seats: how many wait on their queue for a worker, and how many run."""
        queue = self.queues[LIVE_QUEUE]
        pipe = self.connection.pipeline(transaction=False)
        pipe.llen(queue.key)
        pipe.zcard(queue.started_job_registry.key)
        waiting, running = pipe.execute()
        return int(waiting), int(running)

    def waiting(self, queue: str) -> int:
        """How many jobs wait on the queue for a worker."""
        return int(self.connection.llen(self.queue_named(queue).key))

    def waiting_turn_matches(self, queue: str, first: int) -> list[str | None]:
        """The match of each of the `first` jobs waiting on the queue, in queue order (None for one not a turn)."""
        job_ids = cast("list[bytes]", self.connection.lrange(self.queue_named(queue).key, 0, first - 1))
        return [self.turn_match(job_id.decode()) for job_id in job_ids]

    def is_pending(self, job_id: str) -> bool:
        """True while the job waits on its queue or runs (a dead worker's job counts: RQ retries it itself)."""
        job = self._load(job_id)
        if job is None:
            return False
        status = job.get_status(refresh=False) or JobStatus.QUEUED
        if status == JobStatus.QUEUED:
            # Taken from one of several queues, a job leaves its queue before a worker records it as
            # started: one that died in between leaves it `queued` on no queue and in no hands, lost.
            queue = self.queue_named(job.origin)
            return queue.get_job_position(job.id) is not None or job.id in queue.started_job_registry
        return STATUS_NAMES.get(status) in ("queued", "started")

    def fetch_unended(self, job_id: str) -> JobInfo | None:
        """The job until it has ended (finished or failed) or expired; then None."""
        job = self._load(job_id)
        if job is None:
            return None
        info = self._info(job)
        return info if info.status in ("queued", "started") else None

    def fetch(self, job_id: str) -> JobInfo | None:
        """A requested move's job, or None once it expired (or never was)."""
        job = self._load(job_id)
        return self._info(job) if job is not None else None

    def queue_named(self, name: str) -> Queue:
        """One of the AI queues, or any other RQ queue by name (a job may come from another)."""
        return self.queues.get(name) or Queue(name, connection=self.connection, serializer=JSONSerializer)

    def _load(self, job_id: str) -> Job | None:
        if not JOB_ID.fullmatch(job_id):  # RQ raises ValueError on other characters, and reads "a:b" as job "a"
            return None
        try:
            return Job.fetch(job_id, connection=self.connection, serializer=JSONSerializer)
        except NoSuchJobError:
            return None

    @staticmethod
    def _info(job: Job) -> JobInfo:
        status = STATUS_NAMES.get(job.get_status(refresh=False) or JobStatus.QUEUED, "queued")
        result = job.return_value() if status == "finished" else None
        return JobInfo(
            id=job.id,
            status=status,
            meta=cast(JobMeta, dict(job.meta)),  # as `_create` stored it
            result=cast("JobResult | None", result if isinstance(result, dict) else None),  # as the job returned it
            enqueued_at=_iso(job.enqueued_at),
            ended_at=_iso(job.ended_at),
        )

    def _create(
        self,
        queue: str,
        function: str,
        job_id: str,
        args: list[Any],
        meta: JobMeta,
        time_cap: float | None,
        timeout: int | None = None,
    ) -> Job:
        return self.queues[queue].create_job(
            function,
            args=args,
            job_id=job_id,
            meta=dict(meta),  # RQ keeps a plain dict
            timeout=timeout or job_timeout(time_cap),
            result_ttl=self.result_ttl,
            failure_ttl=self.result_ttl,
            status=JobStatus.CREATED,
            retry=Retry(max=self.retries) if self.retries else None,
        )


def _iso(moment: Any) -> str | None:
    """An RQ timestamp as ISO 8601 UTC text."""
    if moment is None:
        return None
    return str(moment.isoformat(timespec="milliseconds")).replace("+00:00", "Z")
