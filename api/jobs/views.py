"""HTTP endpoints of the jobs resource: the state and answer of a requested AI move."""

from __future__ import annotations

from typing import cast

from flask import Blueprint, Response, jsonify

from api.current import services
from api.http import bearer_token, keep_private
from domain.matches import commands
from model.jobs import JobError, MoveAnswer, MoveJobResult, RequestedMove
from model.refusals import NotFound
from store.jobs import JobInfo

blueprint = Blueprint("jobs", __name__, url_prefix="/v1/jobs")
GENERIC_FAILURE: JobError = {"code": "ai-failed", "detail": "the AI could not compute a move; ask again"}


@blueprint.get("/<job_id>")
def get_job(job_id: str) -> Response:
    """A requested move's status (queued, started, finished, failed) and its answer; the asking seat only."""
    token = bearer_token(required=True)
    job = services().jobs.fetch(job_id)
    if job is None or job.meta.get("kind") != "move":
        raise NotFound(f"no job {job_id!r} (results expire)")
    record = commands.load_match(services().store, job.meta["match"])
    commands.authenticate(services().store, record, token, job.meta["seat"])
    return keep_private(jsonify(job_json(job)))


class JobJson(RequestedMove):
    """A requested move as its seat may see it: who asked for what, the job's status, and its answer or error."""

    enqueued_at: str | None
    ended_at: str | None
    result: MoveAnswer | None
    error: JobError | None


def job_json(job: JobInfo) -> JobJson:
    """A requested move as its seat may see it."""
    meta = job.meta
    result = cast("MoveJobResult | None", job.result)  # a move job's (`get_job` checked), as `compute_move` returns it
    answer: MoveAnswer | None = None
    refusal: JobError | None = None  # a move that could not be given fails the job
    if result is not None and "error" in result:
        refusal = result["error"]
    else:
        answer = result
    failed = job.status == "failed" or refusal is not None
    return {
        "id": job.id,
        "status": "failed" if failed else job.status,
        "match": meta["match"],
        "seat": meta["seat"],
        "version": meta["version"],
        "level": meta["level"],
        "apply": meta["apply"],
        "enqueued_at": job.enqueued_at,
        "ended_at": job.ended_at,
        "result": None if failed else answer,
        "error": (refusal or GENERIC_FAILURE) if failed else None,
    }
