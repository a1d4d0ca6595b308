"""A one-ply greedy baseline per game, for measuring the searchers against (not a level for players).

`GreedyAgent` looks one action ahead with a simple score of each game's own: `choose` in
`ai/greedy/<game id>.py`, found by the game's id; in a game without such a module it plays a
random legal action. Like every agent it decides on `state.determinize(seat, rng)`, so it never
reads what the seat cannot see, and a seed fixes its answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ai.game_modules import game_module
from engine.rng import Rng

if TYPE_CHECKING:
    from engine.protocol import Action, GameState

Player = Callable[[Any, int, Rng], "Action"]
"""A game's greedy choice: (a determinized state, the seat, a seeded Rng) to an action."""


def player_for(game_id: str) -> Player | None:
    """The game's greedy choice, `choose` in `ai/greedy/<game id>.py`; None when it has no such module."""
    module = game_module("ai.greedy", game_id)
    if module is None:
        return None
    choose = getattr(module, "choose", None)
    if not callable(choose):
        raise TypeError(f"{module.__name__} must define choose(world, seat, rng) -> action")
    return cast(Player, choose)


class GreedyAgent:
    """The best action one step ahead by the game's own score; random in a game it does not know."""

    def choose(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Action:
        """The seat's greedy action on a determinized copy; the budget, the time cap and `stop` play no part."""
        rng = Rng.from_seed(f"greedy-agent:{seed}")
        world = state.determinize(seat, rng)
        player = player_for(state.game_id)
        if player is None:
            return world.sample_action(seat, rng)
        return player(world, seat, rng)


__all__ = ["GreedyAgent", "player_for"]
