"""The `perfect` level: IceCream from its exact solution, Rock'em Sock'em's dice race from its exact keeps.

IceCream (ai/icecream_solver.py) is solved outright. Rock'em Sock'em has only one real choice, the
dice to keep, and `ai.rockem_race.racing_keep` computes the keep with the best chance to match
before the opponent (which is the whole game in rounds mode, up to the value of a heal); in
realtime mode it plays the same keeps.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ai.icecream_solver import Solution, solve, solve_unlimited
from ai.rockem_race import racing_keep
from engine.icecream import IceCreamState
from engine.rockem_sockem import RockemSockemState

if TYPE_CHECKING:
    from engine.protocol import Action, GameState

PERFECT_GAMES = frozenset({"icecream", "rockem_sockem"})
"""The games the `perfect` level plays."""

# From `python -m ai.solve_icecream`: reachable sets repeat with period 2 from 31 points, and
# from turn 31 every position is decided within one turn, so tables of turns 31/32 serve all later turns.
STATIONARY_FROM = 31
SETTLED_HORIZON = 1


@functools.cache
def solution_for(turn_limit: int) -> Solution:
    """The exact solution for a turn limit (0: no limit), computed once per process."""
    if turn_limit == 0:
        return solve_unlimited(STATIONARY_FROM, SETTLED_HORIZON)
    return solve(turn_limit, STATIONARY_FROM if turn_limit > STATIONARY_FROM + 1 else None)


class PerfectAgent:
    """IceCream played perfectly (wins soonest, else draws, else loses late); Rock'em's dice raced exactly."""

    def choose(self, state: GameState, seat: int, budget: int, seed: int | str) -> Action:
        """The exact best move; `budget` and `seed` play no part."""
        if isinstance(state, RockemSockemState):
            return rockem_move(state, seat)
        if not isinstance(state, IceCreamState):
            raise ValueError(f"perfect play is solved for {' and '.join(sorted(PERFECT_GAMES))} only")
        if seat not in state.waiting_for():
            raise ValueError(f"seat {seat} is not to move")
        return solution_for(state.options["turn_limit"]).best_action(state)


def rockem_move(state: RockemSockemState, seat: int) -> Action:
    """The flip, the first roll, or the racing keep, from what every seat sees (never a pending keep)."""
    actions = state.legal_actions(seat)
    if not actions:
        raise ValueError(f"seat {seat} may not act now")
    dice = state.corners[seat].dice
    if len(actions) == 1 or state.coin is None or dice is None:
        return actions[0]
    return {"type": "roll", "keep": racing_keep(state.coin, dice, state.corners[1 - seat].dice)}
