"""The stored IceCream table answers exactly as solving from scratch, and a bad file is refused."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import pytest

from ai.icecream_solver import HORIZON, SOLVER_VERSION, Solution, graph, solve
from ai.icecream_table import (
    DEFAULT_PATH,
    LAST_STORED_TURN,
    STATIONARY_FROM,
    SolvedTable,
    TableError,
    decode,
    depth,
    encode,
    from_bytes,
    mismatches,
    read,
    solve_fresh,
    to_bytes,
    write,
)
from ai.perfect import solution_for, stored_table
from engine import Rng, get_game
from engine.icecream.game import OPTIONS, IceCreamState


@cache
def fresh(limit: int) -> Solution:
    """Solved in this process as before the table (the limit 0 takes 12-49 s), once per module."""
    return solve_fresh(limit)


def random_games(limit: int, games: int, seed: int) -> list[IceCreamState]:
    """Every position of random games under a limit, either flavour moving first."""
    game, rng, seen = get_game("icecream"), random.Random(seed), []
    assert game is not None
    for number in range(games):
        state = game.start(2, {"turn_limit": limit, "first_player_flavour": rng.choice(["yellow", "green"])}, number)
        assert isinstance(state, IceCreamState)
        while not state.is_over():
            seen.append(state.clone())
            state.play(state.to_move, rng.choice(state.legal_actions(state.to_move)))
    return seen


def at_turns(states: list[IceCreamState], turns: Iterable[int], per_turn: int) -> list[IceCreamState]:
    """Up to `per_turn` of the states at each of `turns`, in turn order (a solution keeps few turn tables)."""
    rng = random.Random(1)
    picked = []
    for turn in sorted(turns):
        there = [s for s in states if s.turn == turn]
        picked += rng.sample(there, min(per_turn, len(there)))
    return picked


def hand_built(limit: int, turns: Iterable[int], per_turn: int, seed: int) -> list[IceCreamState]:
    """Random unstacked arrangements at the given turns, any points left, either flavour first."""
    rng, g, states = random.Random(seed), graph(), []
    unstacked = [a for i, a in enumerate(g.arrangements) if not g.flavour[i]]
    for turn in turns:
        for a, b in rng.sample(unstacked, per_turn):
            options = OPTIONS.resolve({"turn_limit": limit, "first_player_flavour": rng.choice(["yellow", "green"])})
            left = rng.randint(1, turn)
            states.append(IceCreamState(options, Rng(0), ["R" + a, "R" + b], turn, left, (turn - 1) % 2))
    return states


def assert_same_answers(stored: Solution, solved: Solution, states: list[IceCreamState]) -> None:
    """The best action and the value of every state agree."""
    assert states
    for state in states:
        where = (state.cones, state.turn, state.points_left, state.options)
        assert stored.best_action(state) == solved.best_action(state), where
        assert stored.value(state) == solved.value(state), where


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5, 6])
def test_small_limits_equal_fresh_solves_everywhere(limit: int) -> None:
    stored, solved = solution_for(limit), fresh(limit)
    assert (stored.turn_limit, stored.stationary_from, stored.unlimited) == (limit, None, False)
    assert stored.starts == solved.starts
    for turn in range(1, limit + 1):
        assert stored.rows(turn) == solved.rows(turn), turn
    assert_same_answers(stored, solved, sorted(random_games(limit, 6, limit), key=lambda s: s.turn))


def test_limit_16_answers_as_a_fresh_solve() -> None:
    stored, solved = solution_for(16), fresh(16)
    assert stored.starts == solved.starts
    assert_same_answers(stored, solved, at_turns(random_games(16, 60, 16), [1, 2, 5, 9, 16], 25))


def test_no_limit_answers_as_a_fresh_solve() -> None:
    """The game without a limit: every turn start, and positions up to turn 64 (read as turns 31/32)."""
    stored, solved = solution_for(0), fresh(0)
    assert (stored.turn_limit, stored.stationary_from, stored.unlimited) == (33, STATIONARY_FROM, True)
    assert stored.starts == solved.starts
    states = at_turns(random_games(0, 80, 0), [1, 2, 5, 13, 21, 31, 32, 33, 34, 45, 64], 20)
    assert max(s.turn for s in states) > LAST_STORED_TURN + 10
    assert_same_answers(stored, solved, states + hand_built(0, [32, 101, 100], 10, 0))


@pytest.mark.parametrize(("limit", "turns"), [(200, 4), (201, 2)])
def test_a_long_limit_near_its_end_equals_fresh_backward_induction(limit: int, turns: int) -> None:
    """The last turns of a long limit, solved here from the end, are the table's turns 31/32 read periodically."""
    stored, solved = solution_for(limit), solve(limit, STATIONARY_FROM, down_to=limit - turns + 1)
    for turn in range(limit - turns + 1, limit + 1):
        assert stored.starts[turn] == solved.starts[turn], turn
    assert_same_answers(stored, solved, hand_built(limit, [limit], 12, limit))


def test_entries_past_the_stored_depths_repeat_as_the_solver_says() -> None:
    """One turn of backward induction from the stored F(t + 1, d - 1) gives the stored F(t, d):
    at the periodic turns 31/32 just past D, and at the first depth not stored for a few turns."""
    table = stored_table()
    d0 = table.periodic_from
    cells = [(31, d0 + 2), (32, d0 + 2)] + [(t, depth(t, d0)) for t in (1, 2, 7, 15)]
    cells += [(1, d) for d in range(depth(1, d0))] + random.Random(2).sample(
        [(t, d) for t in range(2, 9) for d in range(depth(t, d0))], 6
    )
    assert mismatches(table, cells) == []


def test_a_wrong_entry_is_caught_by_the_spot_check() -> None:
    table = stored_table()
    data = bytearray(table.payload)
    data[table.offsets[3] + 1] ^= 1  # arrangement 0 in F(3, 1): byte a * depth + d of turn 3's block
    broken = SolvedTable(table.periodic_from, bytes(data))
    assert mismatches(broken, [(3, 0), (3, 1)]) == [(3, 1)]


def test_the_committed_file_is_what_serialising_its_table_gives() -> None:
    """Written by `python -m lab.solve_icecream --build`: the same bytes again, and read back equal."""
    table = stored_table()
    assert to_bytes(table) == DEFAULT_PATH.read_bytes()
    assert from_bytes(to_bytes(table)).payload == table.payload


def test_write_then_read(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "table.bin"
    assert write(stored_table(), path) == path.stat().st_size
    assert read(path).payload == stored_table().payload
    assert [p.name for p in path.parent.iterdir()] == ["table.bin"]


def test_a_missing_file_says_how_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(TableError, match=r"missing: rebuild it with `python -m lab.solve_icecream --build`"):
        read(tmp_path / "absent.bin")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: data[:-100], "corrupt"),
        (lambda data: data[:-1] + bytes([data[-1] ^ 1]), "corrupt"),
        (lambda data: b"something else\n" + data, "not an IceCream solution file"),
        (lambda data: data.replace(b'"format": 1', b'"format": 2'), "stale"),
        (lambda data: data.replace(b'"periodic_from": 0', b'"periodic_from": "x"'), "unreadable header"),
        (lambda data: data.replace(b'"periodic_from": 0', b'"periodic_from": 1'), "holds"),
    ],
)
def test_a_damaged_file_is_refused(tmp_path: Path, damage: Callable[[bytes], bytes], message: str) -> None:
    path = tmp_path / "table.bin"
    path.write_bytes(damage(DEFAULT_PATH.read_bytes()))
    with pytest.raises(TableError, match=message):
        read(path)


def test_a_table_from_another_solver_version_is_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    data = DEFAULT_PATH.read_bytes()
    monkeypatch.setattr("ai.icecream_table.SOLVER_VERSION", SOLVER_VERSION + 1)
    with pytest.raises(TableError, match="stale"):
        from_bytes(data)


def test_values_round_trip_through_one_byte() -> None:
    turn = 40
    values = [0, HORIZON - turn, -(HORIZON - turn), HORIZON - turn - 126, -(HORIZON - turn - 126)]
    assert decode(encode(values, turn), turn) == values
    assert decode(encode(values, turn), turn + 2) == [v - 2 if v > 0 else v + 2 if v < 0 else 0 for v in values]
    with pytest.raises(ValueError, match="does not fit a byte"):
        encode([HORIZON - turn - 127], turn)


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="turn limit"):
        stored_table().solution(-1)
