"""`GameState.play`, the checked path: whatever a rule's code raises on an action of the wrong shape is refused
as an illegal action, never let through as another exception (the API answers it 422; `parlour verify` names it)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import IllegalAction
from engine.icecream.game import IceCreamState
from engine.registry import get_game


class ChokingState(IceCreamState):
    """IceCream whose rule check chokes on every action, as a rule's code with a bug in it would."""

    def check_action(self, seat: int, action: dict[str, Any]) -> None:
        """Raise what unguarded code raises on a key it expected."""
        raise KeyError("from_cone")


def test_an_action_the_rules_choke_on_is_refused_as_illegal() -> None:
    game = get_game("icecream")
    assert game is not None
    start = game.start(2, {}, "choke")
    assert isinstance(start, IceCreamState)
    state = ChokingState(
        start.options, start.rng.clone(), list(start.cones), start.turn, start.points_left, start.to_move
    )
    mover = state.waiting_for()[0]
    with pytest.raises(IllegalAction, match="malformed") as refused:
        state.play(mover, {"type": "move"})
    assert isinstance(refused.value.__cause__, KeyError)
    assert state.to_json() == start.to_json(), "a refused action changes nothing"


def test_a_refusal_of_the_rules_is_kept_as_it_is() -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {}, "choke")
    with pytest.raises(IllegalAction) as refused:
        state.play(state.waiting_for()[0], {"type": "move", "from_cone": 7, "scoops": 1})
    assert refused.value.__cause__ is None
