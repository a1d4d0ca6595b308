"""HTTP endpoints of the tournaments resource."""

from __future__ import annotations

from typing import cast

from flask import Blueprint, Response, jsonify, url_for

from api.current import owned_stores, services
from api.http import bearer_token, json_body, load, load_query
from api.limits import client_address
from api.tournaments.schemas import CreateTournamentSchema, ListTournamentsQuerySchema
from domain.owners import check_owner
from domain.tournaments import director
from model.tournament import TournamentRequest

blueprint = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments")


@blueprint.post("")
def create_tournament() -> tuple[Response, int, dict[str, str]]:
    """Create a tournament and start its first matches; 201 with its id, URL and owner token (shown once)."""
    request = cast(TournamentRequest, load(CreateTournamentSchema, json_body()))  # what the schema loads
    limits = services().settings.limits
    with services().quotas.tournaments.hold(client_address()) as hold:
        record, owner = services().tournaments.create(
            request, services().after_change, limits.tournament_matches, limits.tournament_entrants
        )
        hold.confirm(record.id)
    location = url_for("tournaments.get_tournament", tournament_id=record.id)
    body = {**director.tournament_json(record), "owner_token": owner.text}
    return jsonify(body), 201, {"Location": location, "Cache-Control": "no-store"}


@blueprint.get("")
def list_tournaments() -> Response:
    """List tournaments, newest first, a page at a time; optionally only running, finished or cancelled ones."""
    query = load_query(ListTournamentsQuerySchema)
    items, next_cursor = services().tournaments.page(query["status"], query["limit"], query["cursor"])
    return jsonify({"items": items, "next_cursor": next_cursor})


@blueprint.get("/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    """The tournament: status, progress, standings, crosstable, ratings and its matches."""
    return jsonify(director.tournament_json(services().tournaments.load(tournament_id)))


@blueprint.post("/<tournament_id>/cancel")
def cancel_tournament(tournament_id: str) -> Response:
    """The owner stops the tournament: nothing new starts, running matches are aborted, the standings so far stay."""
    record = services().tournaments.load(tournament_id)
    check_owner(owned_stores(), bearer_token(required=False), record.id, record.owner_hash, "tournament")
    return jsonify(director.tournament_json(services().tournaments.cancel(record.id, services().after_change)))
