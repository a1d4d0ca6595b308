"""HTTP endpoints of analysis: a match's position (a seat's, or a finished match's) or a client's, searched off the
request path; each answers 202 with the job, read at `GET /v1/jobs/{id}` and followed at `.../events`."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict, cast

from flask import Blueprint, Response, current_app, jsonify, url_for

from api.analysis.schemas import (
    MatchAnalysisRequest,
    MatchAnalysisRequestSchema,
    PositionAnalysisRequest,
    PositionAnalysisRequestSchema,
)
from api.current import services
from api.http import json_body, keep_private, load, optional_json_body
from api.limits import client_address
from api.matches.views import seat_of_request
from domain.matches import analysis, commands
from model import codec
from model.jobs import AnalysisJobResult, JobError
from model.refusals import InvalidRequest
from store.analysis import AnalysisStore, Progress

if TYPE_CHECKING:
    from ai.analysis import AnalysisJson
    from store.jobs import JobInfo, JobMeta

blueprint = Blueprint("analysis", __name__)
ANALYSES = "parlour.analyses"
"""Where the app keeps its AnalysisStore (`app.extensions`)."""
GENERIC_FAILURE: JobError = {"code": "analysis-failed", "detail": "the analysis could not be made; ask again"}


def analyses() -> AnalysisStore:
    """The analysis store of the app serving the current request (built once, on the match store's client)."""
    found: AnalysisStore | None = current_app.extensions.get(ANALYSES)
    if found is None:
        found = current_app.extensions[ANALYSES] = AnalysisStore(services().store.client)
    return found


@blueprint.post("/v1/matches/<match_id>/analysis")
def analyse_match(match_id: str) -> tuple[Response, int, dict[str, str]]:
    """Analyse a match: a seat's position while it runs (its token, where the match allows assistance), or any
    step of a match that is over (anyone); 202 with the job."""
    store = services().store
    record = commands.load_match(store, match_id)
    seat = seat_of_request(record, required=False)
    body = cast(MatchAnalysisRequest, load(MatchAnalysisRequestSchema, optional_json_body()))
    budget = analysis.Budget.of(body["budget"])
    if seat is not None and not record.ended:
        if body["step"] is not None or body["seat"] not in (None, seat):
            detail = "a running match is analysed as it stands, for the token's seat: no `step`, no other seat"
            raise InvalidRequest(detail, errors={"step" if body["step"] is not None else "seat": [detail]})
        position = analysis.seat_position(record, seat)
    else:
        position = analysis.public_position(store, record, body["step"], body["seat"])
    asker = f"seat:{record.id}:{seat}" if seat is not None else client_address()
    return asked(analysis.request_analysis(analyses(), services().jobs, asker, position, budget))


@blueprint.post("/v1/analysis")
def analyse_position() -> tuple[Response, int, dict[str, str]]:
    """Analyse a position the client sends (a seat's view, or a perfect-information game's state); 202 with the
    job, which anyone holding its id may read."""
    body = cast(PositionAnalysisRequest, load(PositionAnalysisRequestSchema, json_body()))
    budget = analysis.Budget.of(body["budget"])
    position = analysis.client_position(
        body["game"], body["players"], body["options"], body["seat"], view=body["view"], state=body["state"]
    )
    return asked(analysis.request_analysis(analyses(), services().jobs, client_address(), position, budget))


class AnalysisAboutJson(TypedDict):
    """What an analysis job analyses, as its answers show it (from the job's meta): scope, game, match, seat,
    version, step and budget, and where it is followed."""

    id: str
    status: str
    scope: str
    game: str
    match: str | None
    seat: int
    version: int | None
    step: int | None
    budget: dict[str, int]
    events_url: str


def about(job_id: str, status: str, meta: JobMeta, events_url: str) -> AnalysisAboutJson:
    """What an analysis job analyses, read from its meta."""
    return {
        "id": job_id,
        "status": status,
        "scope": meta.get("scope", "position"),
        "game": meta.get("game", ""),
        "match": meta.get("match"),
        "seat": meta.get("seat", 0),
        "version": meta.get("version"),
        "step": meta.get("step"),
        "budget": meta.get("budget", {}),
        "events_url": events_url,
    }


class AnalysisAskedJson(AnalysisAboutJson):
    """An analysis asked for, as its 202 answer: the job and where to read and follow it, and what it analyses."""

    url: str
    pending: bool


def asked(requested: analysis.RequestedAnalysis) -> tuple[Response, int, dict[str, str]]:
    """The 202 answer to an analysis asked for (the asker's pending one, if it has one)."""
    meta = requested.meta
    location = url_for("jobs.get_job", job_id=requested.id)
    events_url = url_for("jobs.job_events", job_id=requested.id)
    answer: AnalysisAskedJson = {
        **about(requested.id, requested.status, meta, events_url),
        "url": location,
        "pending": requested.pending,
    }
    return keep_private(jsonify(answer)), 202, {"Location": location}


class AnalysisAnswerJson(TypedDict):
    """A finished analysis job's result."""

    analysis: AnalysisJson


class AnalysisJobJson(AnalysisAboutJson):
    """An analysis job as `GET /v1/jobs/{id}` answers it: what it analyses, its status, and its answer or error."""

    kind: str
    enqueued_at: str | None
    ended_at: str | None
    result: AnalysisAnswerJson | None
    error: JobError | None


def analysis_job_json(job: JobInfo, progress: Progress, events_url: str) -> AnalysisJobJson:
    """An analysis job: ended once the job kept its answer (`progress.answer`), even before RQ records its end.
    `events_url`: where it is followed (worked out in the request: a stream writes this outside it)."""
    meta = job.meta
    answer = cast("AnalysisJobResult | None", codec.loads(progress.answer) if progress.answer else job.result)
    status = "finished" if progress.answer is not None else job.status
    result: AnalysisAnswerJson | None = None
    error: JobError | None = None
    if answer is not None and "error" in answer:
        error = answer["error"]
    elif answer is not None:
        result = answer
    failed = status == "failed" or error is not None
    return {
        **about(job.id, "failed" if failed else status, meta, events_url),
        "kind": "analysis",
        "enqueued_at": job.enqueued_at,
        "ended_at": job.ended_at,
        "result": None if failed else result,
        "error": (error or GENERIC_FAILURE) if failed else None,
    }
