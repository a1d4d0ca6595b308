"""HTTP endpoints of the bots resource: registration, public profiles, a bot's own events, its policy,
its challenges (list, accept, decline) and its live seats."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, url_for

from api.bots import consent, service
from api.bots.record import BotRecord
from api.bots.schemas import (
    BotEventsQuerySchema,
    BotMatchesQuerySchema,
    BotPolicySchema,
    ChallengesQuerySchema,
    RegisterBotSchema,
)
from api.bots.stream import BotEventStream, event_json, wait_for_events
from api.http import bearer_token, json_body, last_event_id, load, load_query
from api.matches import service as matches
from api.refusals import InvalidRequest, Unauthorized
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
    response = jsonify(service.registered_json(services().store, bot, token))
    response.headers["Cache-Control"] = "no-store"
    return response, 201, {"Location": location}


@blueprint.get("/<bot_id>")
def get_bot(bot_id: str) -> Response:
    """A bot's public profile."""
    return jsonify(service.bot_json(services().store, service.load_bot(services().store, bot_id)))


def the_bot_itself(bot_id: str) -> BotRecord:
    """The bot named in the path, if the request carries its own token (401 or 403 otherwise)."""
    bot = service.load_bot(services().store, bot_id)
    token = bearer_token(required=False)
    if token is not None and not isinstance(token, BotToken):
        raise Unauthorized(f"this endpoint needs bot {bot.id}'s token, not a seat token")
    service.bot_itself(services().store, bot, token)
    return bot


def private(response: Response) -> Response:
    """An answer for the bot alone: never stored by a cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


@blueprint.patch("/<bot_id>")
def set_policy(bot_id: str) -> Response:
    """Change the bot's policy (which challenges it accepts unasked) and its cap on matches at once."""
    bot = the_bot_itself(bot_id)
    changed = service.set_policy(services().store, bot, load(BotPolicySchema(), json_body()))
    return jsonify(service.bot_json(services().store, changed))


@blueprint.get("/<bot_id>/challenges")
def list_challenges(bot_id: str) -> Response:
    """The bot's pending challenges, soonest to expire first, a page at a time."""
    bot = the_bot_itself(bot_id)
    query = load_query(ChallengesQuerySchema())
    cursor = consent.parse_cursor(query["cursor"])
    if query["cursor"] is not None and cursor is None:
        raise InvalidRequest("cursor is not one this server handed out", errors={"cursor": ["malformed"]})
    found = consent.pending_challenges(services().store, services().tournaments, bot.id, query["limit"], cursor)
    return private(jsonify({"items": found[0], "next_cursor": found[1]}))


@blueprint.post("/<bot_id>/challenges/<challenge_id>/accept")
def accept_challenge(bot_id: str, challenge_id: str) -> Response:
    """Accept a challenge: the bot sits down in the match (or in every match of the tournament)."""
    return answer(bot_id, challenge_id, accept=True)


@blueprint.post("/<bot_id>/challenges/<challenge_id>/decline")
def decline_challenge(bot_id: str, challenge_id: str) -> Response:
    """Decline a challenge: the match (or the tournament) is aborted before it starts."""
    return answer(bot_id, challenge_id, accept=False)


def answer(bot_id: str, challenge_id: str, accept: bool) -> Response:
    """Accept or decline with the bot's token; the challenge as it is now."""
    bot = the_bot_itself(bot_id)
    live = services()
    answered = consent.answer(
        live.store, live.challenges, live.tournaments, bot, challenge_id, accept, live.after_change
    )
    return private(jsonify(answered))


@blueprint.get("/<bot_id>/matches")
def list_matches(bot_id: str) -> Response:
    """The bot's live seats (`status=playing`): what it must act on, read from the matches, never lost to volume."""
    bot = the_bot_itself(bot_id)
    query = load_query(BotMatchesQuerySchema())
    items, next_cursor = consent.live_seats(services().store, bot.id, query["limit"], query["cursor"])
    return private(jsonify({"items": items, "next_cursor": next_cursor}))


@blueprint.get("/<bot_id>/events")
def bot_events(bot_id: str) -> Response:
    """The bot's events (challenges, match started, your turn, match over): a stream, or a long-poll with `wait`."""
    bot = the_bot_itself(bot_id)
    query = load_query(BotEventsQuerySchema())
    header = last_event_id("an event id")
    after = header if header is not None else query["after"] or 0
    resync(bot.id)
    if query["wait"] is not None:
        events = wait_for_events(services().store.bots, bot.id, after, query["wait"])
        last = events[-1].id if events else after
        response = jsonify({"events": [event_json(event) for event in events], "last_event_id": last})
        response.headers["Cache-Control"] = "no-store"
        return response
    stream = BotEventStream(services().store.bots, bot.id, after, services().settings.events_heartbeat)
    response = Response(iter(stream), mimetype=EVENT_STREAM)
    response.headers["Cache-Control"] = "no-cache"
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
