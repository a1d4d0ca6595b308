"""boardgame.io's IceCream (loadtests/peer) and Parlour's engine agree move by move on a few seeded games.

The benchmark measures boardgame.io serving this game, so it must be the same game: loadtests.peer_check plays
seeded random games on both sides and compares every step (player to move, legal moves, cones, turn, points,
result, refused moves). It needs node and npm (its packages are installed once into loadtests/peer/node_modules,
again only when the lockfile changes); without them the test is skipped, unless PARLOUR_REQUIRE_NODE=1 (CI),
where it fails.
"""

from __future__ import annotations

import os

import pytest

from engine.icecream import GAME, IceCreamState
from engine.icecream.game import OPTIONS
from loadtests import peer_check
from loadtests.peer_node import missing_tools

SEEDS = range(1, 13)  # both flavours, with and without a turn limit, won and drawn


@pytest.fixture(scope="module")
def node() -> None:
    """Skip without node and npm, or fail when PARLOUR_REQUIRE_NODE=1."""
    missing = missing_tools()
    if missing:
        problem = f"{' and '.join(missing)} not found (Debian: apt-get install nodejs npm)"
        if os.environ.get("PARLOUR_REQUIRE_NODE") == "1":
            pytest.fail(f"PARLOUR_REQUIRE_NODE=1 but the boardgame.io peer cannot be checked: {problem}", pytrace=False)
        pytest.skip(problem)


def test_the_peer_plays_the_engines_icecream_move_by_move(node: None) -> None:
    games, moves = peer_check.check_games(SEEDS)
    assert games == len(SEEDS) and moves > 0


def test_the_check_sees_a_different_result() -> None:
    """The comparison is not vacuous: a game over that the engine does not see is a disagreement."""
    state = GAME.new_state(2, OPTIONS.resolve({}), 0)
    assert isinstance(state, IceCreamState)
    answer = {
        "player": "0",
        "moves": [[0, 1], [1, 1]],
        "gameover": {"winner": "1"},
        "state": {"cones": list(state.cones), "turn": 1, "pointsLeft": 1},
    }
    with pytest.raises(peer_check.Disagreement, match="gameover"):
        peer_check.compare(state, answer, "a hand-made answer")
