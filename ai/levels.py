"""Playing levels: each names an agent, the budget it searches with and an optional time cap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ai.ismcts import IsmctsAgent
from ai.knowledge import knowledge_for
from ai.perfect import PERFECT_GAMES, PerfectAgent
from ai.random_agent import RandomAgent

if TYPE_CHECKING:
    from collections.abc import Callable

    from ai.agent import Agent
    from engine.protocol import Action, GameState


@dataclass(frozen=True)
class Level:
    """A level: its agent, its budget (MCTS iterations), a time cap in seconds and the games it plays.

    When the search reaches `time_cap` it answers with its best action so far; below the cap a
    level's answer depends only on the state, the seed and the budget. `games` is None for a
    level every game offers.
    """

    name: str
    agent: Agent
    budget: int
    time_cap: float | None = None
    games: frozenset[str] | None = None


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("random", RandomAgent(), 1),
        Level("easy", IsmctsAgent(knowledge_for), 50, time_cap=2.0),
        Level("medium", IsmctsAgent(knowledge_for), 300, time_cap=5.0),
        Level("hard", IsmctsAgent(knowledge_for), 1500, time_cap=10.0),
        Level("perfect", PerfectAgent(), 0, games=PERFECT_GAMES),
    )
}


def level_named(name: str) -> Level:
    """The level with this name; ValueError listing the levels otherwise."""
    if name not in LEVELS:
        raise ValueError(f"unknown level {name!r}; levels: {', '.join(LEVELS)}")
    return LEVELS[name]


def levels_for(game_id: str) -> list[str]:
    """The names of the levels offered for a game, weakest first."""
    return [name for name, level in LEVELS.items() if level.games is None or game_id in level.games]


def choose(
    state: GameState,
    seat: int,
    level: str,
    seed: int | str,
    time_cap: float | None = None,
    stop: Callable[[], bool] | None = None,
) -> Action:
    """The level's move for the seat: deterministic for a seed unless its time cap or `stop()` ends the search."""
    return level_move(level_named(level), state, seat, seed, time_cap, stop)


def level_move(
    level: Level,
    state: GameState,
    seat: int,
    seed: int | str,
    time_cap: float | None = None,
    stop: Callable[[], bool] | None = None,
) -> Action:
    """A level's move for the seat, its search ended at `time_cap` (default: the level's cap) or when `stop()` holds."""
    cap = level.time_cap if time_cap is None else time_cap
    return level.agent.choose(state, seat, level.budget, seed, time_cap=cap, stop=stop)
