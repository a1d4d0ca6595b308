"""HTTP endpoints of the bots resource: registration, public profiles, and a bot's own events."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, url_for

from api.bots import service
from api.bots.schemas import BotEventsQuerySchema, RegisterBotSchema
from api.bots.stream import BotEventStream, event_json, wait_for_events
from api.http import bearer_token, json_body, keep_private, last_event_id, load, load_query
from api.matches import service as matches
from api.refusals import Unauthorized
from api.services import services
from api.tokens import BotToken

blueprint = Blueprint("bots", __name__, url_prefix="/v1/bots")
EVENT_STREAM = "text/event-stream"


@blueprint.post("")
def register_bot() -> tuple[Response, int, dict[str, str]]:
    """Register a bot; answer with its id and its token, shown this once."""
    body = load(RegisterBotSchema(), json_body())
    bot, token = service.register_bot(services().store, body["name"])
    location = url_for("bots.get_bot", bot_id=bot.id)
    response = keep_private(jsonify(service.registered_json(services().store, bot, token)))
    return response, 201, {"Location": location}


@blueprint.get("/<bot_id>")
def get_bot(bot_id: str) -> Response:
    """A bot's public profile."""
    return jsonify(service.bot_json(services().store, service.load_bot(services().store, bot_id)))


@blueprint.get("/<bot_id>/events")
def bot_events(bot_id: str) -> Response:
    """The bot's events (match started, your turn, match over): a stream, or a long-poll with `wait`."""
    bot = service.load_bot(services().store, bot_id)
    token = bearer_token(required=False)
    if token is not None and not isinstance(token, BotToken):
        raise Unauthorized(f"this endpoint needs bot {bot.id}'s token, not a seat token")
    service.bot_itself(services().store, bot, token)
    query = load_query(BotEventsQuerySchema())
    header = last_event_id("an event id")
    after = header if header is not None else query["after"] or 0
    resync(bot.id)
    if query["wait"] is not None:
        events = wait_for_events(services().store.bots, bot.id, after, query["wait"])
        last = events[-1].id if events else after
        return keep_private(jsonify({"events": [event_json(event) for event in events], "last_event_id": last}))
    stream = BotEventStream(services().store.bots, bot.id, after, services().settings.events_heartbeat)
    response = keep_private(Response(iter(stream), mimetype=EVENT_STREAM))
    response.headers["X-Accel-Buffering"] = "no"  # proxies such as nginx pass each event on at once
    return response


def resync(bot_id: str) -> None:
    """Tell the bot again of its running matches whatever a lost notice did not (each event is still sent once)."""
    for match_id in services().store.bots.matches(bot_id):
        record = services().store.load(match_id)
        if record is None:
            services().store.bots.forget_match(bot_id, match_id)
        else:
            services().tell_bots(record, matches.engine_state(record))
