"""What the matches endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from api.record import STATUSES

MAX_SEATS = 8


class SeedField(fields.Field):
    """A seed given by the caller: text (1-200 characters) or an integer."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValidationError("a seed is a string or an integer")
        text = str(value)
        if not 1 <= len(text) <= 200:
            raise ValidationError("a seed has 1 to 200 characters")
        return text


class CreateMatchSchema(Schema):
    """POST /v1/matches."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=MAX_SEATS))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seed = SeedField(load_default=None)
    open_seats = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=0, max=MAX_SEATS - 1)),
        load_default=list,
        validate=validate.Length(max=MAX_SEATS),
    )


class JoinSchema(Schema):
    """POST /v1/matches/{id}/join."""

    seat = fields.Integer(strict=True, load_default=None, allow_none=True, validate=validate.Range(min=0))
    name = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=64))


class ActionRequestSchema(Schema):
    """POST /v1/matches/{id}/actions."""

    action = fields.Dict(keys=fields.String(), required=True)
    expected_version = fields.Integer(load_default=None, allow_none=True, strict=True, validate=validate.Range(min=0))


class SeatQuerySchema(Schema):
    """The optional `seat` query parameter: which seat's view the token must be for."""

    seat = fields.Integer(load_default=None, validate=validate.Range(min=0, max=MAX_SEATS - 1))


class ListQuerySchema(Schema):
    """GET /v1/matches."""

    game = fields.String(load_default=None, validate=validate.Length(min=1, max=64))
    status = fields.String(load_default=None, validate=validate.OneOf(STATUSES))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(load_default=None, validate=validate.Length(min=3, max=100))
