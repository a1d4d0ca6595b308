"""A Freeze Factory state from what one seat sees, in the stored form `FreezeFactory.state_from_json` reads.

The board, the turn, the roll, the fulfilled cones, the seat's own hand and the lines open to FREEZE! are shown;
the cones the seat has not seen (the pile, the removed cones, the other hands) are dealt at random from the rest.
Which of this turn's open lines the last slide formed is not shown: a rebuilt turn keeps none of them open past
its end (assumption rebuilt-last-slide).
"""

from __future__ import annotations

from typing import Any

from engine.errors import ViewMismatch
from engine.freeze_factory.board import Line, index, segments
from engine.freeze_factory.components import (
    CONES,
    DIE_FACES,
    FLAVOURS,
    MOST_POINTS,
    NO_ROLL_POINTS,
    REMOVED_CONES,
    SIZE,
)
from engine.protocol import View
from engine.result import Result
from engine.rng import Rng
from engine.view_reading import whole

ROLL, MOVE, EXTRA_CONE = "roll", "move", "extra_cone"


def stored_state(view: View, seat: int, players: int, options: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The state the view shows, as `to_json` writes it; ViewMismatch if no play could show it."""
    board = [None if name is None else FLAVOURS.index(name) for row in view["board"] for name in row]
    if (
        len(view["board"]) != SIZE
        or len(board) != SIZE * SIZE
        or sorted(f for f in board if f is not None) != [*range(len(FLAVOURS))]
    ):
        raise ViewMismatch(f"the machine is {SIZE} x {SIZE} spaces holding each of the {len(FLAVOURS)} flavours once")
    turn, phase, over = whole(view["turn"], "turn"), view["phase"], view["active"] is None
    if turn < 1 or (view["active"] != (turn - 1) % players and not over):
        raise ViewMismatch("seat 0 plays first, then 'the next player takes their turn'")
    if view["last_roll"] not in (None, *DIE_FACES) or phase not in (ROLL, MOVE, EXTRA_CONE, None):
        raise ViewMismatch(f"a roll shows one of the die's faces {list(DIE_FACES)}")
    hands, fulfilled = _deal_cones(view, seat, players, rng)
    removed, pile = hands.pop(), hands.pop()
    last_slider, turn_lines, fresh_lines = _open_lines(view, phase, (turn - 1) % players, players)
    stored: dict[str, Any] = {
        "game": "freeze_factory",
        "players": players,
        "options": options,
        "rng": Rng(rng.next_u64()).state,
        "board": board,
        "pile": pile,
        "removed": removed,
        "hands": hands,
        "fulfilled": fulfilled,
        "active": (turn - 1) % players,
        "turn": turn,
        "phase": phase or MOVE,
        "points_left": _points_left(view, phase),
        "last_roll": view["last_roll"],
        "last_slider": last_slider,
        "fresh_lines": fresh_lines,
        "turn_lines": turn_lines,
        "outcome": _outcome(fulfilled, hands, view["pile_count"], options, turn) if over else None,
    }
    return stored


def _points_left(view: View, phase: str | None) -> int:
    """The movement points left: while moving, at most the turn's ('If you do not roll the die, you have exactly 3
    movement points available', else the roll's); none before the roll or while taking a cone instead."""
    roll = view["last_roll"]
    turns = NO_ROLL_POINTS if roll is None else roll if isinstance(roll, int) else 0
    most = {MOVE: turns, None: MOST_POINTS}
    return whole(view["points_left"], "points_left", most.get(phase, 0))


def _deal_cones(view: View, seat: int, players: int, rng: Rng) -> tuple[list[list[int]], list[list[int]]]:
    """Every hand (the seat's as shown), then the pile, then the removed cones; and the fulfilled cones."""
    own = [cone["id"] for cone in view["hand"]]
    fulfilled = [[cone["id"] for cone in cones] for cones in view["fulfilled"]]
    counts = view["hand_counts"]
    seen = [*own, *(cone for cones in fulfilled for cone in cones)]
    if len(set(seen)) != len(seen) or not set(seen) <= set(range(len(CONES))) or len(fulfilled) != players:
        raise ViewMismatch("each of the 26 cones is in one place only")
    if len(counts) != players or counts[seat] != len(own) or view["removed_count"] != REMOVED_CONES[players]:
        raise ViewMismatch(f"'{players} players: remove {REMOVED_CONES[players]} cones', and a hand shows its own size")
    unseen = sorted(set(range(len(CONES))) - set(seen))
    sizes = [*(count for other, count in enumerate(counts) if other != seat), view["pile_count"], view["removed_count"]]
    if sum(whole(size, "a count of unseen cones") for size in sizes) != len(unseen):
        raise ViewMismatch(f"the counts of unseen cones do not add up to the {len(unseen)} cones the seat has not seen")
    rng.shuffle(unseen)
    dealt = []
    for size in sizes:
        dealt.append(unseen[:size])
        del unseen[:size]
    others = iter(dealt[: players - 1])
    hands = [own if other == seat else next(others) for other in range(players)]
    return [*hands, dealt[-2], dealt[-1]], fulfilled


def _open_lines(view: View, phase: str | None, active: int, players: int) -> tuple[int | None, list[Any], list[Any]]:
    """The last slider and the lines open to FREEZE!: this turn's (while moving) or the last turn's last slide's."""
    shown = view["freeze_lines"]
    lines = [
        Line(
            tuple(index(SIZE, row, column) for row, column in line["spaces"]),
            frozenset(map(FLAVOURS.index, line["flavours"])),
        )
        for line in shown
    ]
    sliders = {line["formed_by"] for line in shown}
    if any(line.spaces not in segments(SIZE) for line in lines):
        raise ViewMismatch("'three flavours in a connected, straight line': 'horizontally or vertically', on the board")
    if len(sliders) > 1 or len(set(lines)) != len(lines):  # the same spaces twice: flavours slid through in turn
        raise ViewMismatch("the open lines are each shown once, all formed by the last player to slide")
    last_slider = sliders.pop() if sliders else None
    stored = [line.to_json() for line in lines]
    if phase == MOVE and stored and last_slider != active:
        raise ViewMismatch("while a player moves, the lines open to FREEZE! are those their slides formed")
    if phase == ROLL and stored and last_slider != (active - 1) % players:
        raise ViewMismatch("before the roll, the open lines are the ones the last turn's last slide formed")
    if phase == EXTRA_CONE and stored:
        raise ViewMismatch("a roll closes the last turn's lines, and a player who rolled the symbol slides nothing")
    return (last_slider, stored, []) if phase == MOVE else (last_slider, [], stored)


def _outcome(
    fulfilled: list[list[int]], hands: list[list[int]], pile: int, options: dict[str, Any], turn: int
) -> dict[str, Any]:
    """'The player who has collected the most cones wins': how a game the view shows as over ended."""
    emptied = [seat for seat, hand in enumerate(hands) if not hand]
    if pile == 0 and emptied:
        reason = f"seat {emptied[0]} fulfilled a cone and the pile is empty"
    elif options["turn_limit"] == turn:
        reason = f"the turn limit of {options['turn_limit']} was reached"
    else:
        raise ViewMismatch("'The game ends immediately when a player ... cannot draw a new cone from the pile'")
    return Result.ranked_by_score([len(cones) for cones in fulfilled], reason).to_json()
