"""Playing levels: each names an agent and the budget it searches with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ai.perfect import PerfectAgent
from ai.random_agent import RandomAgent
from ai.search import MctsAgent

if TYPE_CHECKING:
    from ai.agent import Agent
    from engine.protocol import Action, GameState


@dataclass(frozen=True)
class Level:
    """A level: its agent, its budget (MCTS iterations) and an optional cap on its thinking time."""

    name: str
    agent: Agent
    budget: int
    time_cap: float | None = None


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("random", RandomAgent(), 1),
        Level("easy", MctsAgent(), 50),
        Level("medium", MctsAgent(), 300),
        Level("hard", MctsAgent(), 1500),
        Level("perfect", PerfectAgent(), 0),  # IceCream only
    )
}


def level_named(name: str) -> Level:
    """The level with this name; ValueError listing the levels otherwise."""
    if name not in LEVELS:
        raise ValueError(f"unknown level {name!r}; levels: {', '.join(LEVELS)}")
    return LEVELS[name]


PERFECT_GAMES = ("icecream",)


def levels_for(game_id: str) -> list[str]:
    """The level names a game's seats may play at (`perfect` only where a solver plays it)."""
    return [name for name in LEVELS if name != "perfect" or game_id in PERFECT_GAMES]


def choose(state: GameState, seat: int, level: str, seed: int | str) -> Action:
    """The level's move for the seat: deterministic for a seed."""
    chosen = level_named(level)
    return chosen.agent.choose(state, seat, chosen.budget, seed)
