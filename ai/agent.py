"""The interface every computer player implements, and the canonical text of an action."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from engine.protocol import TooManyActions, action_text

if TYPE_CHECKING:
    from engine.protocol import Action, GameState
    from engine.rng import Rng


class Agent(Protocol):
    """Chooses one action for a seat, using only what that seat may know.

    An agent works on `state.determinize(seat, rng)` samples and never reads hidden parts of
    `state` itself, so two states the seat cannot tell apart get the same answer. For one seed
    and one budget the answer is always the same, unless `time_cap` seconds run out or `stop()`
    holds first (a searcher then answers with its best action so far; an agent that does not
    search ignores both). The seat must have a legal action now.
    """

    def choose(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Action:
        """The action the seat takes; `budget` is the agent's effort (MCTS: iterations)."""
        ...


def sampled_actions(state: GameState, seat: int, rng: Rng, samples: int) -> list[Action]:
    """Every legal action of the seat, or up to `samples` distinct ones drawn with `rng` when too many to list."""
    try:
        return state.legal_actions(seat)
    except TooManyActions:
        drawn: dict[str, Action] = {}
        for _ in range(4 * samples):
            action = state.sample_action(seat, rng)
            drawn.setdefault(action_text(action), action)
            if len(drawn) == samples:
                break
        return list(drawn.values())
