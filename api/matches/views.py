"""HTTP endpoints of the matches resource."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for
from marshmallow import Schema

from api import hints
from api.events.schemas import WaitQuerySchema
from api.events.stream import wait_for_change
from api.http import bearer_token, json_body, load, load_query
from api.matches import service
from api.matches.schemas import (
    ActionRequestSchema,
    AiMoveRequestSchema,
    CreateMatchSchema,
    JoinSchema,
    ListQuerySchema,
    SeatQuerySchema,
)
from api.refusals import InvalidRequest, Unauthorized
from api.services import services
from api.store import Cursor

blueprint = Blueprint("matches", __name__, url_prefix="/v1/matches")
MAX_IDEMPOTENCY_KEY = 200


def seat_of_request(record: Any, required: bool, query_schema: Schema | None = None) -> int | None:
    """The seat whose token came with the request (checked), or None for the public."""
    query = load_query(query_schema or SeatQuerySchema())
    seat = service.authenticate(services().store, record, bearer_token(required), query["seat"])
    if required and seat is None:
        raise Unauthorized("this endpoint needs a seat token: Authorization: Bearer <token>")
    return seat


def etag_matches(etag: str, if_none_match: str) -> bool:
    """Weak comparison, as If-None-Match requires: `W/"3"` matches `"3"`, and `*` matches any."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


@blueprint.post("")
def create_match() -> tuple[Response, int, dict[str, str]]:
    """Create a match; answer with its id, version and one token per filled seat, shown once."""
    record, state, tokens = service.create_match(services().store, load(CreateMatchSchema(), json_body()))
    services().after_change(record, state)
    location = url_for("matches.get_match", match_id=record.id)
    return jsonify(service.created_json(record, tokens)), 201, {"Location": location}


@blueprint.get("")
def list_matches() -> Response:
    """List matches by game and status, newest first, a page at a time."""
    query = load_query(ListQuerySchema())
    if query["game"] is not None:
        service.game_or_400(query["game"])
    after = Cursor.parse(query["cursor"]) if query["cursor"] else None
    if query["cursor"] and after is None:
        raise InvalidRequest("cursor is not one this server handed out", errors={"cursor": ["malformed"]})
    rows = services().store.list_ids(query["game"], query["status"], query["limit"], after)
    records = services().store.load_many([row.match_id for row in rows])
    items = []
    for row, record in zip(rows, records, strict=True):
        if record is None:
            services().store.forget_in(query["game"], query["status"], row.match_id)
        elif query["status"] in (None, record.status):
            items.append(service.summary_json(record))
    next_cursor = rows[-1].text() if len(rows) == query["limit"] else None
    return jsonify({"items": items, "next_cursor": next_cursor})


@blueprint.get("/<match_id>")
def get_match(match_id: str) -> Response:
    """The match as the caller may see it; 304 when If-None-Match names the current version.

    With `wait` and `after` it is a long-poll: the answer comes once the version passes `after`.
    """
    record = service.load_match(services().store, match_id)
    viewer = seat_of_request(record, required=False, query_schema=WaitQuerySchema())
    query = load_query(WaitQuerySchema())
    if query["after"] is not None:
        record = wait_for_change(services().store, services().changes, record, query["after"], query["wait"])
    etag = f'"{record.version}"'
    if etag_matches(etag, request.headers.get("If-None-Match", "")):
        response = Response(status=304)
    else:
        response = jsonify(service.match_json(record, service.engine_state(record), viewer))
    response.headers["ETag"] = etag
    response.headers["Vary"] = "Authorization"
    return response


@blueprint.get("/<match_id>/legal-actions")
def legal_actions(match_id: str) -> Response:
    """What the token's seat may do now, in the form the actions endpoint accepts."""
    record = service.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    return jsonify(service.legal_actions_json(record, service.engine_state(record), seat))


@blueprint.post("/<match_id>/actions")
def post_action(match_id: str) -> Response:
    """Apply one action of the token's seat if `expected_version` is still current."""
    record = service.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    body = load(ActionRequestSchema(), json_body())
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        raise InvalidRequest("Idempotency-Key must have 1 to 200 characters", errors={"Idempotency-Key": ["length"]})
    answer = service.apply_action(
        services().store, record, seat, body["action"], body["expected_version"], key, on_commit=services().after_change
    )
    response = jsonify(answer)
    response.headers["ETag"] = f'"{answer["version"]}"'
    return response


@blueprint.post("/<match_id>/join")
def join_match(match_id: str) -> tuple[Response, int]:
    """Take an open seat; its token is in the answer, once."""
    data = json_body() if request.get_data(cache=True).strip() else {}
    body = load(JoinSchema(), data)
    record, token = service.join_match(services().store, match_id, body["seat"], body["name"])
    services().after_change(record, service.engine_state(record))
    answer = {"id": record.id, "seat": token.seat, "token": token.text, "version": record.version}
    return jsonify({**answer, "status": record.status, "open_seats": record.open_seats()}), 200


@blueprint.get("/<match_id>/log")
def match_log(match_id: str) -> Response:
    """The applied actions in order, as the caller may see them."""
    record = service.load_match(services().store, match_id)
    viewer = seat_of_request(record, required=False)
    return jsonify(service.log_json(record, services().store.log(match_id), viewer))


@blueprint.post("/<match_id>/ai-move")
def request_ai_move(match_id: str) -> tuple[Response, int, dict[str, str]]:
    """Ask the AI for the token's seat's move (a hint, or applied with `apply`); 202 with the job's URL."""
    record = service.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    data = json_body() if request.get_data(cache=True).strip() else {}
    body = load(AiMoveRequestSchema(), data)
    level = service.ai_level_or_400(record.game, body["level"])
    service.check_may_act(record, service.engine_state(record), seat)
    asked = hints.request_move(services().store, services().jobs, record, seat, level, body["apply"])
    location = url_for("jobs.get_job", job_id=asked.id)
    answer = {"id": asked.id, "url": location, "status": asked.status, "match": record.id, "seat": seat}
    answer.update(version=asked.version, level=asked.level, apply=asked.apply, pending=asked.pending)
    return (
        jsonify(answer),
        202,
        {"Location": location},
    )
