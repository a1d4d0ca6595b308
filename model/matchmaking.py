"""Matchmaking as values: a pool (game, players, rated), a ticket in it, and the window a ticket pairs within.

A ticket waits in its pool until the pairing finds `players` tickets whose ladder ratings each fit the
others' windows; each window starts at the ticket's `rating_window` and widens as it waits, up to a cap.
A paired ticket (`paired`, shown as `waiting`) is `matched` once its match is stored; a ticket not paired
in time is `expired`; its holder may cancel a waiting one (`cancelled`).

A person's ticket is held with an owner token `owner.<ticket id>.<secret>` (stored only as its hash). Its
seat in the match is derived from that token (`seat_token`), as a rematch's is from the old seat token,
so the store never holds a seat token: the seat is reserved for the ticket until its holder reads it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TypedDict

from model.tokens import OwnerToken, SeatToken


class TicketStatus(StrEnum):
    """Where a ticket stands; `paired` is the store's own step between `waiting` and `matched`."""

    WAITING = "waiting"
    PAIRED = "paired"  # in a group whose match is being stored: answered as waiting
    MATCHED = "matched"
    EXPIRED = "expired"
    CANCELLED = "cancelled"

    @property
    def shown(self) -> str:
        """The status as answers show it (a paired ticket is still waiting for its match)."""
        return TicketStatus.WAITING.value if self is TicketStatus.PAIRED else self.value


RATED, UNRATED = "rated", "unrated"


@dataclass(frozen=True)
class Pool:
    """Where tickets wait to be paired: one game, one player count, rated or not."""

    game: str
    players: int
    rated: bool

    @property
    def name(self) -> str:
        """`<game>:<players>:<rated|unrated>` (a Redis hash tag of the pool's keys)."""
        return f"{self.game}:{self.players}:{RATED if self.rated else UNRATED}"

    def new_ticket_id(self) -> str:
        """A fresh ticket id naming its pool: `<game>-<players><r|u>-<16 hex digits>` (no dot: see model/tokens.py)."""
        return f"{self.game}-{self.players}{'r' if self.rated else 'u'}-{secrets.token_hex(8)}"


def pool_of_ticket(ticket_id: str) -> Pool | None:
    """The pool a ticket id names, or None if the text is no ticket id."""
    parts = ticket_id.rsplit("-", 2)
    if len(parts) != 3 or len(ticket_id) > 100:
        return None
    game, size, secret = parts
    if not game or len(size) < 2 or size[-1] not in "ru" or not size[:-1].isdigit() or len(secret) != 16:
        return None
    if not all(char in "0123456789abcdef" for char in secret):
        return None
    return Pool(game, int(size[:-1]), size[-1] == "r")


@dataclass(frozen=True)
class Ticket:
    """A ticket as stored: who entered which pool, at what rating and window, and what became of it."""

    id: str
    pool: Pool
    status: TicketStatus
    bot: str | None  # the bot that entered, or None for a person
    name: str
    rating: float  # the entrant's ladder rating when it entered (mu - 3 sigma; the default for a person)
    window: float  # the rating window it entered with
    created_ms: int
    expires_ms: int
    token_hash: str | None = None  # a person's owner token's hash
    client: str | None = None  # a person's client address (the key of its quota)
    match: str | None = None
    seat: int | None = None
    reason: str | None = None  # why it was cancelled, when the server cancelled it
    version: int = 1

    def window_at(self, now_ms: int, widen_per_second: float, cap: float) -> float:
        """The window after waiting until `now_ms`: widened by `widen_per_second`, up to `cap` (or its own start)."""
        waited = max(0, now_ms - self.created_ms) / 1000
        return min(max(cap, self.window), self.window + widen_per_second * waited)

    @property
    def created_at(self) -> str:
        """When it entered, ISO 8601 UTC."""
        return iso_ms(self.created_ms)

    @property
    def expires_at(self) -> str:
        """When it expires unless paired, ISO 8601 UTC."""
        return iso_ms(self.expires_ms)


class StoredTicket(TypedDict):
    """What never changes of a ticket, as stored (JSON); its status, match and seat are kept beside it."""

    id: str
    bot: str | None
    name: str
    rating: float
    window: float
    created_ms: int
    expires_ms: int
    token_hash: str | None
    client: str | None


def stored_ticket(ticket: Ticket) -> StoredTicket:
    """The unchanging part of a ticket, as stored."""
    return {
        "id": ticket.id,
        "bot": ticket.bot,
        "name": ticket.name,
        "rating": ticket.rating,
        "window": ticket.window,
        "created_ms": ticket.created_ms,
        "expires_ms": ticket.expires_ms,
        "token_hash": ticket.token_hash,
        "client": ticket.client,
    }


def iso_ms(epoch_ms: int) -> str:
    """Milliseconds since the epoch as ISO 8601 UTC with milliseconds (as `model.match.now_iso` writes)."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seat_token(ticket_token: OwnerToken, match_id: str, seat: int) -> SeatToken:
    """The seat token of a person's matchmade seat, derived from its ticket token (HMAC-SHA256).

    Only the ticket's holder can work it out, so the store keeps only its hash, set when the holder
    first reads the matched ticket; every read gives the same token.
    """
    message = f"matchmaking:{match_id}:{seat}".encode()
    digest = hmac.new(ticket_token.text.encode(), message, hashlib.sha256).digest()
    return SeatToken(match_id, seat, base64.urlsafe_b64encode(digest).rstrip(b"=").decode())
