"""The `perfect` level: IceCream played from the exact solution (ai/icecream_solver.py)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ai.icecream_solver import Solution, solve, solve_unlimited
from engine.icecream import IceCreamState

if TYPE_CHECKING:
    from engine.protocol import Action, GameState

# From `python -m ai.solve_icecream`: reachable sets repeat with period 2 from 31 points, and
# from turn 31 every position is decided within one turn, so tables of turns 31/32 serve all later turns.
PERFECT_GAMES = frozenset({"icecream"})
"""The games the `perfect` level plays."""

STATIONARY_FROM = 31
SETTLED_HORIZON = 1


@functools.cache
def solution_for(turn_limit: int) -> Solution:
    """The exact solution for a turn limit (0: no limit), computed once per process."""
    if turn_limit == 0:
        return solve_unlimited(STATIONARY_FROM, SETTLED_HORIZON)
    return solve(turn_limit, STATIONARY_FROM if turn_limit > STATIONARY_FROM + 1 else None)


class PerfectAgent:
    """Plays IceCream perfectly: wins soonest, else draws, else loses as late as possible."""

    def choose(self, state: GameState, seat: int, budget: int, seed: int | str) -> Action:
        """The solver's best move; `budget` and `seed` play no part (the answer is exact)."""
        if not isinstance(state, IceCreamState):
            raise ValueError("perfect play is solved for IceCream only")
        if seat not in state.waiting_for():
            raise ValueError(f"seat {seat} is not to move")
        return solution_for(state.options["turn_limit"]).best_action(state)
