"""The games as OpenSpiel games (parlour_envs/openspiel.py): OpenSpiel's own checks and Parlour's promises.

- `pyspiel.random_sim_test` passes for each registered game at a few player counts.
- Chance nodes are exactly the engine's draws: fed the outcomes a seed's Rng draws, the set-up and an action give
  the engine's own states; every chance node's outcomes are equally likely, sum to 1 and fit `max_chance_outcomes`.
- Returns are the engine's rewards (zero-sum, or one shared reward in the co-operative game), 0 when truncated.
- Observations come from the seat's view: `resample_from_infostate` leaves them as they were; ISMCTS runs on them.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from engine.protocol import Action, GameState
from engine.rng import Rng
from parlour_envs.encoding import observation
from parlour_envs.openspiel import REGISTERED, SPECS, ParlourGame, ParlourState, ScriptedRng, encoding_type, load

QUICK: dict[str, dict[str, Any]] = {
    "icecream": {"turn_limit": 12},
    "freeze_factory": {"turn_limit": 6},
}
"""Options that keep a random game short where the game has no end of its own."""
CASES = [
    ("icecream", 2),
    ("rockem_sockem", 2),
    ("rockem_sockem_turn_based", 2),
    ("freeze_factory", 2),
    ("freeze_factory", 4),
    ("robots_love_ice_cream", 1),
    ("robots_love_ice_cream", 3),
    ("sundae_split", 2),
    ("sundae_split", 5),
]
IDS = [f"{name}-{players}p" for name, players in CASES]


def game(name: str, players: int, **options: Any) -> ParlourGame:
    return load(name, players=players, **{**QUICK.get(name, {}), **options})


def random_play(state: ParlourState, seed: int) -> ParlourState:
    """Play uniformly random tokens and chance outcomes to the end; check every chance node on the way."""
    rng = np.random.default_rng(seed)
    limit = state.get_game().max_chance_outcomes()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert len({p for _, p in outcomes}) == 1 and 1 < len(outcomes) <= limit
            state.apply_action(int(rng.integers(len(outcomes))))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(seat))) for seat in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_every_game_is_registered() -> None:
    assert set(REGISTERED) == set(SPECS)
    for name, spec in SPECS.items():
        assert encoding_type(spec.game) is not None
        assert f"python_parlour_{name}" in pyspiel.registered_names()


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_openspiel_random_simulation_passes(name: str, players: int) -> None:
    pyspiel.random_sim_test(game(name, players), num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_returns_are_the_engine_rewards(name: str, players: int) -> None:
    played = game(name, players)
    for seed in range(2):
        state = random_play(played.new_initial_state(), seed)
        engine = state.node.running()
        returns = state.returns()
        if state.node.truncated:
            assert returns == [0.0] * players
            continue
        assert engine.is_over() and returns == engine.rewards()
        if played.get_type().utility == pyspiel.GameType.Utility.IDENTICAL:
            assert len(set(returns)) == 1
        else:
            assert sum(returns) == pytest.approx(0.0)
        assert all(played.min_utility() <= value <= played.max_utility() for value in returns)


class Recording(Rng):
    """A real Rng that notes every draw's outcome with more than one possibility (what a chance node would be)."""

    __slots__ = ("drawn",)

    def __init__(self, state: int) -> None:
        super().__init__(state)
        self.drawn: list[int] = []

    def below(self, n: int) -> int:
        outcome = super().below(n)
        if n > 1:
            self.drawn.append(outcome)
        return outcome


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_chance_nodes_are_the_engines_draws(name: str, players: int) -> None:
    played = game(name, players)
    engine_game, options = played.rules.encoding.game, played.rules.encoding.options
    for seed in range(3):
        recording = Recording(Rng.from_seed(seed).state)
        expected = engine_game.new_state_from_rng(players, options, recording)
        state = played.new_initial_state()
        for outcome in recording.drawn:
            assert state.is_chance_node()
            state.apply_action(outcome)
        assert not state.is_chance_node()
        assert comparable(state.node.running()) == comparable(expected)
        assert comparable(engine_game.new_state(players, options, seed)) == comparable(
            engine_game.new_state_from_rng(players, options, Rng.from_seed(seed))
        )


def comparable(state: GameState) -> dict[str, Any]:
    """A state's JSON without its RNG (the scripted one has none to speak of)."""
    data = state.to_json()
    data.pop("rng", None)
    return data


def test_an_action_s_draws_are_chance_nodes_in_draw_order() -> None:
    played = game("rockem_sockem_turn_based", 2)
    state = played.new_initial_state()
    seat = state.current_player()
    engine = state.node.running()
    flip: Action = {"type": "flip"}
    for outcome in range(2):  # the coin's two sides
        chance = state.clone()
        chance.apply_action(played.rules.encoding.encode(engine, seat, flip)[0])
        assert chance.is_chance_node() and chance.chance_outcomes() == [(0, 0.5), (1, 0.5)]
        chance.apply_action(outcome)
        expected = engine.clone()
        expected.rng = ScriptedRng([outcome])
        expected.apply_trusted(seat, flip)
        assert comparable(chance.node.running()) == comparable(expected)


def test_rockem_sockem_racers_answer_at_once() -> None:
    played = game("rockem_sockem", 2)
    assert played.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    rng = np.random.default_rng(0)
    state = played.new_initial_state()
    seen = False
    while not state.is_terminal() and not seen:
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
        elif state.is_simultaneous_node():
            seen = True
            assert all(len(state.legal_actions(seat)) >= 1 for seat in (0, 1))
        else:
            state.apply_action(state.legal_actions()[0])
    assert seen


@pytest.mark.parametrize(
    ("name", "players"), [case for case in CASES if case[0] not in ("icecream", "rockem_sockem")], ids=str
)
def test_resampling_keeps_what_the_seat_observes(name: str, players: int) -> None:
    played = game(name, players)
    rng = np.random.default_rng(1)
    state = played.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    while not state.is_terminal() and checked < 30:
        if state.is_chance_node():
            state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
            continue
        seat = state.current_player()
        resampled = state.resample_from_infostate(seat, sampler)
        assert resampled.observation_string(seat) == state.observation_string(seat)
        assert resampled.observation_tensor(seat) == state.observation_tensor(seat)
        assert resampled.legal_actions() == state.legal_actions()
        checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_the_observation_tensor_is_the_environments() -> None:
    played = game("sundae_split", 3)
    state = random_play_until_decision(played.new_initial_state())
    seat, encoding = state.current_player(), played.rules.encoding
    expected = observation(encoding, state.node.running().view(seat), seat, ())
    assert np.array_equal(np.array(state.observation_tensor(seat), np.float32), expected)
    assert len(state.observation_tensor(seat)) == encoding.observation_size


def random_play_until_decision(state: ParlourState) -> ParlourState:
    rng = np.random.default_rng(2)
    while state.is_chance_node():
        state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
    return state


def test_openspiel_searchers_play_the_games() -> None:
    for name, kind in (("sundae_split", "ismcts"), ("icecream", "mcts")):
        played = game(name, 2)
        random_state = np.random.RandomState(0)
        evaluator = mcts.RandomRolloutEvaluator(1, random_state)
        bot = (
            mcts.MCTSBot(played, 2.0, 10, evaluator, random_state=random_state)
            if kind == "mcts"
            else ismcts.ISMCTSBot(played, evaluator, 2.0, 10, random_state=random_state, use_observation_string=True)
        )
        state = random_play_until_decision(played.new_initial_state())
        for _ in range(3):
            while state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            if state.is_terminal():
                break
            token = int(bot.step(state))
            assert token in state.legal_actions()
            state.apply_action(token)


def test_truncation_ends_with_zero_returns() -> None:
    played = load("icecream", max_actions=3)
    state = random_play(played.new_initial_state(), 0)
    assert state.node.truncated and state.returns() == [0.0, 0.0] and state.node.actions == 3


def test_an_interpreter_with_the_games_registered_exits_cleanly() -> None:
    code = "import parlour_envs.openspiel as o; o.load('icecream').new_initial_state()"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
