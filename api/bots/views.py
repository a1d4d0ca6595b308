"""HTTP endpoints of the bots resource: registration, public profiles, a bot's own events, its policy,
its challenges (list, accept, decline) and its live seats."""

from __future__ import annotations

import logging
from typing import cast

import redis
from flask import Blueprint, Response, jsonify, url_for

from api.bots.schemas import (
    PLAYING,
    BotEventsQuery,
    BotEventsQuerySchema,
    BotMatchesQuery,
    BotMatchesQuerySchema,
    BotPolicySchema,
    BotsQuery,
    BotsQuerySchema,
    ChallengesQuery,
    ChallengesQuerySchema,
    RatingsQuery,
    RatingsQuerySchema,
    RegisterBot,
    RegisterBotSchema,
)
from api.current import services
from api.http import bearer_token, json_body, keep_private, last_event_id, load, load_query
from api.limits import client_address, prove
from domain.bots import consent, registration
from domain.bots.deletion import delete_bot
from domain.bots.registration import BotJson, PolicyChange
from domain.events.bot_stream import BotEventStream, event_json, snapshot, wait_for_events
from domain.ladder.ladder import BotRating
from domain.matches import commands as matches
from domain.quotas import HeldStream
from model.bot import BotRecord
from model.refusals import InvalidRequest, Unauthorized
from model.tokens import BotToken
from store.connection import is_store_full
from store.matches import Cursor

log = logging.getLogger(__name__)
blueprint = Blueprint("bots", __name__, url_prefix="/v1/bots")
EVENT_STREAM = "text/event-stream"


@blueprint.post("")
def register_bot() -> tuple[Response, int, dict[str, str]]:
    """Register a bot; answer with its id and its token, shown this once."""
    body = cast(RegisterBot, load(RegisterBotSchema, json_body()))
    with services().quotas.bots.hold(client_address()) as hold:
        bot, token = registration.register_bot(services().store, services().bot_directory, body["name"])
        hold.confirm(bot.id)
    location = url_for("bots.get_bot", bot_id=bot.id)
    response = keep_private(jsonify(registered_json(bot, token)))
    return response, 201, {"Location": location}


@blueprint.get("")
def list_bots() -> Response:
    """The registered bots by name, a page at a time; `q` keeps those whose names start with it (folded)."""
    query = cast(BotsQuery, load_query(BotsQuerySchema))
    items, next_cursor = services().bot_directory.page(query["q"], query["limit"], query["cursor"])
    return jsonify({"items": items, "next_cursor": next_cursor})


@blueprint.get("/<bot_id>")
def get_bot(bot_id: str) -> Response:
    """A bot's public profile, with its ladder rating in each game it was rated in."""
    return jsonify(profile_json(registration.load_bot(services().store, bot_id)))


class BotProfile(BotJson):
    """A bot's public profile, with its rating and rank in each game it was rated in."""

    ratings: list[BotRating]


class RegisteredBot(BotProfile):
    """A bot's profile with its token, shown once: at registration and at each rotation."""

    token: str


def profile_json(bot: BotRecord) -> BotProfile:
    """A bot's public profile and its ratings."""
    return {**registration.bot_json(services().store, bot), "ratings": services().ladder.ratings_of_bot(bot.id)}


def registered_json(bot: BotRecord, token: BotToken) -> RegisteredBot:
    """The answer to a registration or a rotation: the profile and the token, shown this once."""
    return {**profile_json(bot), "token": token.text}


@blueprint.get("/<bot_id>/ratings")
def rating_history(bot_id: str) -> Response:
    """The bot's rating in one game after each match counted for it, oldest first, a page at a time."""
    bot = registration.load_bot(services().store, bot_id)
    query = cast(RatingsQuery, load_query(RatingsQuerySchema))
    start = int(query["cursor"] or 0)
    return jsonify(services().ladder.history_of_bot(bot.id, query["game"], start, query["limit"]))


@blueprint.delete("/<bot_id>")
def delete(bot_id: str) -> Response:
    """Delete the bot with its own token: its name is freed, its unfinished matches aborted, its keys gone."""
    bot = own_bot(bot_id)
    aborted = delete_bot(services().store, bot, services().after_change)
    services().ladder.forget_bot(bot.id)
    services().bot_history.forget(bot.id)
    services().bot_directory.remove(bot.name)
    return jsonify({"id": bot.id, "name": bot.name, "aborted_matches": aborted})


@blueprint.post("/<bot_id>/token")
def rotate_token(bot_id: str) -> Response:
    """Replace the bot's token with its current one; the new token is in the answer, once; the old one is dead."""
    bot, token = registration.rotate_token(services().store, own_bot(bot_id))
    response = jsonify(registered_json(bot, token))
    response.headers["Cache-Control"] = "no-store"
    return response


def own_bot(bot_id: str) -> BotRecord:
    """The bot named in the path, as it is now, if the request carries its own token (401 or 403 otherwise)."""
    bot = registration.load_bot(services().store, bot_id)
    token = bearer_token(required=False)
    if token is not None and not isinstance(token, BotToken):
        raise Unauthorized(f"this endpoint needs bot {bot.id}'s token, not a seat or owner token")
    itself = registration.bot_itself(services().store, bot, token)
    assert token is not None  # bot_itself refuses a request without one
    prove(token)
    return itself


@blueprint.patch("/<bot_id>")
def set_policy(bot_id: str) -> Response:
    """Change the bot's policy (which challenges it accepts unasked) and its cap on matches at once."""
    bot = own_bot(bot_id)
    changed = registration.set_policy(services().store, bot, cast(PolicyChange, load(BotPolicySchema, json_body())))
    return jsonify(profile_json(changed))


@blueprint.get("/<bot_id>/challenges")
def list_challenges(bot_id: str) -> Response:
    """The bot's pending challenges, soonest to expire first, a page at a time."""
    bot = own_bot(bot_id)
    query = cast(ChallengesQuery, load_query(ChallengesQuerySchema))
    cursor = consent.parse_cursor(query["cursor"])
    if query["cursor"] is not None and cursor is None:
        raise InvalidRequest("cursor is not one this server handed out", errors={"cursor": ["malformed"]})
    found = consent.pending_challenges(services().store, services().tournaments, bot.id, query["limit"], cursor)
    return keep_private(jsonify({"items": found[0], "next_cursor": found[1]}))


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
    bot = own_bot(bot_id)
    live = services()
    answered = consent.answer(
        live.store, live.challenges, live.tournaments, bot, challenge_id, accept, live.after_change
    )
    return keep_private(jsonify(answered))


@blueprint.get("/<bot_id>/matches")
def list_matches(bot_id: str) -> Response:
    """The bot's live seats (`status=playing`, with its token), or its public history (`running`, `finished`, `all`)."""
    query = cast(BotMatchesQuery, load_query(BotMatchesQuerySchema))
    if query["status"] != PLAYING:
        return public_history(registration.load_bot(services().store, bot_id), query)
    bot = own_bot(bot_id)
    items, next_cursor = consent.live_seats(services().store, bot.id, query["limit"], query["cursor"])
    return keep_private(jsonify({"items": items, "next_cursor": next_cursor}))


def public_history(bot: BotRecord, query: BotMatchesQuery) -> Response:
    """A page of the bot's matches of a public status, newest first: seats, status and result, nothing hidden."""
    after = Cursor.parse(query["cursor"]) if query["cursor"] is not None else None
    if query["cursor"] is not None and after is None:
        raise InvalidRequest("cursor is not one this server handed out", errors={"cursor": ["malformed"]})
    items, next_cursor = services().bot_history.page(bot.id, query["status"], query["limit"], after)
    return jsonify({"items": items, "next_cursor": next_cursor})


@blueprint.get("/<bot_id>/events")
def bot_events(bot_id: str) -> Response:
    """The bot's events (challenges, match started, your turn, match over): a stream, or a long-poll with `wait`."""
    bot = own_bot(bot_id)
    query = cast(BotEventsQuery, load_query(BotEventsQuerySchema))
    header = last_event_id("an event id")
    after = header if header is not None else query["after"]
    resync(bot.id)
    opening = None
    if after is None:  # no cursor: what is true now, then new events; never the old ones
        opening = snapshot(services().store, services().tournaments, bot.id)
        after = opening.id
        if query["wait"] is not None:
            return keep_private(jsonify({"events": [event_json(opening)], "last_event_id": after}))
    if query["wait"] is not None:
        with services().quotas.streams.holding(client_address()):  # a long-poll holds its connection as a stream
            events = wait_for_events(services().store.bots, services().changes, bot.id, after, query["wait"])
        if services().store.bots.token_hash(bot.id) != bot.token_hash:
            raise Unauthorized("the bot token was rotated, or the bot deleted, while it waited")
        last = events[-1].id if events else after
        return keep_private(jsonify({"events": [event_json(event) for event in events], "last_event_id": last}))
    heartbeat = services().settings.events_heartbeat
    stream = BotEventStream(
        services().store.bots, services().changes, bot.id, bot.token_hash, after, heartbeat, opening
    )
    lease = services().quotas.streams.open(client_address())
    response = keep_private(Response(HeldStream(iter(stream), lease), mimetype=EVENT_STREAM))
    response.headers["X-Accel-Buffering"] = "no"  # proxies such as nginx pass each event on at once
    return response


def resync(bot_id: str) -> None:
    """Tell the bot again of its running matches whatever a lost notice did not (each event is still sent once)."""
    try:
        for match_id in services().store.bots.matches(bot_id):
            record = services().store.load(match_id)
            if record is None:
                services().store.bots.forget_match(bot_id, match_id)
            else:
                services().tell_bots(record, matches.engine_state(record))
    except redis.RedisError as error:
        if not is_store_full(error):
            raise
        # A full store takes no new events; the bot still reads those it has, and the next connection resyncs.
        log.warning("bot %s not resynced: %s", bot_id, error)
