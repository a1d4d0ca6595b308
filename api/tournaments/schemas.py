"""What the tournaments endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.fields import Name
from api.matches.schemas import MAX_SEATS, SeedField, TurnTimerSchema
from domain.tournaments.setup import MAX_ROUNDS
from model.tournament import FORMATS, MAX_PARALLEL, EntrantRequest
from store.tournaments import STATUSES

MAX_ENTRANTS = 64
MAX_ENTRANT_NAME = 60
MAX_GAMES_PER_PAIRING = 100


class EntrantSchema(Schema):
    """One entrant: a built-in AI level (`{"type": "ai", "level": "easy"}`) or a registered bot."""

    type = fields.String(required=True, validate=validate.OneOf(("ai", "bot")))
    level = fields.String(load_default=None, validate=validate.Length(min=1, max=32))
    bot = fields.String(load_default=None, validate=validate.Length(min=1, max=64))
    name = Name(max_length=MAX_ENTRANT_NAME, load_default=None)

    @validates_schema
    def level_or_bot(self, data: EntrantRequest, **kwargs: Any) -> None:
        """An AI entrant names a level and no bot; a bot entrant names a bot and no level."""
        given = {"level": data.get("level"), "bot": data.get("bot")}
        wanted, other = ("level", "bot") if data["type"] == "ai" else ("bot", "level")
        if given[wanted] is None:
            raise ValidationError(f"a {data['type']} entrant needs `{wanted}`", wanted)
        if given[other] is not None:
            raise ValidationError(f"a {data['type']} entrant takes no `{other}`", other)


class CreateTournamentSchema(Schema):
    """POST /v1/tournaments."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = fields.Integer(load_default=None, strict=True, validate=validate.Range(min=1, max=MAX_SEATS))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    entrants = fields.List(
        fields.Nested(EntrantSchema), required=True, validate=validate.Length(min=2, max=MAX_ENTRANTS)
    )
    format = fields.String(load_default="round-robin", validate=validate.OneOf(FORMATS))
    rounds = fields.Integer(load_default=None, strict=True, validate=validate.Range(min=1, max=MAX_ROUNDS))
    games_per_pairing = fields.Integer(
        load_default=None, strict=True, validate=validate.Range(min=1, max=MAX_GAMES_PER_PAIRING)
    )
    turn_timer = fields.Nested(TurnTimerSchema, load_default=None, allow_none=True)
    seed = SeedField(load_default=None)
    parallel = fields.Integer(load_default=8, strict=True, validate=validate.Range(min=1, max=MAX_PARALLEL))


class ListTournamentsQuerySchema(Schema):
    """GET /v1/tournaments."""

    status = fields.String(load_default=None, validate=validate.OneOf(STATUSES))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.Integer(load_default=None, validate=validate.Range(min=0))
