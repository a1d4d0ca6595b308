"""The IceCream solver against brute-force minimax over the engine itself, on small limits."""

from __future__ import annotations

from functools import cache
from itertools import permutations
from typing import Any

import pytest

from ai.icecream_solver import (
    FLAVOURS,
    MOVABLE,
    Solution,
    Value,
    graph,
    move,
    solve,
    stacked_flavour,
    win_score,
)
from engine import Rng, get_game
from engine.icecream.game import OPTIONS, IceCreamState

SOLUTIONS: dict[int, Solution] = {}


def solution(limit: int) -> Solution:
    """One solve per limit for the whole module."""
    if limit not in SOLUTIONS:
        SOLUTIONS[limit] = solve(limit)
    return SOLUTIONS[limit]


def position(cones: list[str], turn: int, limit: int, points_left: int | None = None, **options: Any) -> IceCreamState:
    """A hand-built running state."""
    left = turn if points_left is None else points_left
    return IceCreamState(
        OPTIONS.resolve({"turn_limit": limit, **options}), Rng(0), list(cones), turn, left, (turn - 1) % 2
    )


def opening(limit: int, **options: Any) -> IceCreamState:
    """The setup under a turn limit."""
    game = get_game("icecream")
    assert game is not None
    state = game.start(2, {"turn_limit": limit, **options}, 0)
    assert isinstance(state, IceCreamState)
    return state


def brute(state: IceCreamState) -> int:
    """1 / 0 / -1 for the seat to move, by trying every legal action on the engine."""
    key = (tuple(state.cones), state.turn, state.points_left, state.to_move, state.options["turn_limit"])
    return _brute(key, state.options["first_player_flavour"])


@cache
def _brute(key: tuple[tuple[str, ...], int, int, int, int], first: str) -> int:
    """Memoised minimax over (cones, turn, points left, mover, limit)."""
    cones, turn, left, mover, limit = key
    state = IceCreamState(OPTIONS.resolve({"turn_limit": limit, "first_player_flavour": first}), Rng(0), list(cones))
    state.turn, state.points_left, state.to_move = turn, left, mover
    best = -1
    for action in state.legal_actions(mover):
        child = state.clone()
        child.play(mover, action)
        best = max(best, outcome(child, mover))
    return best


def outcome(state: IceCreamState, seat: int) -> int:
    """The value for `seat` of a state after one of its moves."""
    result = state.result()
    if result is not None:
        return 0 if result.is_draw else (1 if result.scores[seat] > 0 else -1)
    return brute(state) if state.to_move == seat else -brute(state)


SIGN = {"win": 1, "draw": 0, "loss": -1}

HAND_BUILT = [
    (["RYGRYG", "RGYRGY"], 2, 3),
    (["RYYYG", "RGGYRGR"], 1, 2),
    (["RYYG", "RGGYRGRY"], 2, 3),
    (["RGGRG", "RYYYRYG"], 2, 3),
    (["RYGYGYGYG", "RRR"], 3, 3),
    (["R", "RYGRYGRGYGY"], 3, 4),
]


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
@pytest.mark.parametrize("first", ["yellow", "green"])
def test_opening_matches_brute_force(limit: int, first: str) -> None:
    state = opening(limit, first_player_flavour=first)
    assert SIGN[solution(limit).value(state).outcome] == brute(state)


@pytest.mark.parametrize(("cones", "turn", "limit"), HAND_BUILT)
def test_hand_built_positions_match_brute_force(cones: list[str], turn: int, limit: int) -> None:
    for left in range(1, turn + 1):
        state = position(cones, turn, limit, left)
        assert SIGN[solution(limit).value(state).outcome] == brute(state), (cones, turn, left)


def test_every_position_two_turns_from_the_end_matches() -> None:
    """Every reachable position of the limit-3 game (all turns, all points left)."""
    state = opening(3)
    seen = 0
    frontier = [state]
    while frontier:
        current = frontier.pop()
        if current.is_over():
            continue
        seen += 1
        assert SIGN[solution(3).value(current).outcome] == brute(current)
        for action in current.legal_actions(current.to_move):
            child = current.clone()
            child.play(current.to_move, action)
            frontier.append(child)
    assert seen > 10


def wins_against_everything(state: IceCreamState, seat: int, sol: Solution) -> bool:
    """`seat` plays `best_action`; the opponent tries every reply; does `seat` always win?"""
    if state.is_over():
        result = state.result()
        assert result is not None
        return result.scores[seat] > 0 and not result.is_draw
    mover = state.to_move
    actions = [sol.best_action(state)] if mover == seat else state.legal_actions(mover)
    for action in actions:
        child = state.clone()
        child.play(mover, action)
        if not wins_against_everything(child, seat, sol):
            return False
    return True


def test_best_action_wins_every_solver_win() -> None:
    """Positions the solver calls a win (at turn 3, turn 4, or mid-turn) are won by `best_action`."""
    limit, sol, checked = 4, solution(4), 0
    for turn, left, want in [(3, 3, 3), (3, 3, 4), (2, 2, 3), (3, 1, 3), (1, 1, 3), (2, 2, 4)]:
        picked = [
            a
            for i, a in enumerate(graph().arrangements)
            if not graph().flavour[i] and sol.rows(turn)[left][i] == win_score(want)
        ][::997][:3]
        for movable in picked:
            state = position(["R" + movable[0], "R" + movable[1]], turn, limit, left)
            assert wins_against_everything(state, state.to_move, sol), (movable, turn, left)
            checked += 1
    assert checked >= 4


def test_best_action_takes_an_immediate_stack() -> None:
    # Yellow (seat 0, turn 3) stacks four by moving the top Y of cone 1 onto cone 0.
    state = position(["RGRYYY", "RGGRGY"], 3, 5)
    action = solution(5).best_action(state)
    child = state.clone()
    child.play(0, action)
    result = child.result()
    assert child.is_over() and result is not None and result.scores[0] == 1
    assert solution(5).value(state) == Value("win", 3)


def test_forced_to_stack_the_opponents_flavour_is_a_loss() -> None:
    """No legal position forces it by turn 4 (checked here), so the rule is checked on the tables:
    an arrangement whose every move stacks the opponent reads the 'no such move' sentinel."""
    sol, size = solution(4), len(graph().arrangements)
    for turn in range(1, 5):
        rows = sol.rows(turn)
        assert all(row[size] == -win_score(turn) for row in rows)
        safe = [i for i in range(size) if not graph().flavour[i]]
        assert all(rows[p][i] != -win_score(turn) for p in range(1, turn + 1) for i in safe)


def test_finished_or_other_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="turn limit"):
        solution(2).value(opening(3))


def test_graph_equals_the_plain_construction() -> None:
    """The index-arithmetic graph (whose order the stored table relies on) against string moves
    over the sorted permutations."""
    orders = sorted(set(permutations(MOVABLE)))
    arrangements = [("".join(o[:cut]), "".join(o[cut:])) for o in orders for cut in range(len(MOVABLE) + 1)]
    index = {a: i for i, a in enumerate(arrangements)}
    g = graph()
    assert g.arrangements == arrangements and g.index == index
    assert g.flavour == [stacked_flavour(a) for a in arrangements]
    for i, a in enumerate(arrangements):
        for c in (0, 1):
            for k in range(1, len(MOVABLE) + 1):
                j = index[move(a, c, k)] if k <= len(a[c]) and not g.flavour[i] else g.size
                safe = j if j == g.size or not g.flavour[j] else g.size
                assert g.targets[c, k][i] == safe, (a, c, k)
        for f in FLAVOURS:
            costs = [k for c in (0, 1) for k in range(1, len(a[c]) + 1) if stacked_flavour(move(a, c, k)) == f]
            assert g.win_cost[f][i] == (99 if g.flavour[i] or not costs else min(costs)), (a, f)


def test_every_points_left_has_a_row_past_the_stationary_turn() -> None:
    """From `stationary_from` on a turn's table serves either parity of points left (turn 5 with 4
    left reads row 4 of a table whose own budget is 3); the tiny t0 only exercises the indexing."""
    sol = solve(6, stationary_from=3)
    state = position(["RYGRYG", "RGYRGY"], 5, 6)
    for left in range(1, 6):
        sol.score(state.cones, 5, left)
    assert sol.best_action(state) in state.legal_actions(state.to_move)


def test_solve_down_to_keeps_only_the_last_turns() -> None:
    part, whole = solve(5, down_to=3), solution(5)
    assert sorted(part.starts) == [3, 4, 5]
    assert all(part.starts[t] == whole.starts[t] for t in (3, 4, 5))
