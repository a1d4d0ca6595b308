"""The strength benchmark rotates seats and counts results the way it reports them."""

from __future__ import annotations

from ai.strength import Tally, measure, report


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
