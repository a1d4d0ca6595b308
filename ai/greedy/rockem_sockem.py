"""Rock'em Sock'em, one roll ahead: keep the dice that give the best chance to match on the next roll.

For every keep the roll allows, the chance that the dice then match the Match Coin's side (or all
show the block icon, which grabs the coin on either side) is computed exactly over the re-rolled
dice; the best keep is the largest group of one colour or icon on the coin's side.
"""

from __future__ import annotations

import functools
from itertools import product

from ai.greedy.common import best_action
from engine.protocol import Action
from engine.rng import Rng
from engine.rockem_sockem.components import BLOCK, DICE, FACES, KEEP_SETS
from engine.rockem_sockem.game import FLIP, RockemSockemState


def matches(coin: str, dice: tuple[int, ...]) -> bool:
    """True if the dice grab the coin: one colour or icon on the coin's side, or all blocks."""
    key = "colour" if coin == "colour" else "icon"
    return len({FACES[f][key] for f in dice}) == 1 or all(FACES[f]["icon"] == BLOCK for f in dice)


@functools.cache
def match_chance(coin: str, dice: tuple[int, ...], keep: tuple[int, ...]) -> float:
    """The chance that re-rolling every die not kept makes the dice match."""
    rerolled = [i for i in range(DICE) if i not in keep]
    hits = outcomes = 0
    for faces in product(range(len(FACES)), repeat=len(rerolled)):
        outcomes += 1
        rolled = list(dice)
        for die, face in zip(rerolled, faces, strict=True):
            rolled[die] = face
        hits += matches(coin, tuple(rolled))
    return hits / outcomes


def choose(world: RockemSockemState, seat: int, rng: Rng) -> Action:
    """Flip when it is the seat's flip; otherwise the keep with the best chance to match next roll."""
    if world.phase == FLIP:
        return {"type": "flip"}
    dice = world.corners[seat].dice
    if dice is None:
        return {"type": "roll", "keep": []}
    assert world.coin is not None
    coin, rolled = world.coin, tuple(dice)
    keeps = [{"type": "roll", "keep": list(keep)} for keep in KEEP_SETS]
    return best_action(keeps, lambda action: match_chance(coin, rolled, tuple(action["keep"])), rng)
