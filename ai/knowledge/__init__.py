"""What the search may know about a game beyond its rules: candidate moves, playout policy, cut-off score.

`Knowledge` knows nothing: every legal action is a candidate (a fixed sample when the space is
too large to list), playouts pick uniformly random actions and claim whatever they may, and a
playout cut off after `PLAYOUT_LIMIT` actions scores zero for every seat. A game whose random
playouts are long or meaningless registers a subclass in `KNOWLEDGE` (see the modules beside
this one). Every method sees only a determinized state, so it may read any part of it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ai.agent import sampled_actions
from ai.game_modules import game_module
from engine.protocol import action_text

if TYPE_CHECKING:
    from engine.protocol import Action, GameState
    from engine.rng import Rng

PLAYOUT_LIMIT = 2000
"""Actions after which a playout of a game without its own knowledge is cut off."""


class Knowledge:
    """The default: no knowledge of the game."""

    exploration: float = 1.0
    """UCB1's exploration constant for this game's rewards (in [-1, 1])."""

    def candidates(self, state: GameState, seat: int, rng: Rng, samples: int) -> list[Action]:
        """The actions the search considers for the seat (every legal one, or `samples` drawn)."""
        return sampled_actions(state, seat, rng, samples)

    def key(self, action: Action) -> str:
        """A text that tells this game's actions apart, redacted forms included (the canonical JSON by default)."""
        return action_text(action)

    def obvious(self, state: GameState, seat: int) -> Action | None:
        """An action so clearly right that no search is needed, or None (the default)."""
        return None

    def apply(self, state: GameState, seat: int, action: Action) -> None:
        """Apply a legal action for the search: `apply_trusted` (a game may have a faster equivalent)."""
        state.apply_trusted(seat, action)

    def playout_action(self, state: GameState, seat: int, rng: Rng) -> Action:
        """The seat's action in a playout: uniformly random."""
        return state.sample_action(seat, rng)

    def playout_claim(self, state: GameState, seat: int, rng: Rng) -> Action | None:
        """An out-of-turn claim the seat makes in a playout, or None to let it go: the first claim."""
        claims = state.legal_actions(seat)
        return claims[0] if claims else None

    def playout_mark(self, state: GameState) -> int:
        """A mark taken where a playout starts, passed back to `cut_off` (the default: none)."""
        return 0

    def cut_off(self, state: GameState, mark: int, steps: int) -> bool:
        """True when the playout should stop here and `evaluate` the state."""
        return steps >= PLAYOUT_LIMIT

    def evaluate(self, state: GameState) -> list[float]:
        """Every seat's expected reward in [-1, 1] at a cut-off (the default: zeros)."""
        return [0.0] * state.players


@functools.cache
def knowledge_for(game_id: str) -> Knowledge:
    """The game's knowledge, `KNOWLEDGE` in `ai/knowledge/<game id>.py`; the default when it has no such module."""
    module = game_module("ai.knowledge", game_id)
    if module is None:
        return DEFAULT
    knowledge = getattr(module, "KNOWLEDGE", None)
    if not isinstance(knowledge, Knowledge):
        raise TypeError(f"{module.__name__}.KNOWLEDGE must be a Knowledge (Knowledge() for none), not {knowledge!r}")
    return knowledge


DEFAULT = Knowledge()
