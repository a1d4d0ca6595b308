"""HTTP endpoints of the jobs resource: the state and answer of a requested AI move."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from api.current import services
from api.http import bearer_token, keep_private
from domain.matches import commands as service
from model.refusals import NotFound
from store.jobs import JobInfo

blueprint = Blueprint("jobs", __name__, url_prefix="/v1/jobs")
GENERIC_FAILURE = {"code": "ai-failed", "detail": "the AI could not compute a move; ask again"}


@blueprint.get("/<job_id>")
def get_job(job_id: str) -> Response:
    """A requested move's status (queued, started, finished, failed) and its answer; the asking seat only."""
    token = bearer_token(required=True)
    job = services().jobs.fetch(job_id)
    if job is None or job.meta.get("kind") != "move":
        raise NotFound(f"no job {job_id!r} (results expire)")
    record = service.load_match(services().store, job.meta["match"])
    service.authenticate(services().store, record, token, job.meta["seat"])
    return keep_private(jsonify(job_json(job)))


def job_json(job: JobInfo) -> dict[str, Any]:
    """A requested move as its seat may see it."""
    meta = job.meta
    result = job.result
    refusal = result.get("error") if result else None  # a move that could not be given fails the job
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
        "result": None if failed else result,
        "error": (refusal or GENERIC_FAILURE) if failed else None,
    }
