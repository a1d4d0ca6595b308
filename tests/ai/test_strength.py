"""The strength benchmark rotates seats, asks claimers, and counts results the way it reports them."""

from __future__ import annotations

from ai.baseline.search import MctsAgent
from ai.greedy import GreedyAgent
from engine import get_game
from lab.ai_strength import Tally, measure, play_game, player, report


def test_wilson_interval_brackets_the_rate() -> None:
    tally = Tally(wins=90, draws=0, losses=10)
    low, high = tally.wilson()
    assert 0.82 < low < 0.9 < high < 0.95


def test_measure_rotates_seats_and_counts_every_game() -> None:
    tally = measure("icecream", 2, "perfect", "random", 4, {"turn_limit": 16})
    assert tally.games == 4
    # Seat 0 wins the limit-16 opening with perfect play; as seat 1 perfect play can still beat random.
    assert tally.wins >= 2
    assert "of 4" in report(tally, "x")


def test_the_greedy_baseline_and_the_determinized_searcher_are_opponents_too() -> None:
    assert isinstance(player("greedy").agent, GreedyAgent)
    determinized = player("determinized")
    assert isinstance(determinized.agent, MctsAgent) and determinized.budget == player("hard").budget
    assert player("hard", budget=7).budget == 7


def test_claims_are_made_during_a_game() -> None:
    game = get_game("freeze_factory")
    assert game is not None
    claims = 0
    for seed in range(3):
        state = game.start(3, {"turn_limit": 60}, seed)
        original_play = state.play

        def counting_play(seat: int, action: dict[str, object], play=original_play) -> None:  # type: ignore[no-untyped-def]
            nonlocal claims
            claims += action["type"] == "freeze"
            play(seat, action)

        state.play = counting_play  # type: ignore[method-assign]
        play_game(state, [player("random")] * 3, f"claims:{seed}", Tally(), 0)
        assert state.is_over()
    assert claims > 0
