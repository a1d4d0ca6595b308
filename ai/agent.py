"""The interface every computer player implements."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.protocol import Action, GameState


class Agent(Protocol):
    """Chooses one action for a seat, using only what that seat may know.

    An agent works on `state.determinize(seat, rng)` samples and never reads hidden parts of
    `state` itself, so two states the seat cannot tell apart get the same answer. For one seed
    and one budget the answer is always the same. The seat must have a legal action now.
    """

    def choose(self, state: GameState, seat: int, budget: int, seed: int | str) -> Action:
        """The action the seat takes; `budget` is the agent's effort (MCTS: iterations)."""
        ...


def action_key(action: Action) -> str:
    """The canonical JSON text of an action: hashable, and equal for equal actions."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))
