"""One turn rule, one play-out loop, one AI seed: claims first, a seeded draw among the seats waited for."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ai.play import ai_seed, claimer, next_actor, next_mover, play_out
from engine.protocol import Action, GameState
from engine.registry import get_game
from engine.rng import Rng
from tests.ai.test_agents import claim_positions
from tests.ai.test_ismcts import rockem_race


def first_action(state: GameState, seat: int, step: int) -> Action:
    return state.legal_actions(seat)[0]


def test_the_ai_seed_is_pinned_so_the_server_and_local_play_never_drift() -> None:
    # sha256 of "parlour-ai:pinned-match:1:7:easy": the seed the server's AI workers drew before ai.play existed.
    assert ai_seed("pinned-match", 1, 7, "easy") == "ec76f9ce555f6bcfe3c4886d8652ffab73fdcabdbffa439f05965d64ef1eaeb2"
    assert len({ai_seed("m", 0, 7, "easy"), ai_seed("m", 1, 7, "easy"), ai_seed("m", 0, 8, "easy")}) == 3


def test_a_claimer_acts_before_the_seat_waited_for_whatever_the_order() -> None:
    for state, seat in claim_positions(3):
        assert seat not in state.waiting_for()
        assert {next_actor(state, Rng(n)) for n in range(8)} == {claimer(state, state.waiting_for())}


def test_where_several_seats_must_act_the_order_draws_one() -> None:
    state = rockem_race("rounds")
    assert state.waiting_for() == (0, 1)
    drawn = [next_actor(state, Rng(n)) for n in range(16)]
    assert drawn == [Rng(n).choice((0, 1)) for n in range(16)]
    assert set(drawn) == {0, 1}
    state.play(0, {"type": "roll", "keep": []})
    assert next_actor(state, Rng(0)) == 1


def test_nobody_acts_once_the_game_is_over() -> None:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {"turn_limit": 4}, "over")
    assert play_out(state, first_action, "over", 1000)
    assert next_actor(state, Rng(0)) is None
    assert next_mover(state, 0, frozenset()) == (None, False)


def test_the_search_asks_a_claimer_once_and_then_the_seat_waited_for() -> None:
    state, seat = next(claim_positions(1))
    active = state.waiting_for()[0]
    assert next_mover(state, active, frozenset()) == (seat, True)
    others = frozenset(s for s in state.acting_seats() if s != active)
    assert next_mover(state, active, others) == (active, False)


def test_the_search_takes_simultaneous_seats_in_turn_after_the_last() -> None:
    state = rockem_race("realtime")
    assert next_mover(state, None, frozenset()) == (0, False)
    assert next_mover(state, 0, frozenset()) == (1, False)
    assert next_mover(state, 1, frozenset()) == (0, False)


def test_the_mover_gets_each_step_and_the_loop_stops_at_the_limit() -> None:
    game = get_game("freeze_factory")
    assert game is not None
    steps: list[int] = []

    def mover(state: GameState, seat: int, step: int) -> Action:
        steps.append(step)
        return state.sample_action(seat, Rng(step))

    assert not play_out(game.start(2, {}, "limit"), mover, "limit", 25)
    assert steps == list(range(25))


@pytest.mark.parametrize("mode", ["rounds", "realtime"])
def test_a_seed_plays_the_same_game_twice(mode: str) -> None:
    game = get_game("rockem_sockem")
    assert game is not None
    logs: list[list[tuple[int, Action]]] = []
    for _ in range(2):
        log: list[tuple[int, Action]] = []

        def mover(state: GameState, seat: int, step: int, log: list[tuple[int, Action]] = log) -> Action:
            action = state.sample_action(seat, Rng(step))
            log.append((seat, action))
            return action

        assert play_out(game.start(2, {"mode": mode}, "twice"), mover, "twice", 5000)
        logs.append(log)
    assert logs[0] == logs[1]
    assert len({seat for seat, _ in logs[0]}) == 2


def test_the_levels_play_without_the_package_baseline() -> None:
    probe = "import sys, ai.levels; print(sorted(m for m in sys.modules if m == 'mcts' or m.startswith('ai.baseline')))"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert found.strip() == "[]"
