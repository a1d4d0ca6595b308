"""The AI levels' measured ratings, per game: read from `level_ratings.json`, written by `python -m lab.level_ratings`.

Each competitive game's entry gives, for each of its levels, the openskill rating (mu, sigma) measured
by playing the levels against each other at every player count, the games it played, and its
two-player record against `random`, with the date and the command that measured them. The ladder
anchors a game's scale on these ratings and the catalog lists them. A level a game's entry does not
list has no measured rating (`rating` answers None) and the ladder falls back to its assumed anchor.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

RATINGS_FILE = Path(__file__).with_name("level_ratings.json")
"""Where the measured figures are stored (package data)."""


class VersusRandomJson(TypedDict):
    """A level's two-player record against `random`: wins, draws, losses, the win rate and its 95% interval."""

    wins: int
    draws: int
    losses: int
    win_rate: float | None
    interval95: list[float]


class LevelRatingJson(TypedDict):
    """A level's measured rating in one game: openskill's mu and sigma, and the games it was measured over."""

    mu: float
    sigma: float
    games: int


class GameLevelsJson(TypedDict):
    """One game's measured figures as stored."""

    levels: dict[str, LevelRatingJson]
    versus_random: dict[str, VersusRandomJson]
    games_by_players: dict[str, int]
    unfinished: int
    target_sigma: float
    reached: bool
    foregone: NotRequired[list[str]]  # levels more games cannot narrow: every pair with them is foregone
    measured: str
    command: str


@dataclass(frozen=True)
class MeasuredRating:
    """A level's measured rating in a game."""

    mu: float
    sigma: float
    games: int


@functools.cache
def measured_games() -> dict[str, GameLevelsJson]:
    """Every measured game's figures (empty when nothing was measured yet)."""
    if not RATINGS_FILE.exists():
        return {}
    games: dict[str, GameLevelsJson] = json.loads(RATINGS_FILE.read_text())["games"]
    return games


def game_levels(game_id: str) -> GameLevelsJson | None:
    """A game's measured figures, or None when it was not measured (a co-operative game is never)."""
    return measured_games().get(game_id)


def rating(game_id: str, level: str) -> MeasuredRating | None:
    """A level's measured rating in a game, or None when it was not measured."""
    figures = game_levels(game_id)
    if figures is None or level not in figures["levels"]:
        return None
    found = figures["levels"][level]
    return MeasuredRating(found["mu"], found["sigma"], found["games"])
