"""Every error the API answers with, as one application/problem+json shape (RFC 9457)."""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, Response, json
from werkzeug.exceptions import HTTPException

from engine import ActionRejected, InvalidOptions

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error with an HTTP status, a stable code and a human-readable detail."""

    status = 400
    code = "invalid-request"
    title = "Invalid request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidRequest(ApiError):
    """The body, query or path is malformed; `errors` maps fields to messages."""


class Unauthorized(ApiError):
    """No valid seat token."""

    status, code, title = 401, "unauthorized", "Unauthorized"


class Forbidden(ApiError):
    """A valid token, but for another match or seat."""

    status, code, title = 403, "forbidden", "Forbidden"


class NotFound(ApiError):
    """No such game, match or route."""

    status, code, title = 404, "not-found", "Not found"


class Conflict(ApiError):
    """The request conflicts with the match's current state; `code` says how."""

    status, title = 409, "Conflict"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.code = code


class StaleVersion(Conflict):
    """`expected_version` is not the match's current version."""

    def __init__(self, current_version: int) -> None:
        super().__init__(
            "stale-version",
            f"the match is at version {current_version}; read it again and retry",
            current_version=current_version,
        )


class IdempotencyKeyReused(ApiError):
    """An Idempotency-Key was sent again with a different request."""

    status, code, title = 422, "idempotency-key-reused", "Idempotency key reused"


class ServiceUnavailable(ApiError):
    """Redis cannot be reached."""

    status, code, title = 503, "service-unavailable", "Service unavailable"


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    """A problem+json response."""
    body = {"type": f"https://parlour.dev/problems/{code}", "title": title, "status": status, "detail": detail}
    body["code"] = code
    body.update(extra)
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)


def _from_api_error(error: ApiError) -> Response:
    response = problem(error.status, error.code, error.title, error.detail, **error.extra)
    if error.status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="parlour"'
    return response


def _from_engine_rejection(error: ActionRejected) -> Response:
    status = 422 if error.code == "illegal-action" else 409
    title = {"illegal-action": "Illegal action", "not-your-turn": "Not your turn", "match-over": "Match over"}
    return problem(status, error.code, title.get(error.code, "Conflict"), error.reason)


def _from_invalid_options(error: InvalidOptions) -> Response:
    # Errors sit where the field sits in the request: `players`, `options`, or one option inside it.
    if error.field in ("players", "options"):
        errors: dict[str, Any] = {error.field: [error.reason]}
    else:
        errors = {"options": {error.field: [error.reason]}}
    return problem(400, "invalid-request", "Invalid request", error.reason, errors=errors)


def _from_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    codes = {404: "not-found", 405: "method-not-allowed", 413: "payload-too-large"}
    code = codes.get(status, "invalid-request" if status < 500 else "internal-error")
    response = problem(status, code, error.name, error.description or error.name)
    if status == 405 and error.response is None:
        allowed = getattr(error, "valid_methods", None)
        if allowed:
            response.headers["Allow"] = ", ".join(allowed)
    return response


def _from_redis_error(error: redis.RedisError) -> Response:
    log.error("Redis error: %s", error)
    return problem(503, "service-unavailable", "Service unavailable", "the match store cannot be reached; retry soon")


def _from_unexpected(error: Exception) -> Response:
    log.exception("unexpected error")
    return problem(500, "internal-error", "Internal error", "the server failed; the error was logged")


def register_error_handlers(app: Flask) -> None:
    """Route every error the app can raise to the one problem+json shape."""
    app.register_error_handler(ApiError, _from_api_error)
    app.register_error_handler(ActionRejected, _from_engine_rejection)
    app.register_error_handler(InvalidOptions, _from_invalid_options)
    app.register_error_handler(HTTPException, _from_http_exception)
    app.register_error_handler(redis.RedisError, _from_redis_error)
    app.register_error_handler(Exception, _from_unexpected)
