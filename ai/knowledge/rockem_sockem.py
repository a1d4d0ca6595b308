"""Rock'em Sock'em knowledge: distinct keeps only, playouts that race well, and a score from the Fight Cards.

* Candidates: keeps that hold the same faces are one choice (keeping die 0 or die 1 of a red
  pair makes no difference), so the search splits its budget over distinct keeps only.
* Playouts keep dice with `fastest_keep` (random keeps almost never match) and stop when the
  round in which they started is over.
* The score at a cut-off is each seat's exact chance to win the game from the Fight Cards if
  every later round were a coin toss (a HIT is turned with the chance of a face-down HIT; heals
  are left out).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from ai.knowledge import Knowledge
from ai.rockem_race import fastest_keep
from engine.rockem_sockem import RockemSockemState
from engine.rockem_sockem.components import FACES, KNOCKOUT

if TYPE_CHECKING:
    from engine.protocol import Action, GameState
    from engine.rng import Rng

Cards = tuple[int, int, int]
"""A corner's face-down HITs, face-down MISSes and shown HITs."""


class RockemSockemKnowledge(Knowledge):
    """See the module."""

    def candidates(self, state: GameState, seat: int, rng: Rng, samples: int) -> list[Action]:
        """One keep per distinct set of kept faces."""
        actions = state.legal_actions(seat)
        assert isinstance(state, RockemSockemState)
        dice = state.corners[seat].dice
        if dice is None or state.coin is None:
            return actions
        distinct: dict[tuple[str, ...], Action] = {}
        for action in actions:
            faces = tuple(sorted(f"{FACES[dice[i]]['colour']}-{FACES[dice[i]]['icon']}" for i in action["keep"]))
            distinct.setdefault(faces, action)
        return list(distinct.values())

    def playout_action(self, state: GameState, seat: int, rng: Rng) -> Action:
        """The flip, or the keep with the fewest expected rolls to a match."""
        assert isinstance(state, RockemSockemState)
        dice = state.corners[seat].dice
        if state.coin is None:
            return {"type": "flip"}
        if dice is None:
            return {"type": "roll", "keep": []}
        return {"type": "roll", "keep": fastest_keep(state.coin, dice)}

    def playout_mark(self, state: GameState) -> int:
        """The round the playout starts in."""
        assert isinstance(state, RockemSockemState)
        return state.round

    def cut_off(self, state: GameState, mark: int, steps: int) -> bool:
        """Stop once that round is over (or after a long race)."""
        assert isinstance(state, RockemSockemState)
        return state.round > mark or steps >= 400

    def evaluate(self, state: GameState) -> list[float]:
        """Each seat's reward if every later round were won by either seat with one chance in two."""
        assert isinstance(state, RockemSockemState)
        first, second = ((c.hits_down, c.misses_down, c.hits_shown) for c in state.corners)
        win = win_chance(first, second)
        return [2 * win - 1, 1 - 2 * win]


@functools.cache
def win_chance(mine: Cards, theirs: Cards) -> float:
    """The chance the first corner knocks out the second when every round is a coin toss."""
    if theirs[2] >= KNOCKOUT:
        return 1.0
    if mine[2] >= KNOCKOUT:
        return 0.0
    return 0.5 * turned(theirs, lambda cards: win_chance(mine, cards)) + 0.5 * turned(
        mine, lambda cards: win_chance(cards, theirs)
    )


def turned(cards: Cards, value: Callable[[Cards], float]) -> float:
    """The expected value after the corner turns one face-down card at random."""
    hits, misses, shown = cards
    total = 0.0
    if hits:
        total += hits / (hits + misses) * value((hits - 1, misses, shown + 1))
    if misses:
        total += misses / (hits + misses) * value((hits, misses - 1, shown))
    return total
