"""Every game's environment, at every player count, against PettingZoo's own tests and Parlour's promises.

- PettingZoo's `api_test` and `seed_test` (and the parallel ones where a game has `parallel_env`).
- Reachability: at every decision of seeded playouts, walking every branch of the mask completes exactly the seat's
  legal engine actions (a game that cannot list them: every action it samples has a path, and random walks of the
  mask complete only actions the engine accepts).
- No leaks: the mask, the tensor and the seat chosen next are the same in every state `determinize` draws for the
  seat, so they say nothing of what it cannot see.
- Rewards are the engine's at the end; truncation comes at `max_actions`; `render_mode="ansi"` draws text.
"""

from __future__ import annotations

import itertools
import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from engine.protocol import Action, GameState, TooManyActions, action_text
from engine.registry import all_games, get_game
from engine.rng import Rng
from parlour_envs import ENVIRONMENTS, environment
from parlour_envs.aec import ParlourEnv
from parlour_envs.encoding import PASS, Encoding, observation

CASES = [
    (game_id, players)
    for game_id in ENVIRONMENTS
    for players in range(get_game(game_id).info.min_players, get_game(game_id).info.max_players + 1)  # type: ignore[union-attr]
]
IDS = [f"{game_id}-{players}p" for game_id, players in CASES]
PLAYOUTS = 3
"""Seeded playouts per game and player count for the reachability and leak checks."""
PLAYOUT_ACTIONS = 300
"""Engine actions each of those playouts is truncated at (random Freeze Factory runs to thousands)."""


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """PettingZoo's tests warn that a Dict observation 'probably should be' a Box: classic environments use Dicts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def raw(game_id: str, players: int, **kwargs: Any) -> ParlourEnv:
    env: ParlourEnv = environment(game_id).raw_env(players=players, **kwargs)
    return env


def test_every_registered_game_has_an_environment() -> None:
    assert list(ENVIRONMENTS) == [game.info.id for game in all_games()]
    for game_id, module in ENVIRONMENTS.items():
        assert module == f"{game_id}_v0"


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests_pass(game_id: str, players: int) -> None:
    module = environment(game_id)
    api_test(module.env(players=players), num_cycles=300, verbose_progress=False)
    seed_test(lambda: module.env(players=players), num_cycles=300)
    if hasattr(module, "parallel_env"):
        parallel_api_test(module.parallel_env(players=players), num_cycles=300)
        parallel_seed_test(lambda: module.parallel_env(players=players))


def completions(encoding: Encoding, state: GameState, seat: int, chosen: tuple[int, ...]) -> Iterator[Action | None]:
    """Every action reachable from `chosen` by walking every branch of the mask (None for a PASS)."""
    for token, choice in encoding.choices(state, seat, chosen).items():
        if choice is None:
            yield from completions(encoding, state, seat, (*chosen, token))
        else:
            yield None if choice is PASS else choice  # type: ignore[misc]


def decisions(env: ParlourEnv, seed: int) -> Iterator[tuple[GameState, int]]:
    """Play a seeded random episode token by token, yielding (state, seat) before each decision's first token."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        if not env.chosen:
            yield env._state(), env.possible_agents.index(env.agent_selection)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_every_legal_action_is_reachable_and_nothing_else(game_id: str, players: int) -> None:
    env = raw(game_id, players, max_actions=PLAYOUT_ACTIONS)
    sampler = Rng.from_seed("reachability")
    checked = 0
    for seed in range(PLAYOUTS):
        for state, seat in decisions(env, seed):
            try:
                legal = state.legal_actions(seat)
            except TooManyActions:  # too many to list (a split of 13 cards: about 7 * 10**11)
                for action in itertools.islice(completions(env.encoding, state, seat, ()), 300):
                    state.clone().play(seat, action)  # type: ignore[arg-type] # the engine accepts every completion
                for _ in range(20):  # every action the engine draws has a token path the mask allows
                    drawn = state.sample_action(seat, sampler)
                    assert reachable(env.encoding, state, seat, drawn), drawn
                checked += 1
                continue
            reached = list(completions(env.encoding, state, seat, ()))
            actions = [action for action in reached if action is not None]
            assert len({action_text(a) for a in actions}) == len(actions), "two token paths lead to one action"
            if None in reached and not legal:
                continue  # a claim window offered to a seat that cannot claim: PASS alone
            assert {action_text(a) for a in actions} == {action_text(a) for a in legal}
            checked += 1
    assert checked > 0


def reachable(encoding: Encoding, state: GameState, seat: int, action: Action) -> bool:
    """True when the action's tokens are offered one after another and the last completes an action with the same
    tokens (the same action, but for an order the rules leave free, as of the cards within a pile)."""
    tokens = encoding.encode(state, seat, action)
    for depth, token in enumerate(tokens):
        offered = encoding.choices(state, seat, tokens[:depth])
        if token not in offered:
            return False
        completed = offered[token]
        if depth == len(tokens) - 1:
            return isinstance(completed, dict) and encoding.encode(state, seat, completed) == tokens
    return False


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_what_a_seat_observes_does_not_change_with_what_it_cannot_see(game_id: str, players: int) -> None:
    env = raw(game_id, players, max_actions=PLAYOUT_ACTIONS)
    rng = Rng.from_seed("determinize")
    compared = 0
    for seed in range(PLAYOUTS):
        for step, (state, seat) in enumerate(decisions(env, seed)):
            if step % 3:
                continue
            seen = env.observe(env.agent_selection)
            next_seat = env.encoding.next_seat(state, env.passed)
            for _ in range(3):
                other = state.determinize(seat, rng)
                assert other.view(seat) == state.view(seat)
                tensor = observation(env.encoding, other.view(seat), seat, ())
                assert np.array_equal(tensor, seen["observation"])
                assert sorted(env.encoding.choices(other, seat, ())) == np.flatnonzero(seen["action_mask"]).tolist()
                assert env.encoding.next_seat(other, env.passed) == next_seat
                compared += 1
    assert compared > 0


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_rewards_are_the_engines_and_truncation_comes_at_max_actions(game_id: str, players: int) -> None:
    env = raw(game_id, players)
    for seed in range(PLAYOUTS):
        for _ in decisions(env, seed):
            pass
        state = env._state()
        if state.is_over():
            assert [env._cumulative_rewards[a] for a in env.possible_agents] == state.rewards()
            if get_game(game_id).info.cooperative:  # type: ignore[union-attr]
                assert len(set(state.rewards())) == 1
        else:
            assert env.actions_played == env.max_actions and all(env.truncations.values())
    short = raw(game_id, players, max_actions=3)
    for _ in decisions(short, 0):
        pass
    assert short.actions_played == 3 and all(short.truncations.values())
    assert not any(short.terminations.values())


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_ansi_render_and_view_in_infos(game_id: str, players: int) -> None:
    env = raw(game_id, players, render_mode="ansi")
    env.reset(seed=7)
    text = env.render()
    assert isinstance(text, str) and text.strip()
    for seat, agent in enumerate(env.possible_agents):
        assert env.infos[agent]["view"] == env._state().view(seat)
    for _ in decisions(env, 7):
        pass
    text = env.render()  # the finished (or truncated) table too
    assert isinstance(text, str) and text.strip()
