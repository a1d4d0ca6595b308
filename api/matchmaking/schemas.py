"""What the matchmaking endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import TypedDict

from marshmallow import Schema, fields, validate

from api.fields import Name

MAX_WAIT_SECONDS = 30
MAX_PLAYERS = 16
MAX_WINDOW = 1000.0


class EnterRequest(TypedDict):
    """What EnterSchema loads."""

    game: str
    players: int
    rated: bool
    rating_window: float | None
    name: str | None


class EnterSchema(Schema):
    """POST /v1/matchmaking: the pool (game, players, rated), the starting window, and a person's name."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=MAX_PLAYERS))
    rated = fields.Boolean(load_default=False)
    rating_window = fields.Float(
        load_default=None, allow_none=True, allow_nan=False, validate=validate.Range(min=0, max=MAX_WINDOW)
    )
    name = Name(load_default=None, allow_none=True)


class TicketQuery(TypedDict):
    """What TicketQuerySchema loads."""

    wait: float


class TicketQuerySchema(Schema):
    """GET /v1/matchmaking/{id}: `wait` seconds at most for the ticket to stop waiting (a long-poll)."""

    wait = fields.Float(load_default=0.0, allow_nan=False, validate=validate.Range(min=0, max=MAX_WAIT_SECONDS))
