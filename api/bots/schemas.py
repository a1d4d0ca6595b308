"""What the bots endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.names import Name

MAX_WAIT_SECONDS = 30
MAX_BOT_NAME = 40
BOT_NAME = r"^[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,38}[A-Za-z0-9._-])?$"


class RegisterBotSchema(Schema):
    """POST /v1/bots."""

    name = Name(
        max_length=MAX_BOT_NAME,
        required=True,
        validate=validate.Regexp(
            BOT_NAME,
            error="1 to 40 characters: letters, digits, spaces, '.', '_' and '-', starting with a letter or digit",
        ),
    )


class BotEventsQuerySchema(Schema):
    """GET /v1/bots/{id}/events: `after`, the last event the bot has seen; `wait` asks for a long-poll."""

    after = fields.Integer(load_default=None, validate=validate.Range(min=0))
    wait = fields.Float(load_default=None, validate=validate.Range(min=0, max=MAX_WAIT_SECONDS), allow_nan=False)

    @validates_schema
    def wait_needs_after(self, data: dict[str, Any], **kwargs: Any) -> None:
        """A long-poll needs the event to wait past."""
        if data["wait"] is not None and data["after"] is None:
            raise ValidationError("wait needs after, the last event number seen (0 for all)", "after")
