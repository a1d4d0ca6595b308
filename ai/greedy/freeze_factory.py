"""Freeze Factory, one step ahead: fulfil and claim every cone it can, and slide towards its cones.

A cone's distance is the fewest single steps that would line up its three flavours in a row or a
column if nothing stood in the way (a tile may be pushed off one edge onto the opposite one),
plus one for each other tile standing on the line. The seat fulfils any cone a line matches,
calls FREEZE! whenever it can, rolls the die only when its nearest cone is more than the 3 sure
points away, takes the extra cone after a rolled symbol unless it is the pile's last and the seat
is not ahead, slides the tile that brings its nearest cone closest, and ends the turn when no
slide brings a cone closer.
"""

from __future__ import annotations

import functools
from itertools import permutations

from ai.greedy.common import best_action
from engine.freeze_factory.board import Board, index
from engine.freeze_factory.components import CONES, NO_ROLL_POINTS, SIZE
from engine.freeze_factory.game import EXTRA_CONE, ROLL, FreezeFactoryState
from engine.protocol import Action
from engine.rng import Rng

FAR = 10 * SIZE  # the distance of a cone whose flavour is not on the board (never, with 13 tiles)


@functools.cache
def line_spaces() -> tuple[tuple[int, int, int], ...]:
    """Every line of three spaces in a row or a column (never across the edge)."""
    found = []
    for fixed in range(SIZE):
        for start in range(SIZE - 2):
            found.append(tuple(index(SIZE, fixed, start + k) for k in range(3)))
            found.append(tuple(index(SIZE, start + k, fixed) for k in range(3)))
    return tuple(found)  # type: ignore[arg-type]


def steps(a: int, b: int) -> int:
    """Single steps from space a to space b, pushing off an edge where that is shorter."""
    (ra, ca), (rb, cb) = divmod(a, SIZE), divmod(b, SIZE)
    dr, dc = abs(ra - rb), abs(ca - cb)
    return min(dr, SIZE - dr) + min(dc, SIZE - dc)


def cone_distance(board: Board, cone: int) -> int:
    """Steps to line up the cone's three flavours on the best line, counting tiles in the way."""
    where = {flavour: space for space, flavour in enumerate(board) if flavour is not None}
    flavours = CONES[cone]
    if not flavours <= where.keys():
        return FAR
    tiles = [where[f] for f in flavours]
    best = FAR
    for line in line_spaces():
        blockers = sum(board[s] is not None and board[s] not in flavours for s in line)
        for order in permutations(line):
            best = min(best, blockers + sum(steps(t, s) for t, s in zip(tiles, order, strict=True)))
    return best


def nearest(board: Board, hand: list[int]) -> int:
    """The distance of the cone in hand closest to being lined up."""
    return min((cone_distance(board, cone) for cone in hand), default=FAR)


def after_slide(world: FreezeFactoryState, seat: int, action: Action) -> Board:
    """The board once the slide is made."""
    after = world.clone()
    after.apply_trusted(seat, action)
    return after.board


def ahead(world: FreezeFactoryState, seat: int) -> bool:
    """True if the seat has fulfilled more cones than every other seat (an early end suits it)."""
    mine = len(world.fulfilled[seat])
    return all(mine > len(cones) for other, cones in enumerate(world.fulfilled) if other != seat)


def choose(world: FreezeFactoryState, seat: int, rng: Rng) -> Action:
    """FREEZE! or fulfil at once; otherwise roll or not, then the slide that best nears a cone."""
    actions = world.legal_actions(seat)
    claims = [action for action in actions if action["type"] in ("freeze", "fulfil")]
    if claims:
        return claims[0]
    if seat != world.active:
        raise ValueError(f"seat {seat} has no FREEZE! to call")
    if world.phase == EXTRA_CONE:
        return {"type": "take_cone" if len(world.pile) > 1 or ahead(world, seat) else "leave_cone"}
    hand = world.hands[seat]
    now = nearest(world.board, hand)
    if world.phase == ROLL:
        return {"type": "roll" if now > NO_ROLL_POINTS else "no_roll"}

    def value(action: Action) -> float:
        if action["type"] == "end_turn":
            return -now + 0.5  # a slide that does not help is not worth making
        return -nearest(after_slide(world, seat, action), hand)

    return best_action(actions, value, rng)
