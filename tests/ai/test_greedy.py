"""The greedy baseline: legal answers everywhere, seeded, fair, each game's heuristic on known positions, and
clearly stronger than random."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ai.greedy import GreedyAgent
from ai.greedy.freeze_factory import cone_distance
from engine.freeze_factory.board import index
from engine.freeze_factory.components import CONES, SIZE
from engine.freeze_factory.game import MOVE, ROLL, FreezeFactoryState
from engine.icecream.game import IceCreamState
from engine.protocol import Game, GameState, has_action
from engine.registry import all_games, get_game
from engine.rng import Rng
from engine.rockem_sockem.game import RACE, RockemSockemState
from engine.sundae_split.cards import CARDS
from engine.sundae_split.game import CHOOSE, Pile, SundaeSplitState
from lab.greedy_versus import versus_random
from tests.ai.tictactoe import TicTacToeState

GREEDY = GreedyAgent()
SHORT: dict[str, dict[str, Any]] = {"freeze_factory": {"turn_limit": 12}}


def setups() -> Iterator[tuple[Game, int, dict[str, Any]]]:
    """Every registered game at every player count (Rock'em in both modes)."""
    for game in all_games():
        for players in range(game.info.min_players, game.info.max_players + 1):
            if game.info.id == "rockem_sockem":
                yield game, players, {"mode": "rounds"}
                yield game, players, {"mode": "realtime"}
            else:
                yield game, players, SHORT.get(game.info.id, {})


SETUPS = list(setups())
SETUP_IDS = [f"{game.info.id}-{players}p-{'-'.join(map(str, options.values()))}" for game, players, options in SETUPS]


def random_playout(game: Game, players: int, options: dict[str, Any], seed: int) -> Iterator[GameState]:
    """Every position of one seeded random game, claims included, each a fresh copy."""
    state = game.start(players, options, seed)
    rng = Rng.from_seed(f"playout:{seed}")
    while not state.is_over():
        yield state.clone()
        seats = [seat for seat in state.acting_seats() if has_action(state, seat)]
        seat = rng.choice(seats)
        state.apply_trusted(seat, state.sample_action(seat, rng))


# --- legal, seeded, fair ----------------------------------------------------------------------
@pytest.mark.parametrize(("game", "players", "options"), SETUPS, ids=SETUP_IDS)
def test_every_answer_is_legal_over_random_playouts(game: Game, players: int, options: dict[str, Any]) -> None:
    answered = 0
    for seed in range(2):
        for state in random_playout(game, players, options, seed):
            for seat in state.acting_seats():
                if has_action(state, seat):
                    state.clone().play(seat, GREEDY.choose(state, seat, 0, seed))
                    answered += 1
    assert answered > 2 * players


def claim_positions(count: int) -> Iterator[tuple[FreezeFactoryState, int]]:
    """Freeze Factory positions from random 3-player games where a seat not waited for may call FREEZE!."""
    game = get_game("freeze_factory")
    assert game is not None
    found = 0
    for seed in range(40):
        state = game.start(3, {}, seed)
        assert isinstance(state, FreezeFactoryState)
        rng = Rng.from_seed(seed)
        while not state.is_over():
            for seat in state.acting_seats():
                if seat not in state.waiting_for() and has_action(state, seat):
                    yield state.clone(), seat
                    found += 1
                    if found == count:
                        return
            seat = state.waiting_for()[0]
            state.apply_trusted(seat, state.sample_action(seat, rng))


def test_freeze_is_called_whenever_a_seat_can() -> None:
    found = list(claim_positions(3))
    assert len(found) == 3
    for state, seat in found:
        action = GREEDY.choose(state, seat, 0, "claim")
        assert action["type"] == "freeze"
        state.clone().play(seat, action)


def test_a_seat_with_nothing_to_do_is_refused() -> None:
    game = get_game("freeze_factory")
    assert game is not None
    state = game.start(2, {}, 0)
    with pytest.raises(ValueError, match="FREEZE"):
        GREEDY.choose(state, 1, 0, 0)


@pytest.mark.parametrize(("game", "players", "options"), SETUPS, ids=SETUP_IDS)
def test_same_seed_same_action(game: Game, players: int, options: dict[str, Any]) -> None:
    for step, state in enumerate(random_playout(game, players, options, seed=5)):
        if step % 4 == 0:
            for seat in [seat for seat in state.acting_seats() if has_action(state, seat)]:
                assert GREEDY.choose(state.clone(), seat, 0, "same") == GREEDY.choose(state.clone(), seat, 7, "same")


@pytest.mark.parametrize(
    ("game_id", "players", "options"),
    [("sundae_split", 2, {}), ("sundae_split", 4, {}), ("freeze_factory", 3, SHORT["freeze_factory"])],
)
def test_hidden_parts_do_not_change_the_decision(game_id: str, players: int, options: dict[str, Any]) -> None:
    game = get_game(game_id)
    assert game is not None
    differs = 0
    for seed in range(2):
        for step, state in enumerate(random_playout(game, players, options, seed)):
            if step % 3:
                continue
            for seat in [seat for seat in state.acting_seats() if has_action(state, seat)]:
                other_world = state.determinize(seat, Rng.from_seed(f"world:{seed}:{step}"))
                differs += other_world.to_json() != state.to_json()
                assert GREEDY.choose(other_world, seat, 0, seed) == GREEDY.choose(state, seat, 0, seed)
    assert differs


def test_a_game_it_does_not_know_gets_a_random_legal_action() -> None:
    state = TicTacToeState.from_text("XO./.X./...")
    action = GREEDY.choose(state, 1, 0, "any")
    assert action in state.legal_actions(1)
    assert {GREEDY.choose(state, 1, 0, seed)["cell"] for seed in range(30)} == {2, 3, 5, 6, 7, 8}


# --- each game's heuristic on positions checked by hand ---------------------------------------
def icecream(cones: list[str], to_move: int, points_left: int) -> IceCreamState:
    """An IceCream position (cones bottom to top; seat 0 is yellow)."""
    options = {"first_player_flavour": "yellow", "turn_limit": 0}
    return IceCreamState(options, Rng(0), cones, turn=points_left, points_left=points_left, to_move=to_move)


def test_icecream_takes_the_win() -> None:
    # With one point, only the yellow on top of cone 1 completes yellow's four (3 points would also win from cone 0).
    state = icecream(["RGYYY", "RGRGRGY"], to_move=0, points_left=1)
    for seed in range(5):
        assert GREEDY.choose(state, 0, 0, seed) == {"type": "move", "from_cone": 1, "scoops": 1}


def test_icecream_never_stacks_the_opponents_flavour() -> None:
    # Moving the green from cone 1 would stack green's four; the other move is the only one left.
    state = icecream(["RYGGG", "RYRYRYG"], to_move=0, points_left=1)
    for seed in range(5):
        assert GREEDY.choose(state, 0, 0, seed) == {"type": "move", "from_cone": 0, "scoops": 1}


def rockem(dice: list[int], coin: str) -> RockemSockemState:
    """A race of a rounds-mode game where seat 0 has rolled these faces (see data.json)."""
    state = RockemSockemState(2, {"mode": "rounds"}, Rng(0), phase=RACE, coin=coin)
    state.corners[0].dice = list(dice)
    state.corners[1].dice = [0, 2, 4, 1]
    return state


def test_rockem_keeps_the_largest_group_of_the_coins_side() -> None:
    # Faces: 0 red punch, 1 red block, 2 blue uppercut, 3 blue punch, 4 yellow block, 5 yellow uppercut.
    assert GREEDY.choose(rockem([0, 4, 1, 0], "colour"), 0, 0, 1) == {"type": "roll", "keep": [0, 2, 3]}
    assert GREEDY.choose(rockem([0, 5, 3, 2], "icon"), 0, 0, 1) in (
        {"type": "roll", "keep": [0, 2]},
        {"type": "roll", "keep": [1, 3]},
    )
    assert GREEDY.choose(rockem([3, 5, 3, 1], "icon"), 0, 0, 1) == {"type": "roll", "keep": [0, 2]}


def freeze_position(cone: int, spaces: list[tuple[int, int]], phase: str) -> FreezeFactoryState:
    """Seat 0 holds the cone, its flavours on these spaces; the other tiles fill rows 3 and 4, away."""
    game = get_game("freeze_factory")
    assert game is not None
    state = game.start(2, {}, 0)
    assert isinstance(state, FreezeFactoryState)
    state.board = [None] * (SIZE * SIZE)
    flavours = sorted(CONES[cone])
    for flavour, (row, column) in zip(flavours, spaces, strict=True):
        state.board[index(SIZE, row, column)] = flavour
    others = [f for f in range(13) if f not in flavours]
    away = [index(SIZE, row, column) for row in (3, 4) for column in range(SIZE)]
    for flavour, space in zip(others, away, strict=False):
        state.board[space] = flavour
    state.hands = [[cone], [c for c in range(len(CONES)) if c != cone][:1]]
    state.phase, state.points_left = phase, 3 if phase == MOVE else 0
    return state


def test_freeze_factory_slides_into_line_then_fulfils() -> None:
    cone = next(c for c in range(len(CONES)) if CONES[c] & {10, 11, 12} == set())  # flavours 10-12 fill row 4
    state = freeze_position(cone, [(0, 0), (0, 1), (0, 3)], MOVE)
    assert cone_distance(state.board, cone) == 1
    assert GREEDY.choose(state, 0, 0, 0) == {"type": "slide", "space": [0, 3], "direction": "left"}
    state.play(0, {"type": "slide", "space": [0, 3], "direction": "left"})
    assert GREEDY.choose(state, 0, 0, 0) == {"type": "fulfil", "cone": cone}


def test_freeze_factory_rolls_only_when_three_points_are_too_few() -> None:
    cone = next(c for c in range(len(CONES)) if CONES[c] & {10, 11, 12} == set())
    near = freeze_position(cone, [(0, 0), (0, 1), (0, 3)], ROLL)
    far = freeze_position(cone, [(0, 4), (2, 0), (2, 2)], ROLL)
    assert cone_distance(far.board, cone) > 3
    assert GREEDY.choose(near, 0, 0, 0) == {"type": "no_roll"}
    assert GREEDY.choose(far, 0, 0, 0) == {"type": "roll"}


def card_ids(*wanted: tuple[str, int]) -> list[str]:
    """Distinct card ids, one for each (name, points)."""
    ids: list[str] = []
    for name, points in wanted:
        ids.append(next(c.id for c in CARDS if c.name == name and c.points == points and c.id not in ids))
    return ids


def test_sundae_chooser_takes_the_pile_worth_most() -> None:
    game = get_game("sundae_split")
    assert game is not None
    state = game.start(2, {}, 3)
    assert isinstance(state, SundaeSplitState)
    good = Pile(card_ids(("vanilla", 3), ("chocolate", 3), ("strawberry", 3)), [state.hand[0]])
    bad = Pile(card_ids(("broccoli", 3), ("corn", 2)), [state.hand[1]])
    state.piles, state.hand, state.phase = [bad, good], [], CHOOSE
    state.chooser = 1 - state.splitter
    for seed in range(5):
        assert GREEDY.choose(state, state.chooser, 0, seed) == {"type": "choose", "pile": 1}


# --- stronger than random ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game_id", "options", "games", "at_least"),
    [
        ("rockem_sockem", {"mode": "rounds"}, 40, 30),  # measured 100 of 100
        ("sundae_split", {}, 40, 26),  # measured 83 of 100
        ("icecream", {}, 20, 15),  # measured 99 of 100
    ],
)
def test_greedy_beats_random(game_id: str, options: dict[str, Any], games: int, at_least: int) -> None:
    tally = versus_random(game_id, 2, games, options)
    assert tally.games == games
    assert tally.wins >= at_least, f"{tally.wins}W {tally.draws}D {tally.losses}L"
