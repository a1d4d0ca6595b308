"""What the matches endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any, TypedDict

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.fields import Name
from domain.links import LOG_PAGE_MAX, LOG_PAGE_SIZE
from domain.turn_timers import MAX_SECONDS, MIN_SECONDS
from engine.protocol import Action
from model.match import STATUSES, Assistance, MatchRequest, PaceWhen, SeatRequest

MAX_SEATS = 8
AI_PACE_MIN_MS, AI_PACE_MAX_MS = 100, 10_000
"""The spectator pace's bounds: a pace under 0.1 s shows nothing more, and over 10 s nobody would wait."""


class SeedField(fields.Field[str]):
    """A seed given by the caller: text (1-200 characters) or an integer."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ValidationError("a seed is a string or an integer")
        text = str(value)
        if not 1 <= len(text) <= 200:
            raise ValidationError("a seed has 1 to 200 characters")
        return text


SEAT_TYPES = ("human", "open", "ai", "bot")


class SeatSpecSchema(Schema):
    """One entry of `seats` when creating a match: who plays that seat."""

    type = fields.String(required=True, validate=validate.OneOf(SEAT_TYPES))
    level = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=32))
    name = Name(load_default=None, allow_none=True)
    bot = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=64))

    @validates_schema
    def level_only_for_ai(self, data: SeatRequest, **kwargs: Any) -> None:
        """An AI seat needs a level; other seats take none."""
        if data["type"] == "ai" and data["level"] is None:
            raise ValidationError("an AI seat needs a level", "level")
        if data["type"] != "ai" and data["level"] is not None:
            raise ValidationError("only an AI seat has a level", "level")

    @validates_schema
    def bot_only_for_bot_seats(self, data: SeatRequest, **kwargs: Any) -> None:
        """A bot seat names its registered bot and shows that bot's name; other seats name no bot."""
        if data["type"] == "bot" and data["bot"] is None:
            raise ValidationError("a bot seat needs the id of a registered bot", "bot")
        if data["type"] == "bot" and data["name"] is not None:
            raise ValidationError("a bot seat shows its bot's registered name", "name")
        if data["type"] != "bot" and data["bot"] is not None:
            raise ValidationError("only a bot seat names a bot", "bot")


class TurnTimerSchema(Schema):
    """`turn_timer` when creating a match: the seconds each seat the game waits for has to act."""

    seconds = fields.Integer(required=True, strict=True, validate=validate.Range(min=MIN_SECONDS, max=MAX_SECONDS))


class AiPaceSchema(Schema):
    """`ai_pace` when creating a match: each AI move is stored no sooner than `milliseconds` after the match's
    previous change, while someone watches (`watched`: its creator counts for its first 10 s) or `always`."""

    milliseconds = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=AI_PACE_MIN_MS, max=AI_PACE_MAX_MS)
    )
    when = fields.String(load_default=PaceWhen.WATCHED.value, validate=validate.OneOf([w.value for w in PaceWhen]))


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
    # Omitted means "every seat not in open_seats is human"; null is refused like any bad value (the
    # document's `seats` is an array), though marshmallow allows null wherever the default is None.
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        load_default=None,
        allow_none=False,
        validate=validate.Length(min=1, max=MAX_SEATS),
    )
    turn_timer = fields.Nested(TurnTimerSchema, load_default=None, allow_none=True)
    unlisted = fields.Boolean(load_default=False, truthy={True}, falsy={False})  # JSON true or false only
    # Omitted (or null): the fair-play rule's default for the seats asked (model.match.default_assistance).
    assistance = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf([a.value for a in Assistance])
    )
    ai_pace = fields.Nested(AiPaceSchema, load_default=None, allow_none=True)

    @validates_schema
    def seats_match_players(self, data: MatchRequest, **kwargs: Any) -> None:
        """`seats`, when given, has one entry per player and replaces `open_seats`."""
        if data["seats"] is None:
            return
        if len(data["seats"]) != data["players"]:
            raise ValidationError(f"seats lists {len(data['seats'])} seats for {data['players']} players", "seats")
        if data["open_seats"]:
            raise ValidationError('give open seats as {"type": "open"} in seats, not both', "open_seats")


class JoinSchema(Schema):
    """POST /v1/matches/{id}/join."""

    seat = fields.Integer(strict=True, load_default=None, allow_none=True, validate=validate.Range(min=0))
    name = Name(load_default=None, allow_none=True)


class JoinRequest(TypedDict):
    """What JoinSchema loads."""

    seat: int | None
    name: str | None


class AiMoveRequestSchema(Schema):
    """POST /v1/matches/{id}/ai-move."""

    level = fields.String(load_default="medium", validate=validate.Length(min=1, max=32))
    apply = fields.Boolean(load_default=False)


class AiMoveRequest(TypedDict):
    """What AiMoveRequestSchema loads."""

    level: str
    apply: bool


class ActionRequestSchema(Schema):
    """POST /v1/matches/{id}/actions."""

    action = fields.Dict(keys=fields.String(), required=True)
    expected_version = fields.Integer(load_default=None, allow_none=True, strict=True, validate=validate.Range(min=0))


class ActionRequest(TypedDict):
    """What ActionRequestSchema loads."""

    action: Action
    expected_version: int | None


class SeatQuerySchema(Schema):
    """The optional `seat` query parameter: which seat's view the token must be for."""

    seat = fields.Integer(load_default=None, validate=validate.Range(min=0, max=MAX_SEATS - 1))


class SeatQuery(TypedDict):
    """What SeatQuerySchema loads (and every query schema derived from it)."""

    seat: int | None


class LogQuerySchema(SeatQuerySchema):
    """GET /v1/matches/{id}/log: `seat`, the entries after version `after`, at most `limit` of them."""

    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=LOG_PAGE_SIZE, validate=validate.Range(min=1, max=LOG_PAGE_MAX))


class LogQuery(SeatQuery):
    """What LogQuerySchema loads."""

    after: int
    limit: int


class ListQuerySchema(Schema):
    """GET /v1/matches."""

    game = fields.String(load_default=None, validate=validate.Length(min=1, max=64))
    status = fields.String(load_default=None, validate=validate.OneOf(STATUSES))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(load_default=None, validate=validate.Length(min=3, max=100))


class ListQuery(TypedDict):
    """What ListQuerySchema loads."""

    game: str | None
    status: str | None
    limit: int
    cursor: str | None
