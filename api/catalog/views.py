"""HTTP endpoints of the game catalog."""

from __future__ import annotations

from typing import Any, TypedDict

from flask import Blueprint, Response, jsonify

from ai.level_ratings import GameLevelsJson, VersusRandomJson, game_levels
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
    """A game's catalog entry: its engine info, the AI levels its seats may play at and their measured ratings."""
    levels = levels_for(game.info.id)
    measured = game_levels(game.info.id)
    return {
        **game.info.to_json(),
        "ai_levels": levels,
        "level_ratings": level_ratings_json(levels, measured),
        "level_ratings_measured": None
        if measured is None
        else {"date": measured["measured"], "command": measured["command"], "target_sigma": measured["target_sigma"]},
    }


class LevelRatingEntryJson(TypedDict):
    """A level's measured rating as the catalog lists it, with its two-player win rate against `random`."""

    mu: float
    sigma: float
    games: int
    win_rate_vs_random: float | None
    versus_random: VersusRandomJson | None


def level_ratings_json(levels: list[str], measured: GameLevelsJson | None) -> dict[str, LevelRatingEntryJson]:
    """The measured rating of each of the game's levels (none for a game never measured: a co-operative one)."""
    if measured is None:
        return {}
    found: dict[str, LevelRatingEntryJson] = {}
    for level in levels:
        rating = measured["levels"].get(level)
        if rating is None:
            continue
        versus = measured["versus_random"].get(level)
        found[level] = {
            "mu": rating["mu"],
            "sigma": rating["sigma"],
            "games": rating["games"],
            "win_rate_vs_random": None if versus is None else versus["win_rate"],
            "versus_random": versus,
        }
    return found


@blueprint.get("/<game_id>/leaderboard")
def leaderboard(game_id: str) -> Response:
    """The game's ladder, best first by mu - 3 sigma: bots and the AI levels that anchor it, a page at a time."""
    query = load_query(LeaderboardQuerySchema)
    return jsonify(services().ladder.leaderboard(game_id, int(query["cursor"] or 0), query["limit"]))
