"""`GET /v1/matches/{id}/export`: a match that is over, as one file to download (domain/matches/export.py)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from api.current import services
from domain.matches import commands
from domain.matches.export import export_json, filename

blueprint = Blueprint("match_exports", __name__, url_prefix="/v1/matches")


@blueprint.get("/<match_id>/export")
def export_match(match_id: str) -> Response:
    """The whole match, seed and log included, as a file to download (`parlour verify` checks it)."""
    record = commands.load_match(services().store, match_id)
    response = jsonify(export_json(services().store, record))
    response.headers["Content-Disposition"] = f'attachment; filename="{filename(record)}"'
    return response
