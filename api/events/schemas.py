"""What the live-event endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from api.matches.schemas import SeatQuery, SeatQuerySchema

MAX_WAIT_SECONDS = 30


class EventsQuerySchema(SeatQuerySchema):
    """GET /v1/matches/{id}/events: `seat`, and `after`, the last version the client has seen."""

    after = fields.Integer(load_default=None, validate=validate.Range(min=0))
    rematch = fields.Boolean(load_default=False)  # stay open after the end for the rematch offer


class EventsQuery(SeatQuery):
    """What EventsQuerySchema loads."""

    after: int | None
    rematch: bool


class WaitQuerySchema(SeatQuerySchema):
    """GET /v1/matches/{id} as a long-poll: wait up to `wait` seconds for a version after `after`."""

    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=MAX_WAIT_SECONDS), allow_nan=False)
    after = fields.Integer(load_default=None, validate=validate.Range(min=0))

    @validates_schema
    def wait_needs_after(self, data: WaitQuery, **kwargs: Any) -> None:
        """Waiting needs the version to wait past."""
        if data["wait"] > 0 and data["after"] is None:
            raise ValidationError("wait needs after, the version to wait past", "after")


class WaitQuery(SeatQuery):
    """What WaitQuerySchema loads."""

    wait: float
    after: int | None
