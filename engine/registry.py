"""Finding a game by its id, in the list of engine/games.py."""

from __future__ import annotations

import functools

from engine.protocol import Game


def get_game(game_id: str) -> Game | None:
    """The game with this id, or None."""
    return _by_id(_listed()).get(game_id)


def all_games() -> list[Game]:
    """Every registered game, in catalog order."""
    return list(_listed())


def _listed() -> tuple[Game, ...]:
    """engine/games.py's list, imported on first use so that importing `engine` stays cheap."""
    import engine.games

    return engine.games.GAMES


@functools.cache
def _by_id(games: tuple[Game, ...]) -> dict[str, Game]:
    """The games by id; ValueError if two share one."""
    by_id: dict[str, Game] = {}
    for game in games:
        if game.info.id in by_id:
            raise ValueError(f"game {game.info.id!r} is listed twice in engine/games.py")
        by_id[game.info.id] = game
    return by_id
