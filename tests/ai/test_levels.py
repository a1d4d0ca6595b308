"""Levels map names to agents, budgets and time caps; every level plays legal, repeatable moves."""

from __future__ import annotations

import pytest

from ai.ismcts import IsmctsAgent
from ai.knowledge import knowledge_for
from ai.levels import LEVELS, choose, level_named, levels_for
from ai.perfect import PERFECT_GAMES
from engine import get_game
from engine.registry import all_games


def test_levels_grow_in_effort() -> None:
    budgets = [LEVELS[name].budget for name in ("random", "easy", "medium", "hard")]
    assert budgets == sorted(budgets) and len(set(budgets)) == 4


def test_every_search_level_has_a_time_cap_of_at_most_ten_seconds() -> None:
    caps: list[float] = []
    for name in ("easy", "medium", "hard"):
        level = LEVELS[name]
        assert isinstance(level.agent, IsmctsAgent)
        assert level.time_cap is not None and 0 < level.time_cap <= 10
        caps.append(level.time_cap)
    assert caps == sorted(caps)


def test_an_unknown_level_is_refused_with_the_list() -> None:
    with pytest.raises(ValueError, match="levels: random, easy, medium, hard, perfect"):
        level_named("grandmaster")


def test_each_game_offers_the_four_levels_and_perfect_where_it_is_solved() -> None:
    offered = {game.info.id: levels_for(game.info.id) for game in all_games()}
    solved = ["random", "easy", "medium", "hard", "perfect"]
    assert offered == {game_id: solved if game_id in PERFECT_GAMES else solved[:-1] for game_id in offered}
    assert {"icecream", "rockem_sockem"} <= PERFECT_GAMES <= set(offered)


@pytest.mark.parametrize("game_id", ["icecream", "sundae_split", "freeze_factory", "rockem_sockem"])
def test_every_offered_level_plays_a_legal_repeatable_move(game_id: str) -> None:
    game = get_game(game_id)
    assert game is not None
    state = game.start(2, None, "levels")
    seat = state.waiting_for()[0]
    if game_id == "rockem_sockem":  # past the flip and the first roll, where keeps are a choice
        state.play(seat, {"type": "flip"})
        for racer in (0, 1):
            state.play(racer, {"type": "roll", "keep": []})
        seat = state.acting_seats()[0]
    for level in levels_for(game_id):
        if level == "hard" or (level, game_id) == ("perfect", "icecream"):
            continue  # hard: medium's agent with a larger budget; IceCream's perfect: tests/ai/test_perfect.py
        action = choose(state, seat, level, seed=7)
        assert choose(state, seat, level, seed=7) == action
        state.clone().play(seat, action)


def test_a_time_cap_given_to_choose_overrides_the_levels() -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, None, "cap")
    state.play(0, {"type": "move", "from_cone": 0, "scoops": 1})
    # A cap of zero stops hard after its first iteration: an answer all the same.
    action = choose(state, 1, "hard", seed=1, time_cap=0.0)
    state.clone().play(1, action)
    assert choose(state, 1, "hard", seed=1, time_cap=0.0) == IsmctsAgent(knowledge_for).choose(state, 1, 1, 1)


def test_a_stop_signal_reaches_the_levels_search() -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, None, "stop")
    state.play(0, {"type": "move", "from_cone": 0, "scoops": 1})
    # A stop that holds at once ends hard after its first iteration, as a budget of one would.
    assert choose(state, 1, "hard", seed=1, stop=lambda: True) == IsmctsAgent(knowledge_for).choose(state, 1, 1, 1)
