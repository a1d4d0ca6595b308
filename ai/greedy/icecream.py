"""IceCream, one move ahead: win now, never stack the opponent's flavour, leave no one-move win.

A move is scored by the position it leaves: a win is best and a loss worst; otherwise the longest
run of the seat's own flavour minus the opponent's, less a large penalty when the move ends the
turn and the opponent could then stack their flavour with a single move of their new points.
"""

from __future__ import annotations

from ai.greedy.common import best_action
from engine.icecream.game import IceCreamState, seat_flavours
from engine.protocol import Action
from engine.rng import Rng

WIN = 1000.0
THREAT = 100.0  # the opponent can win with one move of its next turn


def longest_run(state: IceCreamState, flavour: str) -> int:
    """The most scoops of one flavour standing consecutively in one cone."""
    best = 0
    for cone in state.cones:
        run = 0
        for scoop in cone:
            run = run + 1 if scoop == flavour else 0
            best = max(best, run)
    return best


def one_move_win(state: IceCreamState, seat: int) -> bool:
    """True if the seat to move can stack its flavour with a single move."""
    for action in state.legal_actions(seat):
        after = state.clone()
        after.apply_trusted(seat, action)
        if after.outcome is not None and seat in after.outcome.winners and len(after.outcome.winners) == 1:
            return True
    return False


def move_value(state: IceCreamState, seat: int, action: Action) -> float:
    """How good the position after the move is for the seat."""
    after = state.clone()
    after.apply_trusted(seat, action)
    if after.outcome is not None:
        winners = after.outcome.winners
        return 0.0 if len(winners) != 1 else (WIN if seat in winners else -WIN)
    mine, theirs = seat_flavours(state.options["first_player_flavour"])[:: 1 if seat == 0 else -1]
    value = float(longest_run(after, mine) - longest_run(after, theirs))
    if after.to_move != seat and one_move_win(after, after.to_move):
        value -= THREAT
    return value


def choose(world: IceCreamState, seat: int, rng: Rng) -> Action:
    """The move with the best value; ties drawn with `rng`."""
    return best_action(world.legal_actions(seat), lambda action: move_value(world, seat, action), rng)
