"""HTTP endpoints of the tournaments resource."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, url_for

from api.http import json_body, load, load_query
from api.matches.views import after_change
from api.tournaments import service
from api.tournaments.schemas import CreateTournamentSchema, ListTournamentsQuerySchema

blueprint = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments")


def tournaments() -> service.Tournaments:
    """The app's tournaments."""
    return current_app.extensions["parlour.tournaments"]  # type: ignore[no-any-return]


@blueprint.post("")
def create_tournament() -> tuple[Response, int, dict[str, str]]:
    """Create a tournament and start its first matches; 201 with its id and URL."""
    record = tournaments().create(load(CreateTournamentSchema(), json_body()), after_change)
    location = url_for("tournaments.get_tournament", tournament_id=record.id)
    return jsonify(service.tournament_json(record)), 201, {"Location": location}


@blueprint.get("")
def list_tournaments() -> Response:
    """List tournaments, newest first, a page at a time; optionally only running or finished ones."""
    query = load_query(ListTournamentsQuerySchema())
    items, next_cursor = tournaments().page(query["status"], query["limit"], query["cursor"])
    return jsonify({"items": items, "next_cursor": next_cursor})


@blueprint.get("/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    """The tournament: status, progress, standings, crosstable, ratings and its matches."""
    return jsonify(service.tournament_json(tournaments().load(tournament_id)))
