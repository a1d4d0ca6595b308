"""Freeze Factory rules, checked on known positions against /work/shared/rules/freeze-factory.txt.

Each test quotes the rulebook sentence it checks (or the NOTES.md line, or the data.json
assumption where the rulebook is silent). Positions are hand-built: a board of chosen tiles,
chosen hands and pile. Cones are picked from the cone data by their flavours, so the tests hold
for whatever ids the data gives them. Spaces are (row, column), row 0 at the top.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from engine import IllegalAction, MatchOver, Rng, get_game
from engine.freeze_factory import components, game
from engine.freeze_factory.board import DIRECTIONS, index, lines
from engine.freeze_factory.components import (
    CONES,
    DIE_FACES,
    FLAVOURS,
    NO_ROLL_POINTS,
    REMOVED_CONES,
    SIZE,
    START_LAYOUTS,
    SYMBOL,
    check_data,
)
from engine.freeze_factory.game import EXTRA_CONE, MOVE, OPTIONS, ROLL, FreezeFactory, FreezeFactoryState


def registered_game() -> FreezeFactory:
    """The Freeze Factory game object from the registry."""
    found = get_game("freeze_factory")
    assert isinstance(found, FreezeFactory)
    return found


GAME = registered_game()
PLAYER_COUNTS = (2, 3, 4)
END_TURN = {"type": "end_turn"}


def start(players: int = 3, options: dict[str, Any] | None = None, seed: str | int = 0) -> FreezeFactoryState:
    """A new game."""
    state = GAME.start(players, options, seed)
    assert isinstance(state, FreezeFactoryState)
    return state


# --- picking cones and building positions ------------------------------------------------------
def cone(*names: str) -> int:
    """The id of the cone with exactly these three flavours."""
    wanted = frozenset(FLAVOURS.index(name) for name in names)
    found = [i for i, flavours in enumerate(CONES) if flavours == wanted]
    assert len(found) == 1, f"no single cone {names}"
    return found[0]


def third(first: str, second: str) -> str:
    """The third flavour of the one cone that carries these two (every pair is on exactly one cone)."""
    pair = {FLAVOURS.index(first), FLAVOURS.index(second)}
    (flavours,) = [c for c in CONES if pair <= c]
    (rest,) = flavours - pair
    return FLAVOURS[rest]


def cone_of_pair(first: str, second: str) -> int:
    """The id of the one cone that carries these two flavours."""
    return cone(first, second, third(first, second))


def position(
    tiles: dict[tuple[int, int], str],
    hands: Sequence[Sequence[int]],
    *,
    pile: Sequence[int] | None = None,
    removed: Sequence[int] = (),
    fulfilled: Sequence[Sequence[int]] | None = None,
    active: int = 0,
    phase: str = MOVE,
    points: int = 3,
    options: dict[str, Any] | None = None,
    turn: int = 1,
    formed: bool = True,
) -> FreezeFactoryState:
    """A hand-built position; the pile defaults to every cone not placed elsewhere (its top is last).

    In the move phase every line on the board counts as formed by the active player's slides this
    turn, unless `formed` is False (then the lines stood there when the turn began).
    """
    board: list[int | None] = [None] * (SIZE * SIZE)
    for (row, column), name in tiles.items():
        board[index(SIZE, row, column)] = FLAVOURS.index(name)
    fulfilled_by_seat = [list(cones) for cones in fulfilled] if fulfilled else [[] for _ in hands]
    if pile is None:
        used = {c for cones in (*hands, *fulfilled_by_seat, removed) for c in cones}
        pile = [c for c in range(len(CONES)) if c not in used]
    turn_lines = sorted(lines(board, SIZE), key=lambda line: line.spaces) if formed and phase == MOVE else []
    return FreezeFactoryState(
        players=len(hands),
        options=OPTIONS.resolve(options),
        rng=Rng(7),
        board=board,
        pile=list(pile),
        removed=list(removed),
        hands=[list(hand) for hand in hands],
        fulfilled=fulfilled_by_seat,
        active=active,
        turn=turn,
        phase=phase,
        points_left=points,
        last_slider=active if turn_lines else None,
        turn_lines=turn_lines,
    )


def tile(state: FreezeFactoryState, row: int, column: int) -> str | None:
    """The flavour on a space, or None."""
    flavour = state.board[index(SIZE, row, column)]
    return None if flavour is None else FLAVOURS[flavour]


def slide(row: int, column: int, direction: str) -> dict[str, Any]:
    """The canonical slide action."""
    return {"type": "slide", "space": [row, column], "direction": direction}


def fulfil(cone_id: int) -> dict[str, Any]:
    """The canonical fulfil action."""
    return {"type": "fulfil", "cone": cone_id}


def freeze(cone_id: int) -> dict[str, Any]:
    """The canonical FREEZE! claim."""
    return {"type": "freeze", "cone": cone_id}


def force_die(monkeypatch: pytest.MonkeyPatch, face: int | str) -> None:
    """Make every roll show this face."""
    monkeypatch.setattr(game, "DIE_FACES", (face,))


def cone_ids_in(value: Any) -> set[int]:
    """Every cone id shown anywhere in a view (cones are shown as {"id": ..., "flavours": [...]})."""
    found: set[int] = set()
    if isinstance(value, dict):
        if set(value) == {"id", "flavours"}:
            found.add(value["id"])
        for inner in value.values():
            found |= cone_ids_in(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= cone_ids_in(inner)
    return found


def hand_ids(view: dict[str, Any]) -> list[int]:
    """The cone ids in a view's hand field."""
    return [c["id"] for c in view["hand"]]


# A cone laid out in row 2, columns 1 and 2, whose third flavour waits on (1, 3) above column 3.
A, B = "hazelnut", "mint"  # C is cherry: the rulebook example's cone
C = third(A, B)
ABC = cone(A, B, C)
NEAR_LINE = {(2, 1): A, (2, 2): B, (1, 3): C}  # slide (1, 3) down and row 2 reads A B C


def unrelated_cone(*avoid: int) -> int:
    """Some cone sharing no flavour with the given cones."""
    used = set().union(*(CONES[c] for c in avoid))
    return next(i for i, flavours in enumerate(CONES) if not flavours & used and i not in avoid)


# --- setup --------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_setup_tiles_on_start_spaces(players: int) -> None:
    """'Place the flavour tiles for the starting layout ... on the marked spaces' (13 different flavours)."""
    state = start(players)
    placed = {divmod(s, SIZE): f for s, f in enumerate(state.board) if f is not None}
    assert set(placed) == set(START_LAYOUTS["checkerboard"])
    assert sorted(placed.values()) == list(range(13))
    assert len(set(FLAVOURS)) == 13


def test_setup_layout_forms_no_line() -> None:
    """Assumption start-layout: checkerboard is 'every space whose row + column is even', 'no three ... in a line'."""
    assert all((r + c) % 2 == 0 for r, c in START_LAYOUTS["checkerboard"])
    assert lines(start().board, SIZE) == set()


@pytest.mark.parametrize(("players", "removed"), [(2, 7), (3, 3), (4, 0)])
def test_setup_removes_cones_by_player_count(players: int, removed: int) -> None:
    """'2 players: remove 7 cones / 3 players: remove 3 cones / 4 players: remove 0 cones'; 'one cone into hand'."""
    state = start(players)
    assert REMOVED_CONES[players] == removed
    assert len(state.removed) == removed
    assert [len(hand) for hand in state.hands] == [1] * players
    assert len(state.pile) == 26 - removed - players
    everywhere = state.pile + state.removed + [c for hand in state.hands for c in hand]
    assert sorted(everywhere) == list(range(26))
    assert state.fulfilled == [[] for _ in range(players)]


def test_setup_shuffles_the_cones() -> None:
    """'Shuffle the 26 ice cream cones well.': different seeds deal different piles, one seed the same."""
    piles = {tuple(start(3, seed=seed).pile) for seed in range(8)}
    assert len(piles) == 8
    assert start(3, seed="x").pile == start(3, seed="x").pile


def test_setup_seat_zero_begins() -> None:
    """Assumption youngest-is-seat-0: 'Seat 0 begins and play goes in seat order.'"""
    state = start(4)
    assert state.active == 0 and state.turn == 1 and state.phase == ROLL
    assert state.waiting_for() == (0,)
    assert state.legal_actions(0) == [{"type": "roll"}, {"type": "no_roll"}]


def test_cones_are_a_steiner_triple_system() -> None:
    """'26 ice cream cones, each with 3 different flavours'; assumption cone-list: every pair on exactly one cone."""
    assert len(CONES) == 26 and len(set(CONES)) == 26
    assert all(len(c) == 3 for c in CONES)
    pairs = Counter(pair for c in CONES for pair in itertools.combinations(sorted(c), 2))
    assert set(pairs) == set(itertools.combinations(range(13), 2))
    assert set(pairs.values()) == {1}
    assert Counter(f for c in CONES for f in c) == dict.fromkeys(range(13), 6)


def test_die_faces_and_no_roll_points() -> None:
    """Assumption die-faces: 'The die shows 2, 3, 4, 5 and the cone symbol twice.'; no roll is 'exactly 3'."""
    assert sorted(DIE_FACES, key=str) == sorted([2, 3, 4, 5, SYMBOL, SYMBOL], key=str)
    assert NO_ROLL_POINTS == 3


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("FLAVOURS", FLAVOURS[:12], "13 different flavours"),
        ("FLAVOURS", (*FLAVOURS[:12], FLAVOURS[0]), "13 different flavours"),
        ("CONES", CONES[:25], "26 different cones"),
        ("CONES", (*CONES[:25], CONES[0]), "26 different cones"),
        ("CONES", (*CONES[:25], frozenset({0, 1})), "26 different cones"),
        ("START_LAYOUTS", {"checkerboard": START_LAYOUTS["checkerboard"][:12]}, "13 different start spaces"),
        ("START_LAYOUTS", {"corners": (*START_LAYOUTS["corners"][:12], (0, 0))}, "13 different start spaces"),
        ("START_LAYOUTS", {"corners": (*START_LAYOUTS["corners"][:12], (5, 5))}, "of layout corners is off the board"),
        ("FLAVOURS", ("walnut", *FLAVOURS[1:]), "example cone"),
        ("DIE_FACES", (2, 3, 4, 5, SYMBOL), "six die faces"),
        ("DIE_FACES", (1, 3, 4, 5, SYMBOL, SYMBOL), "six die faces"),
        ("DIE_FACES", (2, 3, 4, 5, 6, SYMBOL), "six die faces"),
        ("DIE_FACES", (2, 3, 4, 5, SYMBOL, "star"), "six die faces"),
    ],
)
def test_check_data_refuses_broken_data(monkeypatch: pytest.MonkeyPatch, name: str, value: Any, message: str) -> None:
    """check_data refuses component data that breaks the printed game, saying what is wrong."""
    check_data()
    monkeypatch.setattr(components, name, value)
    with pytest.raises(ValueError, match=message):
        check_data()


# --- roll or not --------------------------------------------------------------------------------
def test_no_roll_gives_exactly_three_points() -> None:
    """'If you do not roll the die, you have exactly 3 movement points available.'"""
    state = start()
    state.play(0, {"type": "no_roll"})
    assert (state.phase, state.points_left, state.last_roll) == (MOVE, 3, None)


@pytest.mark.parametrize("face", [2, 3, 4, 5])
def test_roll_gives_the_face_as_points(monkeypatch: pytest.MonkeyPatch, face: int) -> None:
    """'If you roll the die, you have as many movement points available as the number rolled.'"""
    force_die(monkeypatch, face)
    state = start()
    state.play(0, {"type": "roll"})
    assert (state.active, state.phase, state.points_left, state.last_roll) == (0, MOVE, face, face)


def test_roll_uses_the_real_die() -> None:
    """Every face of the die comes up, and a number gives that many points (assumption die-faces)."""
    seen = set()
    for seed in range(60):
        state = start(seed=seed)
        state.play(0, {"type": "roll"})
        seen.add(state.last_roll)
        if state.last_roll != SYMBOL:
            assert state.points_left == state.last_roll and state.phase == MOVE
    assert seen == set(DIE_FACES)


def test_roll_is_decided_by_the_state_rng() -> None:
    """The roll comes from the state's own RNG: a clone rolls the same face."""
    state = start(seed="dice")
    copy = state.clone()
    state.play(0, {"type": "roll"})
    copy.play(0, {"type": "roll"})
    assert state.last_roll == copy.last_roll and state.to_json() == copy.to_json()


def test_symbol_misses_the_turn_and_may_take_a_cone(monkeypatch: pytest.MonkeyPatch) -> None:
    """'If you roll the die's symbol ... you must miss a turn, but you may take one more cone from the draw pile'."""
    force_die(monkeypatch, SYMBOL)
    state = position(NEAR_LINE, [[ABC], [1]], pile=[5, 6, 7], phase=ROLL, points=0)
    board = list(state.board)
    state.play(0, {"type": "roll"})
    assert (state.active, state.phase, state.points_left, state.last_roll) == (0, EXTRA_CONE, 0, SYMBOL)
    assert state.waiting_for() == (0,)
    assert state.legal_actions(0) == [{"type": "take_cone"}, {"type": "leave_cone"}]
    state.play(0, {"type": "take_cone"})
    assert state.hands[0] == [ABC, 7]
    assert state.pile == [5, 6]
    assert state.board == board
    assert (state.active, state.phase, state.points_left, state.turn) == (1, ROLL, 0, 2)


def test_symbol_with_an_empty_pile_takes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Assumption miss-a-turn: 'With the pile empty there is nothing to choose and the turn ends at once.'"""
    force_die(monkeypatch, SYMBOL)
    state = position(NEAR_LINE, [[ABC], [1]], pile=[], phase=ROLL, points=0)
    state.play(0, {"type": "roll"})
    assert state.hands[0] == [ABC]
    assert state.active == 1 and not state.is_over()


def test_any_number_of_cones_in_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """'Note: You may hold any number of cones in your hand and fulfil the orders in any order.'"""
    force_die(monkeypatch, SYMBOL)
    other = unrelated_cone(ABC)
    pile = [c for c in range(26) if c not in (ABC, other)][:6]
    state = position(NEAR_LINE, [[ABC], [other]], pile=pile, phase=ROLL, points=0)
    for expected in (2, 3, 4):
        for seat in (0, 1):
            state.play(seat, {"type": "roll"})
            state.play(seat, {"type": "take_cone"})
        assert len(state.hands[0]) == len(state.hands[1]) == expected
    assert state.pile == []


# --- movement -----------------------------------------------------------------------------------
def test_one_point_per_step() -> None:
    """'1 movement point equals moving one flavour onto an adjacent, empty space.'"""
    state = position({(2, 2): A}, [[ABC], [1]])
    state.play(0, slide(2, 2, "up"))
    assert tile(state, 1, 2) == A and tile(state, 2, 2) is None
    assert state.points_left == 2


@pytest.mark.parametrize(
    ("direction", "target"), [("up", (1, 2)), ("down", (3, 2)), ("left", (2, 1)), ("right", (2, 3))]
)
def test_orthogonal_steps(direction: str, target: tuple[int, int]) -> None:
    """'You may move a flavour only horizontally and vertically, not diagonally.'"""
    state = position({(2, 2): A}, [[ABC], [1]])
    state.play(0, slide(2, 2, direction))
    assert tile(state, *target) == A


@pytest.mark.parametrize("direction", ["up-left", "upleft", "diagonal", "north", "UP", "", "down-right"])
def test_no_diagonal_or_unknown_direction(direction: str) -> None:
    """'... not diagonally.': only up, down, left and right exist; anything else is refused."""
    assert set(DIRECTIONS) == {"up", "down", "left", "right"}
    state = position({(2, 2): A}, [[ABC], [1]])
    with pytest.raises(IllegalAction):
        state.play(0, slide(2, 2, direction))
    assert tile(state, 2, 2) == A and state.points_left == 3


def test_listed_slides_are_orthogonal_steps_onto_empty_spaces() -> None:
    """Every listed slide is one of the four directions from a tile; a blocked step is not listed."""
    state = position({(2, 2): A, (2, 3): B}, [[ABC], [1]])
    slides = [a for a in state.legal_actions(0) if a["type"] == "slide"]
    assert slide(2, 2, "right") not in slides and slide(2, 3, "left") not in slides
    assert len(slides) == 6
    for action in slides:
        state.clone().play(0, action)


def test_onto_an_empty_space_only() -> None:
    """'Only one flavour may occupy a space at any time.'"""
    state = position({(2, 2): A, (2, 3): B}, [[ABC], [1]])
    with pytest.raises(IllegalAction, match="occupied"):
        state.play(0, slide(2, 2, "right"))
    assert (tile(state, 2, 2), tile(state, 2, 3), state.points_left) == (A, B, 3)


@pytest.mark.parametrize(
    ("space", "direction", "target"),
    [((2, 4), "right", (2, 0)), ((2, 0), "left", (2, 4)), ((0, 2), "up", (4, 2)), ((4, 2), "down", (0, 2))],
)
def test_push_off_the_edge_lands_opposite(space: tuple[int, int], direction: str, target: tuple[int, int]) -> None:
    """'push a flavour off the edge ... place the tile on the exactly opposite space of the same row or column'."""
    state = position({space: A}, [[ABC], [1]])
    state.play(0, slide(*space, direction))
    assert tile(state, *target) == A and tile(state, *space) is None
    assert state.points_left == 2


@pytest.mark.parametrize(
    ("space", "direction", "opposite"),
    [((2, 4), "right", (2, 0)), ((2, 0), "left", (2, 4)), ((0, 2), "up", (4, 2)), ((4, 2), "down", (0, 2))],
)
def test_push_off_refused_when_opposite_is_occupied(
    space: tuple[int, int], direction: str, opposite: tuple[int, int]
) -> None:
    """'This is only possible if the opposite space is not occupied by another flavour.'"""
    state = position({space: A, opposite: B}, [[ABC], [1]])
    with pytest.raises(IllegalAction, match="opposite space is occupied"):
        state.play(0, slide(*space, direction))
    assert slide(*space, direction) not in state.legal_actions(0)


def test_points_split_among_tiles_then_turn_passes() -> None:
    """'You may divide your movement points freely among several flavours.'

    With no points left and no order to fulfil, the next player takes their turn.
    """
    state = position({(0, 0): A, (4, 4): B}, [[unrelated_cone(cone_of_pair(A, B))], [1]])
    state.play(0, slide(0, 0, "down"))
    state.play(0, slide(1, 0, "down"))
    assert state.active == 0 and state.points_left == 1
    state.play(0, slide(4, 4, "left"))
    assert (tile(state, 2, 0), tile(state, 4, 3)) == (A, B)
    assert (state.active, state.phase, state.points_left, state.turn) == (1, ROLL, 0, 2)


def test_end_turn_early() -> None:
    """'NO: If you could not fulfil any cone order during your turn, the next player takes their turn.'"""
    state = position({(2, 2): A}, [[ABC], [1]], points=3)
    state.play(0, END_TURN)
    assert (state.active, state.phase, state.points_left) == (1, ROLL, 0)


def test_end_turn_refused_before_the_roll_decision() -> None:
    """'1. Roll the Die: Yes or No?' comes first: a turn cannot end before it."""
    state = start()
    with pytest.raises(IllegalAction):
        state.play(0, END_TURN)
    with pytest.raises(IllegalAction):
        state.play(0, slide(0, 0, "down"))


def test_play_wraps_round_to_seat_zero() -> None:
    """'play then proceeds clockwise': after the last seat comes seat 0 again."""
    state = position({(2, 2): A}, [[ABC], [1], [2]], active=2)
    state.play(2, END_TURN)
    assert state.active == 0


def test_no_slide_without_points() -> None:
    """Points left never go below zero: with none left (a cone waiting to be fulfilled) a slide is refused."""
    state = position({(2, 1): A, (2, 2): B, (2, 3): C, (4, 4): "lemon"}, [[ABC], [1]], points=0)
    assert state.fulfillable() == [ABC]
    with pytest.raises(IllegalAction, match="no movement points"):
        state.play(0, slide(4, 4, "up"))
    assert state.points_left == 0
    assert [a["type"] for a in state.legal_actions(0)] == ["fulfil", "end_turn"]


@pytest.mark.parametrize(
    "action",
    [
        {"type": "slide", "space": [5, 0], "direction": "up"},
        {"type": "slide", "space": [0, 5], "direction": "up"},
        {"type": "slide", "space": [-1, 0], "direction": "up"},
        {"type": "slide", "space": [True, 0], "direction": "up"},
        {"type": "slide", "space": [0, False], "direction": "up"},
        {"type": "slide", "space": [2.0, 2], "direction": "up"},
        {"type": "slide", "space": ["2", 2], "direction": "up"},
        {"type": "slide", "space": [2], "direction": "up"},
        {"type": "slide", "space": [2, 2, 0], "direction": "up"},
        {"type": "slide", "space": (2, 2), "direction": "up"},
        {"type": "slide", "space": "c3", "direction": "up"},
        {"type": "slide", "space": None, "direction": "up"},
        {"type": "slide", "space": 12, "direction": "up"},
        {"type": "slide", "space": {"row": 2}, "direction": "up"},
        {"type": "slide", "space": [None, None], "direction": "up"},
        {"type": "slide", "space": [2, 2]},
        {"type": "slide", "direction": "up"},
        {"type": "slide"},
        {"type": "slide", "space": [2, 2], "direction": "up", "extra": 1},
        {"type": "slide", "space": [2, 2], "direction": None},
        {"type": "slide", "space": [2, 2], "direction": 1},
        {"type": "slide", "space": [2, 2], "direction": ["up"]},
        {"type": "slide", "space": [2, 2], "direction": {"up": 1}},
        {"type": "slide", "space": [[2, 2]], "direction": "up"},
        {"type": "slide", "space": [0, 0], "direction": "up"},
        {"type": ["slide"], "space": [2, 2], "direction": "up"},
        {"type": None},
        {},
        {"type": "fulfil"},
        {"type": "fulfil", "cone": True},
        {"type": "fulfil", "cone": "0"},
        {"type": "fulfil", "cone": [0]},
        {"type": "fulfil", "cone": 999},
        {"type": "end_turn", "now": True},
        {"type": "roll"},
    ],
)
def test_malformed_actions_raise_illegal_action(action: dict[str, Any]) -> None:
    """A malformed action is refused with IllegalAction and a reason, never another exception; nothing changes."""
    state = position({(2, 2): A}, [[ABC], [1]])
    before = state.to_json()
    with pytest.raises(IllegalAction) as caught:
        state.play(0, action)
    assert caught.value.reason
    assert state.to_json() == before


def test_slide_from_an_empty_space_is_refused() -> None:
    """A slide moves a flavour: from an empty space there is nothing to move."""
    state = position({(2, 2): A}, [[ABC], [1]])
    with pytest.raises(IllegalAction, match="no flavour tile"):
        state.play(0, slide(1, 1, "up"))


# --- lines of three -----------------------------------------------------------------------------
@pytest.mark.parametrize("order", list(itertools.permutations((A, B, C))))
def test_row_in_any_order_fulfils(order: tuple[str, str, str]) -> None:
    """'three flavours in a connected, straight line ... The order of the flavours does not matter.'"""
    state = position({(3, 1): order[0], (3, 2): order[1], (3, 3): order[2]}, [[ABC], [1]])
    assert state.fulfillable() == [ABC]
    state.play(0, fulfil(ABC))
    assert state.fulfilled[0] == [ABC]


@pytest.mark.parametrize("order", list(itertools.permutations((A, B, C))))
def test_column_in_any_order_fulfils(order: tuple[str, str, str]) -> None:
    """'The flavours must be arranged horizontally or vertically'."""
    state = position({(0, 4): order[0], (1, 4): order[1], (2, 4): order[2]}, [[ABC], [1]])
    assert state.fulfillable() == [ABC]


def test_diagonal_does_not_count() -> None:
    """'... not diagonally'."""
    state = position({(1, 1): A, (2, 2): B, (3, 3): C}, [[ABC], [1]])
    assert lines(state.board, SIZE) == set()
    with pytest.raises(IllegalAction, match="no line your slides formed"):
        state.play(0, fulfil(ABC))


@pytest.mark.parametrize(
    "tiles",
    [
        {(2, 3): A, (2, 4): B, (2, 0): C},
        {(2, 4): A, (2, 0): B, (2, 1): C},
        {(3, 2): A, (4, 2): B, (0, 2): C},
        {(4, 2): A, (0, 2): B, (1, 2): C},
    ],
)
def test_line_across_the_edge_does_not_count(tiles: dict[tuple[int, int], str]) -> None:
    """'... not diagonally or across the edge of the game board.'"""
    state = position(tiles, [[ABC], [1]])
    assert lines(state.board, SIZE) == set()
    assert state.fulfillable() == []
    with pytest.raises(IllegalAction):
        state.play(0, fulfil(ABC))


def test_broken_row_does_not_count() -> None:
    """'connected': a gap breaks the line."""
    state = position({(2, 0): A, (2, 1): B, (2, 3): C}, [[ABC], [1]])
    assert state.fulfillable() == []


@pytest.mark.parametrize("first", [0, 1])
def test_four_in_a_row_gives_two_windows(first: int) -> None:
    """A row of four holds two lines of three; a cone matching either window is fulfilled."""
    row = [A, B, C]
    row.insert(0 if first else 3, "lemon")
    state = position({(2, c): name for c, name in enumerate(row)}, [[ABC], [1]])
    assert {line.spaces for line in lines(state.board, SIZE)} == {(10, 11, 12), (11, 12, 13)}
    assert state.fulfillable() == [ABC]


def test_fulfil_with_points_left_and_continue() -> None:
    """'If you have movement points left over after fulfilling a cone order, you may continue your turn as normal.'"""
    other = unrelated_cone(ABC)
    state = position(NEAR_LINE, [[ABC, other], [1]], pile=[20])
    state.play(0, slide(1, 3, "down"))
    assert state.points_left == 2 and state.fulfillable() == [ABC]
    state.play(0, fulfil(ABC))
    assert state.fulfilled[0] == [ABC] and state.hands[0] == [other]
    assert (state.active, state.phase, state.points_left) == (0, MOVE, 2)
    state.play(0, slide(2, 3, "down"))
    assert state.points_left == 1 and state.active == 0


def test_line_at_the_end_of_the_turn_waits_for_fulfil() -> None:
    """'If, during or at the end of your turn, you arrange three flavours ...'

    A line made with the last point waits for `fulfil` (or `end_turn`) instead of passing the turn.
    """
    state = position(NEAR_LINE, [[ABC], [1]], points=1, pile=[unrelated_cone(ABC)])
    state.play(0, slide(1, 3, "down"))
    assert (state.active, state.points_left) == (0, 0)
    assert state.waiting_for() == (0,)
    assert state.legal_actions(0) == [fulfil(ABC), END_TURN]
    state.play(0, fulfil(ABC))
    assert state.fulfilled[0] == [ABC]
    assert (state.active, state.phase) == (1, ROLL)


def test_line_at_the_end_may_be_left_with_end_turn() -> None:
    """'You may then lay that cone face up in front of you.': 'may', so the line can be left with end_turn."""
    state = position(NEAR_LINE, [[ABC], [1]], points=1)
    state.play(0, slide(1, 3, "down"))
    state.play(0, END_TURN)
    assert state.hands[0] == [ABC] and state.fulfilled[0] == []
    assert state.active == 1


@pytest.mark.parametrize("holder", [0, 1, None])
def test_whether_a_spent_turn_waits_does_not_tell_who_holds_the_cone(holder: int | None) -> None:
    """Assumption turn-end: a turn whose points are spent passes by itself 'unless a line the player's slides formed
    this turn ... matches a cone nobody has laid face up, in anyone's hand, the pile or the box'.

    The line A B C made with the last point matches cone ABC, held by the active player, by the other player or by
    nobody (the pile): the turn waits in all three, so the view the others see is the same whoever holds it.
    """
    other = unrelated_cone(ABC)
    hands = {0: [[ABC], [other]], 1: [[other], [ABC]], None: [[other], [unrelated_cone(ABC, other)]]}[holder]
    state = position(NEAR_LINE, hands, points=1, formed=False)
    state.play(0, slide(1, 3, "down"))
    assert (state.active, state.phase, state.points_left) == (0, MOVE, 0)
    assert state.legal_actions(0) == ([fulfil(ABC)] if holder == 0 else []) + [END_TURN]
    state.play(0, END_TURN)
    assert (state.active, state.phase) == (1, ROLL)


def test_a_spent_turn_passes_when_its_lines_match_only_cones_laid_face_up() -> None:
    """Assumption turn-end: with the line's cone already laid face up, nobody can fulfil it: the turn passes."""
    other = unrelated_cone(ABC)
    state = position(NEAR_LINE, [[other], [unrelated_cone(ABC, other)]], fulfilled=[[], [ABC]], points=1, formed=False)
    state.play(0, slide(1, 3, "down"))
    assert (state.active, state.phase) == (1, ROLL)


def test_line_already_on_the_board_is_not_arranged_by_you() -> None:
    """'If, during or at the end of your turn, you arrange three flavours ...': a line found on the board is not.

    Assumption own-lines: 'fulfils a cone only with a line their own slides formed during this turn'.
    """
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC], [1]], phase=ROLL, points=0)
    assert state.legal_actions(0) == [{"type": "roll"}, {"type": "no_roll"}]
    state.play(0, {"type": "no_roll"})
    assert state.fulfillable() == [] and fulfil(ABC) not in state.legal_actions(0)
    with pytest.raises(IllegalAction, match="you arrange three flavours"):
        state.play(0, fulfil(ABC))


def test_several_cones_fulfilled_in_any_order() -> None:
    """'You may hold any number of cones in your hand and fulfil the orders in any order.'"""
    d = "lemon"
    ade = cone_of_pair(A, d)
    e = third(A, d)
    # Row 0 reads B C A (cone ABC); A then travels right and down to top column 4 over d and e.
    tiles = {(0, 0): B, (0, 1): C, (0, 2): A, (2, 4): d, (3, 4): e}
    pile = [c for c in range(26) if c not in (ABC, ade)][:2]
    state = position(tiles, [[ABC, ade], [1]], pile=pile)
    assert state.fulfillable() == [ABC]
    state.play(0, fulfil(ABC))
    assert state.hands[0] == [ade] and state.pile == pile
    state.play(0, slide(0, 2, "right"))
    state.play(0, slide(0, 3, "right"))
    state.play(0, slide(0, 4, "down"))
    assert state.points_left == 0 and state.fulfillable() == [ade]
    state.play(0, fulfil(ade))
    assert state.fulfilled[0] == [ABC, ade]
    assert state.hands[0] == [pile[1]] and state.pile == [pile[0]]


def test_fulfil_in_reverse_order() -> None:
    """'... and fulfil the orders in any order.': the later cone in hand first."""
    d = "lemon"
    ade = cone_of_pair(A, d)
    tiles = {(0, 0): B, (0, 1): C, (0, 2): A, (1, 2): d, (2, 2): third(A, d)}
    state = position(tiles, [[ABC, ade], [1]], pile=[20])
    assert sorted(state.fulfillable()) == sorted([ABC, ade])
    state.play(0, fulfil(ade))
    assert state.hands[0] == [ABC]
    state.play(0, fulfil(ABC))
    assert state.fulfilled[0] == [ade, ABC] and state.hands[0] == [20]


def test_draw_when_the_hand_becomes_empty() -> None:
    """'If you now have no cone left in hand, draw a new one from the face-down pile.'"""
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC], [1]], pile=[20, 21])
    state.play(0, fulfil(ABC))
    assert state.hands[0] == [21] and state.pile == [20]


def test_no_draw_while_cones_remain() -> None:
    """A player who still holds a cone after fulfilling draws nothing (assumption draw-when-empty)."""
    other = unrelated_cone(ABC)
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC, other], [1]], pile=[20, 21])
    state.play(0, fulfil(ABC))
    assert state.hands[0] == [other] and state.pile == [20, 21]


# --- FREEZE! ------------------------------------------------------------------------------------
def freeze_position(**kwargs: Any) -> FreezeFactoryState:
    """Three seats: seat 0 to move with 3 points and no use for ABC; seat 1 holds ABC, seat 2 something else."""
    mine = unrelated_cone(ABC)
    theirs = unrelated_cone(ABC, mine)
    kwargs.setdefault("pile", [20, 21, 22])
    return position(NEAR_LINE, [[mine], [ABC], [theirs]], **kwargs)


def test_freeze_claim_by_another_seat() -> None:
    """'If another player, during their turn, forms a connected straight line of three flavours ...'

    '... that by chance fulfils one of your cone orders in hand, call out loudly "FREEZE!"'.
    """
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    assert state.claimable(1) == [ABC]
    assert state.legal_actions(1) == [freeze(ABC)]
    assert state.legal_actions(2) == []
    state.play(1, freeze(ABC))
    assert state.fulfilled[1] == [ABC]


def test_freeze_draws_at_once_when_hand_empty() -> None:
    """'If you now have no cone left in hand, you may draw a new one immediately.'"""
    state = freeze_position(pile=[20, 21, 22])
    state.play(0, slide(1, 3, "down"))
    state.play(1, freeze(ABC))
    assert state.hands[1] == [22] and state.pile == [20, 21]


def test_freeze_without_draw_when_cones_remain() -> None:
    """FREEZE! lays the cone; a seat that still holds another draws nothing."""
    state = freeze_position()
    spare = state.pile.pop(0)
    state.hands[1].append(spare)
    pile = list(state.pile)
    state.play(0, slide(1, 3, "down"))
    state.play(1, freeze(ABC))
    assert state.hands[1] == [spare] and state.pile == pile


def test_freeze_does_not_disturb_the_turn() -> None:
    """'The normal turn order is not disturbed by this action.'"""
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    state.play(1, freeze(ABC))
    assert (state.active, state.phase, state.points_left, state.turn) == (0, MOVE, 2, 1)
    assert state.waiting_for() == (0,)
    state.play(0, slide(2, 3, "down"))
    assert state.points_left == 1


def test_active_seat_cannot_freeze() -> None:
    """FREEZE! is for 'another player': the active player fulfils instead, and may not send freeze."""
    state = freeze_position()
    state.hands[0], state.hands[1] = state.hands[1], state.hands[0]
    state.play(0, slide(1, 3, "down"))
    assert state.legal_actions(0)[0] == fulfil(ABC)
    with pytest.raises(IllegalAction):
        state.play(0, freeze(ABC))


def test_slider_cannot_claim_after_the_turn_passes() -> None:
    """Assumption freeze-window: 'The player who made the slide cannot claim it.'"""
    state = freeze_position(points=1)
    state.hands[0], state.hands[1] = state.hands[1], state.hands[0]
    state.play(0, slide(1, 3, "down"))
    state.play(0, END_TURN)
    assert state.active == 1
    assert state.claimable(0) == [] and state.legal_actions(0) == []
    with pytest.raises(IllegalAction):
        state.play(0, freeze(ABC))


def test_freeze_window_stays_open_after_the_next_slide() -> None:
    """'If another player, during their turn, forms a connected straight line ...': forming it opens the claim.

    Assumption freeze-window: 'until the end of that turn, whatever is slid afterwards', here a
    slide that breaks the line itself.
    """
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    state.play(0, slide(2, 3, "down"))
    assert {tile(state, 2, c) for c in (1, 2, 3)} != {A, B, C}
    assert state.claimable(1) == [ABC] and state.legal_actions(1) == [freeze(ABC)]
    state.play(1, freeze(ABC))
    assert state.fulfilled[1] == [ABC] and (state.active, state.points_left) == (0, 1)


def test_two_lines_formed_on_the_same_spaces_in_one_turn_are_both_open_and_shown() -> None:
    """Assumption freeze-window: a line 'can be claimed with FREEZE! until the end of that turn, whatever is slid
    afterwards'. Row 2 reads A B C, then A B D on the same three spaces: both stay open, the view shows both, and a
    state rebuilt from that view (state_from_view) keeps both."""
    d, *rest = (name for name in FLAVOURS if name not in (A, B, C))
    elsewhere = [(0, 0), (0, 1), (0, 2), (0, 4), (4, 0), (4, 1), (4, 2), (4, 4), (3, 0)]  # no line through column 3
    hands = [[unrelated_cone(ABC)], [ABC]]
    removed = [cone for cone in range(len(CONES)) if cone not in (*hands[0], ABC)][: REMOVED_CONES[2]]
    tiles = {**NEAR_LINE, (3, 3): d, **dict(zip(elsewhere, rest, strict=True))}
    state = position(tiles, hands, removed=removed, formed=False)
    for space, direction in (((1, 3), "down"), ((2, 3), "up"), ((3, 3), "up")):
        state.play(0, slide(*space, direction))
    shown = [(line["spaces"], line["flavours"]) for line in state.view(1)["freeze_lines"]]
    assert shown == [([[2, 1], [2, 2], [2, 3]], sorted([A, B, C])), ([[2, 1], [2, 2], [2, 3]], sorted([A, B, d]))]
    assert state.claimable(1) == [ABC]
    rebuilt = GAME.state_from_view(state.view(1), 1, 2, state.options, Rng(3))
    assert isinstance(rebuilt, FreezeFactoryState)
    assert rebuilt.open_lines() == state.open_lines() and rebuilt.claimable(1) == [ABC]


def test_last_slide_of_a_turn_stays_claimable_until_the_next_roll_decision() -> None:
    """Assumption freeze-window: 'a line formed by a turn's last slide stays open until the next player rolls or ...'

    '... declines to roll.' The next player's first action closes it.
    """
    state = freeze_position(points=1)
    state.hands[1], state.hands[2] = state.hands[2], state.hands[1]
    state.play(0, slide(1, 3, "down"))
    state.play(0, END_TURN)  # the line matches a cone nobody laid face up: the spent turn waits (turn-end)
    assert (state.active, state.phase) == (1, ROLL)
    assert state.claimable(2) == [ABC] and state.legal_actions(2) == [freeze(ABC)]
    state.play(1, {"type": "no_roll"})
    assert state.claimable(2) == [] and state.legal_actions(2) == []
    with pytest.raises(IllegalAction, match="no open line"):
        state.play(2, freeze(ABC))


def test_last_slide_claim_after_the_turn_passes() -> None:
    """The claim made after the turn passed lays the cone and leaves the new player's turn alone."""
    state = freeze_position(points=1)
    state.hands[1], state.hands[2] = state.hands[2], state.hands[1]
    state.play(0, slide(1, 3, "down"))
    state.play(0, END_TURN)  # the line matches a cone nobody laid face up: the spent turn waits (turn-end)
    state.play(2, freeze(ABC))
    assert state.fulfilled[2] == [ABC]
    assert (state.active, state.phase) == (1, ROLL)


def test_a_claim_on_a_spent_turn_leaves_the_turn_waiting() -> None:
    """'The normal turn order is not disturbed by this action' (assumption turn-end): a FREEZE! on a turn that waits
    with its points spent lays the only matching cone face up, and the turn still waits for its player's end_turn."""
    state = freeze_position(points=1)
    state.hands[1], state.hands[2] = state.hands[2], state.hands[1]
    state.play(0, slide(1, 3, "down"))
    state.play(2, freeze(ABC))
    assert state.fulfilled[2] == [ABC] and not state.turn_waits_for_fulfil()
    assert (state.active, state.phase, state.points_left) == (0, MOVE, 0)
    assert state.legal_actions(0) == [END_TURN]
    state.play(0, END_TURN)
    assert (state.active, state.phase) == (1, ROLL)


@pytest.mark.parametrize("which", ["not matched", "not in hand", "another seat's"])
def test_freeze_refused_for_a_cone_not_matched_or_not_held(which: str) -> None:
    """'... you may then lay it in front of you if the combination is correct.'"""
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    cone_id = {
        "not matched": state.hands[2][0],
        "not in hand": state.pile[0],
        "another seat's": ABC,
    }[which]
    seat = 2
    with pytest.raises(IllegalAction):
        state.play(seat, freeze(cone_id))
    assert state.fulfilled[seat] == []


def test_other_seats_may_only_freeze() -> None:
    """Out of turn a seat may only call FREEZE!; a slide or end_turn from it is refused."""
    state = freeze_position()
    for action in (slide(2, 1, "up"), END_TURN, {"type": "roll"}, fulfil(ABC), {"type": "freeze"}):
        with pytest.raises(IllegalAction):
            state.play(1, action)


def test_acting_seats_and_waiting_for() -> None:
    """engine/protocol.py: `acting_seats` is every seat (any may call FREEZE!), `waiting_for` the active seat only."""
    state = freeze_position()
    assert state.acting_seats() == (0, 1, 2)
    assert state.waiting_for() == (0,)
    state.play(0, END_TURN)
    assert state.acting_seats() == (0, 1, 2)
    assert state.waiting_for() == (1,)


def test_auto_freeze_claims_for_every_seat() -> None:
    """Assumption auto-freeze-option: 'the server claim[s] every open FREEZE! for every seat, in seat order'."""
    t, a = "peach", "cherry"
    b = third(t, a)
    c = next(FLAVOURS[f] for f in range(13) if FLAVOURS[f] not in (t, a, b))
    d = third(t, c)
    row_cone, column_cone = cone(t, a, b), cone(t, c, d)
    # T slides left into (2, 2): row 2 reads a b T, column 2 reads c d T.
    tiles = {(2, 0): a, (2, 1): b, (0, 2): c, (1, 2): d, (2, 3): t}
    mine = unrelated_cone(row_cone, column_cone)
    state = position(tiles, [[mine], [column_cone], [row_cone]], pile=[20, 21, 22], options={"auto_freeze": True})
    state.play(0, slide(2, 3, "left"))
    assert state.fulfilled == [[], [column_cone], [row_cone]]
    assert state.hands[1] == [22] and state.hands[2] == [21]
    assert (state.active, state.points_left) == (0, 2)


def test_auto_freeze_claims_a_drawn_cone_that_matches_too() -> None:
    """Assumption auto-freeze-option: 'every open FREEZE!': a cone drawn after a claim may match another open line."""
    t, a = "peach", "cherry"
    b = third(t, a)
    c = next(FLAVOURS[f] for f in range(13) if FLAVOURS[f] not in (t, a, b))
    d = third(t, c)
    row_cone, column_cone = cone(t, a, b), cone(t, c, d)
    tiles = {(2, 0): a, (2, 1): b, (0, 2): c, (1, 2): d, (2, 3): t}
    mine = unrelated_cone(row_cone, column_cone)
    last = next(i for i in range(26) if i not in (row_cone, column_cone, mine))
    manual = position(tiles, [[mine], [row_cone]], pile=[last, column_cone])
    manual.play(0, slide(2, 3, "left"))
    manual.play(1, freeze(row_cone))
    assert manual.legal_actions(1) == [freeze(column_cone)]
    auto = position(tiles, [[mine], [row_cone]], pile=[last, column_cone], options={"auto_freeze": True})
    auto.play(0, slide(2, 3, "left"))
    assert auto.fulfilled[1] == [row_cone, column_cone]
    assert auto.hands[1] == [last] and auto.claimable(1) == []


def test_auto_freeze_is_off_by_default() -> None:
    """Assumption auto-freeze-option: 'off by default because calling FREEZE! is part of the printed game'."""
    state = freeze_position()
    assert state.options["auto_freeze"] is False
    state.play(0, slide(1, 3, "down"))
    assert state.hands[1] == [ABC]


# --- the end ------------------------------------------------------------------------------------
def test_game_ends_when_fulfiller_cannot_draw() -> None:
    """'The game ends immediately when a player, after fulfilling a cone order, cannot draw a new cone ...'

    '... from the pile.' Here both seats end with one cone: 'In case of a tie, there are several winners.'
    """
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC], [1]], pile=[], fulfilled=[[], [2]])
    state.play(0, fulfil(ABC))
    assert state.is_over()
    assert state.acting_seats() == () and state.waiting_for() == ()
    assert state.legal_actions(0) == [] and state.legal_actions(1) == []
    result = state.result()
    assert result is not None and result.scores == (1, 1) and set(result.winners) == {0, 1}
    with pytest.raises(MatchOver):
        state.play(1, END_TURN)


def test_game_ends_by_freeze_when_claimer_cannot_draw() -> None:
    """The end also comes after a FREEZE!: the claimer 'fulfilled a cone order' and cannot draw."""
    state = freeze_position(pile=[])
    state.play(0, slide(1, 3, "down"))
    state.play(1, freeze(ABC))
    assert state.is_over()
    result = state.result()
    assert result is not None and result.winners == (1,) and result.scores == (0, 1, 0)


def test_holding_cones_with_an_empty_pile_does_not_end() -> None:
    """Only a needed draw from an empty pile ends it (assumption draw-when-empty)."""
    other = unrelated_cone(ABC)
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC, other], [1]], pile=[])
    state.play(0, fulfil(ABC))
    assert not state.is_over()
    assert state.hands[0] == [other] and state.active == 0


def test_most_cones_wins() -> None:
    """'The player who has collected the most cones wins.'"""
    state = position(
        {(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC], [3], [4]], pile=[], fulfilled=[[10, 11], [12], [13, 14, 15]]
    )
    state.play(0, fulfil(ABC))
    result = state.result()
    assert result is not None
    assert result.scores == (3, 1, 3)
    assert set(result.winners) == {0, 2}
    assert result.ranking == ((0, 2), (1,))


def test_single_winner() -> None:
    """'The player who has collected the most cones wins.': one seat ahead wins alone."""
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC], [3]], pile=[], fulfilled=[[10, 11], [12, 13]])
    state.play(0, fulfil(ABC))
    result = state.result()
    assert result is not None and result.winners == (0,) and state.rewards() == [1.0, -1.0]


def test_turn_limit_option() -> None:
    """Assumption turn-limit: 'ends the game after that many turns, most cones winning'."""
    state = position({(2, 2): A}, [[ABC], [1]], fulfilled=[[], [5]], options={"turn_limit": 2})
    state.play(0, END_TURN)
    assert not state.is_over() and state.active == 1
    state.play(1, {"type": "no_roll"})
    state.play(1, END_TURN)
    assert state.is_over()
    result = state.result()
    assert result is not None and result.winners == (1,) and "turn limit" in result.reason


def test_no_turn_limit_by_default() -> None:
    """Assumption turn-limit: '0 (the default) means no limit, as printed.'"""
    state = position({(2, 2): A}, [[ABC], [1]])
    assert state.options["turn_limit"] == 0
    for _ in range(50):
        if state.phase == ROLL:
            state.play(state.active, {"type": "no_roll"})
        state.play(state.active, END_TURN)
    assert not state.is_over() and state.turn == 51


# --- hidden information -------------------------------------------------------------------------
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_hand_only_in_its_own_view(players: int) -> None:
    """'Each player draws one cone and takes it into hand, face down.'"""
    state = start(players, seed="hands")
    for seat in range(players):
        own = set(state.hands[seat])
        assert set(hand_ids(state.view(seat))) == own
        for viewer in [None, *range(players)]:
            if viewer == seat:
                continue
            view = json.loads(json.dumps(state.view(viewer)))
            assert not own & set(hand_ids(view))
            assert not own & cone_ids_in(view)
        assert state.view(None)["hand"] == []


def test_pile_and_removed_appear_in_no_view() -> None:
    """'Place the remaining cones as a face-down draw pile' and removed cones go 'to the box': no view shows them."""
    state = start(2, seed="pile")
    hidden = set(state.pile) | set(state.removed)
    assert len(state.removed) == 7
    for viewer in (None, 0, 1):
        view = state.view(viewer)
        assert not hidden & cone_ids_in(view)
        assert view["pile_count"] == len(state.pile) and view["removed_count"] == 7


def test_fulfilled_cones_are_public() -> None:
    """'You may then lay that cone face up in front of you.'; the cone drawn after it stays hidden."""
    state = position({(2, 1): A, (2, 2): B, (2, 3): C}, [[ABC], [1]], pile=[20, 21])
    state.play(0, fulfil(ABC))
    for viewer in (None, 0, 1):
        view = state.view(viewer)
        assert [c["id"] for c in view["fulfilled"][0]] == [ABC]
        assert sorted(view["fulfilled"][0][0]["flavours"]) == sorted([A, B, C])
        assert (21 in cone_ids_in(view)) == (viewer == 0)


def test_the_roll_is_public(monkeypatch: pytest.MonkeyPatch) -> None:
    """The die is rolled in the open: every view shows the face."""
    force_die(monkeypatch, 4)
    state = start(3)
    state.play(0, {"type": "roll"})
    for viewer in (None, 0, 1, 2):
        assert state.view(viewer)["last_roll"] == 4
        assert state.view(viewer)["points_left"] == 4


def test_views_never_show_the_rng() -> None:
    """STYLE.md: 'views never expose the seed or the RNG state.'"""
    state = start(3, seed="secret")
    for viewer in (None, 0, 1, 2):
        text = json.dumps(state.view(viewer))
        assert str(state.rng.state) not in text and "rng" not in text


@pytest.mark.parametrize("viewer", [None, 0, 1, 2])
def test_determinize_keeps_the_view_and_reshuffles_the_rest(viewer: int | None) -> None:
    """determinize(viewer): the viewer's view is unchanged; other hands, pile and removed are dealt again."""
    state = start(3, seed="det")
    state.fulfilled[1].append(state.pile.pop())
    state.hands[2].append(state.pile.pop())
    original = state.to_json()

    def hidden(s: FreezeFactoryState) -> list[list[int]]:
        return [s.pile, s.removed, *(h for seat, h in enumerate(s.hands) if seat != viewer)]

    changed = False
    for seed in range(10):
        copy = state.determinize(viewer, Rng(seed))
        assert copy.view(viewer) == state.view(viewer)
        assert sorted(c for cones in hidden(copy) for c in cones) == sorted(c for cones in hidden(state) for c in cones)
        assert [len(c) for c in hidden(copy)] == [len(c) for c in hidden(state)]
        assert copy.fulfilled == state.fulfilled and copy.board == state.board
        if viewer is not None:
            assert copy.hands[viewer] == state.hands[viewer]
        changed |= hidden(copy) != hidden(state)
    assert changed
    assert state.to_json() == original


def test_json_round_trip() -> None:
    """A state written by to_json reads back the same."""
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    again = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    assert again.legal_actions(1) == [freeze(ABC)]


def _all_cones(state: FreezeFactoryState) -> Iterable[int]:
    return itertools.chain(state.pile, state.removed, *state.hands, *state.fulfilled)


def test_random_playouts_keep_every_cone_once() -> None:
    """No cone is lost or copied: pile, removed, hands and fulfilled always hold the 26 cones once each."""
    for seed in range(6):
        state = start(2 + seed % 3, {"turn_limit": 60}, seed=seed)
        rng = Rng(seed)
        while not state.is_over():
            seat = state.active
            claims = [s for s in state.acting_seats() if s != seat and state.legal_actions(s)]
            if claims:
                seat = claims[0]
            state.play(seat, state.sample_action(seat, rng))
            assert sorted(_all_cones(state)) == list(range(26))
            assert state.points_left >= 0


def test_the_next_player_may_freeze_before_deciding_to_roll() -> None:
    """'If another player, during their turn, forms a connected straight line ... call out loudly "FREEZE!"'.

    The player whose turn comes next is another player too: a line the previous player's last
    slide formed is theirs to claim before they roll (assumption freeze-window), not to fulfil
    (assumption own-lines); then the roll choice remains.
    """
    mine = cone_of_pair("mint", "peach")
    state = position(
        {(2, 0): "mint", (2, 1): "peach", (2, 3): third("mint", "peach")},
        [[cone_of_pair("hazelnut", "mint")], [mine]],
        points=1,
    )
    state.play(0, slide(2, 3, "left"))
    state.play(0, END_TURN)  # the line matches a cone nobody laid face up: the spent turn waits (turn-end)
    assert state.active == 1 and state.phase == ROLL
    assert state.legal_actions(1) == [{"type": "roll"}, {"type": "no_roll"}, freeze(mine)]
    state.play(1, freeze(mine))
    assert mine in state.fulfilled[1] and state.phase == ROLL and state.active == 1
    assert state.legal_actions(1) == [{"type": "roll"}, {"type": "no_roll"}]
