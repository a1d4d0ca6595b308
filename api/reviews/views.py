"""`POST` and `GET /v1/matches/{id}/review`: a finished match's review, computed once by a job, then stored."""

from __future__ import annotations

import hashlib
from typing import TypedDict

from flask import Blueprint, Response, jsonify, request, url_for

from api.current import services
from api.http import json_answer
from api.matches.views import etag_matches
from domain.matches import commands
from domain.matches.reviews import ReviewJob, request_review, review_or_not_ready
from store.reviews import ReviewStore

blueprint = Blueprint("reviews", __name__, url_prefix="/v1/matches")
REVIEW_CACHE = "public, max-age=3600"
"""A stored review never changes (the match may go, and its review with it: an hour's copy is harmless)."""


class ReviewQueuedJson(TypedDict):
    """The answer to asking for a review not stored yet: its job's status and where the review will be."""

    status: str
    match: str
    url: str


def reviews() -> ReviewStore:
    """The reviews, on the match store's Redis."""
    return ReviewStore(services().store.client)


@blueprint.post("/<match_id>/review")
def ask_for_review(match_id: str) -> tuple[Response, int, dict[str, str]]:
    """Ask for a finished match's review: 200 with it when stored, else 202 while its one job computes it."""
    record = commands.load_match(services().store, match_id)
    asked = request_review(reviews(), services().jobs, record)
    location = url_for("reviews.get_review", match_id=record.id)
    if not isinstance(asked, ReviewJob):
        return review_answer(asked, conditional=False), 200, {"Content-Location": location}
    answer: ReviewQueuedJson = {"status": asked.status, "match": record.id, "url": location}
    return jsonify(answer), 202, {"Location": location}


@blueprint.get("/<match_id>/review")
def get_review(match_id: str) -> Response:
    """A finished match's review; 404 `review-not-ready` (with its job's status) until it is stored."""
    record = commands.load_match(services().store, match_id)
    return review_answer(review_or_not_ready(reviews(), services().jobs, record), conditional=True)


def review_answer(review: str, conditional: bool) -> Response:
    """The stored review, with an ETag of its text and caching allowed; 304 when `conditional` and If-None-Match
    names it."""
    etag = f'"{hashlib.sha256(review.encode()).hexdigest()[:32]}"'
    unchanged = conditional and etag_matches(etag, request.headers.get("If-None-Match", ""))
    response = Response(status=304) if unchanged else json_answer(review)
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = REVIEW_CACHE
    return response
