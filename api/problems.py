"""Every error the API answers with, as one application/problem+json shape (RFC 9457): the one place
that maps the domain's refusals (model/refusals.py) and the engine's rejections to HTTP statuses."""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from engine import ActionRejected, InvalidOptions, ViewMismatch
from model.refusals import (
    AssistanceForbidden,
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    InvalidRequest,
    NotFound,
    QuotaExceeded,
    RateLimited,
    Refusal,
    RulesChanged,
    ServiceUnavailable,
    StoreFull,
    Unauthorized,
    Unprocessable,
)
from store.connection import is_store_full

PROBLEM_JSON = "application/problem+json"
STORE_AWAY_RETRY = 1
"""Seconds a client is told to wait when Redis cannot be reached (a failover takes a few)."""
log = logging.getLogger(__name__)


HTTP_STATUS: dict[type[Refusal], tuple[int, str]] = {
    InvalidRequest: (400, "Invalid request"),
    Unauthorized: (401, "Unauthorized"),
    Forbidden: (403, "Forbidden"),
    AssistanceForbidden: (403, "Assistance forbidden"),
    NotFound: (404, "Not found"),
    Conflict: (409, "Conflict"),
    RulesChanged: (409, "Rules changed"),
    IdempotencyKeyReused: (422, "Idempotency key reused"),
    Unprocessable: (422, "Unprocessable content"),
    RateLimited: (429, "Too many requests"),
    QuotaExceeded: (429, "Quota exceeded"),
    StoreFull: (503, "Store full"),
    ServiceUnavailable: (503, "Service unavailable"),
}
"""The one table from the domain's refusals to HTTP statuses and titles (the nearest listed class wins)."""


def status_of(refusal: Refusal) -> tuple[int, str]:
    """The HTTP status and title a refusal is answered with."""
    for cls in type(refusal).__mro__:
        if cls in HTTP_STATUS:
            return HTTP_STATUS[cls]
    return 400, "Invalid request"


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    """A problem+json response."""
    body = {"type": f"https://parlour.dev/problems/{code}", "title": title, "status": status, "detail": detail}
    body["code"] = code
    body.update(extra)
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)


def _from_refusal(error: Refusal) -> Response:
    status, title = status_of(error)
    response = problem(status, error.code, title, error.detail, **error.extra)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="parlour"'
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def _from_engine_rejection(error: ActionRejected) -> Response:
    status = 422 if error.code == "illegal-action" else 409
    title = {"illegal-action": "Illegal action", "not-your-turn": "Not your turn", "match-over": "Match over"}
    return problem(status, error.code, title.get(error.code, "Conflict"), error.reason)


def _from_view_mismatch(error: ViewMismatch) -> Response:
    # A position a client sent (`POST /v1/analysis`) that no state of the game shows its seat.
    return problem(422, error.code, "View mismatch", error.reason)


def _from_invalid_options(error: InvalidOptions) -> Response:
    # Errors sit where the field sits in the request: `players`, `options`, or one option inside it.
    if error.field in ("players", "options"):
        errors: dict[str, list[str] | dict[str, list[str]]] = {error.field: [error.reason]}
    else:
        errors = {"options": {error.field: [error.reason]}}
    return problem(400, "invalid-request", "Invalid request", error.reason, errors=errors)


def _from_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    codes = {404: "not-found", 405: "method-not-allowed", 413: "payload-too-large"}
    code = codes.get(status, "invalid-request" if status < 500 else "internal-error")
    detail = error.description or error.name
    if status == 404 and ("//" in request.path or request.path.endswith("/")):
        detail = f"no route {request.path!r}: paths have no empty segment (//) and no trailing slash"
    response = problem(status, code, error.name, detail)
    if status == 405 and error.response is None:
        allowed = getattr(error, "valid_methods", None)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
    return response


def _from_redis_error(error: redis.RedisError) -> Response:
    if is_store_full(error):
        log.warning("Redis is full: %s", error)
        detail = "the store is full and takes no new data for now; nothing stored was changed; retry later"
        return _from_refusal(StoreFull(detail))
    log.error("Redis error: %s", error)
    response = problem(
        503, "service-unavailable", "Service unavailable", "the match store cannot be reached; retry soon"
    )
    response.headers["Retry-After"] = str(STORE_AWAY_RETRY)
    return response


def _from_unexpected(error: Exception) -> Response:
    log.exception("unexpected error")
    return problem(500, "internal-error", "Internal error", "the server failed; the error was logged")


def register_error_handlers(app: Flask) -> None:
    """Route every error the app can raise to the one problem+json shape."""
    app.register_error_handler(Refusal, _from_refusal)
    app.register_error_handler(ActionRejected, _from_engine_rejection)
    app.register_error_handler(InvalidOptions, _from_invalid_options)
    app.register_error_handler(ViewMismatch, _from_view_mismatch)
    app.register_error_handler(HTTPException, _from_http_exception)
    app.register_error_handler(redis.RedisError, _from_redis_error)
    app.register_error_handler(Exception, _from_unexpected)
