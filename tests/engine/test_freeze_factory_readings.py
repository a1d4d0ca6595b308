"""Freeze Factory: the readings issue 18 asked to reconsider, each checked against the sentence it rests on.

The FREEZE! window, whose lines the active player may fulfil, the extra cone on the die symbol,
the cone and flavour data, and the setup options. Positions are built with the helpers of
test_freeze_factory_rules.py; each test quotes the rulebook sentence (or the data.json assumption).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import IllegalAction, InvalidOptions, Rng
from engine.freeze_factory.board import index, lines
from engine.freeze_factory.components import CONES, FLAVOURS, SIZE, START_LAYOUTS
from engine.freeze_factory.game import EXTRA_CONE, INFO, MOVE, ROLL, FreezeFactoryState
from tests.engine.test_freeze_factory_rules import (
    ABC,
    END_TURN,
    GAME,
    NEAR_LINE,
    A,
    B,
    C,
    cone,
    force_die,
    freeze,
    freeze_position,
    fulfil,
    position,
    slide,
    start,
    third,
    tile,
    unrelated_cone,
)

TAKE_CONE, LEAVE_CONE = {"type": "take_cone"}, {"type": "leave_cone"}


def assumption(name: str) -> str:
    """The catalog text (choice and reason) of one of the game's assumptions."""
    (found,) = [a for a in INFO.assumptions if a.id == name]
    return f"{found.choice} {found.reason}"


# --- item 1: the FREEZE! window ------------------------------------------------------------------
def test_a_claim_outlasts_every_later_slide_of_the_turn() -> None:
    """'If another player, during their turn, forms a connected straight line ...' (assumption freeze-window).

    The line is formed by the first slide; two more slides, one breaking it, leave the claim open.
    """
    state = freeze_position(points=3, pile=[20, 21, 22])
    state.play(0, slide(1, 3, "down"))
    state.play(0, slide(2, 1, "up"))
    assert state.legal_actions(1) == [freeze(ABC)]
    state.play(0, slide(1, 1, "up"))
    # The points ran out, but the turn's line matches a cone nobody laid face up: it waits (assumption turn-end).
    assert (state.active, state.points_left) == (0, 0) and state.legal_actions(1) == [freeze(ABC)]
    state.play(0, END_TURN)
    # The last slide formed nothing: the turn is over, and so is the window of its earlier line.
    assert state.claimable(1) == [] and state.legal_actions(1) == [{"type": "roll"}, {"type": "no_roll"}]


def test_a_claim_stays_open_until_end_turn() -> None:
    """'... during their turn, forms ...': the window is the turn; end_turn closes lines before the last slide."""
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    state.board[index(SIZE, 4, 4)] = FLAVOURS.index("coconut")
    state.play(0, slide(4, 4, "up"))
    assert state.claimable(1) == [ABC]
    state.play(0, END_TURN)
    assert state.claimable(1) == []


def test_claims_by_others_do_not_close_the_carried_window() -> None:
    """Assumption freeze-window: 'open until the next player rolls or declines to roll'; a claim is no such action.

    Seat 1, whose turn it now is, and seat 2 both claim lines seat 0's last slide formed.
    """
    t, a = "peach", "cherry"
    b = third(t, a)
    c = next(FLAVOURS[f] for f in range(13) if FLAVOURS[f] not in (t, a, b))
    d = third(t, c)
    row_cone, column_cone = cone(t, a, b), cone(t, c, d)
    tiles = {(2, 0): a, (2, 1): b, (0, 2): c, (1, 2): d, (2, 3): t}
    mine = unrelated_cone(row_cone, column_cone)
    state = position(tiles, [[mine], [row_cone], [column_cone]], pile=[20, 21, 22], points=1)
    state.play(0, slide(2, 3, "left"))
    state.play(0, END_TURN)  # the lines match cones nobody laid face up: the spent turn waits (turn-end)
    assert (state.active, state.phase) == (1, ROLL)
    assert state.legal_actions(1) == [{"type": "roll"}, {"type": "no_roll"}, freeze(row_cone)]
    state.play(1, freeze(row_cone))
    assert state.legal_actions(2) == [freeze(column_cone)]
    state.play(2, freeze(column_cone))
    assert state.fulfilled == [[], [row_cone], [column_cone]] and (state.active, state.phase) == (1, ROLL)


def test_a_roll_closes_the_carried_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Assumption freeze-window: '... until the next player rolls or declines to roll': rolling counts too."""
    force_die(monkeypatch, 4)
    state = freeze_position(points=1)
    state.hands[1], state.hands[2] = state.hands[2], state.hands[1]
    state.play(0, slide(1, 3, "down"))
    state.play(0, END_TURN)  # the line matches a cone nobody laid face up: the spent turn waits (turn-end)
    assert state.claimable(2) == [ABC]
    state.play(1, {"type": "roll"})
    assert state.claimable(2) == [] and state.view(None)["freeze_lines"] == []


def test_seeded_games_lose_no_claim_to_a_later_slide() -> None:
    """'If another player, during their turn, forms a ... line ... call out loudly "FREEZE!"': in play too.

    Seeded 3-player games where nobody claims: every claim open after a slide stays open through
    the rest of that turn (the issue found all 93 such claims lost to a further slide).
    """
    opened = 0
    for seed in range(40):
        state, rng = start(3, {"turn_limit": 90}, seed=f"window-{seed}"), Rng(seed)
        open_claims: set[tuple[int, int]] = set()
        while not state.is_over():
            turn, action = state.turn, state.sample_action(state.active, rng)
            state.play(state.active, action)
            if state.turn != turn:
                open_claims = set()
            for seat, claimed in sorted(open_claims):
                assert claimed in state.claimable(seat), f"seed {seed}: a later slide took seat {seat}'s claim"
            if action["type"] == "slide" and state.turn == turn:
                new = {(s, c) for s in range(3) for c in state.claimable(s)} - open_claims
                open_claims |= new
                opened += len(new)
    assert opened > 10


def test_a_slide_forms_exactly_the_lines_new_on_the_board() -> None:
    """A slide's fresh lines (those through the space it lands on) are every line it put on the board, no other."""
    checked = 0
    for seed in range(4):
        state, rng = start(2, {"turn_limit": 60}, seed=f"lines-{seed}"), Rng(seed)
        while not state.is_over():
            action = state.sample_action(state.active, rng)
            before = lines(state.board, SIZE)
            state.play(state.active, action)
            if action["type"] == "slide":
                assert set(state.fresh_lines) == lines(state.board, SIZE) - before
                checked += bool(state.fresh_lines)
    assert checked > 5


def test_open_lines_are_public_with_their_flavours() -> None:
    """The forming is public ('call out loudly'): every view lists open lines, their flavours and who formed them."""
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    state.play(0, slide(2, 3, "down"))
    expected = [{"spaces": [[2, 1], [2, 2], [2, 3]], "flavours": sorted([A, B, C]), "formed_by": 0}]
    for viewer in (None, 0, 1, 2):
        assert state.view(viewer)["freeze_lines"] == expected
    assert ABC not in [c["id"] for c in state.view(2)["hand"]], "the view names flavours, never whose cone it is"


def test_open_lines_survive_json_and_older_states_read_back() -> None:
    """A state written by to_json reads back with its open lines; an older state (spaces only) still reads."""
    state = freeze_position()
    state.play(0, slide(1, 3, "down"))
    older = state.to_json()
    state.play(0, slide(2, 1, "up"))
    again = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json() and again.legal_actions(1) == [freeze(ABC)]
    older.pop("turn_lines")
    older["fresh_lines"] = [line["spaces"] for line in older["fresh_lines"]]
    read = GAME.state_from_json(older)
    assert isinstance(read, FreezeFactoryState) and read.turn_lines == []
    assert read.fresh_lines == [line for line in lines(read.board, SIZE)] and read.legal_actions(1) == [freeze(ABC)]


# --- item 2: whose lines the active player fulfils ------------------------------------------------
def test_a_line_arranged_earlier_in_the_turn_stays_fulfilled() -> None:
    """'If, during or at the end of your turn, you arrange three flavours ... you have fulfilled the order.'

    Arranged, the order is fulfilled: a later slide that breaks the line does not undo it (own-lines).
    """
    state = position(NEAR_LINE, [[ABC], [unrelated_cone(ABC)]], points=3)
    state.play(0, slide(1, 3, "down"))
    state.play(0, slide(2, 3, "down"))
    assert {tile(state, 2, c) for c in (1, 2, 3)} != {A, B, C}
    assert state.legal_actions(0)[0] == fulfil(ABC)
    state.play(0, fulfil(ABC))
    assert state.fulfilled[0] == [ABC]


def test_fulfil_any_line_option_allows_lines_found_on_the_board() -> None:
    """Option fulfil_any_line: 'any matching line on the board, whoever formed it, ... (before rolling too)'."""
    tiles = {(2, 1): A, (2, 2): B, (2, 3): C}
    strict = position(tiles, [[ABC], [1]], phase=ROLL, points=0)
    assert strict.options["fulfil_any_line"] is False and fulfil(ABC) not in strict.legal_actions(0)
    loose = position(tiles, [[ABC], [1]], phase=ROLL, points=0, options={"fulfil_any_line": True})
    assert loose.legal_actions(0) == [{"type": "roll"}, {"type": "no_roll"}, fulfil(ABC)]
    loose.play(0, fulfil(ABC))
    assert loose.fulfilled[0] == [ABC] and (loose.active, loose.phase) == (0, ROLL)


def test_own_lines_reading_is_recorded() -> None:
    """The catalog says which reading is played and offers the other (own-lines, fulfil-any-line-option)."""
    assert "you arrange three flavours" in assumption("own-lines")
    assert "fulfil_any_line" in assumption("own-lines")
    assert {option.name for option in INFO.options.specs} >= {"fulfil_any_line"}


# --- item 3: the extra cone is the seat's choice ---------------------------------------------------
def test_leave_cone_keeps_hand_and_pile(monkeypatch: pytest.MonkeyPatch) -> None:
    """'you must miss a turn, but you *may* take one more cone from the draw pile': leaving it is allowed."""
    force_die(monkeypatch, "cone")
    state = position(NEAR_LINE, [[ABC], [1]], pile=[5, 6, 7], phase=ROLL, points=0)
    state.play(0, {"type": "roll"})
    state.play(0, LEAVE_CONE)
    assert state.hands[0] == [ABC] and state.pile == [5, 6, 7]
    assert (state.active, state.phase, state.turn) == (1, ROLL, 2)


def test_taking_the_last_cone_can_let_the_leader_end_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """'The game ends immediately when a player, after fulfilling a cone order, cannot draw a new cone from the pile.'

    Why the extra cone is a choice (assumption miss-a-turn): seat 1 leads and can fulfil its only
    cone next turn. If seat 0 takes the pile's last cone that ends the game at once; if it leaves
    it, seat 1 draws it and the game goes on.
    """
    force_die(monkeypatch, "cone")
    theirs = cone("hazelnut", "mint", "cherry")
    last = unrelated_cone(theirs)
    mine = unrelated_cone(theirs, last)
    earlier = next(c for c in range(26) if c not in (theirs, last, mine))
    outcomes = {}
    for choice in (TAKE_CONE, LEAVE_CONE):
        state = position(NEAR_LINE, [[mine], [theirs]], pile=[last], fulfilled=[[], [earlier]], phase=ROLL, points=0)
        state.play(0, {"type": "roll"})
        assert state.legal_actions(0) == [TAKE_CONE, LEAVE_CONE]
        state.play(0, choice)
        state.play(1, {"type": "no_roll"})
        state.play(1, slide(1, 3, "down"))
        state.play(1, fulfil(theirs))
        outcomes[choice["type"]] = state.is_over()
    assert outcomes == {"take_cone": True, "leave_cone": False}


def test_extra_cone_choice_refuses_anything_else(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the symbol 'you must miss a turn': no slide, no end_turn; and take_cone only after the symbol."""
    force_die(monkeypatch, "cone")
    state = position(NEAR_LINE, [[ABC], [1]], pile=[5, 6], phase=ROLL, points=0)
    state.play(0, {"type": "roll"})
    for action in (slide(1, 3, "down"), END_TURN, {"type": "no_roll"}, {"type": "take_cone", "cone": 6}):
        with pytest.raises(IllegalAction, match="take_cone or leave_cone"):
            state.play(0, action)
    with pytest.raises(IllegalAction, match="may only call 'freeze'"):
        state.play(1, TAKE_CONE)
    moving = position(NEAR_LINE, [[ABC], [1]])
    with pytest.raises(IllegalAction, match="send"):
        moving.play(0, TAKE_CONE)


def test_extra_cone_default_is_to_leave_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Assumption timeout-default-action: 'after rolling the symbol it leaves the extra cone (leave_cone)'."""
    force_die(monkeypatch, "cone")
    state = start(3, seed="timer")
    state.play(0, {"type": "roll"})
    assert state.phase == EXTRA_CONE and state.default_action(0) == LEAVE_CONE
    hand = list(state.hands[0])
    state.play(0, state.default_action(0))
    assert state.hands[0] == hand and state.active == 1
    assert "leave_cone" in assumption("timeout-default-action")


def test_extra_cone_phase_survives_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """The choice waits in the state: a state written in the extra-cone phase reads back the same."""
    force_die(monkeypatch, "cone")
    state = start(2, seed="json")
    state.play(0, {"type": "roll"})
    again = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json() and again.legal_actions(0) == [TAKE_CONE, LEAVE_CONE]
    assert again.view(1)["phase"] == EXTRA_CONE


# --- item 4: data and setup options ---------------------------------------------------------------
def test_the_rulebook_example_plays_as_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    """'Tom ... rolls a 4. He moves the hazelnut and mint flavours by 1 space each, and the cherry by 2 spaces, ...

    ... pushing the cherry off the edge ... in the same row. He has now fulfilled his cone order ...
    Finally, he draws a new cone from the pile.' (assumption cone-list: the example cone exists.)
    """
    force_die(monkeypatch, 4)
    toms = cone("hazelnut", "mint", "cherry")
    tiles = {(1, 1): "hazelnut", (3, 2): "mint", (1, 4): "cherry"}
    state = position(tiles, [[toms], [unrelated_cone(toms)]], pile=[20, 21], phase=ROLL, points=0)
    state.play(0, {"type": "roll"})
    for action in (slide(1, 1, "down"), slide(3, 2, "up"), slide(1, 4, "down")):
        state.play(0, action)
        assert state.fulfillable() == []
    state.play(0, slide(2, 4, "right"))  # off the edge, onto the opposite space of row 2
    assert [tile(state, 2, c) for c in (0, 1, 2)] == ["cherry", "hazelnut", "mint"]
    state.play(0, fulfil(toms))
    assert state.fulfilled[0] == [toms] and state.hands[0] == [21]


def test_flavours_keep_every_pair_on_one_cone() -> None:
    """Assumption cone-list: relabelling keeps 'every pair of flavours is on exactly one cone' and names the example."""
    assert FLAVOURS[:2] == ("hazelnut", "mint") and FLAVOURS[4] == "cherry"
    assert CONES[0] == frozenset(FLAVOURS.index(f) for f in ("hazelnut", "mint", "cherry"))
    for i in range(13):
        assert frozenset({i, (i + 1) % 13, (i + 4) % 13}) in CONES
        assert frozenset({i, (i + 2) % 13, (i + 7) % 13}) in CONES


@pytest.mark.parametrize(("hand", "players"), [(1, 2), (2, 2), (2, 4)])
def test_starting_hand_option(hand: int, players: int) -> None:
    """'Each player draws one cone and takes it into hand' (the default); option starting_hand: 'deals 2 instead'."""
    state = start(players, {} if hand == 1 else {"starting_hand": hand})
    assert [len(h) for h in state.hands] == [hand] * players
    assert len(state.pile) == 26 - len(state.removed) - hand * players


@pytest.mark.parametrize("given", [0, 3, "2", True])
def test_starting_hand_is_one_or_two(given: Any) -> None:
    """Option starting_hand: '1 as the rulebook says, or 2 as some sources say'; nothing else."""
    with pytest.raises(InvalidOptions, match="starting_hand"):
        start(2, {"starting_hand": given})


@pytest.mark.parametrize("layout", sorted(START_LAYOUTS))
def test_every_start_layout_places_thirteen_tiles_in_no_line(layout: str) -> None:
    """'Place the flavour tiles for the starting layout ... on the marked spaces' (assumption start-layout)."""
    state = start(3, {"start_layout": layout})
    placed = {divmod(s, SIZE): f for s, f in enumerate(state.board) if f is not None}
    assert set(placed) == set(START_LAYOUTS[layout])
    assert [placed[space] for space in sorted(placed)] == list(range(13)), "flavours in the listed order, row by row"
    assert lines(state.board, SIZE) == set()


def test_two_documented_layouts() -> None:
    """Assumption start-layout names checkerboard (the default) and corners, and the catalog offers both."""
    assert list(START_LAYOUTS) == ["checkerboard", "corners"]
    (spec,) = [s for s in INFO.options.specs if s.name == "start_layout"]
    assert spec.default == "checkerboard" and spec.choices == ("checkerboard", "corners")
    assert "checkerboard" in assumption("start-layout") and "corners" in assumption("start-layout")
    with pytest.raises(InvalidOptions, match="start_layout"):
        start(2, {"start_layout": "spiral"})


def test_shuffle_start_deals_flavours_in_any_arrangement() -> None:
    """'Place the flavour tiles ..., in any arrangement, on the marked spaces': option shuffle_start, by the seed."""
    spaces = {index(SIZE, r, c) for r, c in START_LAYOUTS["corners"]}
    boards = set()
    for seed in range(6):
        state = start(2, {"start_layout": "corners", "shuffle_start": True}, seed=seed)
        assert {s for s, f in enumerate(state.board) if f is not None} == spaces
        assert sorted(f for f in state.board if f is not None) == list(range(13))
        boards.add(tuple(state.board))
    assert len(boards) == 6
    again = start(2, {"start_layout": "corners", "shuffle_start": True}, seed=0)
    assert tuple(again.board) in boards


def test_new_options_and_assumptions_are_in_the_catalog() -> None:
    """Every choice shows in the catalog (GET /v1/games lists INFO's options and assumptions)."""
    catalog = INFO.to_json()
    options = {option["name"]: option for option in catalog["options"]}
    assert options["starting_hand"] == {
        "name": "starting_hand",
        "type": "int",
        "default": 1,
        "description": options["starting_hand"]["description"],
        "minimum": 1,
        "maximum": 2,
    }
    assert options["fulfil_any_line"]["default"] is False and options["shuffle_start"]["default"] is False
    ids = {a["id"] for a in catalog["assumptions"]}
    assert {"starting-hand", "fulfil-any-line-option", "own-lines", "freeze-window", "miss-a-turn"} <= ids


def test_default_options_are_as_transcribed() -> None:
    """The defaults deal one cone and lay the checkerboard in the listed order, as transcribed."""
    state = start(3)
    assert state.options == {
        "auto_freeze": False,
        "turn_limit": 0,
        "starting_hand": 1,
        "start_layout": "checkerboard",
        "shuffle_start": False,
        "fulfil_any_line": False,
    }
    state.play(0, {"type": "no_roll"})
    assert state.phase == MOVE
