"""Post-game review: a thrown-away win is a blunder, a best move is not, forced moves cost nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ai.perfect import solution_for
from ai.review import BLUNDER, LICHESS, THRESHOLDS, move_accuracy, review, thresholds_for
from engine import Action, GameState, Result, Rng, get_game
from engine.icecream import IceCreamState

OPTIONS: dict[str, Any] = {"turn_limit": 12}
"""A turn limit keeps random IceCream matches short; the solver is exact under any limit."""


def icecream(seed: int) -> IceCreamState:
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, OPTIONS, seed)
    assert isinstance(state, IceCreamState)
    return state


def after_value(state: IceCreamState, action: Action) -> str:
    """The mover's win, draw or loss after a move, from the solver."""
    seat, after = state.to_move, state.clone()
    after.play(seat, action)
    if after.is_over():
        return {1.0: "win", 0.0: "draw", -1.0: "loss"}[after.rewards()[seat]]
    outcome = solution_for(OPTIONS["turn_limit"]).value(after).outcome
    return outcome if after.to_move == seat else {"win": "loss", "loss": "win", "draw": "draw"}[outcome]


def thrown_win(seed: int) -> tuple[list[tuple[int, Action]], Action, Action]:
    """Random moves up to a position whose mover wins with best play and has a losing move: (moves, best, losing)."""
    state, rng = icecream(seed), Rng.from_seed(f"review:{seed}")
    moves: list[tuple[int, Action]] = []
    solution = solution_for(OPTIONS["turn_limit"])
    while not state.is_over():
        seat = state.to_move
        if solution.value(state).outcome == "win":
            losing = [a for a in state.legal_actions(seat) if after_value(state, a) == "loss"]
            if losing:
                return moves, solution.best_action(state), losing[0]
        action = state.sample_action(seat, rng)
        moves.append((seat, action))
        state.play(seat, action)
    raise AssertionError("no thrown win in this match")


def test_a_thrown_away_win_is_a_blunder_and_the_best_move_is_not() -> None:
    """ai/icecream_solver.py: from a won position, a move after which the mover loses costs 2 and is a blunder."""
    moves, best, losing = thrown_win(1)
    mover = moves_seat(moves)
    good = review("icecream", 2, OPTIONS, 1, [*moves, (mover, best)], 50)
    bad = review("icecream", 2, OPTIONS, 1, [*moves, (mover, losing)], 50)
    played, thrown = good.moves[-1], bad.moves[-1]
    assert played.kind is None and played.loss == 0.0 and played.value_best == 1.0 == played.value_played
    assert thrown.kind == BLUNDER and thrown.loss == 2.0 and thrown.value_played == -1.0
    assert thrown.best == best
    assert good.moves[:-1] == bad.moves[:-1]
    good_accuracy, bad_accuracy = good.seats[mover].accuracy, bad.seats[mover].accuracy
    assert good_accuracy is not None and bad_accuracy is not None and bad_accuracy < good_accuracy
    assert bad.seats[mover].blunders == good.seats[mover].blunders + 1
    for result in (good, bad):
        assert len(result.evaluation) == len(result.moves) + 1
        assert result.evaluation[-2][mover] == 1.0  # the won position, before the move
    assert good.evaluation[-1][mover] == 1.0 and bad.evaluation[-1][mover] == -1.0


def moves_seat(moves: list[tuple[int, Action]]) -> int:
    """The seat to move after these moves, from the replayed state."""
    state = icecream(1)
    for seat, action in moves:
        state.play(seat, action)
    return state.to_move


def test_perfect_play_is_more_accurate_than_random_play() -> None:
    """Seat 0 plays the solver's best moves, seat 1 random ones: seat 0 loses nothing and is the more accurate."""
    state, rng = icecream(5), Rng.from_seed("random seat")
    solution = solution_for(OPTIONS["turn_limit"])
    moves: list[tuple[int, Action]] = []
    while not state.is_over():
        seat = state.to_move
        action = solution.best_action(state) if seat == 0 else state.sample_action(seat, rng)
        moves.append((seat, action))
        state.play(seat, action)
    told: list[tuple[int, int]] = []
    result = review("icecream", 2, OPTIONS, 5, moves, 50, progress=lambda done, total: told.append((done, total)))
    assert told == [(i, len(moves)) for i in range(1, len(moves) + 1)]
    perfect, randomly = result.seats
    assert perfect.accuracy == 100.0 and perfect.inaccuracies == perfect.mistakes == perfect.blunders == 0
    assert randomly.accuracy is not None and randomly.accuracy <= perfect.accuracy
    assert all(move.loss == 0.0 for move in result.moves if move.seat == 0)
    assert len(result.evaluation) == len(moves) + 1
    assert result.evaluation[0] == (0.0, 0.0) or set(result.evaluation[0]) == {1.0, -1.0}
    assert list(result.evaluation[-1]) == state.rewards()


def play_rockem(moves: int) -> tuple[GameState, list[tuple[int, Action]]]:
    game = get_game("rockem_sockem")
    assert game is not None
    state, rng = game.start(2, {}, 3), Rng.from_seed("rockem")
    log: list[tuple[int, Action]] = []
    while not state.is_over() and len(log) < moves:
        seat = state.acting_seats()[0]
        action = state.sample_action(seat, rng)
        log.append((seat, action))
        state.play(seat, action)
    return state, log


def test_forced_moves_cost_nothing_and_are_never_classed() -> None:
    """Rock'em's flip and a round's first roll are the only legal action: loss 0, no class."""
    _, log = play_rockem(12)
    result = review("rockem_sockem", 2, {}, 3, log, 30, match="m-1", versions=list(range(2, 2 * len(log) + 2, 2)))
    forced = [move for move in result.moves if move.forced]
    assert forced and all(move.kind is None and move.loss == 0.0 for move in forced)
    assert all(move.action == {"type": "flip"} for move in result.moves if move.action["type"] == "flip")
    data = result.to_json()
    assert data["match"] == "m-1" and data["budget"] == {"iterations": 30}
    assert [move["version"] for move in data["moves"]] == list(range(2, 2 * len(log) + 2, 2))
    assert set(data["moves"][0]) == {"version", "seat", "action", "best", "value_played", "value_best", "loss", "class"}
    assert data["thresholds"] == {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
    assert [set(seat) for seat in data["seats"]] == [{"seat", "accuracy", "inaccuracies", "mistakes", "blunders"}] * 2
    assert len(data["evaluation"]) == len(log) + 1 and all(len(step) == 2 for step in data["evaluation"])
    json.dumps(data)


def test_a_match_ended_by_resignation_ends_on_its_result() -> None:
    """Moves that do not end the game: the last step's evaluation is the match's result."""
    _, log = play_rockem(6)
    resigned = Result.resignation(2, 1)
    result = review("rockem_sockem", 2, {}, 3, log, 20, result=resigned)
    assert result.evaluation[-1] == (1.0, -1.0)


def test_thresholds_are_documented_and_ordered() -> None:
    """Every game's thresholds grow from inaccuracy to blunder, each with its reason; accuracy falls with the loss."""
    for thresholds in [*THRESHOLDS.values(), LICHESS]:
        assert 0 < thresholds.inaccuracy < thresholds.mistake < thresholds.blunder and thresholds.reason
        assert thresholds.classify(thresholds.inaccuracy) == "inaccuracy"
        assert thresholds.classify(thresholds.blunder) == BLUNDER
        assert thresholds.classify(0.0) is None
    assert thresholds_for("not a game") == LICHESS
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(0.2) < move_accuracy(0.1) < 100.0 and move_accuracy(2.0) == 0.0
