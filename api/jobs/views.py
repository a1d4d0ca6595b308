"""HTTP endpoints of the jobs resource: the state and answer of a requested AI move or an analysis, and an
analysis followed live (`GET /v1/jobs/{id}/events`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import cast

from flask import Blueprint, Response, jsonify, url_for

from api.analysis.views import analyses, analysis_job_json
from api.current import services
from api.http import NO_STORE, bearer_token, keep_private, last_event_id
from api.limits import client_address
from domain.events.analysis_stream import AnalysisStream, Ending
from domain.matches import commands
from domain.quotas import HeldStream
from model import codec
from model.jobs import JobError, MoveAnswer, MoveJobResult, MoveRefused, RequestedMove
from model.refusals import NotFound
from store.analysis import Progress
from store.jobs import JobInfo, JobQueue

blueprint = Blueprint("jobs", __name__, url_prefix="/v1/jobs")
GENERIC_FAILURE: JobError = {"code": "ai-failed", "detail": "the AI could not compute a move; ask again"}


@blueprint.get("/<job_id>")
def get_job(job_id: str) -> Response:
    """A requested move's status (queued, started, finished, failed) and its answer, the asking seat only; or an
    analysis's, for the asking seat's token (a seat's analysis) or for anyone holding its id (any other)."""
    job = services().jobs.fetch(job_id)
    if job is not None and job.meta.get("kind") == "analysis":
        check_analysis_reader(job)
        events_url = url_for("jobs.job_events", job_id=job.id)
        return keep_private(jsonify(analysis_job_json(job, analyses().progress(job.id), events_url)))
    token = bearer_token(required=True)
    if job is None or job.meta.get("kind") != "move":
        raise NotFound(f"no job {job_id!r} (results expire)")
    record = commands.load_match(services().store, job.meta["match"])
    commands.authenticate(services().store, record, token, job.meta["seat"])
    return keep_private(jsonify(job_json(job)))


@blueprint.get("/<job_id>/events")
def job_events(job_id: str) -> Response:
    """An analysis followed live (Server-Sent Events): its progress reports as the search deepens, then `done` or
    `failed` with the job; for whoever may read the job."""
    job = services().jobs.fetch(job_id)
    if job is None or job.meta.get("kind") != "analysis":
        raise NotFound(f"no analysis job {job_id!r} (results expire)")
    check_analysis_reader(job)
    after = last_event_id("a progress report's number")
    app = services()
    events_url = url_for("jobs.job_events", job_id=job.id)
    stream = AnalysisStream(
        analyses(),
        app.changes,
        job.id,
        after,
        app.settings.events_heartbeat,
        analysis_ending(app.jobs, job, events_url),
    )
    lease = app.quotas.streams.open(client_address())
    response = Response(HeldStream(iter(stream), lease), mimetype="text/event-stream")
    response.headers["Cache-Control"] = NO_STORE if job.meta.get("scope") == "seat" else "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # proxies such as nginx pass each event on at once
    response.headers["Vary"] = "Authorization"
    return response


def check_analysis_reader(job: JobInfo) -> None:
    """A seat's analysis is read with that seat's token (401, 403 otherwise); any other by whoever has its id."""
    if job.meta.get("scope") != "seat":
        return
    token = bearer_token(required=True)
    record = commands.load_match(services().store, job.meta["match"])
    commands.authenticate(services().store, record, token, job.meta["seat"])


def analysis_ending(jobs: JobQueue, job: JobInfo, events_url: str) -> Callable[[Progress], Ending | None]:
    """How an analysis's stream ends: `done` or `failed` with the job once it has ended (its answer kept, or RQ
    says so), or `failed` once it expired; None while it waits or runs."""

    def ending(progress: Progress) -> Ending | None:
        current = jobs.fetch(job.id)  # with its answer kept, RQ may not have recorded its end yet (`ended_at`)
        if current is None and progress.answer is not None:
            current = job
        if current is None:  # expired: the job as it was, failed for it
            gone: MoveRefused = {"error": {"code": "not-found", "detail": f"the job {job.id} expired"}}
            current = replace(job, status="failed", result=gone)
        answer = analysis_job_json(current, progress, events_url)
        if answer["status"] not in ("finished", "failed"):
            return None
        return answer["status"].replace("finished", "done"), codec.dumps(answer)

    return ending


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
