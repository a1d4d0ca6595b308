"""An agent that plays a uniformly random legal action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.rng import Rng

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine.protocol import Action, GameState


class RandomAgent:
    """A uniformly random legal action via `sample_action`, on a determinized copy."""

    def choose(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Action:
        """One random legal action of the seat; the budget, the time cap and `stop` play no part."""
        rng = Rng.from_seed(f"random-agent:{seed}")
        return state.determinize(seat, rng).sample_action(seat, rng)
