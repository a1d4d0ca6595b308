"""HTTP endpoints of the game catalog."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from api.errors import NotFound
from engine import all_games, get_game

blueprint = Blueprint("games", __name__, url_prefix="/v1/games")


@blueprint.get("")
def list_games() -> Response:
    """Every game: players, options with defaults and allowed values, recorded assumptions."""
    return jsonify({"items": [game.info.to_json() for game in all_games()]})


@blueprint.get("/<game_id>")
def get_game_entry(game_id: str) -> Response:
    """One game's catalog entry."""
    game = get_game(game_id)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return jsonify(game.info.to_json())
