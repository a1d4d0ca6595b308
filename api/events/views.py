"""GET /v1/matches/{id}/events: a match followed live, as Server-Sent Events."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from api.config import Settings
from api.errors import InvalidRequest
from api.events.feed import ChangeFeed
from api.events.schemas import EventsQuerySchema
from api.events.stream import EventStream
from api.http import load_query
from api.matches import service
from api.matches.views import seat_of_request, store

blueprint = Blueprint("events", __name__, url_prefix="/v1/matches")
EVENT_STREAM = "text/event-stream"
MAX_EVENT_ID_DIGITS = 18


def change_feed() -> ChangeFeed:
    """The app's change notices."""
    return current_app.extensions["parlour.changes"]  # type: ignore[no-any-return]


def last_event_id() -> int | None:
    """The version in `Last-Event-ID` (sent by a reconnecting EventSource), if any; a 400 if it is not one."""
    raw = request.headers.get("Last-Event-ID", "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > MAX_EVENT_ID_DIGITS:
        raise InvalidRequest(
            "Last-Event-ID must be a version this stream sent", errors={"Last-Event-ID": ["not a version"]}
        )
    return int(raw)


@blueprint.get("/<match_id>/events")
def match_events(match_id: str) -> Response:
    """The match as the caller may see it, an event per change, until it is finished."""
    record = service.load_match(store(), match_id)
    viewer = seat_of_request(record, required=False, query_schema=EventsQuerySchema())
    header = last_event_id()
    after = header if header is not None else load_query(EventsQuerySchema())["after"]
    settings: Settings = current_app.extensions["parlour.settings"]
    renders = current_app.extensions["parlour.event_renders"]
    stream = EventStream(store(), change_feed(), renders, record.id, viewer, after, settings.events_heartbeat)
    response = Response(iter(stream), mimetype=EVENT_STREAM)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # proxies such as nginx pass each event on at once
    response.headers["Vary"] = "Authorization"
    return response
