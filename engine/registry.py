"""The registry of games, by id."""

from __future__ import annotations

from engine.protocol import Game

_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a game to the registry (ids are unique)."""
    if game.info.id in _GAMES:
        raise ValueError(f"game {game.info.id!r} is already registered")
    _GAMES[game.info.id] = game
    return game


def get_game(game_id: str) -> Game | None:
    """The game with this id, or None."""
    _load_builtin_games()
    return _GAMES.get(game_id)


def all_games() -> list[Game]:
    """Every registered game, in catalog order."""
    _load_builtin_games()
    return list(_GAMES.values())


def _load_builtin_games() -> None:
    """Import the game packages once; each registers itself."""
    import engine.games  # noqa: F401
