"""Freeze Factory's environment: FREEZE! windows that say nothing of hidden hands, every action's token, options.

The playouts here drive the encoding on engine states directly (no per-step views), so they stay fast.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from engine.freeze_factory import GAME, FreezeFactoryState
from engine.freeze_factory.board import DIRECTIONS, Line, segments
from engine.freeze_factory.components import CONES, SIZE
from engine.protocol import action_text
from engine.rng import Rng
from parlour_envs import freeze_factory_v0
from parlour_envs.encoding import PASS, observation
from parlour_envs.games.freeze_factory import (
    FREEZE_BASE,
    FULFIL_BASE,
    MAX_ACTIONS,
    PASS_TOKEN,
    SLIDE_BASE,
    FreezeFactoryEncoding,
)

PLAYERS = (2, 3, 4)


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """PettingZoo's tests warn that a Dict observation 'probably should be' a Box: classic environments use Dicts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def encoding_for(players: int, **options: object) -> FreezeFactoryEncoding:
    return FreezeFactoryEncoding(players, GAME.info.options.resolve(options))


def playout(
    encoding: FreezeFactoryEncoding, state: FreezeFactoryState, rng: random.Random, steps: int
) -> Iterator[tuple[int, dict[int, object]]]:
    """Uniformly random tokens for `steps` decisions (or to the end), yielding (seat, choices) before each."""
    passed: frozenset[int] = frozenset()
    for _ in range(steps):
        seat = encoding.next_seat(state, passed)
        if seat is None:
            return
        offered = encoding.choices(state, seat, ())
        yield seat, dict(offered)
        choice = offered[rng.choice(list(offered))]
        if choice is PASS:
            passed |= {seat}
        else:
            state.apply_trusted(seat, choice)  # type: ignore[arg-type]
            passed = frozenset()


def test_tokens_are_one_per_action_and_name_every_slide_fulfil_freeze_and_pass() -> None:
    encoding = encoding_for(3)
    assert encoding.num_actions == 5 + SIZE * SIZE * len(DIRECTIONS) + 2 * len(CONES) + 1 == PASS_TOKEN + 1
    state = GAME.start(3, {}, 0)
    seen = set()
    for space in range(SIZE * SIZE):
        for number, direction in enumerate(DIRECTIONS):
            action = {"type": "slide", "space": list(divmod(space, SIZE)), "direction": direction}
            (token,) = encoding.encode(state, 0, action)
            assert token == SLIDE_BASE + space * 4 + number and direction in encoding.token_names[token]
            seen.add(token)
    for cone in range(len(CONES)):
        assert encoding.encode(state, 0, {"type": "fulfil", "cone": cone}) == (FULFIL_BASE + cone,)
        assert encoding.encode(state, 1, {"type": "freeze", "cone": cone}) == (FREEZE_BASE + cone,)
    assert len(seen) == SIZE * SIZE * len(DIRECTIONS)
    assert encoding.token_names[PASS_TOKEN].startswith("pass")


@pytest.mark.parametrize("cone", range(len(CONES)))
def test_every_cone_can_be_fulfilled_and_frozen(cone: int) -> None:
    """A line with the cone's flavours: its slider may fulfil it, a window seat holding it may freeze it, or PASS."""
    encoding = encoding_for(3)
    state = GAME.start(3, {}, 0)
    assert isinstance(state, FreezeFactoryState)
    spaces = segments(SIZE)[0]
    line = Line(spaces, CONES[cone])
    others = [c for c in range(len(CONES)) if c != cone]
    state.phase, state.points_left, state.last_slider, state.turn_lines = "move", 2, 0, [line]
    state.hands = [[cone], [others[0]], [others[1]]]
    assert encoding.next_seat(state, frozenset()) == 1
    active = encoding.choices(state, 0, ())
    assert action_text(active[FULFIL_BASE + cone]) == action_text({"type": "fulfil", "cone": cone})  # type: ignore[arg-type]
    assert PASS_TOKEN not in active
    state.hands = [[others[0]], [others[1]], [cone]]
    assert encoding.choices(state, 1, ()) == {PASS_TOKEN: PASS}  # no claim: PASS alone
    assert encoding.next_seat(state, frozenset({1})) == 2
    claims = encoding.choices(state, 2, ())
    assert set(claims) == {FREEZE_BASE + cone, PASS_TOKEN}
    state.apply_trusted(2, claims[FREEZE_BASE + cone])  # type: ignore[arg-type]
    assert cone in state.fulfilled[2]
    assert encoding.next_seat(state, frozenset()) == 0  # the cone is fulfilled: no window while nothing is open


def test_the_window_order_does_not_depend_on_hidden_cones() -> None:
    """Two deals the public cannot tell apart, played with the same public choices: the same agents in the same order.

    The active player never rolls (no die) and never fulfils (its hand is hidden); window seats always pass. Its
    turns end by its end_turn or by its last point spent: whether a spent turn waits for a fulfil is decided on what
    everyone sees (assumption turn-end), so who acts after it is the same in every deal.
    """
    for players in (3, 4):
        encoding = encoding_for(players)
        start = GAME.start(players, {}, 11)
        sequences = []
        for deal in range(3):
            state = start.clone() if deal == 0 else start.determinize(None, Rng(deal))
            assert isinstance(state, FreezeFactoryState)
            assert state.view(None) == start.view(None)
            rng = random.Random(5)
            order, passed = [], frozenset[int]()
            for _ in range(1500):
                seat = encoding.next_seat(state, passed)
                assert seat is not None
                order.append((seat, seat != state.active))
                if seat != state.active:
                    passed |= {seat}
                    continue
                actions = [a for a in state.legal_actions(seat) if a["type"] in ("no_roll", "slide", "end_turn")]
                state.apply_trusted(seat, rng.choice(actions))
                passed = frozenset()
            sequences.append(order)
        assert sequences[0] == sequences[1] == sequences[2]
        assert sum(in_window for _, in_window in sequences[0]) > 10, "windows opened"


@pytest.mark.parametrize("players", PLAYERS)
def test_random_play_offers_exactly_the_legal_actions_and_every_kind(players: int) -> None:
    encoding = encoding_for(players)
    state = GAME.start(players, {}, players)
    assert isinstance(state, FreezeFactoryState)
    kinds: set[str] = set()
    out_of_turn = 0
    for seat, offered in playout(encoding, state, random.Random(players), 1500):
        actions = [choice for choice in offered.values() if choice is not PASS]
        assert sorted(map(action_text, actions)) == sorted(map(action_text, state.legal_actions(seat)))  # type: ignore[arg-type]
        kinds |= {choice["type"] for choice in actions}  # type: ignore[index]
        if seat != state.active:
            out_of_turn += 1
            assert PASS_TOKEN in offered and seat != state.last_slider
            assert all(token >= FREEZE_BASE for token in offered)
        else:
            assert PASS_TOKEN not in offered
    assert kinds == {"roll", "no_roll", "slide", "end_turn", "fulfil", "freeze", "take_cone", "leave_cone"}
    assert out_of_turn > 0, "a FREEZE! window opened"


def test_auto_freeze_opens_no_window_and_claims_for_the_seats() -> None:
    encoding = encoding_for(4, auto_freeze=True)
    state = GAME.start(4, {"auto_freeze": True}, 3)
    assert isinstance(state, FreezeFactoryState)
    for seat, offered in playout(encoding, state, random.Random(3), 3000):
        assert seat == state.active and PASS_TOKEN not in offered
        assert not encoding.window(state)
    assert sum(map(len, state.fulfilled)) > 0


def test_observation_is_bounded_and_blind_to_hidden_cones() -> None:
    encoding = encoding_for(3, turn_limit=400)
    low, high = encoding.bounds()
    state = GAME.start(3, {"turn_limit": 400}, 8)
    assert isinstance(state, FreezeFactoryState)
    rng = Rng(1)
    for step, (seat, _) in enumerate(playout(encoding, state, random.Random(8), 1500)):
        if step % 25:
            continue
        for viewer in range(3):
            tensor = observation(encoding, state.view(viewer), viewer, ())
            assert tensor.shape == low.shape and np.all(tensor >= low) and np.all(tensor <= high)
            other = state.determinize(viewer, rng)
            assert np.array_equal(tensor, observation(encoding, other.view(viewer), viewer, ()))
        assert encoding.next_seat(state.determinize(seat, rng), frozenset()) == encoding.next_seat(state, frozenset())


def test_options_as_keywords_truncation_and_render() -> None:
    env = freeze_factory_v0.raw_env(
        players=4,
        render_mode="ansi",
        auto_freeze=True,
        turn_limit=30,
        starting_hand=2,
        start_layout="corners",
        shuffle_start=True,
        fulfil_any_line=True,
    )
    env.reset(seed=2)
    assert env.max_actions == GAME.max_game_length(4, env.options)
    assert all(count == 2 for count in env.infos["player_0"]["view"]["hand_counts"])
    text = env.render()
    assert isinstance(text, str) and "turn 1: seat 0 to roll" in text and len(text.splitlines()) >= SIZE + 2
    assert freeze_factory_v0.raw_env(players=2).max_actions == MAX_ACTIONS
    rng = random.Random(2)
    while not (env.terminations["player_0"] or env.truncations["player_0"]):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
    state = env._state()
    assert isinstance(state, FreezeFactoryState)
    assert all(env.terminations.values()) and state.turn <= 30


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_and_seed_tests(players: int) -> None:
    api_test(freeze_factory_v0.env(players=players), num_cycles=100)
    seed_test(lambda: freeze_factory_v0.env(players=players), num_cycles=100)
    if players == PLAYERS[-1]:
        api_test(freeze_factory_v0.env(players=players, auto_freeze=True, turn_limit=20), num_cycles=100)
