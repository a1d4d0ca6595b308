"""HTTP endpoints of the matchmaking resource: enter a pool, follow a ticket (long-poll it), cancel it, list pools."""

from __future__ import annotations

from typing import TypedDict, cast

from flask import Blueprint, Response, jsonify, url_for

from api.current import services
from api.http import bearer_token, json_body, keep_private, load, load_query
from api.limits import client_address, prove
from api.matchmaking.schemas import EnterRequest, EnterSchema, TicketQuery, TicketQuerySchema
from domain.bots.registration import check_bot_token
from domain.matchmaking.pairing import every_pool, pool_or_400
from domain.matchmaking.tickets import cancel, check_holder, load_ticket, person_json, wait_for_ticket
from model.matchmaking import Ticket
from model.refusals import Unauthorized
from model.tokens import BotToken, Credential

blueprint = Blueprint("matchmaking", __name__, url_prefix="/v1/matchmaking")


class PoolJson(TypedDict):
    """A pool as the listing shows it: which it is and how many tickets wait there."""

    game: str
    players: int
    rated: bool
    waiting: int


@blueprint.get("")
def list_pools() -> Response:
    """Every pool, with how many tickets wait in it (nobody's identity)."""
    pools = every_pool()
    counts = services().matchmaking.tickets.waiting_counts(pools)
    items: list[PoolJson] = [
        {"game": pool.game, "players": pool.players, "rated": pool.rated, "waiting": count}
        for pool, count in zip(pools, counts, strict=True)
    ]
    return jsonify({"items": items})


@blueprint.post("")
def enter() -> tuple[Response, int, dict[str, str]]:
    """Enter a pool: a bot with its token (its waiting ticket if it has one there), a person under a name."""
    body = cast(EnterRequest, load(EnterSchema, json_body()))
    token = bearer_token(required=False)
    bot = None
    if token is not None:
        if not isinstance(token, BotToken):
            raise Unauthorized("a bot enters with its bot token; a person enters without a token, under a name")
        bot = check_bot_token(services().store, token)
    pool = pool_or_400(body["game"], body["players"], body["rated"])
    live = services()
    entered = live.matchmaking.enter(
        pool, bot, body["name"], body["rating_window"], client_address(), live.after_change
    )
    answer = person_json(live.store, entered.ticket, entered.token, live.settings.matchmaking, live.after_change)
    if entered.token is not None:
        answer["token"] = entered.token.text
    location = url_for("matchmaking.get_ticket", ticket_id=entered.ticket.id)
    return keep_private(jsonify(answer)), 201 if entered.created else 200, {"Location": location}


def held_ticket(ticket_id: str) -> tuple[Ticket, Credential | None]:
    """The ticket named in the path and the token holding it (401 or 403 for any other)."""
    live = services()
    ticket = load_ticket(live.matchmaking.tickets, ticket_id)
    token = bearer_token(required=False)
    check_holder(live.store, live.matchmaking.tickets, ticket, token)
    assert token is not None  # check_holder refuses a request without one
    prove(token)
    return ticket, token


@blueprint.get("/<ticket_id>")
def get_ticket(ticket_id: str) -> Response:
    """The ticket; with `wait`, once it stops waiting (or after `wait` seconds). A person's matched ticket seats it."""
    ticket, token = held_ticket(ticket_id)
    query = cast(TicketQuery, load_query(TicketQuerySchema))
    live = services()
    ticket = live.matchmaking.refresh(ticket, live.after_change)
    if query["wait"] > 0:
        with live.quotas.streams.holding(client_address()):  # a long-poll holds its connection as a stream
            ticket = wait_for_ticket(live.matchmaking.tickets, live.changes, ticket, query["wait"])
    answer = person_json(live.store, ticket, token, live.settings.matchmaking, live.after_change)
    return keep_private(jsonify(answer))


@blueprint.post("/<ticket_id>/cancel")
def cancel_ticket(ticket_id: str) -> Response:
    """Cancel a waiting ticket; a 409 once it is matched or expired."""
    ticket, token = held_ticket(ticket_id)
    live = services()
    cancelled = cancel(live.matchmaking.tickets, ticket)
    return keep_private(
        jsonify(person_json(live.store, cancelled, token, live.settings.matchmaking, live.after_change))
    )
