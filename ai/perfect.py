"""The `perfect` level: IceCream from its exact solution, Rock'em Sock'em's dice race from its exact keeps.

IceCream (ai/icecream_solver.py) is solved outright, once: its values are read from the stored
table (ai/icecream_table.py) in about a tenth of a second, which `load_solutions` does before a
worker takes jobs. Rock'em Sock'em has only one real choice, the dice to keep, and
`ai.rockem_race.racing_keep` computes the keep with the best chance to match before the opponent
(which is the whole game in rounds mode, up to the value of a heal); in realtime mode it plays the
same keeps.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING

from ai.icecream_solver import Solution, gathers
from ai.icecream_table import SolvedTable, read
from ai.rockem_race import racing_keep
from engine.icecream import IceCreamState
from engine.rockem_sockem import RockemSockemState

if TYPE_CHECKING:
    from collections.abc import Callable

    from engine.protocol import Action, GameState

PERFECT_GAMES = frozenset({"icecream", "rockem_sockem"})
"""The games the `perfect` level plays."""


@functools.cache
def stored_table() -> SolvedTable:
    """IceCream's stored table, read once per process (`TableError` if missing, corrupt or stale)."""
    return read()


def load_solutions() -> float:
    """Read the stored table and build the move graph before the first `perfect` move; the seconds taken."""
    started = time.perf_counter()
    stored_table()
    gathers()
    return time.perf_counter() - started


# A solution keeps its last few turn tables (up to ~9 MB each), so only the limits in use are kept.
@functools.lru_cache(maxsize=8)
def solution_for(turn_limit: int) -> Solution:
    """The exact solution for a turn limit (0: no limit), read from the stored table."""
    return stored_table().solution(turn_limit)


class PerfectAgent:
    """IceCream played perfectly (wins soonest, else draws, else loses late); Rock'em's dice raced exactly."""

    def choose(
        self,
        state: GameState,
        seat: int,
        budget: int,
        seed: int | str,
        time_cap: float | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> Action:
        """The exact best move, at once: `budget`, `seed`, `time_cap` and `stop` play no part."""
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
