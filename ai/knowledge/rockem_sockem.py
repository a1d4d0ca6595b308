"""Rock'em Sock'em knowledge: the likely keeps only, playouts that race well, and a score from the race and the cards.

* Candidates: keeps that hold the same faces are one choice (keeping die 0 or die 1 of a red
  pair makes no difference), and of those only the `KEEPS` with the fewest expected rolls to a
  match (ai.rockem_race) are searched: keeping a lone die of another colour is never worth a
  visit, and the budget goes to the keeps that are close.
* Playouts keep dice with `fastest_keep` (random keeps almost never match) and stop as soon as
  no keep is waiting to be rolled: mid-race, between rounds, or at the end.
* The score there is each seat's chance to win the game: the race is scored exactly
  (`race_odds`: the chance each seat matches first, both keeping `fastest_keep`), its loser
  turns a card (a HIT with the chance of a face-down HIT), and every later round is a coin toss
  (`win_chance`; heals and draws are left out of the later rounds).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from ai.knowledge import Knowledge
from ai.rockem_race import (
    fastest_keep,
    hand_of,
    keep_costs,
    matched,
    opponent_survival,
    race_odds,
    side,
    survival_after_keep,
)
from engine.rockem_sockem import RockemSockemState
from engine.rockem_sockem.components import FACES, KNOCKOUT

if TYPE_CHECKING:
    from engine.protocol import Action, GameState
    from engine.rng import Rng

KEEPS = 5
"""Keeps searched per decision."""

Cards = tuple[int, int, int]
"""A corner's face-down HITs, face-down MISSes and shown HITs."""


class RockemSockemKnowledge(Knowledge):
    """See the module."""

    def candidates(self, state: GameState, seat: int, rng: Rng, samples: int) -> list[Action]:
        """The `KEEPS` distinct keeps (by kept faces) with the fewest expected rolls to a match."""
        actions = state.legal_actions(seat)
        assert isinstance(state, RockemSockemState)
        dice = state.corners[seat].dice
        if dice is None or state.coin is None or len(actions) == 1:
            return actions
        distinct: dict[tuple[str, ...], Action] = {}
        for action in actions:
            faces = tuple(sorted(f"{FACES[dice[i]]['colour']}-{FACES[dice[i]]['icon']}" for i in action["keep"]))
            distinct.setdefault(faces, action)
        model = side(state.coin)
        hand = hand_of(dice, model)
        if matched(hand, model.classes):
            return list(distinct.values())
        h = model.hands.index(hand)
        costs = dict(zip(model.keeps[h], keep_costs(state.coin, h), strict=True))
        ranked = sorted(distinct.values(), key=lambda a: costs[hand_of([dice[i] for i in a["keep"]], model)])
        return ranked[:KEEPS]

    def playout_action(self, state: GameState, seat: int, rng: Rng) -> Action:
        """The flip, or the keep with the fewest expected rolls to a match."""
        assert isinstance(state, RockemSockemState)
        dice = state.corners[seat].dice
        if state.coin is None:
            return {"type": "flip"}
        if dice is None:
            return {"type": "roll", "keep": []}
        return {"type": "roll", "keep": fastest_keep(state.coin, dice)}

    def cut_off(self, state: GameState, mark: int, steps: int) -> bool:
        """Stop at once: `evaluate` scores any position exactly enough."""
        return True

    def evaluate(self, state: GameState) -> list[float]:
        """Each seat's reward from its chance to win the game (see the module)."""
        assert isinstance(state, RockemSockemState)
        first, second = ((c.hits_down, c.misses_down, c.hits_shown) for c in state.corners)
        if state.phase == "race" and state.coin is not None:
            coin = state.coin
            curves = [
                opponent_survival(coin, corner.dice) if keep is None else survival_after_keep(coin, corner.dice, keep)
                for corner, keep in zip(state.corners, state.pending, strict=True)
            ]
            win, tie = race_odds(*curves)
            chance = (
                win * turned(second, lambda cards: win_chance(first, cards))
                + tie * win_chance(first, second)
                + (1 - win - tie) * turned(first, lambda cards: win_chance(cards, second))
            )
        else:
            chance = win_chance(first, second)
        return [2 * chance - 1, 1 - 2 * chance]


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


KNOWLEDGE = RockemSockemKnowledge()
"""What the search knows of the game (found by `ai.knowledge.knowledge_for`)."""
