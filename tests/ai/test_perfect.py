"""The `perfect` level never loses an IceCream game the solver says it wins, and races Rock'em dice well."""

from __future__ import annotations

import pytest

from ai.levels import choose
from ai.perfect import PerfectAgent, load_solutions, solution_for, stored_table
from engine import Rng, get_game
from engine.icecream.game import OPTIONS, IceCreamState
from lab.ai_strength import measure

LIMIT = 16  # the opening is a win for seat 0 at turn 15 from this limit on (python -m lab.solve_icecream)


@pytest.mark.parametrize("opponent_seed", range(4))
def test_perfect_first_player_beats_random_replies(opponent_seed: int) -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {"turn_limit": LIMIT}, "perfect")
    assert isinstance(state, IceCreamState)
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


def test_load_solutions_reads_the_table_once() -> None:
    seconds = load_solutions()
    assert seconds >= 0
    assert stored_table() is stored_table()
    assert solution_for(0).starts[1] == stored_table().start_values(1, 32)


def test_choose_takes_a_time_cap_and_a_stop_and_answers_the_same() -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {"turn_limit": 0}, "caps")
    agent = PerfectAgent()
    plain = agent.choose(state, 0, 0, 0)
    assert agent.choose(state, 0, 0, 0, time_cap=0.001, stop=lambda: True) == plain


def test_perfect_plays_past_turn_32_without_a_limit() -> None:
    """Turn 33 is read from turn 31's table, which must hold the row of 32 points left."""
    state = IceCreamState(OPTIONS.resolve({"turn_limit": 0}), Rng(0), ["RYGRYG", "RGYRGY"], 33, 33, 0)
    action = PerfectAgent().choose(state, 0, 0, 0)
    assert action in state.legal_actions(0)
    child = state.clone()
    child.play(0, action)
    assert solution_for(0).value(state).outcome == "win"
    assert child.is_over() or (child.to_move == 0 and solution_for(0).value(child).outcome == "win")
