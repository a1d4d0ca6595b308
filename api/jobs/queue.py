"""The AI job queue: RQ jobs that compute moves, enqueued by the API and by the workers.

Jobs are named by their dotted path, so the API never imports the worker code, and carry
JSON (RQ's JSONSerializer), so nothing in Redis is unpickled. A job that fails, or whose
work-horse is killed, is retried up to `retries` times; results expire after `result_ttl`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from api.store import redis_client

QUEUE_NAME = "parlour-ai"
TURN_JOB = "workers.jobs.play_ai_turn"
MOVE_JOB = "workers.jobs.compute_move"
TIMEOUT_MARGIN = 30
"""Seconds a job gets beyond its level's time cap: loading, checking and committing the move."""
UNCAPPED_TIMEOUT = 300

STATUS_NAMES = {
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


@dataclass(frozen=True)
class JobInfo:
    """What a client may know of a requested move: status, who asked, the answer or the error."""

    id: str
    status: str
    meta: dict[str, Any]
    result: dict[str, Any] | None
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
        self.queue = Queue(QUEUE_NAME, connection=connection, serializer=JSONSerializer)

    @staticmethod
    def new_turn_id(match_id: str, seat: int, version: int) -> str:
        """A fresh id for the job that plays an AI seat at one version."""
        return f"turn-{match_id}-{seat}-{version}-{secrets.token_hex(4)}"

    def enqueue_turn(self, job_id: str, match_id: str, seat: int, version: int, time_cap: float | None) -> None:
        """Queue the job that plays an AI seat's turn."""
        self._enqueue(TURN_JOB, job_id, [match_id, seat, version], {"kind": "turn"}, time_cap)

    def enqueue_move(
        self, match_id: str, seat: int, version: int, level: str, apply: bool, time_cap: float | None
    ) -> str:
        """Queue a move a seat asked for (a hint, or applied); its job id, hard to guess."""
        job_id = secrets.token_urlsafe(16)
        meta = {"kind": "move", "match": match_id, "seat": seat, "version": version, "level": level, "apply": apply}
        self._enqueue(MOVE_JOB, job_id, [match_id, seat, version, level, apply], meta, time_cap)
        return job_id

    def is_pending(self, job_id: str) -> bool:
        """True while the job waits or runs (a dead worker's job counts: RQ retries it itself)."""
        try:
            job = Job.fetch(job_id, connection=self.connection, serializer=JSONSerializer)
        except NoSuchJobError:
            return False
        return STATUS_NAMES.get(job.get_status(refresh=False) or JobStatus.QUEUED) in ("queued", "started")

    def fetch(self, job_id: str) -> JobInfo | None:
        """A requested move's job, or None once it expired (or never was)."""
        try:
            job = Job.fetch(job_id, connection=self.connection, serializer=JSONSerializer)
        except NoSuchJobError:
            return None
        status = STATUS_NAMES.get(job.get_status(refresh=False) or JobStatus.QUEUED, "queued")
        result = job.return_value() if status == "finished" else None
        return JobInfo(
            id=job.id,
            status=status,
            meta=dict(job.meta),
            result=result if isinstance(result, dict) else None,
            enqueued_at=_iso(job.enqueued_at),
            ended_at=_iso(job.ended_at),
        )

    def _enqueue(
        self, function: str, job_id: str, args: list[Any], meta: dict[str, Any], time_cap: float | None
    ) -> None:
        self.queue.enqueue_call(
            function,
            args=args,
            job_id=job_id,
            meta=meta,
            timeout=job_timeout(time_cap),
            result_ttl=self.result_ttl,
            failure_ttl=self.result_ttl,
            retry=Retry(max=self.retries) if self.retries else None,
        )


def _iso(moment: Any) -> str | None:
    """An RQ timestamp as ISO 8601 UTC text."""
    if moment is None:
        return None
    return str(moment.isoformat(timespec="milliseconds")).replace("+00:00", "Z")
