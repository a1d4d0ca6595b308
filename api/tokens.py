"""Seat tokens: `<match id>.<seat>.<secret>`, shown once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass


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


def token_hash(token: SeatToken) -> str:
    """What the store keeps instead of the token."""
    return hashlib.sha256(token.text.encode()).hexdigest()


def matches_hash(token: SeatToken, stored_hash: str | None) -> bool:
    """True when the token is the one whose hash was stored (constant-time compare)."""
    return stored_hash is not None and hmac.compare_digest(token_hash(token), stored_hash)


def parse_token(text: str) -> SeatToken | None:
    """Parse a bearer token, or None if it is not in the token format."""
    parts = text.split(".")
    if len(parts) != 3 or not parts[1].isdigit() or len(parts[1]) > 2 or not parts[0] or not parts[2]:
        return None
    return SeatToken(parts[0], int(parts[1]), parts[2])
