"""What the bots endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any, TypedDict

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.fields import Name
from api.http import MAX_EVENT_ID_DIGITS
from domain.bots.history import PUBLIC_STATUSES
from domain.bots.registration import PolicyChange
from model.bot import POLICIES

MAX_WAIT_SECONDS = 30
MAX_EVENT_ID = 10**MAX_EVENT_ID_DIGITS - 1
"""The largest event number `after` may name, as `Last-Event-ID` (a stream id Redis takes)."""
MAX_BOT_NAME = 40
MAX_MATCHES_CAP = 10_000
BOT_NAME = r"^[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,38}[A-Za-z0-9._-])?$"


class RegisterBot(TypedDict):
    """What RegisterBotSchema loads."""

    name: str


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


class BotEventsQuery(TypedDict):
    """What BotEventsQuerySchema loads."""

    after: int | None
    wait: float | None


class BotEventsQuerySchema(Schema):
    """GET /v1/bots/{id}/events: `after`, the last event the bot has seen; `wait` asks for a long-poll."""

    after = fields.Integer(load_default=None, validate=validate.Range(min=0, max=MAX_EVENT_ID))
    wait = fields.Float(load_default=None, validate=validate.Range(min=0, max=MAX_WAIT_SECONDS), allow_nan=False)


class BotPolicySchema(Schema):
    """PATCH /v1/bots/{id}: which challenges the bot accepts without being asked, and its cap on matches at once.

    It loads a `PolicyChange`."""

    policy = fields.String(validate=validate.OneOf(POLICIES))
    max_matches = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=MAX_MATCHES_CAP))

    @validates_schema
    def something_to_change(self, data: PolicyChange, **kwargs: Any) -> None:
        """An empty change is a mistake worth saying so."""
        if not data:
            raise ValidationError("give policy, max_matches or both", "_body")


class ChallengesQuery(TypedDict):
    """What ChallengesQuerySchema loads."""

    limit: int
    cursor: str | None


class ChallengesQuerySchema(Schema):
    """GET /v1/bots/{id}/challenges: a page of the pending challenges, soonest to expire first."""

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    cursor = fields.String(load_default=None, validate=validate.Length(min=3, max=120))


PLAYING = "playing"
MATCH_LISTINGS = (PLAYING, *PUBLIC_STATUSES)


class BotMatchesQuery(TypedDict):
    """What BotMatchesQuerySchema loads."""

    status: str
    limit: int
    cursor: str | None


class BotMatchesQuerySchema(Schema):
    """GET /v1/bots/{id}/matches: the bot's live seats (`playing`, its token) or its public history (the others)."""

    status = fields.String(load_default=PLAYING, validate=validate.OneOf(MATCH_LISTINGS))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))
    cursor = fields.String(load_default=None, validate=validate.Length(min=1, max=120))


class BotsQuery(TypedDict):
    """What BotsQuerySchema loads."""

    q: str
    limit: int
    cursor: str | None


class BotsQuerySchema(Schema):
    """GET /v1/bots: a page of the bots by name; `q`, the start of the names wanted (compared folded)."""

    q = fields.String(load_default="", validate=validate.Length(max=MAX_BOT_NAME))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    cursor = fields.String(load_default=None, validate=validate.Length(min=1, max=4 * MAX_BOT_NAME))


class RatingsQuery(TypedDict):
    """What RatingsQuerySchema loads."""

    game: str
    limit: int
    cursor: str | None


class RatingsQuerySchema(Schema):
    """GET /v1/bots/{id}/ratings: the bot's rating in one game after each counted match, oldest first."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    cursor = fields.String(load_default=None, validate=validate.Regexp(r"^[0-9]{1,9}$", error="malformed"))
