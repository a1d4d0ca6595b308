"""Bearer tokens, shown once and stored only as a SHA-256 hash.

A seat token `<match id>.<seat>.<secret>` acts for one seat of one match; a bot token
`bot.<bot id>.<secret>` acts for every seat its bot holds; an owner token `owner.<id>.<secret>`
aborts the match or cancels the tournament of that id, and acts for no seat. Match, tournament
and bot ids never contain a dot, and a match id (16 URL-safe characters) is never `bot` or
`owner`, while the seat part of a seat token is digits only, so no form can be taken for another.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

_PART = r"[A-Za-z0-9_-]{1,128}"  # ids and secrets are URL-safe base64 (`secrets.token_urlsafe`)
SEAT_TOKEN = re.compile(rf"({_PART})\.([0-9]{{1,2}})\.({_PART})")
"""`<match id>.<seat>.<secret>`, in ASCII only: anything else is not a token (a 401, never a crash)."""
BOT_TOKEN = re.compile(rf"bot\.({_PART})\.({_PART})")
"""`bot.<bot id>.<secret>`, in ASCII only."""
OWNER_TOKEN = re.compile(rf"owner\.({_PART})\.({_PART})")
"""`owner.<match or tournament id>.<secret>`, in ASCII only."""


@dataclass(frozen=True)
class SeatToken:
    """A parsed bearer token; it names its match and seat but proves nothing until checked."""

    match_id: str
    seat: int
    secret: str

    @property
    def text(self) -> str:
        """The token as the client sends it."""
        return f"{self.match_id}.{self.seat}.{self.secret}"


def new_token(match_id: str, seat: int) -> SeatToken:
    """A fresh random token for a seat."""
    return SeatToken(match_id, seat, secrets.token_urlsafe(32))


def rematch_token(token: SeatToken, rematch_id: str, seat: int) -> SeatToken:
    """The token of `seat` of the rematch `rematch_id` for the holder of `token`, derived from it (HMAC-SHA256).

    Only the holder of the finished match's token can work it out, so the store keeps no token of a
    rematch, only its hash, and hands each holder its new token as it shows its old one.
    """
    digest = hmac.new(token.text.encode(), f"rematch:{rematch_id}:{seat}".encode(), hashlib.sha256).digest()
    return SeatToken(rematch_id, seat, base64.urlsafe_b64encode(digest).rstrip(b"=").decode())


def token_hash(token: SeatToken) -> str:
    """What the store keeps instead of the token."""
    return hashlib.sha256(token.text.encode()).hexdigest()


def matches_hash(token: SeatToken, stored_hash: str | None) -> bool:
    """True when the token is the one whose hash was stored (constant-time compare)."""
    return stored_hash is not None and hmac.compare_digest(token_hash(token), stored_hash)


def parse_token(text: str) -> SeatToken | None:
    """Parse a seat token, or None if it is not in the token format."""
    # fullmatch with [0-9], not str.isdigit: `²` and other non-ASCII digits are no seat number.
    found = SEAT_TOKEN.fullmatch(text)
    return SeatToken(found[1], int(found[2]), found[3]) if found else None


BOT_TOKEN_PREFIX = "bot"


@dataclass(frozen=True)
class BotToken:
    """A parsed bot token; it names its bot but proves nothing until checked."""

    bot_id: str
    secret: str

    @property
    def text(self) -> str:
        """The token as the bot sends it."""
        return f"{BOT_TOKEN_PREFIX}.{self.bot_id}.{self.secret}"


OWNER_TOKEN_PREFIX = "owner"


@dataclass(frozen=True)
class OwnerToken:
    """A parsed owner token: it names the match or tournament it owns but proves nothing until checked."""

    owned_id: str
    secret: str

    @property
    def text(self) -> str:
        """The token as the owner sends it."""
        return f"{OWNER_TOKEN_PREFIX}.{self.owned_id}.{self.secret}"


Credential = SeatToken | BotToken | OwnerToken
"""What a bearer token may be: a seat's, a bot's or an owner's."""


def new_bot_token(bot_id: str) -> BotToken:
    """A fresh random token for a bot."""
    return BotToken(bot_id, secrets.token_urlsafe(32))


def bot_token_hash(token: BotToken) -> str:
    """What the store keeps instead of the bot token."""
    return hashlib.sha256(token.text.encode()).hexdigest()


def bot_matches_hash(token: BotToken, stored_hash: str | None) -> bool:
    """True when the bot token is the one whose hash was stored (constant-time compare)."""
    return stored_hash is not None and hmac.compare_digest(bot_token_hash(token), stored_hash)


def new_owner_token(owned_id: str) -> OwnerToken:
    """A fresh random owner token for a match or a tournament."""
    return OwnerToken(owned_id, secrets.token_urlsafe(32))


def owner_token_hash(token: OwnerToken) -> str:
    """What the store keeps instead of the owner token."""
    return hashlib.sha256(token.text.encode()).hexdigest()


def owner_matches_hash(token: OwnerToken, stored_hash: str | None) -> bool:
    """True when the owner token is the one whose hash was stored (constant-time compare)."""
    return stored_hash is not None and hmac.compare_digest(owner_token_hash(token), stored_hash)


def parse_credential(text: str) -> Credential | None:
    """Parse a bearer token as a bot, owner or seat token, or None if it is none of them."""
    if text.startswith(f"{BOT_TOKEN_PREFIX}."):
        found = BOT_TOKEN.fullmatch(text)
        return BotToken(found[1], found[2]) if found else None
    if text.startswith(f"{OWNER_TOKEN_PREFIX}."):
        found = OWNER_TOKEN.fullmatch(text)
        return OwnerToken(found[1], found[2]) if found else None
    return parse_token(text)
