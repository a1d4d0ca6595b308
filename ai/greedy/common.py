"""What every game's greedy player shares: pick the best-scoring action, ties drawn at random."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.protocol import Action
    from engine.rng import Rng


def best_action(actions: Sequence[Action], score: Callable[[Action], float], rng: Rng) -> Action:
    """The action with the highest score; a tie is broken with `rng`, so the choice is seeded."""
    if not actions:
        raise ValueError("there is no action to choose from")
    scored = [(score(action), action) for action in actions]
    top = max(value for value, _ in scored)
    return rng.choice([action for value, action in scored if value == top])
