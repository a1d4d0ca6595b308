"""Levels map names to agents and budgets; every level plays legal, repeatable moves."""

from __future__ import annotations

import pytest

from ai.levels import LEVELS, choose, level_named
from engine import get_game


def test_levels_grow_in_effort() -> None:
    budgets = [LEVELS[name].budget for name in ("random", "easy", "medium", "hard")]
    assert budgets == sorted(budgets) and len(set(budgets)) == 4


def test_an_unknown_level_is_refused_with_the_list() -> None:
    with pytest.raises(ValueError, match="levels: random, easy, medium, hard, perfect"):
        level_named("grandmaster")


@pytest.mark.parametrize("level", ["random", "easy", "medium"])
@pytest.mark.parametrize("game_id", ["icecream", "sundae_split", "rockem_sockem"])
def test_every_level_plays_a_legal_repeatable_move(level: str, game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    state = game.start(2, None, "levels")
    seat = state.waiting_for()[0]
    action = choose(state, seat, level, seed=7)
    assert choose(state, seat, level, seed=7) == action
    state.clone().play(seat, action)
