"""HTTP endpoints of the matches resource."""

from __future__ import annotations

from typing import TypedDict, cast

from flask import Blueprint, Response, jsonify, request, url_for
from marshmallow import Schema

from api.current import owned_stores, services
from api.events.schemas import WaitQuery, WaitQuerySchema
from api.http import (
    bearer_token,
    json_answer,
    json_body,
    keep_private,
    load,
    load_query,
    optional_json_body,
    sent_field,
)
from api.limits import client_address, prove
from api.matches.schemas import (
    ActionRequest,
    ActionRequestSchema,
    AiMoveRequest,
    AiMoveRequestSchema,
    CreateMatchSchema,
    JoinRequest,
    JoinSchema,
    ListQuery,
    ListQuerySchema,
    LogQuery,
    LogQuerySchema,
    SeatQuery,
    SeatQuerySchema,
)
from domain import owners
from domain.bots.registration import check_bot_token
from domain.events.match_stream import wait_for_change
from domain.links import with_query
from domain.matches import commands, fair_play, hints, lifecycle
from domain.matches.replay import replay_json
from domain.quotas import joined_seat
from model.jobs import RequestedMove
from model.match import MatchRecord, MatchRequest
from model.refusals import InvalidRequest, Unauthorized
from model.tokens import BotToken
from store.matches import Cursor

blueprint = Blueprint("matches", __name__, url_prefix="/v1/matches")
MAX_IDEMPOTENCY_KEY = 200


class MatchPageJson(TypedDict):
    """A page of the lobby (`GET /v1/matches`)."""

    items: list[commands.SummaryJson]
    next_cursor: str | None


class JoinedJson(TypedDict):
    """The answer to taking a seat: the seat and its token, shown once (none for a bot, which acts with its own)."""

    id: str
    seat: int
    token: str | None
    version: int
    status: str
    open_seats: list[int]
    bot: str | None


class LogPageAnswer(commands.LogPageJson):
    """A page of the log with the link to the next page (None at the end)."""

    next: str | None


class AiMoveAskedJson(RequestedMove):
    """The answer to asking the AI for a seat's move: the job computing it (`GET /v1/jobs/{id}` at `url`)."""

    url: str
    pending: bool


class LeftJson(TypedDict):
    """The answer to leaving a match not started."""

    id: str
    seat: int
    version: int
    status: str
    open_seats: list[int]


class RematchAnswerJson(TypedDict):
    """The answer to a rematch post: the finished match's version and the offer as the seat sees it."""

    id: str
    version: int
    seat: int
    rematch: commands.RematchJson | None


def seat_of_request(record: MatchRecord, required: bool, query_schema: type[Schema] | None = None) -> int | None:
    """The seat whose token came with the request (checked), or None for the public."""
    query = cast(SeatQuery, load_query(query_schema or SeatQuerySchema))  # every seat query schema loads `seat`
    token = bearer_token(required)
    seat = commands.authenticate(services().store, record, token, query["seat"])
    if required and seat is None:
        raise Unauthorized("this endpoint needs a seat token: Authorization: Bearer <token>")
    if token is not None:
        prove(token, record.id, seat)
    return seat


def etag_matches(etag: str, if_none_match: str) -> bool:
    """Weak comparison, as If-None-Match requires: `W/"3"` matches `"3"`, and `*` matches any."""
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


@blueprint.post("")
def create_match() -> tuple[Response, int, dict[str, str]]:
    """Create a match; answer with its id, version, a token per filled seat and the owner token, shown once."""
    body = load(CreateMatchSchema, json_body())
    quotas = services().quotas
    with quotas.matches.hold(client_address()) as unfinished, quotas.kept.hold(client_address()) as kept:
        request = cast(MatchRequest, body)  # what CreateMatchSchema loads
        created = commands.create_match(services().store, request, services().settings.challenge_seconds)
        unfinished.confirm(created.record.id)
        kept.confirm(created.record.id)
    services().after_change(created.record, created.state)
    location = url_for("matches.get_match", match_id=created.record.id)
    return keep_private(jsonify(commands.created_json(created))), 201, {"Location": location}


@blueprint.get("")
def list_matches() -> Response:
    """List matches by game and status, newest first, a page at a time."""
    query = cast(ListQuery, load_query(ListQuerySchema))
    if query["game"] is not None:
        commands.game_or_400(query["game"])
    after = Cursor.parse(query["cursor"]) if query["cursor"] else None
    if query["cursor"] and after is None:
        raise InvalidRequest("cursor is not one this server handed out", errors={"cursor": ["malformed"]})
    items, next_cursor = listed_page(query["game"], query["status"], query["limit"], after)
    page: MatchPageJson = {"items": items, "next_cursor": next_cursor.text() if next_cursor else None}
    return jsonify(page)


LISTING_ROUNDS = 5
"""Index reads one lobby page makes at most to fill itself past unlisted and expired matches."""


def listed_page(
    game: str | None, status: str | None, limit: int, after: Cursor | None
) -> tuple[list[commands.SummaryJson], Cursor | None]:
    """Up to `limit` listed matches after the cursor, and the cursor of the next page (None at the end).

    Unlisted matches are in the index (sweeps read it) but never in the lobby: a page skips them.
    """
    items: list[commands.SummaryJson] = []
    for _ in range(LISTING_ROUNDS):
        rows = services().store.list_ids(game, status, limit, after)
        records = services().store.load_many([row.match_id for row in rows])
        for row, record in zip(rows, records, strict=True):
            after = row
            if record is None:
                services().store.forget_in(game, status, row.match_id)
            elif status in (None, record.status) and not record.unlisted:
                items.append(commands.summary_json(record))
                if len(items) == limit:
                    return items, row
        if len(rows) < limit:
            return items, None
    return items, after


@blueprint.get("/<match_id>")
def get_match(match_id: str) -> Response:
    """The match as the caller may see it (a seat's with its `legal_actions`); 304 when If-None-Match names the
    current version.

    With `wait` and `after` it is a long-poll: the answer comes once the version passes `after`.
    """
    record = commands.load_match(services().store, match_id)
    viewer = seat_of_request(record, required=False, query_schema=WaitQuerySchema)
    query = cast(WaitQuery, load_query(WaitQuerySchema))
    if query["after"] is not None:
        with services().quotas.streams.holding(client_address()):  # a long-poll holds its connection as a stream
            record = wait_for_change(services().store, services().changes, record, query["after"], query["wait"])
        if viewer is not None:  # the token is checked again on the match as it is now: it may have lost its seat
            commands.authenticate(services().store, record, bearer_token(required=False), viewer)
    etag = f'"{record.version}"'
    if etag_matches(etag, request.headers.get("If-None-Match", "")):
        response = Response(status=304)
    else:
        token = bearer_token(required=False)
        reads = services().reads
        # A seat's read carries its legal actions: a long-polling player needs no other request before its move.
        response = json_answer(reads.match(record, None) if viewer is None else reads.seat_match(record, viewer, token))
    response.headers["ETag"] = etag
    response.headers["Vary"] = "Authorization"
    return response


@blueprint.get("/<match_id>/legal-actions")
def legal_actions(match_id: str) -> Response:
    """What the token's seat may do now, in the form the actions endpoint accepts."""
    record = commands.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    return json_answer(services().reads.legal_actions(record, seat))


@blueprint.post("/<match_id>/actions")
def post_action(match_id: str) -> Response:
    """Apply one action of the token's seat if `expected_version` is still current (checked on that version without
    reading the match when this process holds it: `commands.act_on_version`)."""
    app = services()

    def act(record: MatchRecord, on_commit: commands.OnCommit) -> commands.SeatMatchJson:
        seat = seat_of_request(record, required=True)  # its limit is charged once, whichever version is checked
        assert seat is not None
        body = cast(ActionRequest, load(ActionRequestSchema, json_body()))
        key = request.headers.get("Idempotency-Key")
        if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
            raise InvalidRequest(
                "Idempotency-Key must have 1 to 200 characters", errors={"Idempotency-Key": ["length"]}
            )
        return commands.apply_action(
            app.store, record, seat, body["action"], body["expected_version"], key, on_commit=on_commit
        )

    held = app.renders.stored(match_id, sent_field("expected_version"))
    answer = commands.act_on_version(held, lambda: commands.load_match(app.store, match_id), act, app.after_change)
    response = jsonify(answer)
    response.headers["ETag"] = f'"{answer["version"]}"'
    return response


@blueprint.post("/<match_id>/join")
def join_match(match_id: str) -> tuple[Response, int]:
    """Take an open seat; its token is in the answer, once. With a bot token the bot takes it, as itself."""
    data = optional_json_body()
    body = cast(JoinRequest, load(JoinSchema, data))
    credential = bearer_token(required=False)
    bot = check_bot_token(services().store, credential) if isinstance(credential, BotToken) else None
    if bot is not None and body["name"] is not None:
        raise InvalidRequest("a bot sits down under its registered name", errors={"name": ["not with a bot token"]})
    with services().quotas.seats.hold(client_address()) as hold:  # seats held in matches not started yet
        record, seat, token = commands.join_match(services().store, match_id, body["seat"], body["name"], bot)
        hold.confirm(joined_seat(record, seat))
    services().after_change(record, commands.engine_state(record))
    answer: JoinedJson = {
        "id": record.id,
        "seat": seat,
        "token": token.text if token else None,
        "version": record.version,
        "status": record.status,
        "open_seats": record.open_seats(),
        "bot": bot.id if bot is not None else None,
    }
    return keep_private(jsonify(answer)), 200


@blueprint.post("/<match_id>/abort")
def abort_match(match_id: str) -> Response:
    """The owner ends a match that has not started (no result); answer with the aborted match's public view."""
    record = commands.load_match(services().store, match_id)
    owners.check_owner(owned_stores(), bearer_token(required=False), record.id, record.owner_hash, "match")
    aborted = commands.abort_match(
        services().store, record.id, owners.ABORTED_BY_OWNER, on_commit=services().after_change, waiting_only=True
    )
    return jsonify(commands.match_json(aborted, commands.engine_state(aborted), None))


@blueprint.get("/<match_id>/log")
def match_log(match_id: str) -> Response:
    """A page of the applied actions, oldest first, as the caller may see them; `next` is the following page."""
    record = commands.load_match(services().store, match_id)
    viewer = seat_of_request(record, required=False, query_schema=LogQuerySchema)
    query = cast(LogQuery, load_query(LogQuerySchema))
    page = commands.log_json(services().store, record, viewer, query["after"], query["limit"])
    after = page["next_after"]
    path = url_for("matches.match_log", match_id=record.id)
    answer: LogPageAnswer = {
        **page,
        "next": with_query(path, after=after, limit=query["limit"], seat=viewer) if after is not None else None,
    }
    return jsonify(answer)


@blueprint.get("/<match_id>/replay/<int:step>")
def replay_step(match_id: str, step: int) -> Response:
    """A match that is over, after its first `step` actions: the public view, or a seat's with `seat`."""
    record = commands.load_match(services().store, match_id)
    viewer = cast(SeatQuery, load_query(SeatQuerySchema))["seat"]
    return jsonify(replay_json(services().store, record, step, viewer))


@blueprint.post("/<match_id>/ai-move")
def request_ai_move(match_id: str) -> tuple[Response, int, dict[str, str]]:
    """Ask the AI for the token's seat's move (a hint, or applied with `apply`); 202 with the job's URL."""
    record = commands.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    fair_play.check_assistance(record, seat)  # 403 before any job is queued
    data = optional_json_body()
    body = cast(AiMoveRequest, load(AiMoveRequestSchema, data))
    level = commands.ai_level_or_400(record.game, body["level"])
    commands.check_may_act(record, commands.engine_state(record), seat)
    asked = hints.request_move(services().store, services().jobs, record, seat, level, body["apply"])
    location = url_for("jobs.get_job", job_id=asked.id)
    answer: AiMoveAskedJson = {
        "id": asked.id,
        "url": location,
        "status": asked.status,
        "match": record.id,
        "seat": seat,
        "version": asked.version,
        "level": asked.level,
        "apply": asked.apply,
        "pending": asked.pending,
    }
    return (
        jsonify(answer),
        202,
        {"Location": location},
    )


@blueprint.post("/<match_id>/resign")
def resign(match_id: str) -> Response:
    """The token's seat resigns: the match ends with it last (a co-operative seat goes to the AI, or the team
    gives up); answer with the match as that seat sees it."""
    record = commands.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    after, state = lifecycle.resign(services().store, record.id, seat, on_commit=services().after_change)
    return jsonify(commands.match_json(after, state, seat))


@blueprint.post("/<match_id>/leave")
def leave(match_id: str) -> Response:
    """The token's seat leaves a match that has not started: the seat opens again and the token stops working."""
    record = commands.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    after = lifecycle.leave(services().store, record.id, seat, on_commit=services().after_change)
    answer: LeftJson = {
        "id": after.id,
        "seat": seat,
        "version": after.version,
        "status": after.status,
        "open_seats": after.open_seats(),
    }
    return jsonify(answer)


@blueprint.post("/<match_id>/rematch")
def rematch(match_id: str) -> Response:
    """The token's seat offers a rematch of a finished match, or accepts the offer; the last acceptance
    starts it. Answer with the offer as that seat sees it (its new seat token once the rematch started)."""
    record = commands.load_match(services().store, match_id)
    seat = seat_of_request(record, required=True)
    assert seat is not None
    app = services()
    token = bearer_token(required=True)
    assert token is not None
    done = lifecycle.offer_rematch(app.store, record.id, seat, token, app.after_change, app.settings.challenge_seconds)
    after = done.record
    rematch = commands.rematch_json(after, seat, token)
    answer: RematchAnswerJson = {"id": after.id, "version": after.version, "seat": seat, "rematch": rematch}
    return keep_private(jsonify(answer))
