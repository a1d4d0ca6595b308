"""The `perfect` level never loses a game the solver says it wins."""

from __future__ import annotations

import pytest

from ai.levels import choose
from ai.perfect import solution_for
from engine import Rng, get_game

LIMIT = 16  # the opening is a win for seat 0 at turn 15 from this limit on (python -m ai.solve_icecream)


@pytest.mark.parametrize("opponent_seed", range(4))
def test_perfect_first_player_beats_random_replies(opponent_seed: int) -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {"turn_limit": LIMIT}, "perfect")
    assert solution_for(LIMIT).value(state).outcome == "win"
    rng = Rng.from_seed(f"random-opponent:{opponent_seed}")
    while not state.is_over():
        seat = state.waiting_for()[0]
        action = choose(state, seat, "perfect", seed=0) if seat == 0 else state.sample_action(seat, rng)
        state.play(seat, action)
    result = state.result()
    assert result is not None and result.winners == (0,), result


def test_perfect_is_for_icecream_only() -> None:
    game = get_game("rockem_sockem")
    assert game is not None
    with pytest.raises(ValueError, match="IceCream only"):
        choose(game.start(2, None, "x"), 0, "perfect", seed=0)
