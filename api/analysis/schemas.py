"""What the analysis endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from typing import Any, TypedDict

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.matches.schemas import MAX_SEATS
from engine.protocol import View

BUDGET_KINDS = ("iterations", "milliseconds")


class BudgetSchema(Schema):
    """`{"iterations": N}` or `{"milliseconds": N}`: what the search may spend (the caps are the domain's: 422)."""

    iterations = fields.Integer(strict=True, validate=validate.Range(min=1))
    milliseconds = fields.Integer(strict=True, validate=validate.Range(min=1))

    @validates_schema
    def exactly_one(self, data: dict[str, int], **kwargs: Any) -> None:
        """A budget is iterations or milliseconds, never both, never neither."""
        if len(data) != 1:
            raise ValidationError('a budget is either {"iterations": N} or {"milliseconds": N}', "_schema")


class MatchAnalysisRequestSchema(Schema):
    """POST /v1/matches/{id}/analysis."""

    budget = fields.Nested(BudgetSchema, load_default=None, allow_none=True)
    step = fields.Integer(strict=True, load_default=None, allow_none=True, validate=validate.Range(min=0))
    seat = fields.Integer(strict=True, load_default=None, allow_none=True, validate=validate.Range(0, MAX_SEATS - 1))


class MatchAnalysisRequest(TypedDict):
    """What MatchAnalysisRequestSchema loads."""

    budget: dict[str, int] | None
    step: int | None
    seat: int | None


class PositionAnalysisRequestSchema(Schema):
    """POST /v1/analysis."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = fields.Integer(strict=True, required=True, validate=validate.Range(1, MAX_SEATS))
    options = fields.Dict(keys=fields.String(), load_default=None, allow_none=True)
    seat = fields.Integer(strict=True, required=True, validate=validate.Range(0, MAX_SEATS - 1))
    view = fields.Dict(keys=fields.String(), load_default=None, allow_none=True)
    state = fields.Dict(keys=fields.String(), load_default=None, allow_none=True)
    budget = fields.Nested(BudgetSchema, load_default=None, allow_none=True)

    @validates_schema
    def view_or_state(self, data: dict[str, Any], **kwargs: Any) -> None:
        """A position is a seat's view or a state, exactly one of them."""
        if (data.get("view") is None) == (data.get("state") is None):
            raise ValidationError(
                "send the seat's `view`, or a perfect-information game's `state`: one of them", "view"
            )


class PositionAnalysisRequest(TypedDict):
    """What PositionAnalysisRequestSchema loads."""

    game: str
    players: int
    options: dict[str, Any] | None
    seat: int
    view: View | None
    state: dict[str, Any] | None
    budget: dict[str, int] | None
