"""`has_action`: a listed action or a space too large to list; nothing for a seat that may not act."""

from __future__ import annotations

import pytest

from engine.protocol import TooManyActions, has_action
from engine.registry import get_game


def test_a_seat_to_move_has_an_action_and_the_other_has_none() -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {}, "has")
    mover = state.waiting_for()[0]
    assert has_action(state, mover)
    assert not has_action(state, 1 - mover)


def test_a_split_too_large_to_list_counts_as_an_action() -> None:
    game = get_game("sundae_split")
    assert game is not None
    state = game.start(3, {}, "has")
    splitter = state.waiting_for()[0]
    with pytest.raises(TooManyActions):
        state.legal_actions(splitter)
    assert has_action(state, splitter)


def test_a_seat_that_may_act_out_of_turn_has_no_action_without_a_claim() -> None:
    game = get_game("freeze_factory")
    assert game is not None
    state = game.start(3, {}, "has")
    others = [seat for seat in state.acting_seats() if seat not in state.waiting_for()]
    assert len(others) == 2  # they may call FREEZE!, but nothing is lined up before the first move
    assert not any(has_action(state, seat) for seat in others)
