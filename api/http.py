"""Request helpers shared by the views: the JSON body, the query, the bearer token, `Last-Event-ID`,
and the `Cache-Control` of private answers."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from flask import Response, g, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from model.refusals import InvalidRequest, Unauthorized
from model.tokens import Credential, parse_credential

PARSED_BODY = "parlour_json_body"
NOT_PARSED = object()


def request_body() -> bytes:
    """The request body's bytes; a 413 when it is over the limit, sent with a Content-Length or chunked."""
    raw = request.get_data(cache=True)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(raw) >= limit:
        raise RequestEntityTooLarge()  # werkzeug cuts a chunked body at the limit instead of refusing it
    return raw


def json_body() -> Any:
    """The request body parsed as JSON (once a request); a clear 400 for anything that is not JSON."""
    parsed = g.get(PARSED_BODY, NOT_PARSED)
    if parsed is not NOT_PARSED:
        return parsed
    raw = request_body()
    if not raw.strip():
        raise InvalidRequest("the request body must be a JSON object", errors={"_body": ["missing body"]})
    try:
        parsed = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        # RecursionError: absurdly deep nesting is refused like any other bad JSON.
        reason = "too deeply nested" if isinstance(error, RecursionError) else str(error)
        raise InvalidRequest(f"the request body is not valid JSON: {reason}", errors={"_body": [reason]}) from None
    setattr(g, PARSED_BODY, parsed)
    return parsed


def sent_field(name: str) -> object:
    """A field of the JSON body as sent, unchecked, to look at before the route's checks (None when the body is
    no JSON object, or lacks it): the checks, in their order, come after."""
    try:
        body = json_body()
    except (InvalidRequest, HTTPException):
        return None
    return body.get(name) if isinstance(body, dict) else None


def optional_json_body() -> Any:
    """The request body parsed as JSON, or {} when there is none (for routes whose body is optional)."""
    return json_body() if request_body().strip() else {}


def _refuse_constant(name: str) -> None:
    """NaN and Infinity are not JSON, though Python's parser takes them."""
    raise ValueError(f"{name} is not a JSON value")


@cache
def schema_of(schema_class: type[Schema]) -> Schema:
    """The one instance of a schema class (it keeps nothing between loads, and building one costs more than a load)."""
    return schema_class()


def load(schema_class: type[Schema], data: Any) -> dict[str, Any]:
    """Validate data with a marshmallow schema; a 400 listing every bad field otherwise."""
    schema = schema_of(schema_class)
    if not isinstance(data, dict):
        raise InvalidRequest("the request body must be a JSON object", errors={"_body": ["not an object"]})
    try:
        return dict(schema.load(data))
    except ValidationError as error:
        messages = error.normalized_messages()  # type: ignore[no-untyped-call]
        raise InvalidRequest(f"invalid fields: {', '.join(sorted(map(str, messages)))}", errors=messages) from None
    except RecursionError:
        raise InvalidRequest("the request body is too deeply nested", errors={"_body": ["too deep"]}) from None


def load_query(schema_class: type[Schema]) -> dict[str, Any]:
    """Validate the query string with a marshmallow schema (an empty one is its defaults, worked out once)."""
    if not request.args:
        return dict(empty_query(schema_class))
    return load(schema_class, request.args.to_dict())


@cache
def empty_query(schema_class: type[Schema]) -> dict[str, Any]:
    """What a query schema (scalars only) loads from an empty query: its defaults (most requests send none)."""
    return load(schema_class, {})


def bearer_token(required: bool) -> Credential | None:
    """The seat, bot or owner token from `Authorization: Bearer ...`; 401 if required and missing or malformed."""
    header = request.headers.get("Authorization", "")
    if not header:
        if required:
            raise Unauthorized("this endpoint needs a seat token: Authorization: Bearer <token>")
        return None
    scheme, _, text = header.partition(" ")
    token = parse_credential(text.strip()) if scheme.lower() == "bearer" else None
    if token is None:
        raise Unauthorized("the Authorization header must be 'Bearer <token>': a seat, bot or owner token")
    return token


MAX_EVENT_ID_DIGITS = 18
"""Event ids are versions or counters; more digits than this is not one the server sent."""


def last_event_id(what: str) -> int | None:
    """The id in `Last-Event-ID` (sent by a reconnecting EventSource), if any; a 400 naming `what` it should be."""
    raw = request.headers.get("Last-Event-ID", "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > MAX_EVENT_ID_DIGITS:
        detail = f"Last-Event-ID must be {what} this stream sent"
        raise InvalidRequest(detail, errors={"Last-Event-ID": [f"not {what}"]})
    return int(raw)


def json_answer(text: str) -> Response:
    """A 200 answer of JSON text already written."""
    return Response(text + "\n", mimetype="application/json")


NO_STORE = "no-store"


def keep_private(response: Response) -> Response:
    """Mark an answer that carries a token or a seat's private data: no cache may keep it."""
    response.headers["Cache-Control"] = NO_STORE
    return response


def private_when_authorized(response: Response) -> Response:
    """An answer to a request that sent a token is that token holder's alone (the app's `after_request`)."""
    if "Authorization" in request.headers:
        keep_private(response)
    return response
