"""HTTP endpoints of the game catalog."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from ai.levels import levels_for
from api.current import services
from api.http import load_query
from api.ladder.schemas import LeaderboardQuerySchema
from engine import Game, all_games, get_game
from model.refusals import NotFound

blueprint = Blueprint("games", __name__, url_prefix="/v1/games")


@blueprint.get("")
def list_games() -> Response:
    """Every game: players, options with defaults and allowed values, recorded assumptions."""
    return jsonify({"items": [catalog_entry(game) for game in all_games()]})


@blueprint.get("/<game_id>")
def get_game_entry(game_id: str) -> Response:
    """One game's catalog entry."""
    game = get_game(game_id)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return jsonify(catalog_entry(game))


def catalog_entry(game: Game) -> dict[str, Any]:
    """A game's catalog entry: its engine info and the AI levels its seats may play at."""
    return {**game.info.to_json(), "ai_levels": levels_for(game.info.id)}


@blueprint.get("/<game_id>/leaderboard")
def leaderboard(game_id: str) -> Response:
    """The game's ladder, best first by mu - 3 sigma: bots and the AI levels that anchor it, a page at a time."""
    query = load_query(LeaderboardQuerySchema)
    return jsonify(services().ladder.leaderboard(game_id, int(query["cursor"] or 0), query["limit"]))
