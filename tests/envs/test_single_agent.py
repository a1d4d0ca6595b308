"""The single-agent Gymnasium environment: Gymnasium's checker, seeded episodes, AI opponents that finish games, and
the learning seat's reward is the engine's."""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from ai.levels import level_move, level_named
from ai.play import ai_seed
from parlour_envs import ENVIRONMENTS, environment
from parlour_envs.encoding import PASS
from parlour_envs.single_agent import Opponent, SingleAgentEnv

QUICK: dict[str, Any] = {"turn_limit": 6}
"""IceCream ends after six turns: short episodes."""


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """Gymnasium warns of a Dict observation and of an environment made without `gymnasium.make`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def episode(env: SingleAgentEnv, seed: int, policy_seed: int = 0) -> list[tuple[Any, ...]]:
    """One episode with uniformly random legal tokens: every (observation, mask, reward, ends, view) seen."""
    rng = np.random.default_rng(policy_seed)
    observation, info = env.reset(seed=seed)
    seen: list[tuple[Any, ...]] = [(observation["observation"].tolist(), observation["action_mask"].tolist(), info)]
    done = False
    while not done:
        token = rng.choice(np.flatnonzero(observation["action_mask"]))
        observation, reward, terminated, truncated, info = env.step(token)
        seen.append(
            (
                observation["observation"].tolist(),
                observation["action_mask"].tolist(),
                reward,
                terminated,
                truncated,
                info,
            )
        )
        done = terminated or truncated
    return seen


@pytest.mark.parametrize("game_id", list(ENVIRONMENTS))
def test_gymnasium_s_checker_passes_for_every_game(game_id: str) -> None:
    check_env(SingleAgentEnv(game_id, seat=None, opponents="random"))


def test_the_checker_passes_with_a_searching_opponent_and_ansi_rendering() -> None:
    env = SingleAgentEnv("icecream", opponents=Opponent("easy", budget=5), render_mode="ansi", **QUICK)
    check_env(env)
    env.reset(seed=3)
    assert "cone 0:" in str(env.render())


@pytest.mark.parametrize("opponent", [Opponent("easy", budget=8), Opponent("random")], ids=["easy", "random"])
def test_a_seed_reproduces_an_episode(opponent: Opponent) -> None:
    first = episode(SingleAgentEnv("icecream", seat=None, opponents=opponent, **QUICK), seed=11)
    again = episode(SingleAgentEnv("icecream", seat=None, opponents=opponent, **QUICK), seed=11)
    assert first == again
    other = episode(SingleAgentEnv("icecream", seat=None, opponents=opponent, **QUICK), seed=12)
    assert other != first


def test_episodes_after_one_seeded_reset_reproduce_and_the_seat_is_drawn_per_episode() -> None:
    def seats_and_seeds() -> list[tuple[int, int]]:
        env = SingleAgentEnv("icecream", seat=None, **QUICK)
        env.reset(seed=5)
        drawn = []
        for _ in range(12):
            _, info = env.reset()
            drawn.append((info["seat"], info["episode_seed"]))
        return drawn

    drawn = seats_and_seeds()
    assert drawn == seats_and_seeds()
    assert {seat for seat, _ in drawn} == {0, 1}


@pytest.mark.parametrize("level", ["random", "easy"])
@pytest.mark.parametrize("seat", [0, 1])
def test_ai_opponents_finish_games_and_the_reward_is_the_engine_s(level: str, seat: int) -> None:
    env = SingleAgentEnv("icecream", seat=seat, opponents=Opponent(level, budget=5), **QUICK)
    for seed in range(3):
        seen = episode(env, seed=seed, policy_seed=seed)
        *_, reward, terminated, truncated, info = seen[-1]
        state = env.env.state_
        assert state is not None and terminated and not truncated and state.is_over()
        assert reward == state.rewards()[seat] == env.env.rewards[f"player_{seat}"]
        assert all(step[2] == 0.0 for step in seen[1:-1]), "nothing is paid before the end"
        assert info["seat"] == seat and info["view"] == state.view(seat)


def test_every_ai_move_is_the_level_s_choice_on_the_engine_state() -> None:
    """The AEC environment played by hand, the AI seat's moves asked of `ai.levels` with the server's seeds, ends
    where the single-agent environment did."""
    env = SingleAgentEnv("icecream", opponents={1: Opponent("easy", budget=6)}, **QUICK)
    chosen: list[int] = []
    step = env.step

    def recording(token: np.int64 | int) -> Any:
        chosen.append(int(token))
        return step(token)

    env.step = recording  # type: ignore[method-assign, assignment]
    episode(env, seed=21)
    by_hand = environment("icecream").raw_env(**QUICK)
    by_hand.reset(seed=21)
    learner = iter(chosen)
    easy = replace(level_named("easy"), budget=6, time_cap=None)
    while not by_hand.terminations["player_0"]:
        state = by_hand.state_
        if by_hand.agent_selection == "player_0":
            by_hand.step(next(learner))
            continue
        action = level_move(easy, state, 1, ai_seed("21", 1, by_hand.actions_played, "easy"))
        for token in by_hand.encoding.encode(state, 1, action):
            by_hand.step(token)
    assert by_hand.state_.to_json() == env.env.state_.to_json()  # type: ignore[union-attr]
    assert next(learner, None) is None


def test_a_token_outside_the_mask_ends_the_episode_with_the_illegal_reward() -> None:
    env = SingleAgentEnv("icecream", illegal_reward=-5.0)
    observation, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-5.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(illegal)


def test_opponents_per_seat_are_checked() -> None:
    with pytest.raises(ValueError, match="no opponent given for seat"):
        SingleAgentEnv("icecream", seat=None, opponents={1: "random"})
    with pytest.raises(ValueError, match="unknown level"):
        SingleAgentEnv("icecream", opponents="grandmaster")
    with pytest.raises(ValueError, match="not offered"):
        Opponent("perfect").resolved("sundae_split")
    with pytest.raises(ValueError, match="no seat 2"):
        SingleAgentEnv("icecream", seat=2)


def test_an_aec_environment_is_wrapped_as_it_is_built() -> None:
    module = importlib.import_module("parlour_envs.icecream_v0")
    env = SingleAgentEnv(module.env(turn_limit=4), opponents="perfect")
    assert env.env.options["turn_limit"] == 4
    seen = episode(env, seed=2)
    assert seen[-1][3] is True


def test_an_ai_seat_with_nothing_to_claim_lets_a_freeze_window_go_by() -> None:
    env = SingleAgentEnv("freeze_factory", players=3, seat=0, opponents="random", max_actions=60)
    encoding = env.env.encoding
    passes = 0
    original = env._ai_tokens

    def counting(seat: int) -> tuple[int, ...]:
        nonlocal passes
        tokens = original(seat)
        state = env.env.state_
        assert state is not None
        passes += encoding.choices(state, seat, ()).get(tokens[0]) is PASS
        return tokens

    env._ai_tokens = counting  # type: ignore[method-assign]
    for seed in range(4):
        episode(env, seed=seed)
    assert passes > 0


def test_an_episode_is_truncated_at_the_environment_s_bound() -> None:
    env = SingleAgentEnv("icecream", max_actions=5)
    *_, (_, _, reward, terminated, truncated, _) = episode(env, seed=4)
    assert (reward, terminated, truncated) == (0.0, False, True) and env.env.actions_played == 5


def test_a_time_cap_ends_a_search_whose_budget_it_would_never_reach() -> None:
    env = SingleAgentEnv("icecream", seat=1, opponents=Opponent("easy", budget=10**7, time_cap=0.05))
    started = time.perf_counter()
    env.reset(seed=0)  # seat 0, the AI, moves first
    assert 0.05 <= time.perf_counter() - started < 5.0, "it searched until the cap, and no longer"
    assert env.env.actions_played >= 1
