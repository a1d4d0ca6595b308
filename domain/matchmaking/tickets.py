"""A matchmaking ticket as its holder sees it: who may read it, its answer, the long-poll, the person's seat and cancel.

A person holds its ticket with the owner token shown at entry, a bot with its own bot token. When a person's
ticket is matched, its first read with that token takes the seat reserved for it: the seat token is derived
from the ticket token (`model.matchmaking.seat_token`), its hash stored on the seat, and every later read
gives the same token and changes nothing. The match starts once no seat is reserved any more.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TypedDict, cast

from domain.bots.registration import check_bot_token
from domain.matches.commands import JOIN_ATTEMPTS, OnCommit, engine_state
from domain.turn_timers import next_deadlines
from model.match import SeatRecord, now_iso
from model.matchmaking import Ticket, TicketStatus, seat_token
from model.refusals import Conflict, Forbidden, NotFound, Unauthorized
from model.settings import MatchmakingSettings
from model.tokens import BotToken, Credential, OwnerToken, SeatToken, owner_matches_hash, token_hash
from store.changes import ChangeFeed
from store.matches import MatchStore
from store.matchmaking import MatchmakingStore, ticket_notice


class TicketJson(TypedDict):
    """A ticket as its holder sees it (`ticket_json`)."""

    id: str
    status: str
    game: str
    players: int
    rated: bool
    bot: str | None
    name: str
    rating: float
    window: float
    created_at: str
    expires_at: str
    match: str | None
    seat: int | None
    reason: str | None


class PersonTicketJson(TicketJson, total=False):
    """A person's ticket: its token in the answer to the entry (shown once), its seat token once matched."""

    token: str
    seat_token: str | None


def now_ms() -> int:
    """The current time in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def ticket_json(ticket: Ticket, settings: MatchmakingSettings, at_ms: int | None = None) -> TicketJson:
    """The ticket as its holder sees it: while it waits, its window as widened by now."""
    moment = min(at_ms if at_ms is not None else now_ms(), ticket.expires_ms)
    return {
        "id": ticket.id,
        "status": ticket.status.shown,
        "game": ticket.pool.game,
        "players": ticket.pool.players,
        "rated": ticket.pool.rated,
        "bot": ticket.bot,
        "name": ticket.name,
        "rating": round(ticket.rating, 4),
        "window": round(ticket.window_at(moment, settings.widen, settings.window_cap), 4),
        "created_at": ticket.created_at,
        "expires_at": ticket.expires_at,
        "match": ticket.match if ticket.status is TicketStatus.MATCHED else None,
        "seat": ticket.seat if ticket.status is TicketStatus.MATCHED else None,
        "reason": ticket.reason,
    }


def load_ticket(tickets: MatchmakingStore, ticket_id: str) -> Ticket:
    """The stored ticket, or a 404."""
    ticket = tickets.load(ticket_id)
    if ticket is None:
        raise NotFound(f"no matchmaking ticket {ticket_id!r} (it may have expired)")
    return ticket


def check_holder(store: MatchStore, tickets: MatchmakingStore, ticket: Ticket, token: Credential | None) -> None:
    """Nothing when `token` holds the ticket (its owner token, or its bot's token); 401 or 403 otherwise."""
    if token is None:
        raise Unauthorized("a ticket is read with its token: the person's owner token, or the bot's token")
    if isinstance(token, BotToken):
        bot = check_bot_token(store, token)
        if ticket.bot != bot.id:
            raise Forbidden(f"this ticket is not bot {bot.id}'s")
        return
    if isinstance(token, OwnerToken):
        if token.owned_id == ticket.id:
            if ticket.bot is None and owner_matches_hash(token, ticket.token_hash):
                return
            raise Unauthorized("the ticket token is not valid")
        other = tickets.load(token.owned_id)
        if other is not None and owner_matches_hash(token, other.token_hash):
            raise Forbidden("this token belongs to another ticket")
    raise Unauthorized("a ticket is read with its token: the person's owner token, or the bot's token")


def person_json(
    store: MatchStore,
    ticket: Ticket,
    token: Credential | None,
    settings: MatchmakingSettings,
    on_commit: OnCommit,
) -> PersonTicketJson:
    """The ticket as its holder sees it; a person's matched ticket also takes its seat and shows its seat token."""
    answer = cast(PersonTicketJson, ticket_json(ticket, settings))
    if ticket.bot is None and isinstance(token, OwnerToken):
        mine = take_seat(store, ticket, token, on_commit) if ticket.status is TicketStatus.MATCHED else None
        answer["seat_token"] = mine.text if mine is not None else None
    return answer


def take_seat(store: MatchStore, ticket: Ticket, token: OwnerToken, on_commit: OnCommit) -> SeatToken:
    """The person's seat token in its match; the first call seats it (the match starts when no seat is reserved)."""
    assert ticket.match is not None and ticket.seat is not None, "only a matched ticket has a seat"
    mine = seat_token(token, ticket.match, ticket.seat)
    for _ in range(JOIN_ATTEMPTS):
        record = store.load(ticket.match)
        if record is None or record.ended:
            return mine  # gone, or aborted before the holder came: the match says so
        held = record.seats[ticket.seat]
        if not held.pending or held.bot is not None or held.token_hash is not None:
            return mine  # taken already, by an earlier read
        seats = [replace(seat) for seat in record.seats]
        seats[ticket.seat] = SeatRecord(ticket.seat, token_hash(mine), held.name)
        after = replace(record, seats=seats, version=record.version + 1, updated_at=now_iso())
        after.start_if_ready()
        if after.turn_seconds is not None:
            after.deadlines = next_deadlines(record, after, engine_state(after), None)
        outcome = store.commit(after, record.version, previous_status=record.status)
        if outcome.kind == "ok":
            on_commit(after, engine_state(after))
            return mine
        if outcome.kind == "missing":
            return mine
    raise Conflict("stale-version", "the match kept changing while the ticket's seat was taken; read the ticket again")


def wait_for_ticket(tickets: MatchmakingStore, feed: ChangeFeed, ticket: Ticket, seconds: float) -> Ticket:
    """The ticket as soon as it stops waiting, or as it stands after `seconds` (or once the feed stops)."""
    if ticket.status.shown != TicketStatus.WAITING or seconds <= 0:
        return ticket
    deadline = time.monotonic() + seconds
    with feed.watching(ticket_notice(ticket.id)) as watch:
        while True:
            latest = load_ticket(tickets, ticket.id)  # read after the watch began, so no change slips between
            remaining = deadline - time.monotonic()
            if latest.status.shown != TicketStatus.WAITING or remaining <= 0 or feed.stopping:
                return latest
            watch.wait(remaining)


def cancel(tickets: MatchmakingStore, ticket: Ticket) -> Ticket:
    """Cancel a waiting ticket (cancelling it again changes nothing); a 409 once it is matched or expired."""
    status = tickets.cancel(ticket)
    if status == "":
        raise NotFound(f"no matchmaking ticket {ticket.id!r} (it expired)")
    if status == TicketStatus.PAIRED:
        raise Conflict("ticket-paired", "the ticket was just paired and its match is being seated: read it again")
    if status == TicketStatus.MATCHED:
        raise Conflict("ticket-matched", "the ticket is matched already: play the match (or resign) instead")
    if status == TicketStatus.EXPIRED:
        raise Conflict("ticket-expired", "the ticket expired before it was paired; enter again")
    return load_ticket(tickets, ticket.id)
