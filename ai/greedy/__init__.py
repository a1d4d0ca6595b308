"""A one-ply greedy baseline per game, for measuring the searchers against (not a level for players).

`GreedyAgent` looks one action ahead with a simple score of each game's own (see each module)
and plays a random legal action in a game it does not know. Like every agent it decides on
`state.determinize(seat, rng)`, so it never reads what the seat cannot see, and a seed fixes
its answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ai.greedy import freeze_factory, icecream, robots_love_ice_cream, rockem_sockem, sundae_split
from engine.rng import Rng

if TYPE_CHECKING:
    from engine.protocol import Action, GameState

Player = Callable[[Any, int, Rng], "Action"]
"""A game's greedy choice: (a determinized state, the seat, a seeded Rng) to an action."""

PLAYERS: dict[str, Player] = {
    "icecream": icecream.choose,
    "sundae_split": sundae_split.choose,
    "freeze_factory": freeze_factory.choose,
    "rockem_sockem": rockem_sockem.choose,
    "robots_love_ice_cream": robots_love_ice_cream.choose,
}


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
        player = PLAYERS.get(state.game_id)
        if player is None:
            return world.sample_action(seat, rng)
        return player(world, seat, rng)


__all__ = ["PLAYERS", "GreedyAgent"]
