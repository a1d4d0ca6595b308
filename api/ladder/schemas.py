"""What the ladder endpoints accept, as marshmallow schemas."""

from __future__ import annotations

from marshmallow import Schema, fields, validate


class LeaderboardQuerySchema(Schema):
    """GET /v1/games/{id}/leaderboard: a page of the ladder, best first."""

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    cursor = fields.String(load_default=None, validate=validate.Regexp(r"^[0-9]{1,9}$", error="malformed"))
