"""The `perfect` level never loses an IceCream game the solver says it wins, and races Rock'em dice well."""

from __future__ import annotations

import pytest

from ai.levels import choose
from ai.perfect import solution_for
from ai.strength import measure
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


def test_perfect_is_for_icecream_and_rockem_only() -> None:
    game = get_game("sundae_split")
    assert game is not None
    with pytest.raises(ValueError, match="icecream and rockem_sockem only"):
        choose(game.start(2, None, "x"), 0, "perfect", seed=0)


@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_perfect_rockem_beats_random_keeps(mode: str) -> None:
    tally = measure("rockem_sockem", 2, "perfect", "random", 6, {"mode": mode})
    assert tally.wins >= 5
