"""Environment steps against raw engine actions: `python -m lab.env_speed --runs 5 [--game icecream] [--episodes 20]`.

For each game (each player count with `--all-players`, else the smallest; default options) it plays the same
seeded random episodes two ways, interleaved run by run, and prints medians over the runs:

* **engine**: the loop a researcher writes on the engine itself: the seat to act, its legal actions (or one
  sampled action where a game cannot list them), its view (what it decides from), `apply_trusted`;
* **environment**: the game's PettingZoo `raw_env`: `last()` (the observation tensor, the action mask, the
  view in `infos`) and `step()` with a random legal token, until the episode ends or is truncated.

It prints engine actions per CPU second both ways (CPU time of this process, so that other work on the machine
counts less), the environment's steps per second (a decomposed action is several steps), and the cost ratio: the
environment's time per engine action over the engine's, the median of each run's pair (issue 35's target: at most
2), and the same for the environment's time per step (a step is one token: where an action is several tokens, the
agent makes several small choices for it). A benchmark that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass

import numpy as np

from engine.protocol import GameState, TooManyActions, has_action
from engine.registry import get_game
from engine.rng import Rng
from parlour_envs import ENVIRONMENTS, environment
from parlour_envs.aec import ParlourEnv


@dataclass(frozen=True)
class Run:
    """One timed pass: engine actions, environment steps and the seconds they took."""

    actions: int
    steps: int
    seconds: float


def engine_run(game_id: str, players: int, episodes: int, max_actions: int) -> Run:
    """Seeded random episodes on the engine alone."""
    game = get_game(game_id)
    assert game is not None
    actions = 0
    start = time.process_time()
    for seed in range(episodes):
        state: GameState = game.start(players, None, seed)
        rng = Rng.from_seed(seed)
        played = 0
        while not state.is_over() and played < max_actions:
            seat = next(seat for seat in state.waiting_for() if has_action(state, seat))
            try:
                action = rng.choice(state.legal_actions(seat))
            except TooManyActions:
                action = state.sample_action(seat, rng)
            state.view(seat)
            state.apply_trusted(seat, action)
            played += 1
        actions += played
    return Run(actions, actions, time.process_time() - start)


def environment_run(game_id: str, players: int, episodes: int) -> Run:
    """The same number of seeded random episodes through the environment, token by token."""
    env: ParlourEnv = environment(game_id).raw_env(players=players)
    actions = steps = 0
    start = time.process_time()
    for seed in range(episodes):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            steps += 1
        actions += env.actions_played
    return Run(actions, steps, time.process_time() - start)


def measure(game_id: str, players: int, episodes: int, runs: int) -> dict[str, float]:
    """Medians over `runs` interleaved passes of each kind."""
    max_actions = environment(game_id).raw_env(players=players).max_actions
    engine, env = [], []
    for _ in range(runs):
        engine.append(engine_run(game_id, players, episodes, max_actions))
        env.append(environment_run(game_id, players, episodes))
    engine_rate = statistics.median(run.actions / run.seconds for run in engine)
    env_rate = statistics.median(run.actions / run.seconds for run in env)
    return {
        "engine_actions": engine_rate,
        "env_actions": env_rate,
        "env_steps": statistics.median(run.steps / run.seconds for run in env),
        "ratio": statistics.median(
            (mine.seconds / mine.actions) / (theirs.seconds / theirs.actions)
            for mine, theirs in zip(env, engine, strict=True)
        ),
        "step_ratio": statistics.median(
            (mine.seconds / mine.steps) / (theirs.seconds / theirs.actions)
            for mine, theirs in zip(env, engine, strict=True)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="interleaved passes of each kind (the median is printed)")
    parser.add_argument("--episodes", type=int, default=10, help="seeded random episodes per pass")
    parser.add_argument("--game", choices=list(ENVIRONMENTS), help="one game (default: all five)")
    parser.add_argument("--all-players", action="store_true", help="every player count, not only the smallest")
    args = parser.parse_args()
    print(
        "| game | players | engine actions/s | environment actions/s | environment steps/s "
        "| cost per action | cost per step |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for game_id in [args.game] if args.game else list(ENVIRONMENTS):
        game = get_game(game_id)
        assert game is not None
        low, high = game.info.min_players, game.info.max_players
        for players in range(low, high + 1) if args.all_players else [max(low, 2) if low < 2 <= high else low]:
            figures = measure(game_id, players, args.episodes, args.runs)
            print(
                f"| {game_id} | {players} | {figures['engine_actions']:,.0f} | {figures['env_actions']:,.0f} "
                f"| {figures['env_steps']:,.0f} | {figures['ratio']:.2f} | {figures['step_ratio']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
