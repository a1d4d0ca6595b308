"""GET /v1/matches/{id}/events: a match followed live, as Server-Sent Events."""

from __future__ import annotations

from typing import cast

from flask import Blueprint, Response, url_for

from api.current import services
from api.events.schemas import EventsQuery, EventsQuerySchema
from api.http import NO_STORE, bearer_token, last_event_id, load_query
from api.limits import client_address
from api.matches.views import seat_of_request
from domain.events.match_stream import EventStream
from domain.matches import commands
from domain.quotas import HeldStream

blueprint = Blueprint("events", __name__, url_prefix="/v1/matches")
EVENT_STREAM = "text/event-stream"


@blueprint.get("/<match_id>/events")
def match_events(match_id: str) -> Response:
    """The match as the caller may see it, an event per change, until it is finished."""
    record = commands.load_match(services().store, match_id)
    viewer = seat_of_request(record, required=False, query_schema=EventsQuerySchema)
    header = last_event_id("a version")
    query = cast(EventsQuery, load_query(EventsQuerySchema))
    after = header if header is not None else query["after"]
    app = services()
    log_url = url_for("matches.match_log", match_id=record.id)
    follow = query["rematch"]
    token = bearer_token(required=False) if viewer is not None else None
    stream = EventStream(
        app.store,
        app.changes,
        app.renders,
        record.id,
        viewer,
        after,
        app.settings.events_heartbeat,
        log_url,
        follow,
        token,
    )
    lease = app.quotas.streams.open(client_address())
    response = Response(HeldStream(iter(stream), lease), mimetype=EVENT_STREAM)
    response.headers["Cache-Control"] = "no-cache" if viewer is None else NO_STORE  # a seat's view is private
    response.headers["X-Accel-Buffering"] = "no"  # proxies such as nginx pass each event on at once
    response.headers["Vary"] = "Authorization"
    return response
