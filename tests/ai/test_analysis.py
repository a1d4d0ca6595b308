"""Analysis: exact answers agree with the solvers; searched ones are legal, ordered and blind to hidden cards."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ai.analysis import (
    TOP,
    Analysis,
    MoveLine,
    analyse,
    full_world,
    search_evaluation,
    win_shares,
)
from ai.icecream_solver import Value
from ai.perfect import rockem_move, solution_for
from engine import GameState, Result, Rng, get_game
from engine.icecream import IceCreamState
from engine.protocol import action_text
from engine.rockem_sockem import RockemSockemState
from tests.ai.tictactoe import TicTacToeState

OUTCOME_VALUE = {"win": 1.0, "draw": 0.0, "loss": -1.0}


def start(game_id: str, players: int, options: dict[str, Any], seed: int | str) -> GameState:
    game = get_game(game_id)
    assert game is not None
    return game.start(players, options, seed)


def icecream_positions(match: int) -> list[IceCreamState]:
    """Positions along one seeded random IceCream match: every fifth move, up to five (options vary by match)."""
    options: dict[str, Any] = {
        "first_player_flavour": "green" if match % 3 == 1 else "yellow",
        "turn_limit": (0, 9, 14)[match % 3],
    }
    state = start("icecream", 2, options, match)
    assert isinstance(state, IceCreamState)
    rng = Rng.from_seed(f"random-match:{match}")
    positions: list[IceCreamState] = []
    for ply in range(400):
        if state.is_over() or len(positions) == 5:
            break
        if ply % 5 == 0:
            positions.append(state.clone())
        state.play(state.to_move, state.sample_action(state.to_move, rng))
    return positions


def solver_value_after(state: IceCreamState, seat: int, action: dict[str, Any]) -> float:
    """The seat's value after a move, read from the solver's value of the next position (or the game's end)."""
    after = state.clone()
    after.play(seat, action)
    if after.is_over():
        return after.rewards()[seat]
    value = OUTCOME_VALUE[solution_for(after.options["turn_limit"]).value(after).outcome]
    return value if after.to_move == seat else -value


def assert_ordered(analysis: Analysis) -> None:
    values = [move.value for move in analysis.moves]
    assert values == sorted(values, reverse=True)
    assert 1 <= len(analysis.moves) <= TOP
    assert len({action_text(move.action) for move in analysis.moves}) == len(analysis.moves)


def replay_line(state: GameState, move: MoveLine, seat: int) -> None:
    """Play the move and its principal line on the checked path (raises if any step is illegal)."""
    after = state.clone()
    after.play(seat, move.action)
    for mover, action in move.line:
        after.play(mover, action)


@pytest.mark.parametrize("match", range(20))
def test_icecream_analysis_agrees_with_the_exact_solution(match: int) -> None:
    """The issue's test: over 20 seeded random matches, best move and win/draw/loss value are the solver's.

    ai/icecream_solver.py solves the game exactly ('stack all four of your flavour' wins, checked after
    every move); `Solution.best_action` is the perfect level's move and `Solution.value` a position's value.
    """
    positions = icecream_positions(match)
    assert positions
    for state in positions:
        seat = state.to_move
        solution = solution_for(state.options["turn_limit"])
        analysis = analyse(state, seat, 0, f"match-{match}")
        assert analysis.exact and analysis.seat == seat and analysis.iterations == 0
        assert_ordered(analysis)
        best = analysis.moves[0]
        assert best.action == solution.best_action(state)
        assert best.value == OUTCOME_VALUE[solution.value(state).outcome]
        legal = [action_text(a) for a in state.legal_actions(seat)]
        assert len(analysis.moves) == min(TOP, len(legal))
        for move in analysis.moves:
            assert move.exact and move.visits == 0 and action_text(move.action) in legal
            assert move.value == solver_value_after(state, seat, move.action)
            assert move.win_probability == (move.value + 1) / 2
            replay_line(state, move, seat)


def test_an_icecream_line_is_the_solvers_perfect_play() -> None:
    """Each step of a line is `best_action` of the position it is played in."""
    state = icecream_positions(3)[2]
    seat = state.to_move
    solution = solution_for(state.options["turn_limit"])
    move = analyse(state, seat, 0, 1).moves[0]
    after = state.clone()
    after.play(seat, move.action)
    assert move.line
    for mover, action in move.line:
        assert mover == after.to_move and action == solution.best_action(after)
        after.play(mover, action)


def test_icecream_values_decode_the_solvers_outcomes() -> None:
    """A win, a draw and a loss of the solver are values 1, 0 and -1."""
    assert [OUTCOME_VALUE[Value.from_score(s).outcome] for s in (5, 0, -5)] == [1.0, 0.0, -1.0]


def rockem_race_position(mode: str = "rounds") -> RockemSockemState:
    """A Rock'em position where seat 0 has rolled and chooses which dice to keep."""
    state = start("rockem_sockem", 2, {"mode": mode}, 11)
    assert isinstance(state, RockemSockemState)
    state.play(0, {"type": "flip"})
    state.play(0, {"type": "roll", "keep": []})
    if mode == "rounds":
        state.play(1, {"type": "roll", "keep": []})
    while state.phase != "race" or state.corners[0].dice is None:  # someone matched at once: another round
        seat = state.acting_seats()[0]
        state.play(seat, state.default_action(seat))
    return state


def test_rockem_keeps_in_rounds_mode_are_exact_race_chances() -> None:
    """ai/rockem_race.py: the best keep is the perfect level's, each keep with its chance to win the race."""
    state = rockem_race_position()
    analysis = analyse(state, 0, 100, 5)
    assert analysis.exact and analysis.iterations == 0
    assert_ordered(analysis)
    assert analysis.moves[0].action == rockem_move(state, 0)
    legal = [action_text(a) for a in state.legal_actions(0)]
    for move in analysis.moves:
        assert move.exact and action_text(move.action) in legal
        assert move.win_probability is not None and 0.0 <= move.win_probability <= 1.0
        assert move.value == pytest.approx(2 * move.win_probability - 1)


def test_rockem_flip_and_realtime_are_searched() -> None:
    """The flip is the only action (trivial, searched for its value); realtime keeps are searched, not raced."""
    flip = start("rockem_sockem", 2, {}, 3)
    analysis = analyse(flip, 0, 40, 1)
    assert not analysis.exact and [m.action for m in analysis.moves] == [{"type": "flip"}]
    assert analysis.iterations == 40
    realtime = analyse(rockem_race_position("realtime"), 0, 60, 1)
    assert not realtime.exact and not any(move.exact for move in realtime.moves)
    assert_ordered(realtime)


@pytest.mark.parametrize(
    ("game_id", "players", "options"),
    [("freeze_factory", 3, {}), ("sundae_split", 4, {}), ("robots_love_ice_cream", 2, {})],
)
def test_a_searched_analysis_is_ordered_legal_and_reports_its_progress(
    game_id: str, players: int, options: dict[str, Any]
) -> None:
    """At most five moves, best value first, all legal; progress told as the iterations double, then at the end."""
    state = start(game_id, players, options, 21)
    rng = Rng.from_seed("walk")
    for _ in range(5):
        seat = state.waiting_for()[0]
        state.play(seat, state.sample_action(seat, rng))
    seat = state.waiting_for()[0]
    told: list[Analysis] = []
    analysis = analyse(state, seat, 150, "s", progress=told.append)
    assert not analysis.exact and analysis.iterations == 150
    assert_ordered(analysis)
    for move in analysis.moves:
        state.clone().play(seat, move.action)  # legal on the checked path
        assert move.visits > 0 and not move.exact
        assert all(0 <= mover < players for mover, _ in move.line)
        cooperative = game_id == "robots_love_ice_cream"
        assert (move.win_probability is None) == cooperative
    iterations = [told_analysis.iterations for told_analysis in told]
    assert iterations == [1, 2, 4, 8, 16, 32, 64, 128, 150]
    assert told[-1] == analysis
    json.dumps(analysis.to_json())


def test_search_lines_replay_legally_and_find_the_win() -> None:
    """Tic-tac-toe (test-only, no chance, no hidden cards): X takes the win, lines replay, win% = (value + 1) / 2."""
    state = TicTacToeState.from_text("XX./OO./...")
    evaluation = search_evaluation(state, 0, 400, 1, None, None, None, False, TOP)
    analysis = evaluation.analysis()
    assert_ordered(analysis)
    assert analysis.moves[0].action == {"cell": 2}
    assert analysis.moves[0].value == 1.0 and analysis.moves[0].win_probability == 1.0
    for move in analysis.moves:
        assert move.win_probability == pytest.approx((move.value + 1) / 2)
        replay_line(state, move, 0)


def test_the_search_stops_when_told() -> None:
    """`stop()` ends the search after the first iteration."""
    state = start("freeze_factory", 2, {}, 4)
    analysis = analyse(state, state.waiting_for()[0], 500, 1, stop=lambda: True)
    assert analysis.iterations == 1


@pytest.mark.parametrize(("game_id", "players"), [("sundae_split", 3), ("freeze_factory", 3)])
def test_an_analysis_never_reads_what_the_seat_cannot_see(game_id: str, players: int) -> None:
    """Two states the seat cannot tell apart (one `determinize`d from the other) get the same analysis for a seed."""
    state = start(game_id, players, {}, 8)
    rng = Rng.from_seed("walk")
    for _ in range(4):
        actor = state.waiting_for()[0]
        state.play(actor, state.sample_action(actor, rng))
    seat = state.waiting_for()[0]
    twin = state.determinize(seat, Rng.from_seed("another deal"))
    assert twin.view(seat) == state.view(seat)
    hidden, shown = twin.to_json(), state.to_json()
    hidden.pop("rng"), shown.pop("rng")
    assert hidden != shown  # the hidden cards differ, not only the RNG
    assert analyse(state, seat, 120, "same") == analyse(twin, seat, 120, "same")


def test_a_full_information_world_keeps_the_deal_and_shuffles_the_pile() -> None:
    """Hands and removed cones stay as dealt; the pile keeps its cones in a new order; the state is not changed."""
    state = start("freeze_factory", 3, {}, 9)
    before = json.dumps(state.to_json())
    worlds = [full_world(state, Rng.from_seed(i)) for i in range(4)]
    assert json.dumps(state.to_json()) == before
    for world in worlds:
        assert world.to_json()["hands"] == state.to_json()["hands"]
        assert world.to_json()["removed"] == state.to_json()["removed"]
        assert sorted(world.to_json()["pile"]) == sorted(state.to_json()["pile"])
    assert len({tuple(world.to_json()["pile"]) for world in worlds}) > 1


def test_a_full_information_analysis_is_searched_on_the_whole_deal() -> None:
    """Full information reads the hands: it may differ from the seat's view, and it is deterministic per seed."""
    state = start("sundae_split", 3, {}, 2)
    seat = state.waiting_for()[0]
    first = analyse(state, seat, 80, "x", full_information=True)
    assert first == analyse(state, seat, 80, "x", full_information=True)
    assert_ordered(first)


def test_win_shares() -> None:
    """A winner's share of the win (ties split it); two seats' cut-off scores as (r + 1) / 2; else the leaders."""
    state = start("sundae_split", 3, {}, 1)
    state.outcome = Result.ranked_by_score([3, 3, 1], "test")
    assert win_shares(state, [0.5, 0.5, -1.0]) == [0.5, 0.5, 0.0]
    state.outcome = None
    assert win_shares(state, [0.2, 0.4, 0.4]) == [0.0, 0.5, 0.5]
    duel = start("freeze_factory", 2, {}, 1)
    assert win_shares(duel, [0.5, -0.5]) == [0.75, 0.25]


def test_an_analysis_of_a_seat_that_may_not_act_is_refused() -> None:
    """Only a seat that may act now has moves to analyse."""
    state = start("icecream", 2, {}, 1)
    with pytest.raises(ValueError, match="may not act"):
        analyse(state, 1, 10, 1)
